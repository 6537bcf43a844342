"""RoboRally: one robot alone on the board, and the base of the program-choosing agents.

`SoloSimulator` steps one robot without other robots and lasers, register by register, through the compiled
lone-robot register (`envs.roborally.fast.solo_register`); `greedy_program` is the flag seeker's search over it;
`ProgramPlanner` chooses a whole program at a robot's first decision of a turn and plays it one register per sub-step.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.roborally.board import PIT
from envs.roborally.cards import KINDS
from envs.roborally.fast import FastEngine
from envs.roborally.fast import solo_register as _solo_register
from envs.roborally.programs import equivalence_classes, program_cards
from envs.roborally.rules import REGISTERS, RoboRallyGame, View, free_registers, locked_count, program_action

#: A robot alone: (x, y, facing, next_flag, alive). `next_flag == len(flags)`: finished.
Solo = tuple[int, int, int, int, bool]

#: Entries of `SoloSimulator.register`'s cache before it is emptied (about 60 MB; a board of 12 x 12 squares has
#: 12 * 12 * 4 facings * 7 kinds and none * 5 registers = 23,040 per flag).
_MEMO_SIZE = 1 << 18


class SoloSimulator:
    """One robot alone on the board: the register phases of the rules engine without other robots and lasers.

    Damage is not tracked (without lasers only pits, the edge and crushers hurt, and they destroy), so a robot's
    state is `Solo`; the board's BFS distances are kept as nested lists (cheap to index from Python).
    """

    def __init__(self, game: RoboRallyGame):
        b = game.board
        self.game = game
        self.flags = b.flags
        self.w, self.h = b.width, b.height
        self._floor = b.floor.tolist()
        #: The packed board of `envs.roborally.fast.FastEngine` (crushers packed only when the game has them).
        self.board = FastEngine(game).board
        self.crushers = bool(game.config.crushers)
        self._nflags = len(b.flags)
        self._kinds = KINDS[game.numbering]
        self._memo: dict[tuple[int, ...], Solo] = {}
        big = b.width + b.height
        #: dist[f][y][x]: BFS steps to flag f (unreachable: width + height).
        self.dist = [[[int(v) if v >= 0 else big for v in row] for row in b.distances(xy).tolist()]
                     for xy in b.flags]

    def _off(self, x: int, y: int) -> bool:
        """Whether (x, y) is off the board or a pit."""
        return not (0 <= x < self.w and 0 <= y < self.h) or self._floor[y][x] == PIT

    def register(self, s: Solo, card: int, ri: int) -> Solo:
        """The robot after register phase `ri` (0..4) playing `card` (0: none); a destroyed or finished robot
        stays as it is."""
        x, y, f, nf, alive = s
        if not alive or nf >= self._nflags:
            return s
        # A cache of the compiled register, a pure function of the square, facing, next flag, the card's kind and
        # the register: a call from Python costs about four dictionary look-ups, and the searches walk the same
        # squares again and again (benchmarks/bench_roborally_solo.py times the searches).
        key = (x, y, f, nf, self._kinds[card], ri)
        out = self._memo.get(key)
        if out is None:
            if len(self._memo) >= _MEMO_SIZE:
                self._memo.clear()
            out = self._memo[key] = _solo_register(self.board, x, y, f, nf, card, ri, self.crushers)
        return out

    def run(self, s: Solo, cards, first: int = 0) -> Solo:
        """The robot after registers `first`.. (0-based) with `cards` (0 = empty register)."""
        for ri, c in enumerate(cards, first):
            s = self.register(s, c, ri)
        return s

    def key(self, s: Solo) -> tuple[int, int, int]:
        """Smaller is better: (dead, −flags claimed, BFS steps to the next flag)."""
        x, y, _, nf, alive = s
        if not alive:
            return (1, 0, 0)
        if nf >= len(self.flags):
            return (0, -nf, 0)
        return (0, -nf, self.dist[nf][y][x])

    def best_program(self, start: Solo, mults: list[int], k: int, tail: tuple[int, ...], class_card,
                     first: int = 0, value: Any = None) -> tuple[Any, tuple[int, ...]]:
        """(value, classes) of the reduced program of registers `first`..k-1 whose end has the least `value(end)`
        (default `key`: the best), lowest rank among equals.

        `class_card(j, used)` is the card class j contributes when `used` of its cards went before;
        `tail` the locked registers' cards after the k free ones. A depth-first search over programs that
        merges equal (register, robot, remaining classes) nodes: their best suffix is the same.
        """
        value = self.key if value is None else value
        left = list(mults)
        memo: dict = {}

        def rec(i: int, s: Solo) -> tuple[Any, tuple[int, ...]]:
            if i == k or not s[4] or s[3] >= len(self.flags):  # dead or finished early: the rest does not matter
                return value(s if i < k else self.run(s, tail, k)), ()
            node = (i, s, tuple(left))
            hit = memo.get(node)
            if hit is not None:
                return hit
            best = None
            for j, m in enumerate(left):
                if not m:
                    continue
                card = class_card(j, mults[j] - m)
                left[j] -= 1
                key, suffix = rec(i + 1, self.register(s, card, i))
                left[j] += 1
                if best is None or key < best[0]:
                    best = (key, (j,) + suffix)
            memo[node] = best
            return best

        least, prog = rec(first, start)
        for j in prog:
            left[j] -= 1
        return least, prog + tuple([c for c, m in enumerate(left) for _ in range(m)][:k - first - len(prog)])


class ProgramPlanner:
    """Base of the program-choosing agents: `program(view)` picks hand slots once per turn, `act` plays them."""

    name = "roborally/planner"

    def __init__(self, game: RoboRallyGame, rng: np.random.Generator | None = None):
        if rng is None:
            raise ValueError(f"{self.name} needs an explicit rng (np.random.Generator)")
        self.game = game
        self.rng = rng
        self._plan: tuple[int, int, tuple[int, ...]] | None = None  # (turn, seat, slots)

    def reset(self) -> None:
        """Forget the current turn's program (a new game)."""
        self._plan = None

    def program(self, view: View) -> tuple[int, ...]:
        """The turn's program as hand slots in register order (subclasses)."""
        raise NotImplementedError

    def act(self, view: View, action_mask: np.ndarray) -> int:
        """The planned card for this register round (NOOP where that is the only action)."""
        legal = np.flatnonzero(action_mask)
        if len(legal) == 1:
            return int(legal[0])
        game = self.game
        if game.config.action_mode == "program":
            action = program_action(self.program(view))
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


def solo_of(robot) -> Solo:
    """A robot's `Solo` state."""
    return (robot.x, robot.y, robot.facing, robot.next_flag, bool(robot.on_board))


def placed_prefix(sim: SoloSimulator, view: View) -> tuple[Solo, int, int]:
    """(the robot alone after the registers its seat placed this turn, the round, its free registers) at `view`."""
    robot = view.robots[view.seat]
    rnd = view.step // len(view.robots)
    k = min(free_registers(robot.damage), len(view.hand))
    return sim.run(solo_of(robot), view.registers[:min(rnd, k)]), rnd, k


def program_tail(robot, k: int, registers: tuple[int, ...]) -> tuple[int, ...]:
    """The cards after `robot`'s k free registers: empty registers, then its locked registers' cards."""
    nl = locked_count(robot.damage)
    return (0,) * (REGISTERS - k - nl) + tuple(registers[REGISTERS - nl:])


def greedy_program(sim: SoloSimulator, hand: tuple[int, ...], robot, registers: tuple[int, ...],
                   numbering: str) -> tuple[int, ...]:
    """The greedy flag seeker's program for `robot` holding `hand` (cards in register order)."""
    k = min(free_registers(robot.damage), len(hand))
    classes = equivalence_classes(hand, numbering)
    tail = program_tail(robot, k, registers)
    _, prog = sim.best_program(solo_of(robot), [len(c) for c in classes], k, tail, lambda j, u: classes[j][u])
    return program_cards(classes, prog)
