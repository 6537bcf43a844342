"""Alpha-beta exact solver of 2-player Primi Composti, version 1 (bit boards, numba).

In version 1 nothing below a stack's top matters, so a position is (both hands, the four tops, the mover). The
search is fail-soft PVS driven by MTD(f) over the mover's future score-difference gain, with a transposition table
under an exact 64-bit key (two bounds an entry), one-ply look-ahead move ordering, score bounds, plain alpha-beta
for the last six cards, and optionally two threads sharing the table (lazy SMP; word 0 stores key XOR word 1, so a
torn entry fails the check). The retrograde solver (`retrograde_v1`) is faster on whole deals; this search answers
the positions off the alternating sequence of play. docs/primi_composti.md gives the measurements.

The bonus rule here is a third form of the engine's (`envs.primi_composti.rules.best_pair`): bit masks of the cards
each pair of tops forms (`_tables`, from `rules.VALID`), read per position by `_bonus_masks` and `_gain`; a test
checks `_gain` against the readable rule, and docs/primi_composti.md ("Rule homes") says why the compiled rule is
not called.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agents.primi_composti.solvers import _kernels
from agents.primi_composti.solvers._kernels import INF, bound_window, keep_best, lowbit, pop_low, popcount
from envs.core.jit import INLINE
from envs.primi_composti.rules import VALID, VALUE

_NC = 32  # card slots; the 2-player deck is at most 2..25
# Layout of the flat table `tab`: REL[a, b] at a * 32 + b, VALUE at _VAL + c, key code at _CODE + c.
_VAL = 1024
_CODE = 1056
_TAB = 1088
# Layout of the state vector `st`: hands, tops, node counter.
_H0, _H1, _T0, _NODES = 0, 1, 2, 6

def _tables(maxcard: int) -> tuple[np.ndarray, int]:
    """The flat table (relations, values, key codes) and the prime mask of cards 2..maxcard."""
    tab = np.zeros(_TAB, dtype=np.int64)
    for a in range(2, maxcard + 1):
        for b in range(2, maxcard + 1):
            if a != b:
                m = 0
                for c in range(2, maxcard + 1):
                    if c != a and c != b and VALID[c, a, b]:
                        m |= 1 << c
                tab[a * _NC + b] = m
    prime = 0
    n_p = n_c = 0
    for c in range(2, maxcard + 1):
        tab[_VAL + c] = VALUE[c]
        if VALUE[c] == 2:
            prime |= 1 << c
            n_p += 1
            tab[_CODE + c] = n_p  # 1 + index among the primes; 0 = empty stack
        else:
            n_c += 1
            tab[_CODE + c] = n_c
    if n_p > 15 or n_c > 15:
        raise ValueError(f"the version-1 solver covers decks up to card 25, got cards up to {maxcard}")
    return tab, prime


@njit(cache=True, inline=INLINE)
def _gain(c, m4, m3, m2, tab):
    """Immediate gain of card c (VALUE + bonus) given the bonus masks of the tops."""
    if (m4 >> c) & 1:
        return tab[_VAL + c] + 4
    if (m3 >> c) & 1:
        return tab[_VAL + c] + 3
    if (m2 >> c) & 1:
        return tab[_VAL + c] + 2
    return tab[_VAL + c]


@njit(cache=True, inline=INLINE)
def _or_rel(ma, mb, tab):
    """OR of REL[a, b] over a in ma, b in mb."""
    u = np.int64(0)
    while ma:
        a = lowbit(ma) * 32
        ma &= ma - 1
        m = mb
        while m:
            u |= tab[a + lowbit(m)]
            m &= m - 1
    return u


@njit(cache=True, inline=INLINE)
def _bonus_masks(t0, t1, t2, t3, tab):
    """The cards that score a bonus of 4, 3 and 2 on the tops t0..t3 (seat 0's prime and
    composite, seat 1's): formed by both prime tops, a prime and a composite, both composites."""
    m4 = tab[t0 * 32 + t2]
    m3 = tab[t0 * 32 + t1] | tab[t0 * 32 + t3] | tab[t2 * 32 + t1] | tab[t2 * 32 + t3]
    m2 = tab[t1 * 32 + t3]
    return m4, m3, m2


@njit(cache=True, inline=INLINE)
def _last2(st, mover, hm, ho, m4, m3, m2, tab, prime):
    """Exact value of the last plies: the mover plays its one card, the opponent its
    reply (its lowest card, if any) on the tops that leaves."""
    c = lowbit(hm)
    d = _gain(c, m4, m3, m2, tab)
    if ho == 0:
        return d
    s = _T0 + 2 * mover + (0 if (prime >> c) & 1 else 1)
    old = st[s]
    st[s] = c
    n4, n3, n2 = _bonus_masks(st[_T0], st[_T0 + 1], st[_T0 + 2], st[_T0 + 3], tab)
    st[s] = old
    return d - _gain(lowbit(ho), n4, n3, n2, tab)


_ENDGAME = 6  # positions with at most this many cards left: plain alpha-beta, no table


@njit(cache=True, nogil=True)
def _endgame(st, mover, alpha, beta, tab, prime):
    """Plain alpha-beta for the last few plies (no table): cheaper than a table probe."""
    st[_NODES] += 1
    one = np.int64(1)
    hm = st[mover]
    ho = st[1 - mover]
    t0 = st[_T0]
    t1 = st[_T0 + 1]
    t2 = st[_T0 + 2]
    t3 = st[_T0 + 3]
    m4, m3, m2 = _bonus_masks(t0, t1, t2, t3, tab)
    if (hm & (hm - 1)) == 0:
        return _last2(st, mover, hm, ho, m4, m3, m2, tab, prime)
    best = -INF
    # Cards with a bonus first (a cheap order), each class in card order.
    for cls in range(4):
        if cls == 0:
            mm = hm & m4
        elif cls == 1:
            mm = hm & m3 & ~m4
        elif cls == 2:
            mm = hm & m2 & ~(m3 | m4)
        else:
            mm = hm & ~(m2 | m3 | m4)
        while mm:
            c, mm = pop_low(mm)
            d = _gain(c, m4, m3, m2, tab)
            s = _T0 + 2 * mover + (0 if (prime >> c) & 1 else 1)
            old = st[s]
            st[s] = c
            st[mover] = hm ^ (one << c)
            v = d - _endgame(st, 1 - mover, d - beta, d - alpha, tab, prime)
            st[mover] = hm
            st[s] = old
            best, _, alpha, cutoff = keep_best(v, c, best, c, alpha, beta)
            if cutoff:
                return best
    return best


@njit(cache=True, nogil=True, inline=INLINE)
def _tt_key(st, mover, t0, t1, t2, t3, tt, tab):
    """The position's exact key w0 (both hands, cards 2..25 as 24 bits each, and the four tops, 4 bits each), its
    bucket in `tt` and the 31 more bits of the mixed key its entries are checked by."""
    w0 = (st[_H0] >> 2) | ((st[_H1] >> 2) << 24) | (tab[_CODE + t0] << 48) | (tab[_CODE + t1] << 52)
    w0 |= (tab[_CODE + t2] << 56) | (tab[_CODE + t3] << 60)
    u = np.uint64(w0) ^ np.uint64(mover)
    u ^= u >> np.uint64(29)
    u *= np.uint64(0x9E3779B97F4A7C15)
    u ^= u >> np.uint64(32)
    return w0, np.int64(u & np.uint64(tt.shape[0] - 2)), np.int64(u >> np.uint64(33))


@njit(cache=True, nogil=True, inline=INLINE)
def _holds(tt, i, w0, chk, mover):
    """Whether entry i of `tt` is the position's. Entries are written without locks by two threads: word 0 holds
    key ^ word 1, so a torn entry (words of two different writes) fails this check."""
    w = tt[i, 1]
    return (tt[i, 0] ^ w) == w0 and (w >> 32) == chk and (w & 1) == mover


@njit(cache=True, nogil=True, inline=INLINE)
def _probe(tt, idx, w0, chk, mover, alpha, beta):
    """Look the position up in its two-slot bucket. Returns (done, value, lower, upper, hint, alpha, beta): done
    when the stored bounds decide the window, else the bounds (±INF: none), the stored best card (-1: none) and the
    window narrowed to them."""
    for slot in range(2):
        i = idx + slot
        if _holds(tt, i, w0, chk, mover):
            # word 1: mover (1 bit) | lower + 512 (10) | upper + 512 (10) | best card (5) | depth (5) | check (31)
            w = tt[i, 1]
            lower = ((w >> 1) & 1023) - 512
            upper = ((w >> 11) & 1023) - 512
            if lower >= beta or lower == upper:
                return True, lower, lower, upper, -1, alpha, beta
            if upper <= alpha:
                return True, upper, lower, upper, -1, alpha, beta
            return False, 0, lower, upper, (w >> 21) & 31, max(alpha, lower), min(beta, upper)
    return False, 0, -INF, INF, -1, alpha, beta


@njit(cache=True, nogil=True, inline=INLINE)
def _store(tt, idx, w0, chk, mover, lower, upper, best, alpha0, beta0, best_c, depth):
    """Store the node's result (fail-soft `best` of the window (alpha0, beta0), within the probed bounds): slot 0
    of the bucket keeps the deepest entry, slot 1 the latest."""
    if best <= alpha0:
        upper = best
    elif best >= beta0:
        lower = best
    else:
        lower = best
        upper = best
    lo = max(lower, -511)
    hi = min(upper, 511)
    i = idx
    if not _holds(tt, idx, w0, chk, mover) and ((tt[idx, 1] >> 26) & 31) > depth:
        i = idx + 1
    w = mover | ((lo + 512) << 1) | ((hi + 512) << 11) | (best_c << 21) | (depth << 26) | (chk << 32)
    tt[i, 1] = w
    tt[i, 0] = w0 ^ w


@njit(cache=True, nogil=True, inline=INLINE)
def _score_bounds(st, mover, hm, ho, t0, t1, t2, t3, m4, m3, m2, tab, prime):
    """Bounds (lb, ub) on the mover's value: every card left scores its VALUE plus at most the best bonus of a pair
    of cards able to be visible together (a stack's top or its owner's hand cards of that type, two different
    stacks); the card played now scores its bonus on the current tops (m4/m3/m2), not its maximum; and the
    opponent's own two tops stay visible through this move, so if they combine into one of its cards it is sure to
    score at least 3 on its next turn."""
    one = np.int64(1)
    h0 = st[_H0]
    h1 = st[_H1]
    comp = ~prime
    s0p = h0 & prime
    s1p = h1 & prime
    s0c = h0 & comp
    s1c = h1 & comp
    if t0:
        s0p |= one << t0
    if t1:
        s0c |= one << t1
    if t2:
        s1p |= one << t2
    if t3:
        s1c |= one << t3
    allc = s0c | s1c
    u4 = _or_rel(s0p, s1p, tab)
    u3 = _or_rel(s0p | s1p, allc, tab) & ~u4
    u2 = _or_rel(s0c, s1c, tab) & ~(u4 | u3)
    base = 2 * popcount(hm & prime) + popcount(hm & comp) - 2 * popcount(ho & prime) - popcount(ho & comp)
    gap = 9
    bnow = 0
    mm = hm
    while mm:
        c, mm = pop_low(mm)
        mx = 4 if (u4 >> c) & 1 else (3 if (u3 >> c) & 1 else (2 if (u2 >> c) & 1 else 0))
        nw = 4 if (m4 >> c) & 1 else (3 if (m3 >> c) & 1 else (2 if (m2 >> c) & 1 else 0))
        if mx - nw < gap:
            gap = mx - nw
        if nw > bnow:
            bnow = nw
    go = 0
    if ho:
        ownp = tab[st[_T0 + 2 * (1 - mover)] * 32 + st[_T0 + 2 * (1 - mover) + 1]]
        if ownp & ho:
            go = 3
    ub = base + 4 * popcount(hm & u4) + 3 * popcount(hm & u3) + 2 * popcount(hm & u2) - gap - go
    lb = base - 4 * popcount(ho & u4) - 3 * popcount(ho & u3) - 2 * popcount(ho & u2) + bnow
    return lb, ub


@njit(cache=True, nogil=True, inline=INLINE)
def _order(mover, hm, ho, t0, t1, t2, t3, m4, m3, m2, hint, ply, tab, cand, prime, tid):
    """Fill `cand[ply]` with the mover's cards as packed keys, best first: the table's best card, then 2·gain − the
    opponent's best bonus right after the card + 1 if the mover's own two tops will still combine into one of its
    cards; a second thread (`tid` 1) breaks ties the other way. Returns the number of moves."""
    one = np.int64(1)
    n = 0
    m = hm
    while m:
        c, m = pop_low(m)
        d = _gain(c, m4, m3, m2, tab)
        # Net of the opponent's best immediate reply after this card.
        sl = 2 * mover + (0 if (prime >> c) & 1 else 1)
        a0 = c if sl == 0 else t0
        a1 = c if sl == 1 else t1
        a2 = c if sl == 2 else t2
        a3 = c if sl == 3 else t3
        if ho & tab[a0 * 32 + a2]:
            r = 4
        elif ho & (tab[a0 * 32 + a1] | tab[a0 * 32 + a3] | tab[a2 * 32 + a1] | tab[a2 * 32 + a3]):
            r = 3
        elif ho & tab[a1 * 32 + a3]:
            r = 2
        else:
            r = 0
        # The mover's own two tops stay visible through the opponent's reply.
        if mover == 0:
            f = 1 if tab[a0 * 32 + a1] & (hm ^ (one << c)) else 0
        else:
            f = 1 if tab[a2 * 32 + a3] & (hm ^ (one << c)) else 0
        ordv = 2 * d - r + f + 8
        tie = (31 - c) if tid == 0 else c
        key = ((ordv + (64 if c == hint else 0)) << 20) | (d << 16) | (tie << 8) | c
        j = n
        while j > 0 and cand[ply, j - 1] < key:
            cand[ply, j] = cand[ply, j - 1]
            j -= 1
        cand[ply, j] = key
        n += 1
    return n


@njit(cache=True, nogil=True)
def _search(st, mover, alpha, beta, ply, tt, tab, cand, prime, stop, tid):
    """Exact value for `mover` of the rest of the game (fail-soft PVS). `stop[0]`
    set by another thread aborts the search (nothing more is stored)."""
    st[_NODES] += 1
    if stop[0]:
        return 0
    one = np.int64(1)
    hm = st[mover]
    ho = st[1 - mover]
    if hm == 0:
        return 0
    t0 = st[_T0]
    t1 = st[_T0 + 1]
    t2 = st[_T0 + 2]
    t3 = st[_T0 + 3]
    m4, m3, m2 = _bonus_masks(t0, t1, t2, t3, tab)
    if (hm & (hm - 1)) == 0 and (ho & (ho - 1)) == 0:
        return _last2(st, mover, hm, ho, m4, m3, m2, tab, prime)  # no search needed
    if popcount(hm | ho) <= _ENDGAME:
        return _endgame(st, mover, alpha, beta, tab, prime)
    w0, idx, chk = _tt_key(st, mover, t0, t1, t2, t3, tt, tab)
    done, v, lower, upper, hint, alpha, beta = _probe(tt, idx, w0, chk, mover, alpha, beta)
    if done:
        return v
    lb, ub = _score_bounds(st, mover, hm, ho, t0, t1, t2, t3, m4, m3, m2, tab, prime)
    cut, v, alpha, beta = bound_window(lb, ub, alpha, beta)
    if cut:
        return v
    alpha0 = alpha
    beta0 = beta
    n = _order(mover, hm, ho, t0, t1, t2, t3, m4, m3, m2, hint, ply, tab, cand, prime, tid)
    best = -INF
    best_c = 0
    opp = 1 - mover
    nrem = popcount(hm | ho)
    for t in range(n):
        key = cand[ply, t]
        c = key & 255
        d = (key >> 16) & 15
        s = _T0 + 2 * mover + (0 if (prime >> c) & 1 else 1)
        old = st[s]
        st[s] = c
        st[mover] = hm ^ (one << c)
        if t == 0:
            v = d - _search(st, opp, d - beta, d - alpha, ply + 1, tt, tab, cand, prime, stop, tid)
        else:
            v = d - _search(st, opp, d - alpha - 1, d - alpha, ply + 1, tt, tab, cand, prime, stop, tid)
            if alpha < v < beta:
                v = d - _search(st, opp, d - beta, d - v, ply + 1, tt, tab, cand, prime, stop, tid)
        st[mover] = hm
        st[s] = old
        best, best_c, alpha, cutoff = keep_best(v, c, best, best_c, alpha, beta)
        if cutoff:
            break
    if stop[0]:
        return 0
    _store(tt, idx, w0, chk, mover, lower, upper, best, alpha0, beta0, best_c, min(nrem, 31))
    return best


class AlphaBetaV1(_kernels.ChildValues):
    """Exact values of 2-player version-1 positions (one reusable table).

    Args:
        tt_bits: log2 of the number of table entries (16 bytes each; 2^24 ≈ 268 MB).
        guess: MTD(f)'s first guess (the typical deal value).
        threads: 1, or 2 to search with two threads sharing the table (lazy SMP); the value is the same either way.
    """

    version = 1

    def __init__(self, tt_bits: int = 24, guess: int = -1, threads: int = 1):
        self.threads = _kernels.check_threads(threads)
        self.tt = np.zeros((1 << tt_bits, 2), dtype=np.int64)
        self.guess = int(guess)
        self._cand = [np.zeros((64, 16), dtype=np.int64) for _ in range(self.threads)]
        self._st = [np.zeros(8, dtype=np.int64) for _ in range(self.threads)]
        self.counter = np.zeros(1, dtype=np.int64)  # nodes searched (all threads) since the solver was made
        self._tables: dict[int, tuple[np.ndarray, int]] = {}

    def clear(self) -> None:
        """Forget every stored position."""
        self.tt[:] = 0

    def value(self, hands, stacks, mover: int) -> int:
        """Exact value for `mover` of the rest of the game (its future score-difference gain)."""
        maxcard = max([c for hand in hands for c in hand] + [c for s in stacks for c in s] + [3])
        if maxcard not in self._tables:
            self._tables[maxcard] = _tables(maxcard)
        tab, prime = self._tables[maxcard]
        for st in self._st:
            st[:] = 0
            st[_H0] = sum(1 << c for c in hands[0])
            st[_H1] = sum(1 << c for c in hands[1])
            for s in range(4):
                st[_T0 + s] = stacks[s][-1] if len(stacks[s]) else 0
        stop = np.zeros(1, dtype=np.int64)
        prime = np.int64(prime)

        def search(tid: int) -> int | None:
            # MTD(f) driven from Python: numba cannot link a cached recursive function into another one.
            st, cand = self._st[tid], self._cand[tid]
            def probe(a: int, b: int) -> int:
                return int(_search(st, int(mover), a, b, 0, self.tt, tab, cand, prime, stop, tid))

            return _kernels.mtdf(probe, self.guess, stopped=lambda: bool(stop[0]))

        v = _kernels.race(search, self.threads, stop)
        self.counter[0] += sum(int(st[_NODES]) for st in self._st)
        return v
