"""What the Primi Composti solvers share: bit tricks, the bound-window cut, the
MTD(f) driver, the two-thread race and the child-by-child move values.

Private to `agents.primi_composti.solvers`: the solvers import it, users import
the public module.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import numpy as np
from numba import njit

from envs.core.jit import INLINE
from envs.primi_composti.fast import do_move, legal_choices
from envs.primi_composti.rules import VALID, VALUE

INF = 1000000  # beyond any score difference: the open search window

_DEBRUIJN = np.uint64(0x03F79D71B4CB0A89)
_DB_INDEX = np.zeros(64, dtype=np.int64)
for _i in range(64):
    _DB_INDEX[((1 << _i) * 0x03F79D71B4CB0A89 & (2**64 - 1)) >> 58] = _i
del _i


@njit(cache=True, nogil=True, inline=INLINE)
def lowbit(x):
    """Index of the lowest set bit of the card mask x (x > 0)."""
    return _DB_INDEX[np.int64((np.uint64(x & -x) * _DEBRUIJN) >> np.uint64(58))]


@njit(cache=True, nogil=True, inline=INLINE)
def pop_low(x):
    """The lowest card of the card mask x (x > 0) and the mask without it: `while x: c, x = pop_low(x)` visits
    every card, lowest first."""
    return lowbit(x), x & (x - 1)


@njit(cache=True, nogil=True, inline=INLINE)
def popcount(x):
    """Number of cards in the card mask x."""
    x = np.uint64(x)
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True, nogil=True, inline=INLINE)
def bound_window(lb, ub, alpha, beta):
    """Narrow the window (alpha, beta) to the value's bounds lb ≤ v ≤ ub.

    Returns (cut, value, alpha, beta): cut is True when the bounds alone decide the
    search (fail-soft: the bound that falls outside the window, or the closed window)."""
    if ub <= alpha:
        return True, ub, alpha, beta
    if lb >= beta:
        return True, lb, alpha, beta
    if ub < beta:
        beta = ub
    if lb > alpha:
        alpha = lb
    if alpha >= beta:
        return True, alpha, alpha, beta
    return False, 0, alpha, beta


@njit(cache=True, nogil=True, inline=INLINE)
def keep_best(v, c, best, best_c, alpha, beta):
    """Fold one child's value v (card c) into a fail-soft node's running best.
    Returns (best, best card, alpha, cutoff): cutoff when alpha ≥ beta."""
    if v > best:
        best = v
        best_c = c
    if best > alpha:
        alpha = best
    return best, best_c, alpha, alpha >= beta


def mtdf(probe: Callable[[int, int], int], guess: int, lo: int = -INF, hi: int = INF,
         stopped: Callable[[], bool] | None = None) -> int | None:
    """MTD(f): null-window probes converging on the exact value from `guess`, with
    the value known to lie in [lo, hi]. `probe(a, b)` is a fail-soft search with the
    window (a, b). Returns None when `stopped()` turns true (another thread answered)."""
    g = guess
    while lo < hi:
        b = g + 1 if g == lo else g
        g = probe(b - 1, b)
        if stopped is not None and stopped():
            return None
        if g < b:
            hi = g
        else:
            lo = g
    return g


def race(search: Callable[[int], int | None], threads: int, stop: np.ndarray) -> int:
    """Solve one position on `threads` threads ("lazy SMP": each runs `search(tid)`,
    sharing the solver's table); the first to finish answers and raises `stop[0]`,
    which the others' searches read to quit (returning None)."""
    stop[0] = 0
    answer: list[int] = []

    def work(tid: int) -> None:
        v = search(tid)
        if v is not None:
            if not answer:
                answer.append(int(v))
            stop[0] = 1

    if threads == 1:
        work(0)
    else:
        workers = [threading.Thread(target=work, args=(t,)) for t in range(threads)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
    return answer[0]


def check_threads(threads: int) -> int:
    """`threads` as an int, or ValueError unless 1 or 2."""
    if threads not in (1, 2):
        raise ValueError(f"threads must be 1 or 2, got {threads!r}")
    return int(threads)


class ChildValues:
    """`move_values` for a solver with `version` and `value`: each card's gain now
    (the engine's compiled move) minus the opponent's value of the position after it;
    `choice_values` the same for every move of a card and its operand pair (`steal_choice="player"`)."""

    version: int
    counter: np.ndarray  # nodes searched (all threads) since the solver was made
    #: version 2's official options the solver plays (the fast solvers: the seed's rules, neither)
    revealed = False
    player_choice = False
    npairs = 0

    @property
    def nodes(self) -> int:
        """Nodes searched (all threads) since the solver was made."""
        return int(self.counter[0])

    def move_values(self, hands, stacks, mover: int) -> dict[int, int]:
        """Exact value for `mover` of playing each card of its hand (hand order) with the seed's operand pair
        (with `player_choice` the player names it: use `choice_values`)."""
        if self.player_choice:
            raise ValueError("a move under steal_choice='player' is a card and its operand pair: use choice_values")
        return {int(c): self._child(hands, stacks, mover, int(c), -1) for c in hands[mover]}

    def choice_values(self, hands, stacks, mover: int) -> dict[tuple[int, int], int]:
        """Exact value for `mover` of every legal move (card, choice): choice 0 plays the card with no operation,
        q + 1 with operand pair q (`PrimiCompostiGame.operand_pairs[q]`) where it combines to the card; cards in
        hand order, choices ascending. Without `player_choice`: (card, 0) for the card with the seed's pair."""
        if not self.player_choice:
            return {(c, 0): v for c, v in self.move_values(hands, stacks, mover).items()}
        st, heights = self._stacks(hands, stacks)
        return {(int(c), q): self._child(hands, stacks, mover, int(c), q)
                for c in hands[mover] for q in legal_choices(int(c), mover, st, heights, self.npairs)}

    @staticmethod
    def _stacks(hands, stacks) -> tuple[np.ndarray, np.ndarray]:
        cap = sum(len(h) for h in hands) + sum(len(s) for s in stacks) + 1
        st = np.zeros((4, cap), dtype=np.int64)
        heights = np.zeros(4, dtype=np.int64)
        for s in range(4):
            st[s, :len(stacks[s])] = stacks[s]
            heights[s] = len(stacks[s])
        return st, heights

    def _child(self, hands, stacks, mover: int, c: int, choice: int) -> int:
        """The mover's gain of move (c, choice) (`do_move`'s choice) minus the opponent's value after it."""
        cs, ch = self._stacks(hands, stacks)
        scores = np.zeros(2, dtype=np.int64)
        do_move(self.version, c, mover, cs, ch, scores, VALUE, VALID, self.revealed, choice)
        d = int(scores[mover] - scores[1 - mover])
        rest = [tuple(hands[0]), tuple(hands[1])]
        rest[mover] = tuple(x for x in hands[mover] if x != c)
        if rest[0] or rest[1]:
            child = tuple(tuple(int(x) for x in cs[s, :ch[s]]) for s in range(4))
            d -= self.value(tuple(rest), child, 1 - mover)
        return d
