"""Every Primi Composti solver implements the `Solver` protocol, and they agree move by move."""

from __future__ import annotations

import numpy as np
import pytest

from agents.primi_composti.solvers import (
    AlphaBetaV1,
    AlphaBetaV2,
    ReferenceSolver,
    RetrogradeV1,
    best_card,
    card_values,
    make_solver,
    solve_deal,
)
from agents.search.base import Solver
from envs.primi_composti import fast
from envs.primi_composti.rules import Config, PrimiCompostiGame


def _solvers(version):
    ref = ReferenceSolver(version, tt_bits=14)
    if version == 1:
        return [ref, AlphaBetaV1(tt_bits=14), RetrogradeV1()]
    return [ref, AlphaBetaV2(tt_bits=14, tt_min=6)]


@pytest.mark.parametrize("version", [1, 2])
def test_every_solver_is_a_solver(version):
    for solver in _solvers(version):
        assert isinstance(solver, Solver)
        assert solver.version == version and solver.threads == 1


@pytest.mark.parametrize("version", [1, 2])
def test_move_values_agree_and_nodes_accumulate(version):
    game = PrimiCompostiGame(Config(version=version, cards_per_player=5))
    rng = np.random.default_rng(40 + version)
    solvers = _solvers(version)
    for d in fast.random_decks(rng, 4, 5):
        s = game.deal(d)
        for _ in range(int(rng.integers(0, 6))):
            la = game.legal_actions(s)
            s = game.apply(s, la[int(rng.integers(len(la)))])
        mover = game.current_player(s)
        values = [solver.move_values(s.hands, s.stacks, mover) for solver in solvers]
        assert all(v == values[0] for v in values[1:]), values
        assert list(values[0]) == list(s.hands[mover])  # hand order
        # Each card's value is its gain now minus the opponent's value after it, as the engine plays it.
        for c, v in values[0].items():
            child = game.apply(s, game.action_of(c))
            gain = (child.scores[mover] - child.scores[1 - mover]) - (s.scores[mover] - s.scores[1 - mover])
            rest = 0 if game.is_terminal(child) else solvers[0].value(child.hands, child.stacks, 1 - mover)
            assert v == gain - rest
        assert card_values(game, s, solvers[-1]) == values[0]
        assert values[0][best_card(game, s, solvers[-1])] == max(values[0].values())
    for solver in solvers:
        before = solver.nodes
        assert before > 0
        solver.clear()  # forgets stored positions, keeps counting
        assert solver.nodes == before
        r = solve_deal(game, game.deal(fast.random_decks(rng, 1, 5)[0]), solver)
        assert r.nodes == solver.nodes - before > 0


def test_make_solver_options():
    assert isinstance(make_solver(1), RetrogradeV1)
    assert isinstance(make_solver(2, tt_bits=8), AlphaBetaV2)
    assert isinstance(make_solver(1, tt_bits=8, fast=False), ReferenceSolver)
    assert make_solver(1, tt_bits=8, fast=False).version == 1
    assert make_solver(2, tt_bits=8, threads=2).threads == 2
    with pytest.raises(ValueError, match="threads must be 1 for the reference solver"):
        make_solver(1, tt_bits=8, threads=2, fast=False)
    with pytest.raises(ValueError, match="version must be 1 or 2"):
        make_solver(3)
    with pytest.raises(ValueError, match="version must be 1 or 2"):
        ReferenceSolver(3, tt_bits=8)
