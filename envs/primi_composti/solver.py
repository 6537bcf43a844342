"""Exact solver of 2-player Primi Composti deals (seed configuration, numba).

The 2-player game has complete information, so every position has an exact
minimax value. We compute it with negamax alpha-beta over the *rest* of the
game: v(position) = max over cards c of [δ(c) − v(child)], where δ is the change
of the mover's score difference (v1: points scored; v2: VALUE(c) + 2·stolen
value), 0 at the end. The final score difference (first player − second) of a
deal under perfect play is v(deal) from the first player's side.

Speed-ups:
* transposition table keyed by a 128-bit Zobrist hash of what determines the
  future — both hands and the stack tops (v1: nothing below a top can matter)
  or the full stacks with their order (v2: captures uncover cards) — storing
  exact values and bounds with the best card;
* move ordering: the table's best card first, then by δ (greedy order);
* iterative deepening is not used: the tree is only 2k plies deep and the
  table's best-card hints already give the ordering it would provide.

Configuration covered: 2 players, `steal_choice="max"`, no revealed operand,
any `cards_per_player`, versions 1 and 2 (the same as `envs.primi_composti.fast`,
whose move code it reuses). Tested against plain full-tree minimax.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from numba import njit

from envs.primi_composti.fast import _VALID, _VALUE, best_bonus, do_move, undo_move

EXACT, LOWER, UPPER = 0, 1, 2
_TT_BITS = 22


def _zobrist() -> tuple[np.ndarray, np.ndarray]:
    # A fixed generator: the hash keys are part of the algorithm, not of any game's randomness.
    g = np.random.default_rng(0x9C0DE)
    zh = g.integers(0, 2**63 - 1, size=(2, 2, 80), dtype=np.int64).astype(np.uint64)  # [word, seat, card]
    zs = g.integers(0, 2**63 - 1, size=(2, 4, 80, 80), dtype=np.int64).astype(np.uint64)  # [word, stack, height, card]
    return zh, zs


_ZH, _ZS = _zobrist()


@njit(cache=True)
def _hash(version, hand0, hand1, stacks, heights, zh, zs, maxcard):
    """Both 64-bit words of the position's Zobrist key."""
    h1 = np.uint64(0)
    h2 = np.uint64(0)
    both = hand0 | hand1
    for c in range(2, maxcard + 1):
        if (both >> c) & 1:
            p = 0 if (hand0 >> c) & 1 else 1
            h1 ^= zh[0, p, c]
            h2 ^= zh[1, p, c]
    for s in range(4):
        if version == 1:
            if heights[s] > 0:
                c = stacks[s, heights[s] - 1]
                h1 ^= zs[0, s, 0, c]
                h2 ^= zs[1, s, 0, c]
        else:
            for t in range(heights[s]):
                c = stacks[s, t]
                h1 ^= zs[0, s, t, c]
                h2 ^= zs[1, s, t, c]
    return h1, h2


@njit(cache=True)
def _negamax(version, hands, mover, stacks, heights, scores, alpha, beta, ply,
             tt_k1, tt_k2, tt_val, tt_flag, tt_move, zh, zs, cand, deltas, counter, value, valid, maxcard):
    """Exact value of the rest of the game for `mover` (hands: card bit masks)."""
    counter[0] += 1
    if hands[mover] == 0:
        return 0
    k1, k2 = _hash(version, hands[0], hands[1], stacks, heights, zh, zs, maxcard)
    idx = np.int64(k1 & np.uint64(tt_k1.shape[0] - 1))
    hint = -1
    if tt_k1[idx] == k1 and tt_k2[idx] == k2:
        v = tt_val[idx]
        f = tt_flag[idx]
        if f == 0:
            return v
        if f == 1 and v >= beta:
            return v
        if f == 2 and v <= alpha:
            return v
        hint = tt_move[idx]
    alpha0 = alpha
    # Candidates ordered: the table's best card, then by immediate gain δ.
    n = 0
    for c in range(2, maxcard + 1):
        if (hands[mover] >> c) & 1:
            bonus, _pair = best_bonus(version, c, mover, stacks, heights, value, valid)
            d = bonus + value[c] if version == 1 else 2 * bonus + value[c]
            key = d * 2 + (1000 if c == hint else 0)
            j = n
            while j > 0 and cand[ply, j - 1, 1] < key:
                cand[ply, j, 0] = cand[ply, j - 1, 0]
                cand[ply, j, 1] = cand[ply, j - 1, 1]
                deltas[ply, j] = deltas[ply, j - 1]
                j -= 1
            cand[ply, j, 0] = c
            cand[ply, j, 1] = key
            deltas[ply, j] = d
            n += 1
    best = -1000000
    best_c = -1
    for t in range(n):
        c = cand[ply, t, 0]
        d = deltas[ply, t]
        hands[mover] ^= np.int64(1) << c
        undo, bonus = do_move(version, c, mover, stacks, heights, scores, value, valid)
        if t == 0:
            v = d - _negamax(version, hands, 1 - mover, stacks, heights, scores, d - beta, d - alpha, ply + 1,
                             tt_k1, tt_k2, tt_val, tt_flag, tt_move, zh, zs, cand, deltas, counter, value, valid, maxcard)
        else:
            # Principal-variation search: prove the card is no better with a null window first.
            v = d - _negamax(version, hands, 1 - mover, stacks, heights, scores, d - alpha - 1, d - alpha, ply + 1,
                             tt_k1, tt_k2, tt_val, tt_flag, tt_move, zh, zs, cand, deltas, counter, value, valid, maxcard)
            if alpha < v < beta:
                v = d - _negamax(version, hands, 1 - mover, stacks, heights, scores, d - beta, d - v, ply + 1,
                                 tt_k1, tt_k2, tt_val, tt_flag, tt_move, zh, zs, cand, deltas, counter, value, valid, maxcard)
        undo_move(version, c, mover, stacks, heights, scores, undo, bonus, value)
        hands[mover] ^= np.int64(1) << c
        if v > best:
            best = v
            best_c = c
        if best > alpha:
            alpha = best
        if alpha >= beta:
            break
    tt_k1[idx] = k1
    tt_k2[idx] = k2
    tt_val[idx] = best
    tt_move[idx] = best_c
    if best <= alpha0:
        tt_flag[idx] = 2
    elif best >= beta:
        tt_flag[idx] = 1
    else:
        tt_flag[idx] = 0
    return best


class Solver:
    """Exact values of 2-player positions (reuses one transposition table).

    Args:
        version: 1 or 2.
        tt_bits: log2 of the table size (2^22 entries ≈ 84 MB).
    """

    def __init__(self, version: int, tt_bits: int = _TT_BITS):
        self.version = int(version)
        size = 1 << tt_bits
        self.tt_k1 = np.zeros(size, dtype=np.uint64)
        self.tt_k2 = np.zeros(size, dtype=np.uint64)
        self.tt_val = np.zeros(size, dtype=np.int64)
        self.tt_flag = np.zeros(size, dtype=np.int8)
        self.tt_move = np.zeros(size, dtype=np.int64)
        self.cand = np.zeros((80, 40, 2), dtype=np.int64)
        self.deltas = np.zeros((80, 40), dtype=np.int64)
        self.counter = np.zeros(1, dtype=np.int64)

    def clear(self) -> None:
        """Forget every stored position."""
        self.tt_k1[:] = 0
        self.tt_k2[:] = 0

    def value(self, hands: tuple[tuple[int, ...], tuple[int, ...]], stacks: tuple[tuple[int, ...], ...], mover: int) -> int:
        """Exact value for `mover` of the rest of the game (its future score
        difference gain under perfect play by both sides)."""
        h = np.array([sum(1 << c for c in hands[0]), sum(1 << c for c in hands[1])], dtype=np.int64)
        cap = sum(len(x) for x in hands) + sum(len(s) for s in stacks) + 1
        st = np.zeros((4, cap), dtype=np.int64)
        heights = np.zeros(4, dtype=np.int64)
        for s in range(4):
            for i, c in enumerate(stacks[s]):
                st[s, i] = c
            heights[s] = len(stacks[s])
        scores = np.zeros(2, dtype=np.int64)
        return int(
            _negamax(self.version, h, mover, st, heights, scores, -1000000, 1000000, 0, self.tt_k1, self.tt_k2,
                     self.tt_val, self.tt_flag, self.tt_move, _ZH, _ZS, self.cand, self.deltas, self.counter, _VALUE, _VALID,
                     int(max(max(hands[0], default=2), max(hands[1], default=2), *[max(x, default=2) for x in stacks])))
        )


def _delta(game, state, card: int) -> int:
    seat = game.current_player(state)
    bonus = game.best_pair(state.stacks, seat, card)[1]
    return bonus + int(_VALUE[card]) if game.version == 1 else 2 * bonus + int(_VALUE[card])


def state_value(game, state, solver: Solver | None = None) -> int:
    """Exact final score difference (first player − second) of `state` under perfect play."""
    solver = solver or Solver(game.version)
    mover = game.current_player(state)
    rest = solver.value(state.hands, state.stacks, mover)
    if mover != state.first:
        rest = -rest
    return state.scores[state.first] - state.scores[1 - state.first] + rest


def card_values(game, state, solver: Solver | None = None) -> dict[int, int]:
    """Exact value for the mover (δ − value of the child) of every card in hand."""
    solver = solver or Solver(game.version)
    mover = game.current_player(state)
    out = {}
    for c in state.hands[mover]:
        child = game.apply(state, game.action_of(c))
        if game.is_terminal(child):
            out[c] = _delta(game, state, c)
        else:
            out[c] = _delta(game, state, c) - solver.value(child.hands, child.stacks, 1 - mover)
    return out


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
    """Solve one dealt position from scratch (the table is cleared first)."""
    solver = solver or Solver(game.version)
    solver.clear()
    solver.counter[0] = 0
    t = time.perf_counter()
    v = state_value(game, state, solver)
    return DealSolution(v, time.perf_counter() - t, int(solver.counter[0]))
