"""RoboRally agents.

`roborally/random`: uniform over the seed's *reduced* programs — the seed report
on a Monte-Carlo strategy for RoboRally, §1.1, argues that sampling uniformly
from the reduced action space (card equivalence classes) is closer to sampling
uniformly from the outcomes than sampling card sequences, and uses it as the
playout policy. At the turn's first decision it draws one reduced program
(a contiguous rank, `envs.roborally.programs.unrank`, uniform over 0..|A|−1)
from its own hand, then plays that program's card in each register round. It
never powers down (the seed's action space has no power down).

The generic `random` agent (uniform over each sub-step's mask) also plays
RoboRally; over a register-mode turn it is *not* uniform over programs.
"""

from __future__ import annotations

import numpy as np

from agents.base import register
from envs.roborally.programs import count_programs, equivalence_classes, program_cards, unrank
from envs.roborally.rules import (
    HAND,
    PROGRAM_INDEX,
    REGISTERS,
    RoboRallyGame,
    View,
    free_registers,
)


class RandomProgram:
    """Uniform over reduced programs, drawn once per turn from the view (see the module docstring)."""

    name = "roborally/random"

    def __init__(self, game: RoboRallyGame, rng: np.random.Generator | None = None):
        if rng is None:
            raise ValueError("roborally/random needs an explicit rng (np.random.Generator)")
        self.game = game
        self.rng = rng
        self._plan: tuple[int, int, tuple[int, ...]] | None = None  # (turn, seat, slots)

    def reset(self) -> None:
        """Forget the current turn's program (a new game)."""
        self._plan = None

    def program(self, view: View) -> tuple[int, ...]:
        """A uniformly drawn reduced program of the view's hand, as hand slots in register order."""
        hand = view.hand
        k = min(free_registers(view.robots[view.seat].damage), len(hand))
        classes = equivalence_classes(hand, self.game.numbering)
        mults = [len(c) for c in classes]
        prog = unrank(mults, k, int(self.rng.integers(count_programs(mults, k))))
        return tuple(hand.index(c) for c in program_cards(classes, prog))

    def act(self, view: View, action_mask: np.ndarray) -> int:
        """The planned card for this register round (NOOP where that is the only action)."""
        legal = np.flatnonzero(action_mask)
        if len(legal) == 1:
            return int(legal[0])
        game = self.game
        if game.config.action_mode == "program":
            slots = self.program(view)
            rest = [s for s in range(HAND) if s not in slots]
            action = PROGRAM_INDEX[slots + tuple(rest[: REGISTERS - len(slots)])]
            return action if action_mask[action] else int(legal[self.rng.integers(len(legal))])
        rnd = view.step // game.num_players
        if rnd >= REGISTERS:
            return game.noop  # the power round: never powers down
        if self._plan is None or self._plan[:2] != (view.turn, view.seat) or len(self._plan[2]) <= rnd:
            self._plan = (view.turn, view.seat, self.program(view))
        slot = self._plan[2][rnd] if rnd < len(self._plan[2]) else -1
        if 0 <= slot < len(action_mask) and action_mask[slot]:
            return int(slot)
        # Off-plan (the agent joined mid-turn): a fresh program from what is left is not defined; play uniformly.
        return int(legal[self.rng.integers(len(legal))])


register("roborally/random", RandomProgram)
