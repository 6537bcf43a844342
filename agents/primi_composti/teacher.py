"""Primi Composti's teacher (`primi_composti/teacher`), 2 players: each legal action's value is the mover's
score-difference gain to the end under perfect play, exact in version 1 and in version 2 once at most `exact_cards`
cards are left, else the depth-`fallback_depth` minimax gain (docs/primi_composti.md, "Learned policies"; source:
Giacomin, Meneghetti, Roncolato, "Prime Strategies", §IV).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from agents.base import old_spelling, positive_int, register
from agents.primi_composti.fast import alphabeta
from agents.primi_composti.solvers import solver_for
from agents.search.teacher import TeacherAgent
from envs.primi_composti import fast as fast_path
from envs.primi_composti.fast import do_move, legal_choices, official_options, undo_move
from envs.primi_composti.rules import VALID, VALUE

#: Version 2 default: exact values once at most this many cards are left in both hands
#: (measured label cost in docs/primi_composti.md, "Learned policies").
EXACT_CARDS_V2 = 14
#: ... and under `steal_choice="player"`, whose wider tree the reference solver searches: with both official options
#: the worst decision of a 12-card game took 0.13-0.15 s at 12 and 1.2-1.7 s at 14 (0.02-0.04 s at 14 for the
#: seed's rules on `AlphaBetaV2`; four games each).
EXACT_CARDS_OFFICIAL = 12
FALLBACK_DEPTH_V2 = 6


class Position(NamedTuple):
    """A 2-player position in the fast path's buffers (`view_arrays`, or a compiled table's row), which the searches
    change in place and leave as they were, and the seat that moved first."""

    hands: np.ndarray
    alive: np.ndarray
    stacks: np.ndarray
    heights: np.ndarray
    scores: np.ndarray
    first: int


def move_gain(version, pos: Position, mover, i, depth, value, valid, revealed, choice):
    """The mover's score-difference gain over the next `depth` plies after playing its hand position i with
    operand `choice` (`do_move`'s), both sides then playing the seed's minimax."""
    hands, alive, stacks, heights, scores, first = pos
    c = hands[mover, i]
    sign = 1 if mover == first else -1
    now = int(scores[first] - scores[1 - first])
    alive[mover] ^= 1 << i
    undo, bonus = do_move(version, c, mover, stacks, heights, scores, value, valid, revealed, choice)
    v = alphabeta(version, hands, alive, stacks, heights, scores, first, 1 - mover, depth - 1, -1000000, 1000000,
                  value, valid, revealed)
    undo_move(version, c, mover, stacks, heights, scores, undo, bonus, value)
    alive[mover] ^= 1 << i
    return sign * (v - now)


def card_values_depth(version, pos: Position, mover, depth, value, valid, out, revealed=False):
    """out[i] = the mover's score-difference gain over the next `depth` plies after playing its
    hand position i (exact at that depth; the seed's minimax leaf), -10^6 for dead positions. Plain Python around the
    compiled kernels: a new compiled caller of those cached kernels fails to link when loaded from numba's cache."""
    for i in range(pos.hands.shape[1]):
        out[i] = -1000000
        if (pos.alive[mover] >> i) & 1:
            out[i] = move_gain(version, pos, mover, i, depth, value, valid, revealed, -1)


def view_arrays(view: Any) -> tuple[np.ndarray, ...]:
    """The fast-path buffers (hands, alive, stacks, heights, scores) of a 2-player view
    (complete information: both hands are in it), sized from the view's cards."""
    k = (sum(view.hand_sizes) + sum(len(s) for s in view.stacks)) // 2
    return fast_path.position_arrays(view.hands, view.stacks, view.scores, k)


def depth_values(version: int, view: Any, depth: int, revealed: bool = False) -> dict[int, int]:
    """Card -> its depth-`depth` minimax gain for the mover of `view` (see `card_values_depth`)."""
    pos = Position(*view_arrays(view), view.first)
    mover = view.seat
    out = np.empty(pos.hands.shape[1], dtype=np.int64)
    card_values_depth(version, pos, mover, depth, VALUE, VALID, out, revealed)
    return {int(pos.hands[mover, i]): int(out[i]) for i in range(len(view.hands[mover]))}


def choice_depth_values(view: Any, depth: int, npairs: int, revealed: bool) -> dict[tuple[int, int], int]:
    """(card, choice) -> the depth-`depth` gain of every legal move of version 2 under `steal_choice="player"`
    (`npairs` operand pairs; choice 0 none, q + 1 pair q where it combines to the card)."""
    pos = Position(*view_arrays(view), view.first)
    mover = view.seat
    out = {}
    for i in range(len(view.hands[mover])):
        c = int(pos.hands[mover, i])
        for choice in legal_choices(c, mover, pos.stacks, pos.heights, npairs):
            out[(c, choice)] = move_gain(2, pos, mover, i, depth, VALUE, VALID, revealed, choice)
    return out


class PrimiTeacher(TeacherAgent):
    """Per-action values of Primi Composti (the module docstring); also an agent (the first best
    action in action order).

    Args:
        game: the engine (2 players; the seed's rules or version 2's official options).
        rng: unused by the values (they are deterministic); kept for the agent protocol.
        exact_cards: version 2: exact values once at most this many cards are left in both hands (default
            `EXACT_CARDS_V2`, `EXACT_CARDS_OFFICIAL` under `steal_choice="player"`).
        fallback_depth: version 2: the minimax depth of the values before that.
    """

    #: Values are score-difference points: the distillation's value head reads them / value_scale.
    value_scale = 10.0

    def __init__(self, game: Any, rng: np.random.Generator | None = None, exact_cards: int | None = None,
                 fallback_depth: int = FALLBACK_DEPTH_V2):
        if game.num_players != 2:
            raise ValueError(f"the Primi Composti teacher plays 2 players (complete information), got "
                             f"num_players={game.num_players}")
        if exact_cards is None:
            exact_cards = EXACT_CARDS_OFFICIAL if game.player_choice else EXACT_CARDS_V2
        if exact_cards < 0 or fallback_depth < 1:
            raise ValueError(f"need exact_cards >= 0 and fallback_depth >= 1, got {exact_cards}, {fallback_depth}")
        self.game, self.rng = game, rng if rng is not None else np.random.default_rng(0)
        self.exact_cards, self.fallback_depth = exact_cards, fallback_depth
        self.name = "primi_composti/teacher"
        self.solver = solver_for(game, tt_bits=20 if game.version == 2 else 16)
        self.revealed, self.npairs = official_options(game)

    def _values(self, view: Any) -> dict[tuple[int, int], int]:
        """(card, choice) -> value for the mover of `view` (choice 0 without `steal_choice="player"`)."""
        if self.game.version == 2 and sum(view.hand_sizes) > self.exact_cards:
            if self.game.player_choice:
                return choice_depth_values(view, self.fallback_depth, self.npairs, self.revealed)
            return {(c, 0): v for c, v in depth_values(2, view, self.fallback_depth, self.revealed).items()}
        hands = tuple(view.hands)
        if self.game.player_choice:
            return self.solver.choice_values(hands, view.stacks, view.seat)
        return {(c, 0): v for c, v in self.solver.move_values(hands, view.stacks, view.seat).items()}

    def card_values(self, view: Any) -> dict[int, int]:
        """Card -> value for the mover of `view` (under `steal_choice="player"`: its best operand choice's)."""
        out: dict[int, int] = {}
        for (c, _choice), v in self._values(view).items():
            out[c] = max(out.get(c, v), v)
        return out

    def action_values(self, view: Any, action_mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """float64 [num_actions]: each legal action's value, NaN elsewhere."""
        out = np.full(self.game.num_actions, np.nan)
        for (c, choice), v in self._values(view).items():
            out[self.game.action_of(c, choice)] = v
        return out


def _teacher(game: Any, rng: np.random.Generator, exact: int | None = None, depth: int | None = None) -> PrimiTeacher:
    kwargs = {k: v for k, v in (("exact_cards", exact), ("fallback_depth", depth)) if v is not None}
    return PrimiTeacher(game, rng, **kwargs)


register("primi_composti/teacher", _teacher, params={"exact": positive_int, "depth": positive_int},
         doc="The search teacher: exact once ?exact= cards are left, else minimax to ?depth=.")
old_spelling(r"primi_composti/teacher_exact(?P<n>\d+)_depth(?P<d>\d+)",
             lambda n, d: f"primi_composti/teacher?exact={int(n)}&depth={int(d)}")
