"""The version-2 alpha-beta search gives exactly the values of the reference solver."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents.primi_composti.solvers import AlphaBetaV2, ReferenceSolver
from envs.primi_composti import fast
from envs.primi_composti.rules import Config, PrimiCompostiGame


def _plain_value(game, s):
    """Negamax over the plain engine: the mover's future score-difference gain."""
    if game.is_terminal(s):
        return 0
    m = game.current_player(s)
    best = -(10**9)
    for c in s.hands[m]:
        ch = game.apply(s, game.action_of(c))
        d = (ch.scores[m] - ch.scores[1 - m]) - (s.scores[m] - s.scores[1 - m])
        best = max(best, d - _plain_value(game, ch))
    return best


def _random_position(game, rng, max_plies):
    s = game.initial_state(rng)
    for _ in range(int(rng.integers(0, max_plies + 1))):
        la = game.legal_actions(s)
        s = game.apply(s, la[int(rng.integers(len(la)))])
    return s


def test_equals_plain_negamax_small():
    rng = np.random.default_rng(7)
    for k in (2, 3, 4):
        game = PrimiCompostiGame(Config(version=2, cards_per_player=k))
        solver = AlphaBetaV2(tt_bits=12)
        for _ in range(40):
            s = _random_position(game, rng, 2 * k - 1)
            m = game.current_player(s)
            assert solver.value(s.hands, s.stacks, m) == _plain_value(game, s), (s.hands, s.stacks)


def test_equals_reference_solver_random_deals():
    for k, n in ((5, 25), (6, 25), (7, 10)):
        game = PrimiCompostiGame(Config(version=2, cards_per_player=k))
        decks = fast.random_decks(np.random.default_rng(500 + k), n, k)
        ref = ReferenceSolver(2, tt_bits=18)
        new = AlphaBetaV2(tt_bits=18)
        for d in decks:
            s = game.deal(d)
            ref.clear()
            assert new.value(s.hands, s.stacks, 0) == ref.value(s.hands, s.stacks, 0)
            assert new.nodes > 0


def test_equals_reference_solver_mid_game():
    rng = np.random.default_rng(11)
    for k in (6, 7):
        game = PrimiCompostiGame(Config(version=2, cards_per_player=k))
        ref = ReferenceSolver(2, tt_bits=18)
        # One table for all positions (from 6 cards left, so that it is used): stored values stay valid across deals.
        new = AlphaBetaV2(tt_bits=18, tt_min=6)
        for _ in range(30):
            s = _random_position(game, rng, 2 * k - 2)
            m = game.current_player(s)
            ref.clear()
            assert new.value(s.hands, s.stacks, m) == ref.value(s.hands, s.stacks, m), (s.hands, s.stacks)


def test_small_table_collisions():
    # 2^8 entries: buckets are overwritten all the time; the values must not change.
    game = PrimiCompostiGame(Config(version=2, cards_per_player=6))
    decks = fast.random_decks(np.random.default_rng(3), 8, 6)
    ref = ReferenceSolver(2, tt_bits=18)
    small = AlphaBetaV2(tt_bits=8, tt_min=5)
    for d in decks:
        s = game.deal(d)
        ref.clear()
        assert small.value(s.hands, s.stacks, 0) == ref.value(s.hands, s.stacks, 0)
        small.clear()


def test_table_threshold_keeps_values():
    # The table threshold only changes the speed: from the root down, or never, the values are the same.
    game = PrimiCompostiGame(Config(version=2, cards_per_player=6))
    decks = fast.random_decks(np.random.default_rng(21), 6, 6)
    ref = ReferenceSolver(2, tt_bits=16)
    expected = []
    for d in decks:
        s = game.deal(d)
        ref.clear()
        expected.append(ref.value(s.hands, s.stacks, 0))
    for tt_min in (3, 5, 99):
        solver = AlphaBetaV2(tt_bits=12, tt_min=tt_min)
        got = []
        for d in decks:
            s = game.deal(d)
            solver.clear()
            got.append(solver.value(s.hands, s.stacks, 0))
        assert got == expected, tt_min


def test_public_tools_accept_alphabeta_v2():
    # solve_deal / card_values use the Solver protocol: `value`, `move_values`, `clear`, `nodes`.
    from agents.primi_composti.solvers import card_values, solve_deal

    game = PrimiCompostiGame(Config(version=2, cards_per_player=5))
    decks = fast.random_decks(np.random.default_rng(4), 3, 5)
    ref = ReferenceSolver(2, tt_bits=14)
    new = AlphaBetaV2(tt_bits=14)
    for d in decks:
        s = game.deal(d)
        a = solve_deal(game, s, new)
        assert a.value == solve_deal(game, s, ref).value and a.nodes > 0
        assert card_values(game, s, new) == card_values(game, s, ref)


def test_two_threads_give_the_same_values():
    # Lazy SMP: two searches share one table (written without locks); the value never changes,
    # also with a tiny table where the threads overwrite each other's entries all the time.
    game = PrimiCompostiGame(Config(version=2, cards_per_player=7))
    one = AlphaBetaV2(tt_bits=16, tt_min=6)
    for bits in (16, 6):
        two = AlphaBetaV2(tt_bits=bits, tt_min=6, threads=2)
        for d in fast.random_decks(np.random.default_rng(6), 8, 7):
            s = game.deal(d)
            assert two.value(s.hands, s.stacks, 0) == one.value(s.hands, s.stacks, 0)
            assert two.nodes > 0
    rng = np.random.default_rng(12)
    for _ in range(20):
        s = _random_position(game, rng, 12)
        m = game.current_player(s)
        assert two.value(s.hands, s.stacks, m) == one.value(s.hands, s.stacks, m), (s.hands, s.stacks)


def test_bad_thread_count_is_refused():
    with pytest.raises(ValueError, match="threads must be 1 or 2"):
        AlphaBetaV2(tt_bits=8, threads=0)


def test_cli_solves_version_2_with_two_threads(tmp_path, capsys):
    from evaluate.__main__ import main

    base = ["primi_composti", "--seed", "4", "--solve-deals", "3", "--regret-players", "", "--option", "version=2",
            "--option", "cards_per_player=5"]
    one, two = tmp_path / "one.json", tmp_path / "two.json"
    assert main(base + ["--json", str(one)]) == 0
    assert main(base + ["--solve-threads", "2", "--json", str(two)]) == 0
    assert "3 random deals solved exactly" in capsys.readouterr().out
    values = [[r["value"] for r in json.loads(p.read_text())["per_deal"]] for p in (one, two)]
    assert values[0] == values[1]
