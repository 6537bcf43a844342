"""OpenSpiel on the exported games: `random_sim_test` on each; on simple poker its CFR+ and `exploitability`, checked
against our exact LP value and our exact exploitability of the same policies; an OpenSpiel policy plays in our games;
L.A.M.A.'s chance (deals and reshuffles by value, through the engine's `deal_from` / `reshuffle_from`) and its
history information states; RoboRally as a simultaneous-move game; bad names and options in one line.

Skipped where OpenSpiel is not installed (the `openspiel` extra); CI runs it in `.venv-openspiel`
(`.ci/setup-openspiel`)."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.algorithms import cfr, expected_game_score  # noqa: E402
from open_spiel.python.algorithms import exploitability as os_exploitability  # noqa: E402

import agents  # noqa: E402
import envs  # noqa: E402
from agents.openspiel import PolicyTableAgent  # noqa: E402
from agents.simple_poker.strategies import behaviour_of, exploitability, game_value, match_value  # noqa: E402
from envs import openspiel as export  # noqa: E402
from envs.core.play import play_game  # noqa: E402
from evaluate.stats import mean_interval  # noqa: E402

CONFIGS = [dict(n=3, ante=1.0, bet=2.0), dict(n=10, ante=1.0, bet=3.0)]


def _name(cfg):
    return "tabletop_simple_poker(" + ",".join(f"{k}={v}" for k, v in cfg.items()) + ")"


@pytest.mark.parametrize("cfg", CONFIGS, ids=str)
def test_random_sim_test_and_parameters(cfg):
    game = export.load(_name(cfg))
    assert game.get_parameters() == cfg and game.num_players() == 2
    pyspiel.random_sim_test(game, num_sims=30, serialize=False, verbose=False)
    assert pyspiel.load_game("tabletop_simple_poker").get_parameters() == {"n": 3, "ante": 1.0, "bet": 2.0}


def test_bad_names_and_options_say_so():
    with pytest.raises(ValueError, match="no OpenSpiel game 'tabletop_chess'; exported: .*tabletop_simple_poker"):
        export.load("tabletop_chess")
    with pytest.raises(Exception, match="n must be an integer"):
        export.load("tabletop_simple_poker(n=1)")


@pytest.mark.parametrize("cfg", CONFIGS, ids=str)
def test_openspiel_exploitability_equals_ours_on_our_strategies(cfg):
    """OpenSpiel's best responses on the exported tree give our exact values: the LP equilibrium is
    unexploitable and worth the LP value; a threshold strategy is exactly as exploitable as we compute."""
    game = export.load(_name(cfg))
    engine = envs.make_game("simple_poker", **cfg)
    g = game_value(cfg["n"], cfg["ante"], cfg["bet"])
    for agent_id in ("simple_poker/nash", "simple_poker/threshold?t=2"):
        agent = agents.make(agent_id, engine, np.random.default_rng(0))
        table = export.tabular_policy(game, agent.action_probs)
        ours = exploitability(engine, behaviour_of(agent, engine)).total
        assert os_exploitability.exploitability(game, table) == pytest.approx(ours, abs=1e-9)
        if agent_id.endswith("nash"):
            assert ours == pytest.approx(0.0, abs=1e-9)
            value = expected_game_score.policy_value(game.new_initial_state(), [table, table])
            assert value[0] == pytest.approx(g, abs=1e-9) and value[1] == pytest.approx(-g, abs=1e-9)


def test_cfr_plus_on_the_export_agrees_with_the_lp_and_plays_in_our_games():
    cfg = CONFIGS[0]
    game = export.load(_name(cfg))
    engine = envs.make_game("simple_poker", **cfg)
    g = game_value(cfg["n"], cfg["ante"], cfg["bet"])
    solver = cfr.CFRPlusSolver(game)
    for _ in range(300):
        solver.evaluate_and_update_policy()
    average = solver.average_policy()
    os_expl = os_exploitability.exploitability(game, average)
    learned = PolicyTableAgent(export.policy_table(average.to_tabular() if hasattr(average, "to_tabular") else average),
                               np.random.default_rng(1))
    strategy = behaviour_of(learned, engine)
    assert exploitability(engine, strategy).total == pytest.approx(os_expl, abs=1e-9)  # the same policy, two tools
    assert os_expl < 1e-3  # CFR+ has (nearly) solved it
    value = expected_game_score.policy_value(game.new_initial_state(), [average, average])[0]
    assert abs(value - g) <= 2 * os_expl + 1e-12  # a profile's value is within its NashConv of the game value
    # ... and the OpenSpiel policy plays our games: its mean against our LP equilibrium, over both seats,
    # matches the exact match value within the 95% interval of the sample
    nash = agents.make("simple_poker/nash", engine, np.random.default_rng(2))
    rng = np.random.default_rng(3)
    results = []
    for k in range(4000):
        seated = [learned, nash] if k % 2 == 0 else [nash, learned]
        returns, _, _ = play_game(engine, seated, engine.initial_state(rng))
        results.append(returns[k % 2])
    mean, low, high = mean_interval(results)
    exact = match_value(engine, strategy, behaviour_of(nash, engine))
    assert low <= exact <= high, (exact, mean, low, high)


DECK_GAMES = ["tabletop_the_game", "tabletop_the_game(players=4,rules=berger2024)", "tabletop_primi_composti",
              "tabletop_primi_composti(players=3,cards_per_player=5,version=2)"]


@pytest.mark.parametrize("name", DECK_GAMES)
def test_deck_games_pass_random_sim_test_and_deal_as_the_engine(name):
    game = export.load(name)
    pyspiel.random_sim_test(game, num_sims=3, serialize=False, verbose=False)
    # the draws are a deck order, and the engine's own deal of that order is the state OpenSpiel plays
    game_id = name.split("(")[0][len(export.PREFIX):]
    engine = envs.make_game(game_id, **export.options_of(game))
    rng = np.random.default_rng(0)
    state = game.new_initial_state()
    while state.is_chance_node():
        outcomes = [a for a, _ in state.chance_outcomes()]
        state.apply_action(int(rng.choice(outcomes)))
    order = game.chance.order(state.drawn)
    dealt = engine.deal_from(order) if game_id == "the_game" else engine.deal(order)
    assert state.engine_state == dealt and sorted(order) == sorted(game.chance.cards)
    assert not game.get_type().provides_information_state_string  # views are not perfect recall
    assert state.observation_string(0) == repr(engine.view(dealt, 0))
    assert np.array_equal(np.asarray(state.observation_tensor(0), dtype=np.float32),
                          envs.make_encoder(game_id, engine).encode(engine.view(dealt, 0)))


def _play_out(state, rng, choose=None):
    """Plays `state` to its end: chance by its probabilities, players uniformly (or by `choose(state)`); yields
    every state on the way."""
    while not state.is_terminal():
        yield state
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        elif state.is_simultaneous_node():
            state.apply_actions([int(rng.choice(state.legal_actions(p))) for p in range(state.num_players())])
        else:
            state.apply_action(int(choose(state) if choose else rng.choice(state.legal_actions())))
    yield state


LAMA_GAMES = ["tabletop_lama(players=2)",
              "tabletop_lama(rules=seed2022,players=3,target_points=15,reward=dense)"]


@pytest.mark.parametrize("name", LAMA_GAMES)
def test_lama_passes_random_sim_test(name):
    game = export.load(name)
    pyspiel.random_sim_test(game, num_sims=5, serialize=True, verbose=False)  # states pickle and replay too
    assert game.get_type().provides_information_state_string and not game.get_type().provides_information_state_tensor


def test_lama_deal_is_chance_over_values_with_the_law_of_a_shuffle_and_the_engines_deal_from():
    game = export.load("tabletop_lama(players=3)")
    engine = envs.make_game("lama", num_players=3)
    state = game.new_initial_state()
    rng = np.random.default_rng(4)
    log_p = 0.0
    while state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes())
        assert len(outcomes) <= 7 and sum(probs) == pytest.approx(1.0)
        k = int(rng.choice(len(outcomes)))
        log_p += math.log(probs[k])
        state.apply_action(int(outcomes[k]))
    # every order of the 56 values is as likely as under a uniform shuffle of the cards: 8!^7 / 56!
    assert log_p == pytest.approx(7 * math.lgamma(9) - math.lgamma(57), rel=1e-12)
    assert state.engine_state == engine.deal_from(state.drawn) and state.current_player() == 0
    assert state.observation_string(0) == repr(engine.view(state.engine_state, 0))
    assert np.array_equal(np.asarray(state.observation_tensor(1), dtype=np.float32),
                          envs.make_encoder("lama", engine).encode(engine.view(state.engine_state, 1)))


def test_lama_information_state_is_the_seats_own_history():
    """Perfect recall: a seat's information-state string only grows, and it decides the seat's view: every game
    deals seat 0 the same first card and hand (the rest of the deck and all play random), and wherever seat 0's
    information state recurs, with other hidden cards, its view is the same."""
    game = export.load("tabletop_lama(players=2)")
    rng = np.random.default_rng(5)
    seen: dict[str, str] = {}
    rounds = repeats = 0
    for _ in range(40):
        fixed = np.random.default_rng(8)  # the top card and seat 0's hand: the first 7 draws
        state = game.new_initial_state()
        last = ["", ""]
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                draw = fixed if state.engine_state.round == 0 and len(state.drawn) < 7 else rng
                state.apply_action(int(draw.choice(outcomes, p=probs)))
                continue
            for p in range(2):
                info = state.information_state_string(p)
                assert info.startswith(last[p]) and info.startswith(f"p{p} | deal r0 top ")
                last[p] = info
                if p == 0:
                    repeats += info in seen
                    assert seen.setdefault(info, state.observation_string(p)) == state.observation_string(p)
            rounds = max(rounds, state.engine_state.round)
            state.apply_action(int(rng.choice(state.legal_actions())))
        assert "scores" in last[0]
    assert rounds >= 1  # the histories crossed round ends, whose deals are chance too
    assert repeats >= 40, repeats  # seat 0's information states met again, each time with the same view


def test_lama_reshuffle_is_chance_then_the_engines_reshuffle_from():
    game = export.load("tabletop_lama(players=2,rules=seed2022)")
    engine = game.engine
    rng = np.random.default_rng(6)

    def play_then_draw(state):  # draws the pile dry, then plays onto the discard pile: a reshuffle comes
        legal = state.legal_actions()
        plays = [a for a in legal if a < 7]
        return 7 if state.engine_state.draw_pile else (plays[0] if plays else 8)

    state = game.new_initial_state()
    walk = _play_out(state, rng, play_then_draw)
    before = None
    for s in walk:
        if not s.is_chance_node() and not s.engine_state.draw_pile and 7 in s.legal_actions():
            before = s.engine_state
            s.apply_action(7)
            break
    assert before is not None, "no reshuffle reached"
    assert state.is_chance_node() and state.engine_state == before
    while state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes())
        state.apply_action(int(rng.choice(outcomes, p=probs)))
    assert sorted(state.drawn) == sorted(before.discard[:-1])
    assert state.engine_state == engine.apply(engine.reshuffle_from(before, state.drawn), 7)
    seat = before.current
    assert state.information_state_string(seat).split(" | ")[-1].startswith(f"p{seat} draw after reshuffle ")
    assert state.information_state_string(1 - seat).endswith(f"p{seat} draw after reshuffle")


ROBORALLY_GAMES = ["tabletop_roborally(board=tiny,max_turns=2)",
                   "tabletop_roborally(board=tiny,max_turns=2,action_mode=program,reward=progress,players=2)"]


@pytest.mark.parametrize("name", ROBORALLY_GAMES)
def test_roborally_is_simultaneous_and_passes_random_sim_test(name):
    game = export.load(name)
    assert game.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_roborally_rounds_are_the_engines_sub_steps_and_the_deal_only_orders_the_engines_cards():
    game = export.load("tabletop_roborally(board=tiny,max_turns=3,power_down=1)")
    engine = envs.make_game("roborally", board="tiny", max_turns=3, power_down=True)
    dealt = engine.deal(0)
    rng = np.random.default_rng(7)
    state = game.new_initial_state()
    turns = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probs)))
            if not state.is_chance_node():  # a turn dealt: the engine's cards and hand sizes, in the drawn order
                s = state.engine_state
                order = [k + 1 for k in state.drawn]  # outcome k: card k + 1
                assert sorted(order) == sorted([c for h in dealt.hands for c in h] + list(dealt.deck))
                assert [len(h) for h in s.hands] == [len(h) for h in dealt.hands]
                assert s.deck == tuple(order[sum(len(h) for h in s.hands):])
                assert state.observation_string(1) == repr(engine.view(s, 1))
                turns += 1
            continue
        s = state.engine_state
        for p in range(2):
            assert state.legal_actions(p) == np.flatnonzero(engine.seat_mask(s, p)).tolist()
        joint = [int(rng.choice(state.legal_actions(p))) for p in range(2)]
        state.apply_actions(joint)
        after = engine.apply(engine.apply(s, joint[0]), joint[1])
        if after.turn == s.turn or engine.is_terminal(after):
            assert state.engine_state == after
        else:  # the turn ran: the same robots, a new deal of the same cards to come
            assert state.is_chance_node() and state.engine_state.robots == after.robots
            dealt = after
    assert turns == 3 and state.returns() == list(engine.returns(state.engine_state))


@pytest.mark.parametrize("name, message", [
    ("tabletop_lama(players=9)", "players must be an integer in 2..6"),
    ("tabletop_lama(scoring=x)", r"scoring must be one of \['distinct', 'sum_all'\]"),
    ("tabletop_lama(return_chip=2)", r"return_chip must be 0 \(false\), 1 \(true\) or -1"),
    ("tabletop_roborally(board=nope)", "unknown board 'nope'"),
    ("tabletop_roborally(players=9)", "players must be an integer in 2..")])
def test_bad_lama_and_roborally_options_say_so_in_one_line(name, message):
    with pytest.raises(ValueError, match=message) as info:
        export.load(name)
    assert len(str(info.value).splitlines()) == 1


def test_preset_options_stay_the_presets_and_booleans_read_as_such():
    assert export.load("tabletop_lama(rules=seed2022)").engine.config == envs.make_game("lama", rules="seed2022").config
    game = export.load("tabletop_lama(rules=seed2022,return_chip=True)")
    assert game.engine.config.return_chip is True and game.engine.config.empty_deck == "reshuffle_seed"
    assert export.options_of(game) == {"num_players": 4, "rules": "seed2022", "return_chip": True, "reward": "win"}


def test_openspiel_algorithms_run_on_the_lama_and_roborally_exports():
    """OpenSpiel's own tools on the new exports: outcome-sampling MCCFR over L.A.M.A.'s information-state strings
    (its average policy: a distribution over the legal actions at a state it met), and RoboRally through
    OpenSpiel's turn-based transform of simultaneous games."""
    from open_spiel.python.algorithms import outcome_sampling_mccfr

    game = export.load("tabletop_lama(players=2,target_points=10)")
    solver = outcome_sampling_mccfr.OutcomeSamplingSolver(game)
    for _ in range(50):
        solver.iteration()
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    probs = solver.average_policy().action_probabilities(state)
    assert sorted(probs) == state.legal_actions() and sum(probs.values()) == pytest.approx(1.0)
    turn_based = pyspiel.convert_to_turn_based(export.load("tabletop_roborally(board=tiny,max_turns=2)"))
    pyspiel.random_sim_test(turn_based, num_sims=2, serialize=False, verbose=False)


# --- OpenSpiel's own game checks, run on the export as on OpenSpiel's games ------------------------------------------
#: Every exported game on a small budget (RoboRally on its tiny board, two turns; L.A.M.A. to 10 points), and a
#: second variant each with another player count (OpenSpiel's `players`).
OWN_CHECK_GAMES = ["tabletop_simple_poker", "tabletop_simple_poker(n=10,bet=3.0)",
                   "tabletop_the_game", "tabletop_the_game(players=3,rules=berger2024)",
                   "tabletop_primi_composti", "tabletop_primi_composti(players=3,cards_per_player=5)",
                   "tabletop_lama(players=2,target_points=10)", "tabletop_lama(players=4,target_points=10)",
                   "tabletop_roborally(board=tiny,max_turns=2)",
                   "tabletop_roborally(board=express,max_turns=2,action_mode=program,players=3)"]


def _sim_test():
    from open_spiel.python.tests import games_sim_test

    return games_sim_test.GamesSimTest()  # OpenSpiel's own sim test (unittest's runTest name: no test method run)


def _game_info(short_name):
    return next(g for g in pyspiel.registered_games() if g.short_name == short_name)


@pytest.mark.parametrize("name", OWN_CHECK_GAMES)
def test_openspiels_own_sim_test_pickles_serialises_clones_and_replays(name):
    """OpenSpiel's `games_sim_test.sim_game`: the game and its type pickle; along a random game, every state
    serialises (`serialize_game_and_state`) and pickles back to the same state, `clone()` keeps `history()`."""
    game = export.load(name)
    for _ in range(3):
        _sim_test().sim_game(game)
    state = game.new_initial_state()
    for _ in _play_out(state, np.random.default_rng(0)):  # plays `state` to its end
        pass
    assert state.history() and all(isinstance(a, int) for a in state.history())  # pyspiel's own, not hidden
    assert str(pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))[1]) == str(state)
    back = pickle.loads(pickle.dumps(game))
    assert type(back) is type(game) and back.get_parameters() == game.get_parameters()


@pytest.mark.parametrize("short", sorted(export.REGISTERED))
def test_openspiels_own_multiplayer_and_turn_based_tests(short):
    """What `games_sim_test`'s parametrised tests do for each registered game (its `test_game_sim`,
    `test_multiplayer_game`, `test_simultaneous_game_as_turn_based`), with its own `sim_game`: the default game,
    every player count it tries through `players` (2..6 within the declared range; not simple poker, two-player
    only), and a simultaneous game as turn-based. RoboRally on small boards (its default is a full race)."""
    info = _game_info(short)
    sim = _sim_test()
    small = {"board": "repair", "max_turns": 2} if short == "tabletop_roborally" else {}
    game = pyspiel.load_game(short, small)
    assert info.min_num_players <= game.num_players() <= info.max_num_players
    sim.sim_game(game)
    tried = 0
    varies = info.max_num_players > 2 and info.max_num_players > info.min_num_players  # OpenSpiel's own condition
    for p in range(max(info.min_num_players, 2), 1 + min(info.max_num_players, 6)) if varies else ():
        try:
            game = pyspiel.load_game(short, {**small, "players": p})
        except ValueError as e:  # outside the default rules' (board's) range: said by OpenSpiel's name
            assert "players must be an integer in" in str(e), e
            continue
        assert game.num_players() == p
        sim.sim_game(game)
        tried += 1
    assert tried >= (0 if short == "tabletop_simple_poker" else 2)
    if info.dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS:
        sim.sim_game(pyspiel.load_game_as_turn_based(short, small))


@pytest.mark.parametrize("name", OWN_CHECK_GAMES[::2])
def test_openspiels_own_api_test_on_sampled_states(name):
    """OpenSpiel's integration `api_test` (`EnforceAPIOnPartialTreeBase`, which OpenSpiel runs on every registered
    game) on 400 sampled states: sequence lengths, observations refuse a bad player, legal actions empty for the
    seats not to act, private and public observations."""
    import unittest

    from open_spiel.integration_tests import api_test

    case = type("ExportApiTest", (api_test.EnforceAPIOnPartialTreeBase,),
                {"game": export.load(name), "game_name": name})
    result = unittest.TestResult()
    unittest.defaultTestLoader.loadTestsFromTestCase(case).run(result)
    assert result.testsRun >= 5 and result.wasSuccessful(), [str(e) for _, e in result.failures + result.errors]


@pytest.mark.parametrize("name", OWN_CHECK_GAMES[::2])
def test_generate_playthrough_runs_and_replays_the_same(name, tmp_path):
    """OpenSpiel's `generate_playthrough` (the playthrough files of its own test suite): a seeded playthrough of
    the whole game, written and replayed (`replay`, as OpenSpiel's `playthrough_test` does) to the same text."""
    from absl import flags
    from open_spiel.python.algorithms import generate_playthrough

    if not flags.FLAGS.is_parsed():  # the module reads an absl flag (--playthough_use_action_ids, its default)
        flags.FLAGS.mark_as_parsed()
    text = generate_playthrough.playthrough(name, None, seed=7)
    assert "History() = " in text and "IsTerminal() = True" in text
    path = tmp_path / "play.txt"
    path.write_text(text)
    original, again = generate_playthrough.replay(str(path))
    assert original == again


@pytest.mark.parametrize("solver_name", ["outcome_sampling", "external_sampling"])
def test_policy_table_converts_mccfrs_average_policy(solver_name):
    """`policy_table` of MCCFR's `AveragePolicy` (not tabular: OpenSpiel's `to_tabular` makes it so): the table's
    probabilities are the policy's own at every information state, and the table plays in our games."""
    from open_spiel.python.algorithms import external_sampling_mccfr, outcome_sampling_mccfr

    game = export.load(_name(CONFIGS[0]))
    solver = (outcome_sampling_mccfr.OutcomeSamplingSolver(game) if solver_name == "outcome_sampling"
              else external_sampling_mccfr.ExternalSamplingSolver(game))
    for _ in range(300):
        solver.iteration()
    average = solver.average_policy()
    assert not hasattr(average, "state_lookup")
    table = export.policy_table(average)
    checked = 0
    for state in export.decision_states(game):
        probs = average.action_probabilities(state)
        row = table[state.information_state_string()]
        assert row[list(probs)] == pytest.approx(list(probs.values())) and row.sum() == pytest.approx(1.0)
        checked += 1
    assert checked > len(table) >= 6
    engine = envs.make_game("simple_poker", **CONFIGS[0])
    learned = PolicyTableAgent(table, np.random.default_rng(0))
    play_game(engine, [learned, agents.make("simple_poker/nash", engine, np.random.default_rng(1))],
              engine.initial_state(np.random.default_rng(2)))
    with pytest.raises(ValueError, match="policy_table needs an OpenSpiel policy"):
        export.policy_table({"not": "a policy"})


def test_the_player_count_is_openspiels_players():
    assert "players" in pyspiel.load_game("tabletop_lama").get_parameters()
    assert "num_players" not in pyspiel.load_game("tabletop_lama").get_parameters()
    for short, option in (("tabletop_lama", "num_players"), ("tabletop_the_game", "num_players"),
                          ("tabletop_primi_composti", "num_players"), ("tabletop_roborally", "num_robots")):
        extra = ",board=repair" if short == "tabletop_roborally" else ""
        game = pyspiel.load_game(f"{short}(players=3{extra})")
        assert game.num_players() == 3 and export.options_of(game)[option] == 3
        assert game.engine.num_players == 3
    assert "players" not in pyspiel.load_game("tabletop_simple_poker").get_parameters()  # two players, no option
