"""Exact analysis of 2-player Primi Composti (the seed's rules and the official options): the public API.

Four exact solvers of the `agents.search.base.Solver` protocol give the same values at different speeds:
`ReferenceSolver` (general, both versions, the official options; the reference the others are tested against),
`AlphaBetaV1`, `AlphaBetaV2` (`make_solver(2)`) and `RetrogradeV1` (`make_solver(1)`). `solver_for(game)` picks
one for a plain-engine game; the functions below take a game, a state and such a solver.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from agents.primi_composti.solvers.alphabeta_v1 import AlphaBetaV1
from agents.primi_composti.solvers.alphabeta_v2 import AlphaBetaV2
from agents.primi_composti.solvers.reference import TT_BITS, ReferenceSolver
from agents.primi_composti.solvers.retrograde_v1 import RetrogradeV1
from agents.search.base import Solver
from envs.primi_composti.fast import official_options

__all__ = [
    "AlphaBetaV1", "AlphaBetaV2", "DealSolution", "ReferenceSolver", "RetrogradeV1", "Solver",
    "action_values", "best_action", "best_card", "card_values", "make_solver", "solve_deal", "solver_for",
    "state_value",
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


def _official(game) -> tuple[bool, bool]:
    """(revealed, player_choice): the official options of version 2 that `game` plays."""
    revealed, npairs = official_options(game)
    return revealed, npairs > 0


def solver_for(game, tt_bits: int = TT_BITS, threads: int = 1, fast: bool = True) -> Solver:
    """The fastest exact solver of `game`'s rules (2 players): `make_solver(version)` for the seed's rules; the
    reference solver with the official options for version 2's `steal_choice="player"` and
    `allow_revealed_operand` (the fast solvers do not play them)."""
    if game.num_players != 2:
        raise ValueError(f"the exact solvers play 2 players (complete information), got num_players={game.num_players}")
    revealed, choice = _official(game)
    if not (revealed or choice):
        return make_solver(game.version, tt_bits=tt_bits, threads=threads, fast=fast)
    if threads != 1:
        raise ValueError(f"threads must be 1 under the official options (the reference solver), got {threads!r}")
    return ReferenceSolver(game.version, tt_bits=tt_bits, revealed=revealed, player_choice=choice)


def _checked(game, solver: Solver | None) -> Solver:
    """`solver`, or the reference solver of `game`'s rules; ValueError where `solver` plays other rules."""
    if solver is None:
        return solver_for(game, fast=False)
    want = _official(game)
    have = (bool(getattr(solver, "revealed", False)), bool(getattr(solver, "player_choice", False)))
    if have != want or solver.version != game.version:
        raise ValueError(f"the solver plays version {solver.version} with (allow_revealed_operand, player choice) = "
                         f"{have}, the game version {game.version} with {want}: make it with solver_for(game)")
    return solver


def state_value(game, state, solver: Solver | None = None) -> int:
    """Exact final score difference (first player − second) of `state` under perfect play."""
    solver = _checked(game, solver)
    mover = game.current_player(state)
    rest = solver.value(state.hands, state.stacks, mover)
    if mover != state.first:
        rest = -rest
    return state.scores[state.first] - state.scores[1 - state.first] + rest


def card_values(game, state, solver: Solver | None = None) -> dict[int, int]:
    """Exact value for the mover (its gain now − the opponent's value after) of every card in hand (under
    `steal_choice="player"` a card's best move: its best operand choice)."""
    solver = _checked(game, solver)
    mover = game.current_player(state)
    if not game.player_choice:
        return solver.move_values(state.hands, state.stacks, mover)
    out: dict[int, int] = {}
    for (c, _choice), v in solver.choice_values(state.hands, state.stacks, mover).items():
        out[c] = max(out.get(c, v), v)
    return out


def action_values(game, state, solver: Solver | None = None) -> dict[int, int]:
    """Exact value for the mover of every legal action (`game.legal_actions`; under `steal_choice="player"` each
    card with each operand choice it may name)."""
    solver = _checked(game, solver)
    mover = game.current_player(state)
    if not game.player_choice:
        return {game.action_of(c): v for c, v in solver.move_values(state.hands, state.stacks, mover).items()}
    return {game.action_of(c, k): v for (c, k), v in solver.choice_values(state.hands, state.stacks, mover).items()}


def best_card(game, state, solver: Solver | None = None) -> int:
    """The first card (dealt order) of optimal value."""
    vals = card_values(game, state, solver)
    best = max(vals.values())
    return next(c for c in state.hands[game.current_player(state)] if vals[c] == best)


def best_action(game, state, solver: Solver | None = None) -> int:
    """The first action of optimal value: the first card (dealt order) of optimal value, with (under
    `steal_choice="player"`) its lowest optimal operand choice."""
    vals = action_values(game, state, solver)
    best = max(vals.values())
    order = {c: i for i, c in enumerate(state.hands[game.current_player(state)])}
    return min((a for a, v in vals.items() if v == best), key=lambda a: (order[game.card_of(a)], a))


@dataclass
class DealSolution:
    """Exact value of one deal (first player − second under perfect play) and its cost."""

    value: int
    seconds: float
    nodes: int


def solve_deal(game, state, solver: Solver | None = None) -> DealSolution:
    """Solve one dealt position from scratch (the solver's memory is cleared first)."""
    solver = _checked(game, solver)
    solver.clear()
    before = solver.nodes
    t = time.perf_counter()
    v = state_value(game, state, solver)
    return DealSolution(v, time.perf_counter() - t, solver.nodes - before)
