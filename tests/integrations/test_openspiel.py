"""OpenSpiel on the exported games: `random_sim_test` on each; on simple poker its CFR+ and `exploitability`, checked
against our exact LP value and our exact exploitability of the same policies; an OpenSpiel policy plays in our games.

Skipped where OpenSpiel is not installed (the `openspiel` extra)."""

from __future__ import annotations

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


DECK_GAMES = ["tabletop_the_game", "tabletop_the_game(num_players=4,rules=berger2024)", "tabletop_primi_composti",
              "tabletop_primi_composti(num_players=3,cards_per_player=5,version=2)"]


@pytest.mark.parametrize("name", DECK_GAMES)
def test_deck_games_pass_random_sim_test_and_deal_as_the_engine(name):
    game = export.load(name)
    pyspiel.random_sim_test(game, num_sims=3, serialize=False, verbose=False)
    # the draws are a deck order, and the engine's own deal of that order is the state OpenSpiel plays
    game_id = name.split("(")[0][len(export.PREFIX):]
    engine = envs.make_game(game_id, **game.get_parameters())
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
