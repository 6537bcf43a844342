"""Primi Composti's teacher: per-card values for distillation (`primi_composti/teacher`).

* Version 1: the exact value of every card (`RetrogradeV1`: one retrograde pass
  per deal, about 0.4 s at 12 cards, after which every position of that deal is a
  lookup).
* Version 2: exact values (`AlphaBetaV2`) once at most `exact_cards` cards are left
  in both hands together; earlier, where an exact search costs seconds to minutes,
  the fallback is the depth-`fallback_depth` minimax value of every card (the
  score-difference gain over the next `fallback_depth` plies, both sides playing
  the seed's minimax; `card_values_depth`).

A card's value is the mover's gain (its score now minus the opponent's, from here
to the end, or to the horizon for the fallback) when it plays that card and both
play on perfectly (or by depth-limited minimax). 2 players, the seed's
configuration (the fast path's). Source: Giacomin, Meneghetti, Roncolato, "Prime
Strategies: Game Theoretic Insights into Primi Composti", §IV (alpha-beta).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.base import old_spelling, positive_int, register
from agents.primi_composti.fast import alphabeta
from agents.primi_composti.solvers import make_solver
from agents.search.teacher import TeacherAgent
from envs.primi_composti import fast as fast_path
from envs.primi_composti.fast import do_move, undo_move
from envs.primi_composti.rules import VALID, VALUE

#: Version 2 default: exact values once at most this many cards are left in both hands
#: (measured label cost in docs/primi_composti.md, "Learned policies").
EXACT_CARDS_V2 = 14
FALLBACK_DEPTH_V2 = 6


def card_values_depth(version, hands, alive, stacks, heights, scores, first, mover, depth, value, valid, out):
    """out[i] = the mover's score-difference gain over the next `depth` plies after
    playing its hand position i (alpha-beta with a full window per card, so each
    value is exact at that depth; the seed's minimax leaf), -10^6 for dead positions.

    Plain Python around the fast path's compiled kernels (a new compiled caller of
    those cached kernels fails to link when they were loaded from numba's cache)."""
    k = hands.shape[1]
    sign = 1 if mover == first else -1
    now = int(scores[first] - scores[1 - first])
    for i in range(k):
        out[i] = -1000000
        if not (alive[mover] >> i) & 1:
            continue
        c = hands[mover, i]
        alive[mover] ^= 1 << i
        undo, bonus = do_move(version, c, mover, stacks, heights, scores, value, valid)
        v = alphabeta(version, hands, alive, stacks, heights, scores, first, 1 - mover, depth - 1, -1000000, 1000000,
                      value, valid)
        undo_move(version, c, mover, stacks, heights, scores, undo, bonus, value)
        alive[mover] ^= 1 << i
        out[i] = sign * (v - now)


def view_arrays(view: Any) -> tuple[np.ndarray, ...]:
    """The fast-path buffers (hands, alive, stacks, heights, scores) of a 2-player view
    (complete information: both hands are in it), sized from the view's cards."""
    k = (sum(view.hand_sizes) + sum(len(s) for s in view.stacks)) // 2
    return fast_path.position_arrays(view.hands, view.stacks, view.scores, k)


def depth_values(version: int, view: Any, depth: int) -> dict[int, int]:
    """Card -> its depth-`depth` minimax gain for the mover of `view` (see `card_values_depth`)."""
    hands, alive, stacks, heights, scores = view_arrays(view)
    mover = view.seat
    out = np.empty(hands.shape[1], dtype=np.int64)
    card_values_depth(version, hands, alive, stacks, heights, scores, view.first, mover, depth, VALUE, VALID, out)
    return {int(hands[mover, i]): int(out[i]) for i in range(len(view.hands[mover]))}


class PrimiTeacher(TeacherAgent):
    """Per-card values of Primi Composti (see the module docstring); also an agent
    (the first best card in action order).

    Args:
        game: the engine (2 players, the seed's configuration).
        rng: unused by the values (they are deterministic); kept for the agent protocol.
        exact_cards: version 2: exact values once at most this many cards are left in both hands.
        fallback_depth: version 2: the minimax depth of the values before that.
    """

    #: Values are score-difference points: the distillation's value head reads them / value_scale.
    value_scale = 10.0

    def __init__(self, game: Any, rng: np.random.Generator | None = None, exact_cards: int = EXACT_CARDS_V2,
                 fallback_depth: int = FALLBACK_DEPTH_V2):
        if game.num_players != 2 or not fast_path.seed_rules(game):
            raise ValueError("the Primi Composti teacher plays the seed's configuration: 2 players, steal_choice='max', "
                             "no revealed operand")
        if exact_cards < 0 or fallback_depth < 1:
            raise ValueError(f"need exact_cards >= 0 and fallback_depth >= 1, got {exact_cards}, {fallback_depth}")
        self.game, self.rng = game, rng if rng is not None else np.random.default_rng(0)
        self.exact_cards, self.fallback_depth = exact_cards, fallback_depth
        self.name = "primi_composti/teacher"
        self.solver = make_solver(game.version, tt_bits=20 if game.version == 2 else 16)

    def card_values(self, view: Any) -> dict[int, int]:
        """Card -> value for the mover of `view`."""
        if self.game.version == 2 and sum(view.hand_sizes) > self.exact_cards:
            return depth_values(2, view, self.fallback_depth)
        return self.solver.move_values(tuple(view.hands), view.stacks, view.seat)

    def action_values(self, view: Any, action_mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """float64 [num_actions]: each legal card's value, NaN elsewhere."""
        out = np.full(self.game.num_actions, np.nan)
        for c, v in self.card_values(view).items():
            out[self.game.action_of(c)] = v
        return out


def _teacher(game: Any, rng: np.random.Generator, exact: int | None = None, depth: int | None = None) -> PrimiTeacher:
    kwargs = {k: v for k, v in (("exact_cards", exact), ("fallback_depth", depth)) if v is not None}
    return PrimiTeacher(game, rng, **kwargs)


register("primi_composti/teacher", _teacher, params={"exact": positive_int, "depth": positive_int},
         doc="The search teacher: exact once ?exact= cards are left, else minimax to ?depth=.")
old_spelling(r"primi_composti/teacher_exact(?P<n>\d+)_depth(?P<d>\d+)",
             lambda n, d: f"primi_composti/teacher?exact={int(n)}&depth={int(d)}")
