"""Exact analysis of 2-player Primi Composti (the seed's configuration): the public API.

Four exact solvers implement the `agents.search.base.Solver` protocol; they give
the same values and differ in speed:

* `ReferenceSolver` (`reference`): general alpha-beta on the engine's move code,
  both versions, any deck; the reference every other solver is tested against.
* `AlphaBetaV1` (`alphabeta_v1`): bit-board alpha-beta search for version 1.
* `AlphaBetaV2` (`alphabeta_v2`): bit-board alpha-beta search for version 2
  (what `make_solver(2)` gives).
* `RetrogradeV1` (`retrograde_v1`): version 1 by retrograde analysis, every
  state once (what `make_solver(1)` gives: a full 12-card deal in about 0.4 s).

The functions below take a plain-engine `game` and `state` and any of them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from agents.primi_composti.solvers.alphabeta_v1 import AlphaBetaV1
from agents.primi_composti.solvers.alphabeta_v2 import AlphaBetaV2
from agents.primi_composti.solvers.reference import TT_BITS, ReferenceSolver
from agents.primi_composti.solvers.retrograde_v1 import RetrogradeV1
from agents.search.base import Solver

__all__ = [
    "AlphaBetaV1", "AlphaBetaV2", "DealSolution", "ReferenceSolver", "RetrogradeV1", "Solver",
    "best_card", "card_values", "make_solver", "solve_deal", "state_value",
]


def make_solver(version: int, tt_bits: int = TT_BITS, threads: int = 1, fast: bool = True) -> Solver:
    """The fastest exact solver for `version`: `RetrogradeV1` for version 1 (every
    state once, no table: `tt_bits` is unused) and `AlphaBetaV2` for version 2
    (`threads` = 1 or 2 for both); `fast=False` gives the `ReferenceSolver`."""
    if version not in (1, 2):
        raise ValueError(f"version must be 1 or 2, got {version!r}")
    if threads != 1 and not fast:
        raise ValueError(f"threads must be 1 for the reference solver (2 threads: the fast solvers), got {threads!r}")
    if not fast:
        return ReferenceSolver(version, tt_bits=tt_bits)
    if version == 1:
        return RetrogradeV1(threads=threads)
    return AlphaBetaV2(tt_bits=tt_bits, threads=threads)


def state_value(game, state, solver: Solver | None = None) -> int:
    """Exact final score difference (first player − second) of `state` under perfect play."""
    solver = solver or ReferenceSolver(game.version)
    mover = game.current_player(state)
    rest = solver.value(state.hands, state.stacks, mover)
    if mover != state.first:
        rest = -rest
    return state.scores[state.first] - state.scores[1 - state.first] + rest


def card_values(game, state, solver: Solver | None = None) -> dict[int, int]:
    """Exact value for the mover (its gain now − the opponent's value after) of every card in hand."""
    solver = solver or ReferenceSolver(game.version)
    return solver.move_values(state.hands, state.stacks, game.current_player(state))


def best_card(game, state, solver: Solver | None = None) -> int:
    """The first card (dealt order) of optimal value."""
    vals = card_values(game, state, solver)
    best = max(vals.values())
    return next(c for c in state.hands[game.current_player(state)] if vals[c] == best)


@dataclass
class DealSolution:
    """Exact value of one deal (first player − second under perfect play) and its cost."""

    value: int
    seconds: float
    nodes: int


def solve_deal(game, state, solver: Solver | None = None) -> DealSolution:
    """Solve one dealt position from scratch (the solver's memory is cleared first)."""
    solver = solver or ReferenceSolver(game.version)
    solver.clear()
    before = solver.nodes
    t = time.perf_counter()
    v = state_value(game, state, solver)
    return DealSolution(v, time.perf_counter() - t, solver.nodes - before)
