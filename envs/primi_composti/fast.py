"""Compiled fast path for the seed's 2-player game (numba, `cache=True`).

Covers exactly the configuration the seed studies: 2 players, `steal_choice="max"`,
no revealed operand, any `cards_per_player`, versions 1 and 2, seat 0 = the
holder of card 2. Everything here is differential-tested against the plain
engine (`envs.primi_composti.rules`) and the plain players
(`agents.primi_composti`): same deals → same moves → same scores.

Layout: `hands[p, i]` is seat p's i-th dealt card, `alive[p]` a bit mask of the
positions not yet played; `stacks[s, h]` with heights `heights[s]` (s = 2·seat
primes, 2·seat+1 composites); `scores[p]`. Operand pairs are the 6 stack pairs
(i < j) in index order, as in the plain engine.

Policy codes: 0 asc, 1 desc, 2 rand (dealt order), 3 greedy_asc, 4 greedy_desc,
5 greedy_rand, 10 + d = minimax_d.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from envs.primi_composti.rules import MAX_CARD, VALID, VALUE

ASC, DESC, RAND, GREEDY_ASC, GREEDY_DESC, GREEDY_RAND = 0, 1, 2, 3, 4, 5
MINIMAX = 10
POLICY_CODES = {"asc": 0, "desc": 1, "rand": 2, "greedy_asc": 3, "greedy_desc": 4, "greedy_rand": 5}

_VALUE = VALUE.astype(np.int64)
_VALID = VALID.copy()
_PA = np.array([0, 0, 0, 1, 1, 2], dtype=np.int64)
_PB = np.array([1, 2, 3, 2, 3, 3], dtype=np.int64)


def policy_code(name: str) -> int:
    """The fast-path code of a player name (`asc` … `greedy_rand`, `minimax_<d>`)."""
    if name in POLICY_CODES:
        return POLICY_CODES[name]
    if name.startswith("minimax_") and name[8:].isdigit() and int(name[8:]) >= 1:
        return MINIMAX + int(name[8:])
    raise ValueError(f"unknown player {name!r}; players: {', '.join(POLICY_CODES)}, minimax_<d>")


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
def alphabeta(version, hands, alive, stacks, heights, scores, first, mover, depth, alpha, beta, value, valid):
    """Minimax value (score[first] − score[other]) of the position `depth` plies
    deep, alpha-beta in dealt order (rules §5)."""
    if depth == 0 or alive[mover] == 0:
        return scores[first] - scores[1 - first]
    k = hands.shape[1]
    maximizing = mover == first
    best = -1000000 if maximizing else 1000000
    for i in range(k):
        if not (alive[mover] >> i) & 1:
            continue
        c = hands[mover, i]
        alive[mover] ^= 1 << i
        undo, bonus = do_move(version, c, mover, stacks, heights, scores, value, valid)
        v = alphabeta(version, hands, alive, stacks, heights, scores, first, 1 - mover, depth - 1, alpha, beta, value, valid)
        undo_move(version, c, mover, stacks, heights, scores, undo, bonus, value)
        alive[mover] ^= 1 << i
        if maximizing:
            if v > best:
                best = v
            if best > alpha:
                alpha = best
        else:
            if v < best:
                best = v
            if best < beta:
                beta = best
        if beta <= alpha:
            break
    return best


@njit(cache=True)
def minimax_choice(version, hands, alive, stacks, heights, scores, first, mover, depth, value, valid):
    """Position (in the mover's dealt hand) of the card minimax_depth plays: the
    first child, in dealt order, with the strictly best value."""
    k = hands.shape[1]
    maximizing = mover == first
    alpha = -1000000
    beta = 1000000
    best = -1000000 if maximizing else 1000000
    best_i = -1
    for i in range(k):
        if not (alive[mover] >> i) & 1:
            continue
        c = hands[mover, i]
        alive[mover] ^= 1 << i
        undo, bonus = do_move(version, c, mover, stacks, heights, scores, value, valid)
        v = alphabeta(version, hands, alive, stacks, heights, scores, first, 1 - mover, depth - 1, alpha, beta, value, valid)
        undo_move(version, c, mover, stacks, heights, scores, undo, bonus, value)
        alive[mover] ^= 1 << i
        if maximizing:
            if v > best:
                best = v
                best_i = i
            if best > alpha:
                alpha = best
        else:
            if v < best:
                best = v
                best_i = i
            if best < beta:
                beta = best
    return best_i


@njit(cache=True)
def choose(policy, version, hands, alive, stacks, heights, scores, first, mover, value, valid):
    """Position (in the mover's dealt hand) of the card `policy` plays (rules §5)."""
    k = hands.shape[1]
    if policy >= 10:
        return minimax_choice(version, hands, alive, stacks, heights, scores, first, mover, policy - 10, value, valid)
    if policy == 0 or policy == 1 or policy == 2:
        best_i = -1
        for i in range(k):
            if not (alive[mover] >> i) & 1:
                continue
            if policy == 2:
                return i
            if best_i < 0 or (policy == 0 and hands[mover, i] < hands[mover, best_i]) or (
                policy == 1 and hands[mover, i] > hands[mover, best_i]
            ):
                best_i = i
        return best_i
    # Greedy: scan in the tie-break order, keep the first strictly better card.
    top = 6 if version == 1 else 5
    order = np.empty(k, dtype=np.int64)
    n = 0
    for i in range(k):
        if (alive[mover] >> i) & 1:
            order[n] = i
            n += 1
    if policy != 5:
        # Insertion sort of the positions by card (ascending or descending).
        for a in range(1, n):
            x = order[a]
            b = a - 1
            while b >= 0 and ((policy == 3 and hands[mover, order[b]] > hands[mover, x]) or (
                policy == 4 and hands[mover, order[b]] < hands[mover, x]
            )):
                order[b + 1] = order[b]
                b -= 1
            order[b + 1] = x
    best = -1
    best_i = -1
    for t in range(n):
        i = order[t]
        c = hands[mover, i]
        bonus, bp = best_bonus(version, c, mover, stacks, heights, value, valid)
        s = bonus + value[c]
        if s > best:
            best = s
            best_i = i
            if s >= top:
                break
    return best_i


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


@njit(cache=True)
def play_games(version, k, pol0, pol1, decks, value, valid):
    """Play one game per deck row, seat 0 (holder of 2, starts) with `pol0`; returns
    the final scores (n, 2) and the cards played (n, 2k)."""
    n = decks.shape[0]
    out = np.zeros((n, 2), dtype=np.int64)
    moves = np.zeros((n, 2 * k), dtype=np.int64)
    hands = np.zeros((2, k), dtype=np.int64)
    alive = np.zeros(2, dtype=np.int64)
    stacks = np.zeros((4, 2 * k), dtype=np.int64)
    heights = np.zeros(4, dtype=np.int64)
    scores = np.zeros(2, dtype=np.int64)
    for g in range(n):
        setup(decks[g], k, hands, alive, stacks, heights, scores)
        for t in range(2 * k):
            mover = t % 2
            pol = pol0 if mover == 0 else pol1
            i = choose(pol, version, hands, alive, stacks, heights, scores, 0, mover, value, valid)
            c = hands[mover, i]
            alive[mover] ^= 1 << i
            do_move(version, c, mover, stacks, heights, scores, value, valid)
            moves[g, t] = c
        out[g, 0] = scores[0]
        out[g, 1] = scores[1]
    return out, moves


def random_decks(rng: np.random.Generator, n: int, k: int) -> np.ndarray:
    """n shuffled decks of the cards 2..2k+1 (one row each), from `rng`."""
    base = np.tile(np.arange(2, 2 * k + 2, dtype=np.int64), (n, 1))
    return rng.permuted(base, axis=1)


def simulate(version: int, k: int, p0: str, p1: str, decks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Final scores (n, 2) and played cards (n, 2k) of `p0` (seat 0, starts) vs `p1` on `decks`."""
    return play_games(int(version), int(k), policy_code(p0), policy_code(p1), np.ascontiguousarray(decks, dtype=np.int64), _VALUE, _VALID)


def state_arrays(game, state):
    """The fast-path buffers of a plain-engine state (2 players, seed configuration)."""
    k = game.cards_per_player
    hands = np.zeros((2, k), dtype=np.int64)
    alive = np.zeros(2, dtype=np.int64)
    for p in range(2):
        h = state.hands[p]
        # Remaining cards keep their relative dealt order; played positions are dead.
        for i, c in enumerate(h):
            hands[p, i] = c
        alive[p] = (1 << len(h)) - 1
    stacks = np.zeros((4, 2 * k), dtype=np.int64)
    heights = np.zeros(4, dtype=np.int64)
    for s in range(4):
        for h, c in enumerate(state.stacks[s]):
            stacks[s, h] = c
        heights[s] = len(state.stacks[s])
    scores = np.array(state.scores, dtype=np.int64)
    return hands, alive, stacks, heights, scores


def choose_card(game, state, policy: str) -> int:
    """The card `policy` plays in a plain-engine `state`, computed by the fast path."""
    hands, alive, stacks, heights, scores = state_arrays(game, state)
    mover = game.current_player(state)
    i = choose(policy_code(policy), game.version, hands, alive, stacks, heights, scores, state.first, mover, _VALUE, _VALID)
    return int(hands[mover, i])


def supports(game) -> bool:
    """Whether the fast path implements `game`'s configuration."""
    cfg = game.config
    return game.num_players == 2 and cfg.steal_choice == "max" and not cfg.allow_revealed_operand and MAX_CARD >= game.max_card
