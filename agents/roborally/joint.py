"""The joint-turn columns of the program scorer `roborally_program_joint`: `envs.roborally.joint`'s kernel with the
other robots programmed by the flag seeker (`agents.roborally.fast.decide` with its `GREEDY` code, the program
`roborally/greedy` plays for the hand dealt to them from the unseen cards).

Why the flag seeker: it is the strongest robot without search and the one every table of the training runs seats,
so its program is the likeliest; `roborally/mc` programs the other robots with it where it wins race_easy
(`policy=greedy`). The hands are drawn from the unseen cards, never the true ones (see `envs.roborally.joint`).
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from agents.roborally.fast import GREEDY, decide
from agents.roborally.solo import SoloSimulator, greedy_program
from envs.roborally import fast
from envs.roborally.cards import NUM_CARDS
from envs.roborally.choice import JointTurn
from envs.roborally.joint import JOINT_DIM, deal_world, joint_rows, unseen_cards, view_key
from envs.roborally.rules import HAND, State, View, public_state

#: Deals of the unseen cards a decision averages its joint columns over.
WORLDS = 4
#: The feature set these columns make (`agents.roborally.program.JointProgramFeatures`).
NAME = "roborally_program_joint"


@numba.njit(cache=True)
def _joint_rows(bd, T, rows, seats, cards, solo, mask, worlds, turns, out):
    joint_rows(decide, GREEDY, bd, T, rows, seats, cards, solo, mask, worlds, turns, out)


def joint_turn(worlds: int = WORLDS) -> JointTurn:
    """The `JointTurn` of `roborally_program_joint`: the flag seeker's programs for the other robots, `worlds`
    deals of the unseen cards."""
    return JointTurn(NAME, JOINT_DIM, _joint_rows, worlds)


def readable_joint(game: Any, view: View, cards: np.ndarray, solo: np.ndarray, turns: np.ndarray,
                   worlds: int = WORLDS) -> np.ndarray:
    """The readable twin of the compiled joint columns: float64 [P, JOINT_DIM] of the robot deciding at `view`
    (a program decision) for the programs `cards` [P, 5] (its free registers' cards, 0 after) with solo features
    `solo` [P, len(PROGRAM_FEATURES)], `turns` the env's turns table. The other robots' hands are the compiled
    deals (`envs.roborally.joint.deal_world`, seeded by `view_key`: the same worlds), their programs the Python
    flag seeker's (`solo.greedy_program`), each turn the rules engine's (`RoboRallyGame.execute_turn`)."""
    engine, me, n = fast.FastEngine(game), int(view.seat), game.num_players
    start = public_state(view)
    regs = start.registers
    R = engine.pack(start).robots
    regs0 = np.array(regs, np.int32)
    hand = np.array(view.hand, np.int64)
    unseen = np.zeros(NUM_CARDS, np.int64)
    u = unseen_cards(R, regs0, me, hand, len(hand), unseen)
    key = np.uint64(view_key(R, regs0, me, hand, len(hand), view.turn))
    sim, rng = SoloSimulator(game), np.zeros(1, np.uint64)
    out = np.zeros((len(cards), JOINT_DIM))
    for w in range(worlds):
        fast.rng_seed(rng, key, w)
        deck, hands, lens = np.zeros(NUM_CARDS, np.int32), np.zeros((n, HAND), np.int64), np.zeros(n, np.int64)
        left = deal_world(R, regs0, me, np.array(view.hand_sizes, np.int64), unseen, u, rng, deck, hands, lens)
        others = {i: greedy_program(sim, tuple(int(c) for c in hands[i, :lens[i]]), view.robots[i], regs[i],
                                    game.numbering) if lens[i] else () for i in range(n) if i != me}
        state = start._replace(deck=tuple(int(c) for c in deck[:left]), winner=-1)
        for p, prog in enumerate(cards):
            programs = [tuple(int(c) for c in prog) if i == me else others[i] for i in range(n)]
            after = game.execute_turn(state, programs)
            out[p] += _columns(game, view.robots, after, me, solo[p], turns)
    return out / worlds


def _columns(game: Any, before: tuple, after: State, me: int, solo: np.ndarray, turns: np.ndarray) -> np.ndarray:
    """`envs.roborally.joint.JOINT_FEATURES` of robot `me` after one joint turn, readably."""
    b, F = game.board, {name: i for i, name in enumerate(fast.PROGRAM_FEATURES)}
    flags, big = len(b.flags), b.width + b.height

    def steps(r: Any) -> float:
        if r.next_flag >= flags:
            return 0.0
        if not r.on_board or not (0 <= r.x < b.width and 0 <= r.y < b.height):
            return 1.0
        d = b.distances(b.flags[r.next_flag])[r.y][r.x]
        return 1.0 if d < 0 else min(d, big) / big

    r0, r = before[me], after.robots[me]
    inside = r.on_board and 0 <= r.x < b.width and 0 <= r.y < b.height
    t = 0.0 if r.next_flag >= flags else (turns[r.next_flag, r.y, r.x, r.facing] if inside else turns.max() + 1)
    destroyed = not r.on_board or r.lives < r0.lives
    alive = solo[F["alive"]] > 0
    end = (round(solo[F["x"]] * max(b.width - 1, 1)), round(solo[F["y"]] * max(b.height - 1, 1)),
           int(np.argmax(solo[F["facing_n"]:F["facing_w"] + 1])))
    if alive and flags and r.next_flag >= flags:
        moved = False
    else:
        moved = alive == destroyed or (alive and (r.x, r.y, r.facing) != end)
    rivals = [i for i in range(len(before)) if i != me]
    return np.array([
        after.winner == me, after.winner >= 0 and after.winner != me, r.next_flag - r0.next_flag,
        steps(r) - solo[F["distance"]], t / 10.0, (r.damage - r0.damage) / 10.0, destroyed, moved,
        min((steps(after.robots[i]) for i in rivals), default=1.0),
        max((after.robots[i].next_flag - before[i].next_flag for i in rivals), default=0)], np.float64)


__all__ = ["NAME", "WORLDS", "joint_turn", "readable_joint"]
