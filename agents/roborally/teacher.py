"""RoboRally's teacher for distillation: the flag seeker's criterion as per-register-action values
(`roborally/greedy-teacher`).

The value of playing hand slot i into register r is the best *solo* outcome (`SoloSimulator`: the robot alone) of
the program that keeps the registers already placed, puts slot i into r, completes the rest with the best of the
cards left and ends with the locked registers: `-DEAD` when the robot is destroyed, else `FLAG * flags claimed - BFS
steps`. NOOP and POWER_DOWN get the value of the program with nothing more placed. At a turn's first sub-step the
argmax is the program `roborally/greedy` plays (ties aside).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from agents.roborally.solo import SoloSimulator, placed_prefix, program_tail
from agents.search.teacher import TeacherAgent
from envs.roborally.cards import KINDS
from envs.roborally.rules import HAND, RoboRallyGame, View

#: Value of a destroyed robot (below every alive outcome), and of one claimed flag (above any BFS distance).
DEAD = 1000.0
FLAG = 100.0


def outcome_value(sim: SoloSimulator, s) -> float:
    """The flag seeker's order of solo outcomes as one number (higher is better; see the module docstring)."""
    dead, neg_flags, dist = sim.key(s)
    return -DEAD if dead else FLAG * -neg_flags - dist


class CompletionValues:
    """Per-card values of a register-mode sub-step for one game (see the module docstring)."""

    def __init__(self, game: RoboRallyGame):
        if game.config.action_mode != "register":
            raise ValueError(f"the RoboRally teacher labels action_mode='register', got {game.config.action_mode!r}")
        self.game = game
        self.sim = SoloSimulator(game)
        self.kinds = KINDS[game.numbering]
        self.score = lambda s: outcome_value(self.sim, s)
        self.cost = lambda s: -outcome_value(self.sim, s)  # the completions' best value: `best_program` minimises

    def values(self, view: View, action_mask: np.ndarray) -> np.ndarray:
        """float64 [num_actions]: each legal action's value, NaN elsewhere."""
        mask = np.asarray(action_mask) > 0
        out = np.full(len(mask), np.nan)
        s, rnd, k = placed_prefix(self.sim, view)
        tail = program_tail(view.robots[view.seat], k, view.registers)
        hand = view.hand
        unused = [c for i, c in enumerate(hand) if not view.used >> i & 1]
        for a in np.flatnonzero(mask):
            a = int(a)
            if a < HAND and rnd < k:
                left: dict[int, list[int]] = {}
                for c in unused:
                    if c != hand[a]:
                        left.setdefault(self.kinds[c], []).append(c)
                first = [cards[0] for cards in left.values()]  # a card of each kind: they move a lone robot alike
                least, _ = self.sim.best_program(self.sim.register(s, hand[a], rnd), [len(v) for v in left.values()],
                                                 k, tail, lambda j, u, first=first: first[j], rnd + 1, self.cost)
                out[a] = -least
            else:
                out[a] = self.score(self.sim.run(s, tail, k))
        return out


class GreedyTeacher(TeacherAgent):
    """`roborally/greedy-teacher`: the flag seeker's completion values (see the module docstring); as an
    agent it plays their argmax at every sub-step."""

    name = "roborally/greedy-teacher"

    def __init__(self, game: RoboRallyGame, rng: np.random.Generator | None = None):
        if rng is None:
            raise ValueError(f"{self.name} needs an explicit rng (np.random.Generator)")
        self.rng = rng
        self.completion = CompletionValues(game)

    def action_values(self, view: Any, action_mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Per-action values (the Teacher protocol): deterministic, `rng` is unused."""
        return self.completion.values(view, action_mask)
