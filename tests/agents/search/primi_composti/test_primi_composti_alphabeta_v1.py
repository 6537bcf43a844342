"""The version-1 alpha-beta search against the reference solver and plain full-tree minimax."""

from __future__ import annotations

import numpy as np
import pytest
from test_primi_composti_reference import full_minimax

from agents.primi_composti.solvers import AlphaBetaV1, ReferenceSolver, card_values, solve_deal, state_value
from envs.primi_composti import fast
from envs.primi_composti.rules import Config, PrimiCompostiGame


def random_positions(game, rng, n, max_prefix):
    out = []
    for _ in range(n):
        s = game.initial_state(rng)
        for _ in range(int(rng.integers(0, max_prefix + 1))):
            la = game.legal_actions(s)
            s = game.apply(s, la[int(rng.integers(len(la)))])
        out.append(s)
    return out


def test_equals_full_minimax():
    rng = np.random.default_rng(11)
    for k in (2, 3, 4):
        game = PrimiCompostiGame(Config(version=1, cards_per_player=k))
        solver = AlphaBetaV1(tt_bits=8)  # a tiny table: collisions and replacements happen
        for s in random_positions(game, rng, 15, 3):
            assert state_value(game, s, solver) == full_minimax(game, s)


@pytest.mark.parametrize("k", [5, 6, 7])
def test_equals_reference_solver_on_deals_and_midgame_positions(k):
    game = PrimiCompostiGame(Config(version=1, cards_per_player=k))
    rng = np.random.default_rng(k)
    ref = ReferenceSolver(1, tt_bits=18)
    fast_small = AlphaBetaV1(tt_bits=10)
    fast_big = AlphaBetaV1(tt_bits=18)
    decks = fast.random_decks(rng, 15, k)
    for d in decks:
        s = game.deal(d)
        exact = solve_deal(game, s, ref).value
        assert solve_deal(game, s, fast_big).value == exact
        assert state_value(game, s, fast_small) == exact  # table not cleared: entries of earlier deals stay valid
    for s in random_positions(game, rng, 10, 2 * k - 3):
        assert card_values(game, s, fast_big) == card_values(game, s, ref)


def test_two_threads_give_the_same_values():
    game = PrimiCompostiGame(Config(version=1, cards_per_player=7))
    one = AlphaBetaV1(tt_bits=16)
    two = AlphaBetaV1(tt_bits=16, threads=2)
    for d in fast.random_decks(np.random.default_rng(5), 8, 7):
        s = game.deal(d)
        assert solve_deal(game, s, two).value == solve_deal(game, s, one).value


def test_bad_options_and_decks_are_refused():
    with pytest.raises(ValueError, match="threads"):
        AlphaBetaV1(threads=3)
    with pytest.raises(ValueError, match="25"):
        AlphaBetaV1(tt_bits=8).value(((2, 26), (3, 4)), ((), (), (), ()), 0)


def test_split_study_merges_to_the_whole_study(tmp_path, capsys):
    from evaluate.__main__ import main
    from evaluate.primi_composti.solve import merge_studies, solve_study

    whole = solve_study(1, 5, 8, 3, [])
    parts = [solve_study(1, 5, 5, 3, []), solve_study(1, 5, 3, 3, [], start=5)]
    merged = merge_studies(parts)
    assert [r["value"] for r in merged["per_deal"]] == [r["value"] for r in whole["per_deal"]]
    assert merged["value_mean"] == whole["value_mean"] and merged["deals"] == 8
    with pytest.raises(ValueError, match="overlap"):
        merge_studies([parts[0], parts[0]])
    with pytest.raises(ValueError, match="differ"):
        merge_studies([parts[0], solve_study(2, 4, 2, 3, [])])
    # The same through the command line.
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    base = ["primi_composti", "--seed", "3", "--regret-players", "", "--option", "cards_per_player=5"]
    assert main(base + ["--solve-deals", "5", "--json", str(a)]) == 0
    assert main(base + ["--solve-deals", "3", "--solve-from", "5", "--json", str(b)]) == 0
    capsys.readouterr()
    assert main(["primi_composti", "--merge-solves", str(a), str(b)]) == 0
    assert "8 random deals solved exactly" in capsys.readouterr().out


def test_cli_refuses_a_bad_thread_count(capsys):
    from evaluate.__main__ import main

    with pytest.raises(SystemExit) as e:
        main(["primi_composti", "--solve-deals", "1", "--solve-threads", "3", "--option", "cards_per_player=4"])
    assert e.value.code == 2
    assert "--solve-threads" in capsys.readouterr().err
