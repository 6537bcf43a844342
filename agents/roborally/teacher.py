"""RoboRally's teacher for distillation: the flag seeker's criterion as per-register-action values
(`roborally/greedy-teacher`).

A student in register mode places one card per sub-step, so the teacher must value every legal card of
any sub-step it meets, also mid-turn after the student already placed some registers. The value of
playing hand slot i into register r is the best *solo* outcome (`agents.roborally.solo.SoloSimulator`:
the robot alone on the board, other robots and lasers ignored) of the program that keeps the registers
already placed, puts slot i into register r, completes registers r+1.. with the best choice of the cards
left in the hand, and ends with the locked registers' cards. Outcomes are scored by the flag seeker's own
order (`roborally/greedy`: alive, then more flags claimed, then fewer BFS steps to the next flag) as one
number: `value = -DEAD` when the robot is destroyed, else `FLAG * flags claimed - BFS steps`.

At a turn's first sub-step the best value is exactly the value of the program `roborally/greedy` plays,
and always following the argmax plays one of the programs the flag seeker may choose (ties aside); the
values of the other cards say how much each gives up, in BFS steps (the temperature's scale). NOOP and
POWER_DOWN (forced, or the power round) get the value of the robot's current solo program with nothing
more placed. In the solo simulation only a card's kind matters, so the search over completions is a
depth-first search over card kinds with a memo on (register, robot, kinds left).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.roborally.solo import SoloSimulator, solo_of
from agents.search.teacher import TeacherAgent
from envs.roborally.cards import KINDS
from envs.roborally.rules import HAND, REGISTERS, RoboRallyGame, View, free_registers, locked_count

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

    def prefix(self, view: View):
        """(solo state after the registers this seat already placed this turn, round, free registers)."""
        robot = view.robots[view.seat]
        rnd = view.step // self.game.num_players
        k = min(free_registers(robot.damage), len(view.hand))
        s = solo_of(robot)
        for i in range(min(rnd, k)):
            s = self.sim.register(s, view.registers[i], i)
        return s, rnd, k

    def tail(self, view: View, k: int) -> tuple[int, ...]:
        """The cards of registers k..5: empty ones, then the locked registers' cards."""
        nl = locked_count(view.robots[view.seat].damage)
        locked = tuple(view.registers[REGISTERS - nl:]) if nl else ()
        return (0,) * (REGISTERS - k - nl) + locked

    def best_completion(self, s, start: int, k: int, left: dict[int, list[int]], tail: tuple[int, ...]) -> float:
        """The best outcome value of registers start..k-1 filled from `left` (kind -> cards), then `tail`."""
        sim, score = self.sim, self.score
        memo: dict = {}
        kinds = sorted(left)
        counts = [len(left[kd]) for kd in kinds]

        def rec(i: int, st) -> float:
            if i == k or not st[4] or st[3] >= len(sim.flags):
                if i == k:
                    for j, c in enumerate(tail):
                        st = sim.register(st, c, k + j)
                return score(st)
            node = (i, st, tuple(counts))
            hit = memo.get(node)
            if hit is not None:
                return hit
            best = -np.inf
            for j, kd in enumerate(kinds):
                if counts[j]:
                    counts[j] -= 1
                    best = max(best, rec(i + 1, sim.register(st, left[kd][0], i)))
                    counts[j] += 1
            memo[node] = best
            return best

        return rec(start, s)

    def values(self, view: View, action_mask: np.ndarray) -> np.ndarray:
        """float64 [num_actions]: each legal action's value, NaN elsewhere."""
        mask = np.asarray(action_mask) > 0
        out = np.full(len(mask), np.nan)
        s, rnd, k = self.prefix(view)
        tail = self.tail(view, k)
        hand = view.hand
        unused = [c for i, c in enumerate(hand) if not view.used >> i & 1]
        for a in np.flatnonzero(mask):
            a = int(a)
            if a < HAND and rnd < k:
                left: dict[int, list[int]] = {}
                for c in unused:
                    if c != hand[a]:
                        left.setdefault(self.kinds[c], []).append(c)
                out[a] = self.best_completion(self.sim.register(s, hand[a], rnd), rnd + 1, k, left, tail)
            else:
                st = s
                for j, c in enumerate(tail):
                    st = self.sim.register(st, c, k + j)
                out[a] = self.score(st)
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
