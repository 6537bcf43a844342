"""The engine's compiled kernels for the seed's 2-player game (numba, `cache=True`).

Covers exactly the configuration the seed studies: 2 players, `steal_choice="max"`,
no revealed operand, any `cards_per_player`, versions 1 and 2, seat 0 = the
holder of card 2. Everything here is differential-tested against the plain
engine (`envs.primi_composti.rules`): same deals, same moves, same stacks and scores.
The players' kernels built on these (greedy, minimax) live with the players, in
`agents.primi_composti.fast`; the exact solvers in `agents.primi_composti.solvers`.

Layout: `hands[p, i]` is seat p's i-th dealt card, `alive[p]` a bit mask of the
positions not yet played; `stacks[s, h]` with heights `heights[s]` (s = 2·seat
primes, 2·seat+1 composites); `scores[p]`. Operand pairs are the 6 stack pairs
(i < j) in index order, as in the plain engine. `value` and `valid` are
`rules.VALUE` and `rules.VALID` (passed in, so one compiled kernel serves all callers).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from envs.primi_composti.rules import MAX_CARD

_PA = np.array([0, 0, 0, 1, 1, 2], dtype=np.int64)
_PB = np.array([1, 2, 3, 2, 3, 3], dtype=np.int64)


@njit(cache=True)
def best_bonus(version, c, mover, stacks, heights, value, valid):
    """(bonus, pair) of the seed's choice for card c: v1 best VALUE(A)+VALUE(B),
    v2 most stolen value; first best pair on ties; (0, -1) if none."""
    best = 0
    bp = -1
    for k in range(6):
        i = _PA[k]
        j = _PB[k]
        if heights[i] == 0 or heights[j] == 0:
            continue
        a = stacks[i, heights[i] - 1]
        b = stacks[j, heights[j] - 1]
        if not valid[c, a, b]:
            continue
        if version == 1:
            v = value[a] + value[b]
        else:
            v = 0
            if i // 2 != mover:
                v += value[a]
            if j // 2 != mover:
                v += value[b]
        if v > best:
            best = v
            bp = k
    return best, bp


@njit(cache=True)
def do_move(version, c, mover, stacks, heights, scores, value, valid):
    """Play card c for `mover` in place; returns an undo code (bit 0: took the
    opponent's prime top, bit 1: its composite top)."""
    bonus, bp = best_bonus(version, c, mover, stacks, heights, value, valid)
    undo = 0
    if version == 1:
        scores[mover] += bonus + value[c]
    else:
        opp = 1 - mover
        if bp >= 0:
            for s in (_PA[bp], _PB[bp]):
                if s // 2 == opp:
                    card = stacks[s, heights[s] - 1]
                    heights[s] -= 1
                    own = 2 * mover + (s % 2)
                    stacks[own, heights[own]] = card
                    heights[own] += 1
                    undo |= 1 << (s % 2)
        scores[mover] += bonus + value[c]
        scores[opp] -= bonus
    own = 2 * mover + (0 if value[c] == 2 else 1)
    stacks[own, heights[own]] = c
    heights[own] += 1
    return undo, bonus


@njit(cache=True)
def undo_move(version, c, mover, stacks, heights, scores, undo, bonus, value):
    """Reverse `do_move`."""
    own = 2 * mover + (0 if value[c] == 2 else 1)
    heights[own] -= 1
    if version == 1:
        scores[mover] -= bonus + value[c]
        return
    opp = 1 - mover
    for t in range(2):
        if undo & (1 << t):
            o = 2 * mover + t
            card = stacks[o, heights[o] - 1]
            heights[o] -= 1
            s = 2 * opp + t
            stacks[s, heights[s]] = card
            heights[s] += 1
    scores[mover] -= bonus + value[c]
    scores[opp] += bonus


@njit(cache=True)
def setup(deck, k, hands, alive, stacks, heights, scores):
    """Deal `deck` (seat 0 gets deck[:k], seat 1 deck[k:2k]; halves swapped if card 2
    is not in seat 0's) into the given buffers."""
    swap = True
    for i in range(k):
        if deck[i] == 2:
            swap = False
    for i in range(k):
        if swap:
            hands[0, i] = deck[k + i]
            hands[1, i] = deck[i]
        else:
            hands[0, i] = deck[i]
            hands[1, i] = deck[k + i]
    full = (1 << k) - 1
    alive[0] = full
    alive[1] = full
    for s in range(4):
        heights[s] = 0
    scores[0] = 0
    scores[1] = 0


def random_decks(rng: np.random.Generator, n: int, k: int) -> np.ndarray:
    """n shuffled decks of the cards 2..2k+1 (one row each), from `rng`."""
    base = np.tile(np.arange(2, 2 * k + 2, dtype=np.int64), (n, 1))
    return rng.permuted(base, axis=1)


def state_arrays(game, state):
    """The fast-path buffers of a plain-engine state (2 players, seed configuration)."""
    return position_arrays(state.hands, state.stacks, state.scores, game.cards_per_player)


def position_arrays(hands_in, stacks_in, scores_in, k: int):
    """The fast-path buffers (hands, alive, stacks, heights, scores) of a 2-player position
    with `k` cards dealt to each player: the hands' remaining cards keep their relative dealt
    order, played positions are dead."""
    hands = np.zeros((2, k), dtype=np.int64)
    alive = np.zeros(2, dtype=np.int64)
    for p in range(2):
        h = hands_in[p]
        for i, c in enumerate(h):
            hands[p, i] = c
        alive[p] = (1 << len(h)) - 1
    stacks = np.zeros((4, 2 * k), dtype=np.int64)
    heights = np.zeros(4, dtype=np.int64)
    for s in range(4):
        for h, c in enumerate(stacks_in[s]):
            stacks[s, h] = c
        heights[s] = len(stacks_in[s])
    return hands, alive, stacks, heights, np.array(scores_in, dtype=np.int64)


def supports(game) -> bool:
    """Whether the fast path implements `game`'s configuration."""
    cfg = game.config
    return game.num_players == 2 and cfg.steal_choice == "max" and not cfg.allow_revealed_operand and MAX_CARD >= game.max_card
