"""Version 2's official options in the exact analysis: the reference solver with `revealed` and
`player_choice` against plain full-tree minimax, the solver player, the teacher and the solve study."""

from __future__ import annotations

import json

import numpy as np
import pytest
from test_primi_composti_reference import full_minimax

import agents
from agents.primi_composti.solvers import (
    AlphaBetaV2,
    ReferenceSolver,
    action_values,
    best_action,
    card_values,
    solve_deal,
    solver_for,
    state_value,
)
from agents.primi_composti.strategies import alphabeta, score_difference
from agents.primi_composti.teacher import PrimiTeacher, depth_values
from envs.core.game import legal_mask
from envs.primi_composti import fast
from envs.primi_composti.rules import Config, PrimiCompostiGame
from evaluate.primi_composti.solve import format_study, merge_studies, solve_study

OFFICIAL = [
    {"steal_choice": "player"},
    {"allow_revealed_operand": True},
    {"steal_choice": "player", "allow_revealed_operand": True},
]
IDS = ["player", "revealed", "both"]


def _game(k, **opts):
    return PrimiCompostiGame(Config(version=2, cards_per_player=k, **opts))


def _positions(game, n, rng, plies=4):
    """`n` positions: random deals, then up to `plies` random legal actions."""
    out = []
    for _ in range(n):
        s = game.initial_state(rng)
        for _ in range(int(rng.integers(0, plies))):
            la = game.legal_actions(s)
            s = game.apply(s, la[int(rng.integers(len(la)))])
        out.append(s)
    return out


@pytest.mark.parametrize("opts", OFFICIAL, ids=IDS)
def test_official_solver_equals_full_minimax(opts):
    rng = np.random.default_rng(7)
    for k in (2, 3, 4):
        game = _game(k, **opts)
        solver = solver_for(game, tt_bits=12)
        assert isinstance(solver, ReferenceSolver) and (solver.revealed, solver.player_choice) == (
            opts.get("allow_revealed_operand", False), "steal_choice" in opts)
        for s in _positions(game, 8, rng):
            assert state_value(game, s, solver) == full_minimax(game, s)
            # Every legal action's value, and the chosen action, are exact for the mover.
            m = game.current_player(s)
            sign = 1 if m == s.first else -1
            before = sign * score_difference(s)
            vals = action_values(game, s, solver)
            assert sorted(vals) == list(game.legal_actions(s))
            for a, v in vals.items():
                assert before + v == sign * full_minimax(game, game.apply(s, a))
            assert vals[best_action(game, s, solver)] == max(vals.values())
            cards = card_values(game, s, solver)
            assert cards == {c: max(v for a, v in vals.items() if game.card_of(a) == c) for c in s.hands[m]}


# Every search option gives the same exact values (they change the speed only); a small table: collisions happen.
_SEARCH_OPTIONS = [{}, {"use_bound": False, "mtdf": False}, {"mtdf": False}, {"use_bound": False, "guess": 5}]


@pytest.mark.parametrize("opts", OFFICIAL, ids=IDS)
def test_official_search_options_equal_full_minimax(opts):
    rng = np.random.default_rng(11)
    game = _game(4, **opts)
    positions = [(s, full_minimax(game, s)) for s in _positions(game, 12, rng)]
    revealed, choice = opts.get("allow_revealed_operand", False), "steal_choice" in opts
    for so in _SEARCH_OPTIONS:
        solver = ReferenceSolver(2, tt_bits=8, revealed=revealed, player_choice=choice, **so)
        for s, exact in positions:
            assert state_value(game, s, solver) == exact, so


@pytest.mark.parametrize("opts", OFFICIAL, ids=IDS)
def test_the_official_options_change_the_game_the_solver_sees(opts):
    # The seed's solver on the same positions gives other values somewhere: the options are not ignored.
    seed_game, game = _game(4), _game(4, **opts)
    rng = np.random.default_rng(3)
    seed_solver, solver = solver_for(seed_game, tt_bits=12), solver_for(game, tt_bits=12)
    differ = 0
    for d in fast.random_decks(rng, 30, 4):
        differ += (solve_deal(seed_game, seed_game.deal(d), seed_solver).value
                   != solve_deal(game, game.deal(d), solver).value)
    assert differ > 0


def test_a_solver_of_other_rules_is_refused():
    game = _game(4, steal_choice="player")
    s = game.initial_state(np.random.default_rng(0))
    for wrong in (ReferenceSolver(2), AlphaBetaV2(tt_bits=10), ReferenceSolver(2, revealed=True, player_choice=True),
                  ReferenceSolver(1)):
        with pytest.raises(ValueError, match="solver_for"):
            state_value(game, s, wrong)
    with pytest.raises(ValueError, match="threads must be 1"):
        solver_for(game, threads=2)
    with pytest.raises(ValueError, match="num_players=3"):
        solver_for(PrimiCompostiGame(Config(num_players=3)))
    with pytest.raises(ValueError, match="version 2"):
        ReferenceSolver(1, revealed=True)
    with pytest.raises(ValueError, match="choice_values"):
        ReferenceSolver(2, player_choice=True).move_values(((2, 3), (4, 5)), ((), (), (), ()), 0)


@pytest.mark.parametrize("opts", OFFICIAL, ids=IDS)
def test_solver_player_plays_an_optimal_legal_action(opts):
    game = _game(4, **opts)
    player = agents.make("primi_composti/solver", game, np.random.default_rng(0))
    ref = solver_for(game, tt_bits=12)
    rng = np.random.default_rng(5)
    for _ in range(4):
        s = game.initial_state(rng)
        while not game.is_terminal(s):
            mask = game.legal_mask(s)
            a = player.act(game.view(s, game.current_player(s)), mask)
            vals = action_values(game, s, ref)
            assert mask[a] and vals[a] == max(vals.values())
            s = game.apply(s, a)


@pytest.mark.parametrize("opts", OFFICIAL, ids=IDS)
def test_teacher_exact_values_are_the_solvers(opts):
    game = _game(4, **opts)
    teacher = PrimiTeacher(game, np.random.default_rng(0), exact_cards=8)
    ref = solver_for(game, tt_bits=12)
    for s in _positions(game, 10, np.random.default_rng(9), plies=6):
        if game.is_terminal(s):
            continue
        mask = legal_mask(game, s)
        v = teacher.action_values(game.view(s, game.current_player(s)), mask, np.random.default_rng(0))
        assert np.isnan(v[mask == 0]).all()
        assert {int(a): int(v[a]) for a in np.flatnonzero(mask)} == action_values(game, s, ref)


@pytest.mark.parametrize("opts", OFFICIAL, ids=IDS)
def test_teacher_fallback_plays_the_action_then_the_seed_minimax(opts):
    # Before its exact endgame the teacher values an action by playing it, then both sides the seed's minimax
    # (max-steal pairs) to the horizon: the plain engine's alpha-beta computes the same.
    game = _game(5, **opts)
    depth = 3
    teacher = PrimiTeacher(game, np.random.default_rng(0), exact_cards=2, fallback_depth=depth)
    for s in _positions(game, 6, np.random.default_rng(13), plies=5):
        m = game.current_player(s)
        view = game.view(s, m)
        if sum(view.hand_sizes) <= 2:
            continue
        sign = 1 if m == s.first else -1
        mask = legal_mask(game, s)
        v = teacher.action_values(view, mask, np.random.default_rng(0))
        for a in np.flatnonzero(mask):
            child = game.apply(s, int(a))
            want = sign * (alphabeta(game, child, depth - 1, -np.inf, np.inf) - score_difference(s))
            assert v[a] == want
        if not game.player_choice:
            assert teacher.card_values(view) == depth_values(2, view, depth, revealed=True)


def test_official_solve_study_and_merge(tmp_path):
    rules = {"steal_choice": "player", "allow_revealed_operand": True}
    whole = solve_study(2, 3, 8, 0, ["greedy_rand"], rules=rules)
    assert whole["steal_choice"] == "player" and whole["allow_revealed_operand"] is True
    game = _game(3, **rules)
    decks = fast.random_decks(np.random.default_rng(0), 8, 3)
    assert [r["value"] for r in whole["per_deal"]] == [state_value(game, game.deal(d), solver_for(game)) for d in decks]
    assert whole["regret"]["greedy_rand"]["mean"] >= 0
    assert "(steal_choice='player', allow_revealed_operand=True)" in format_study(whole)
    a = solve_study(2, 3, 5, 0, [], rules=rules)
    b = solve_study(2, 3, 3, 0, [], start=5, rules=rules)
    merged = merge_studies([json.loads(json.dumps(a)), json.loads(json.dumps(b))])
    assert [r["value"] for r in merged["per_deal"]] == [r["value"] for r in whole["per_deal"]]
    assert merged["steal_choice"] == "player"
    seed = solve_study(2, 3, 3, 0, [], start=5)
    with pytest.raises(ValueError, match="steal_choice"):
        merge_studies([a, seed])


def test_solve_deals_cli_plays_the_official_options_and_refuses_others(capsys):
    from evaluate.__main__ import main

    base = ["primi_composti", "--solve-deals", "4", "--option", "version=2", "--option", "cards_per_player=3"]
    assert main(base + ["--option", "steal_choice=player", "--regret-players", ""]) == 0
    assert "(steal_choice='player')" in capsys.readouterr().out
    with pytest.raises(SystemExit) as e:
        main(base + ["--option", "num_players=3"])
    assert e.value.code == 2
    assert "num_players=3" in capsys.readouterr().err


@pytest.mark.parametrize("opts", OFFICIAL, ids=IDS)
def test_student_features_bound_to_official_rules_give_each_move_its_gains(opts):
    from agents.learned import bound_features, feature_set

    game = _game(5, **opts)
    fn = bound_features("primi_composti_v2", game)
    for s in _positions(game, 6, np.random.default_rng(17), plies=6):
        m = game.current_player(s)
        view, mask = game.view(s, m), legal_mask(game, s)
        ctx, per = fn(view, mask)
        np.testing.assert_array_equal(per[:, 0], mask)  # a row for every legal action, zeros elsewhere
        assert (per[mask == 0] == 0).all() and ctx.shape == (4,)
        sign = 1 if m == s.first else -1
        for a in np.flatnonzero(mask):
            # depth 1: the move's own gain; depth 2: then the opponent's seed-minimax reply
            for j, d in ((0, 1), (1, 2)):
                want = sign * (alphabeta(game, game.apply(s, int(a)), d - 1, -np.inf, np.inf) - score_difference(s))
                assert per[a, 4 + 3 * j] == np.float32(want / 10.0)
    if game.player_choice:
        with pytest.raises(ValueError, match="for_game"):
            feature_set("primi_composti_v2")(view, mask)


@pytest.mark.parametrize("name", ["v2_6_steal_choice", "v2_6_allow_revealed_operand",
                                  "v2_6_steal_choice_allow_revealed_operand"])
def test_stored_official_study_values_are_the_solvers(name):
    # docs/primi_composti.md's official-rules table comes from these files: their first deals solve to the stored
    # values again, and their summaries are those of their per-deal records.
    from pathlib import Path

    from evaluate.primi_composti.solve import RULES, summarize

    path = Path(__file__).resolve().parents[4] / "docs" / "data" / "primi_composti_solve_v2_official" / f"{name}.json"
    study = json.loads(path.read_text())
    rules = {k: study[k] for k in RULES}
    assert rules != RULES  # an official rule set
    game = _game(study["cards_per_player"], **rules)
    decks = fast.random_decks(np.random.default_rng(study["seed"]), 6, study["cards_per_player"])
    solver = solver_for(game, tt_bits=16)
    assert [solve_deal(game, game.deal(d), solver).value for d in decks] == [r["value"] for r in study["per_deal"][:6]]
    again = summarize(2, study["cards_per_player"], study["per_deal"])
    assert again["value_mean"] == study["value_mean"] and again["p2_wins"] == study["p2_wins"]
