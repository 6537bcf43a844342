"""Alpha-beta exact solver of 2-player Primi Composti, version 2 (numba, bit boards).

Same meaning as `ReferenceSolver(2).value`: the exact value for the mover of the rest of the game (change of mover
score − opponent score under perfect play). Covered: 2 players, version 2, `steal_choice="max"`, no revealed
operand, cards up to 31 (≤ 15 per player). Bitboard move generation (`REL`), gain-minus-best-reply ordering,
non-recursive code for the last five plies, a transposition table keyed by both hands and a 96-bit Zobrist hash
of the stacks' un-frozen reachable parts (`_key`), score bounds sharpened over the next three plies, fail-soft
PVS with MTD(f) at the root, optionally two threads (lazy SMP); docs/primi_composti.md gives the measurements.

The steal rule here is a third form of the engine's (`envs.primi_composti.rules.best_pair`): `_classes` splits a
hand by what each card steals with a few mask operations on `REL` (built from `rules.VALID`), and `_play` /
`_unplay` move the stolen tops; a test checks `_steal` and `_best_gain` against the readable rule, and
docs/primi_composti.md ("Rule homes") says why the compiled rule is not called.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agents.primi_composti.solvers import _kernels
from agents.primi_composti.solvers._kernels import INF, bound_window, keep_best, lowbit, pop_low, popcount
from envs.core.jit import INLINE
from envs.primi_composti.rules import VALID, VALUE

_MAXC = 32  # cards 2..31


def _bits(cards) -> int:
    """The card mask of `cards`."""
    return sum(1 << c for c in cards)


def _tables():
    """REL, the prime mask, the Zobrist keys and PT (the cards' relations as bit masks)."""
    cards = range(2, _MAXC)
    rel = np.zeros((_MAXC, _MAXC), dtype=np.int64)  # REL[a, b]: cards c with a # b = c (0 = empty stack)
    pt = np.zeros((_MAXC, _MAXC), dtype=np.int64)  # PT[x, c]: cards t (≠ x, c) with x # t = c
    for a in cards:
        for b in cards:
            if a != b:
                rel[a, b] = _bits(c for c in cards if VALID[c, a, b] and c != a and c != b)
                pt[a, b] = _bits(t for t in cards if t != a and t != b and VALID[b, a, t])
    prime = _bits(c for c in cards if VALUE[c] == 2)
    g = np.random.default_rng(0x5EED2)
    z = g.integers(0, 2**63 - 1, size=(2, 4, 40, _MAXC), dtype=np.int64).astype(np.uint64)
    return rel, np.int64(prime), z, pt


_REL, _PRIME, _Z, _PT = _tables()
_VAL = VALUE[:_MAXC].astype(np.int64)


@njit(cache=True, nogil=True)
def _steal_bound(c, avail, rel, val):
    """Most a pair (a, b) ⊆ avail with a # b = c could steal (3, 2, 1 or 0)."""
    best = 0
    a_m = avail & ~(np.int64(1) << c)
    x = a_m
    while x:
        a, x = pop_low(x)
        y = x
        while y:
            b, y = pop_low(y)
            if (rel[a, b] >> c) & 1:
                if val[a] != val[b]:
                    return 3
                s = 2 if val[a] == 2 else 1
                if s > best:
                    best = s
    return best


@njit(cache=True, nogil=True)
def _deal_tables(deck_mask, rel, val, cmask, smax):
    """Per deal: cmask[X] = cards c such that some t of the deal (t ≠ X, c) has
    X # t = c (X is dead once no such c is left in a hand); smax[c] = most a
    pair of the deal can steal when played with c (0: no pair forms c)."""
    for x in range(_MAXC):
        cmask[x] = 0
        smax[x] = 0
    for x in range(2, _MAXC):
        if not (deck_mask >> x) & 1:
            continue
        m = np.int64(0)
        for t in range(2, _MAXC):
            if t != x and (deck_mask >> t) & 1:
                m |= rel[x, t]
        cmask[x] = m & deck_mask & ~(np.int64(1) << x)
        smax[x] = _steal_bound(x, deck_mask, rel, val)


@njit(cache=True, nogil=True)
def _key(hands, mover, stacks, heights, cmask, z, pt):
    """Canonical key of a position: hands + mover exactly (k0), and a 96-bit hash
    of the un-frozen reachable parts of the stacks (k1, upper 32 bits of k2). X is
    dead when no card c left in a hand has a partner t among the cards that can
    still be visible (the hands and the reachable, un-frozen stack cards) with
    X # t = c; iterated to a fixpoint."""
    h0 = hands[0]
    h1 = hands[1]
    hh = h0 | h1
    k0 = h0 | (h1 << 32) | mover
    lo = np.empty(4, dtype=np.int64)
    avail = hh
    for s in range(4):
        r = popcount(hands[1 - (s >> 1)])
        low = heights[s] - r - 1
        if low < 0:
            low = 0
        lo[s] = low
        for p in range(low, heights[s]):
            avail |= np.int64(1) << stacks[s, p]
    changed = True
    while changed:
        changed = False
        for s in range(4):
            p = heights[s] - 1
            while p >= lo[s]:
                x = stacks[s, p]
                cs = cmask[x] & hh
                live = False
                while cs:
                    c, cs = pop_low(cs)
                    if pt[x, c] & avail:
                        live = True
                        break
                if not live:
                    for q in range(lo[s], p + 1):
                        avail &= ~(np.int64(1) << stacks[s, q])
                    lo[s] = p + 1
                    changed = True
                    break
                p -= 1
    k1 = np.uint64(0)
    k2 = np.uint64(0)
    for s in range(4):
        for p in range(lo[s], heights[s]):
            c = stacks[s, p]
            k1 ^= z[0, s, p - lo[s], c]
            k2 ^= z[1, s, p - lo[s], c]
    return k0, k1, k2


@njit(cache=True, nogil=True, inline=INLINE)
def _tops(stacks, heights, mover):
    """The four visible cards: the mover's prime and composite tops, then the
    opponent's (0 for an empty stack)."""
    sp = 2 * mover
    so = 2 - sp
    pm = stacks[sp, heights[sp] - 1] if heights[sp] > 0 else 0
    cm = stacks[sp + 1, heights[sp + 1] - 1] if heights[sp + 1] > 0 else 0
    po = stacks[so, heights[so] - 1] if heights[so] > 0 else 0
    co = stacks[so + 1, heights[so + 1] - 1] if heights[so + 1] > 0 else 0
    return pm, cm, po, co


@njit(cache=True, nogil=True, inline=INLINE)
def _classes(h, pm, cm, po, co):
    """The cards of hand h split by what they would steal (the max-steal rule's
    priority), with (pm, cm) the holder's own tops and (po, co) the other side's:
    m3 both other tops (they form the card), m2 the other prime top (with an own
    top), m1 the other composite top; the rest steal nothing."""
    m3 = _REL[po, co] & h
    m2 = (_REL[pm, po] | _REL[cm, po]) & h & ~m3
    m1 = (_REL[pm, co] | _REL[cm, co]) & h & ~(m3 | m2)
    return m3, m2, m1


@njit(cache=True, nogil=True, inline=INLINE)
def _steal(c, m3, m2, m1):
    """What card c steals (3, 2, 1 or 0), from the classes of `_classes`."""
    if (m3 >> c) & 1:
        return 3
    if (m2 >> c) & 1:
        return 2
    if (m1 >> c) & 1:
        return 1
    return 0


@njit(cache=True, nogil=True, inline=INLINE)
def _best_gain(h, pm, cm, po, co):
    """The best immediate gain VALUE(c) + 2·stolen of hand h (0 when empty), with
    (pm, cm) the holder's own tops and (po, co) the other side's."""
    if h == 0:
        return 0
    m3 = _REL[po, co] & h
    if m3:
        return 8 if (m3 & _PRIME) else 7
    m2 = (_REL[pm, po] | _REL[cm, po]) & h
    if m2:
        return 6 if (m2 & _PRIME) else 5
    m1 = (_REL[pm, co] | _REL[cm, co]) & h
    if m1:
        return 4 if (m1 & _PRIME) else 3
    return 2 if (h & _PRIME) else 1


@njit(cache=True, nogil=True, inline=INLINE)
def _after(stacks, heights, mover, c, st, pm, cm, po, co):
    """The four tops, in `_tops`' order for the same mover, after it plays c stealing st."""
    so = 2 - 2 * mover
    if st == 3 or st == 2:
        pm = po
        h = heights[so] - 2
        po = stacks[so, h] if h >= 0 else 0
    if st == 3 or st == 1:
        cm = co
        h = heights[so + 1] - 2
        co = stacks[so + 1, h] if h >= 0 else 0
    if _VAL[c] == 2:
        pm = c
    else:
        cm = c
    return pm, cm, po, co


@njit(cache=True, nogil=True, inline=INLINE)
def _play(hands, stacks, heights, mover, hm, c, st, po, co):
    """The mover (hand hm) plays c, stealing st of the opponent's tops po, co.
    Returns the stack c went on, for `_unplay`."""
    sp = 2 * mover
    so = 2 - sp
    hands[mover] = hm & ~(np.int64(1) << c)
    if st == 3 or st == 2:
        heights[so] -= 1
        stacks[sp, heights[sp]] = po
        heights[sp] += 1
    if st == 3 or st == 1:
        heights[so + 1] -= 1
        stacks[sp + 1, heights[sp + 1]] = co
        heights[sp + 1] += 1
    own = sp if _VAL[c] == 2 else sp + 1
    stacks[own, heights[own]] = c
    heights[own] += 1
    return own


@njit(cache=True, nogil=True, inline=INLINE)
def _unplay(hands, stacks, heights, mover, hm, own, st, po, co):
    """Undo `_play` (same arguments; own: what it returned)."""
    sp = 2 * mover
    so = 2 - sp
    heights[own] -= 1
    if st == 3 or st == 1:
        heights[sp + 1] -= 1
        stacks[so + 1, heights[so + 1]] = co
        heights[so + 1] += 1
    if st == 3 or st == 2:
        heights[sp] -= 1
        stacks[so, heights[so]] = po
        heights[so] += 1
    hands[mover] = hm


@njit(cache=True, nogil=True, inline=INLINE)
def _last2(stacks, heights, mover, hm, ho, pm, cm, po, co, m3, m2, m1):
    """Exact value of the last two plies: the mover holds one card, the opponent at
    most one (its reply is forced)."""
    c = lowbit(hm)
    st = _steal(c, m3, m2, m1)
    d = _VAL[c] + 2 * st
    if ho == 0:
        return d
    pm, cm, po, co = _after(stacks, heights, mover, c, st, pm, cm, po, co)
    return d - _best_gain(ho, po, co, pm, cm)


@njit(cache=True, nogil=True, inline=INLINE)
def _head(hands, mover, stacks, heights):
    """The mover's hand, the four tops (`_tops`) and the hand's classes (`_classes`)."""
    hm = hands[mover]
    pm, cm, po, co = _tops(stacks, heights, mover)
    m3, m2, m1 = _classes(hm, pm, cm, po, co)
    return hm, pm, cm, po, co, m3, m2, m1


@njit(cache=True, nogil=True, inline=INLINE)
def _gain(c, m3, m2, m1):
    """The immediate gain of card c: VALUE(c) + 2·stolen."""
    return _VAL[c] + 2 * _steal(c, m3, m2, m1)


@njit(cache=True, nogil=True)
def _leaf2(hands, mover, stacks, heights, alpha, beta):
    """Exact value when the mover holds one card and the opponent at most one (exact: the window is not used)."""
    hm, pm, cm, po, co, m3, m2, m1 = _head(hands, mover, stacks, heights)
    return _last2(stacks, heights, mover, hm, hands[1 - mover], pm, cm, po, co, m3, m2, m1)


@njit(cache=True, nogil=True, inline=INLINE)
def _by_gain2(hm, m3, m2, m1):
    """The mover's two cards with their immediate gains, the larger gain first (ties: the lower card)."""
    c1 = lowbit(hm)
    c2 = lowbit(hm & (hm - 1))
    g1 = _gain(c1, m3, m2, m1)
    g2 = _gain(c2, m3, m2, m1)
    if g2 > g1:
        return c2, g2, c1, g1
    return c1, g1, c2, g2


@njit(cache=True, nogil=True, inline="always")  # takes `child`, a kernel: inlined either way, or numba cannot cache
def _tried_in_order(hands, mover, stacks, heights, alpha, beta, hm, po, co, k, c1, g1, c2, g2, c3, g3, child):
    """Fail-soft value within (alpha, beta) over the mover's k (2 or 3) cards tried in the order c1, c2, c3 (g: their
    immediate gains), each child valued by `child(hands, opponent, stacks, heights, alpha, beta)`. (A compiled
    function passed as an argument is a compile-time constant to numba: the call is as direct as a named one.)"""
    best = -INF
    for it in range(k):
        if it == 0:
            c, d = c1, g1
        elif it == 1:
            c, d = c2, g2
        else:
            c, d = c3, g3
        st = (d - _VAL[c]) >> 1
        own = _play(hands, stacks, heights, mover, hm, c, st, po, co)
        v = d - child(hands, 1 - mover, stacks, heights, d - beta, d - alpha)
        _unplay(hands, stacks, heights, mover, hm, own, st, po, co)
        best, _, alpha, cutoff = keep_best(v, c, best, c, alpha, beta)
        if cutoff:
            return best
    return best


@njit(cache=True, nogil=True)
def _end3(hands, mover, stacks, heights, alpha, beta):
    """Exact value (fail-soft within (alpha, beta)) when the mover holds two cards
    and the opponent one; children by `_leaf2`. (The endgame functions are
    separate, not one recursive function: numba's cache mishandles a second
    recursive function called from `_search`.)"""
    hm, pm, cm, po, co, m3, m2, m1 = _head(hands, mover, stacks, heights)
    c1, g1, c2, g2 = _by_gain2(hm, m3, m2, m1)
    return _tried_in_order(hands, mover, stacks, heights, alpha, beta, hm, po, co, 2, c1, g1, c2, g2, 0, 0, _leaf2)


@njit(cache=True, nogil=True)
def _end4(hands, mover, stacks, heights, alpha, beta):
    """Exact value (fail-soft within (alpha, beta)) when both hold two cards; children by `_end3`."""
    hm, pm, cm, po, co, m3, m2, m1 = _head(hands, mover, stacks, heights)
    c1, g1, c2, g2 = _by_gain2(hm, m3, m2, m1)
    return _tried_in_order(hands, mover, stacks, heights, alpha, beta, hm, po, co, 2, c1, g1, c2, g2, 0, 0, _end3)


@njit(cache=True, nogil=True)
def _end5(hands, mover, stacks, heights, alpha, beta):
    """Exact value (fail-soft) when the mover holds three cards and the opponent two;
    children by `_end4`."""
    hm, pm, cm, po, co, m3, m2, m1 = _head(hands, mover, stacks, heights)
    # the three cards by immediate gain, largest first
    c1, g1, c2, g2 = _by_gain2(hm, m3, m2, m1)
    c3 = lowbit(hm & ~((np.int64(1) << c1) | (np.int64(1) << c2)))
    g3 = _gain(c3, m3, m2, m1)
    if g3 > g2:
        c2, c3, g2, g3 = c3, c2, g3, g2
    if g2 > g1:
        c1, c2, g1, g2 = c2, c1, g2, g1
    return _tried_in_order(hands, mover, stacks, heights, alpha, beta, hm, po, co, 3, c1, g1, c2, g2, c3, g3, _end4)


@njit(cache=True, nogil=True, inline=INLINE)
def _probe(tt, idx, uk0, k1, chk, alpha, beta):
    """Look the position up in its two-slot bucket. Returns (done, value, hint): done
    when the stored bound decides the window; hint is the stored best card (−1: none)."""
    for slot in range(2):
        i = idx + slot
        w = tt[i, 2]
        if tt[i, 0] == uk0 and tt[i, 1] == k1 and (w >> np.uint64(32)) == chk:
            v = np.int64((w >> np.uint64(16)) & np.uint64(0xFFFF))
            if v >= 32768:
                v -= 65536
            f = np.int64(w & np.uint64(3))
            if f == 0 or (f == 1 and v >= beta) or (f == 2 and v <= alpha):
                return True, v, -1
            return False, 0, np.int64((w >> np.uint64(2)) & np.uint64(63))
    return False, 0, -1


@njit(cache=True, nogil=True, inline=INLINE)
def _store(tt, idx, uk0, k1, chk, best, flag, best_c, depth):
    """Store a result: slot 0 of the bucket keeps the deepest entry, slot 1 the latest."""
    dq = min(depth, 63)
    i = idx
    w = tt[idx, 2]
    held = tt[idx, 0] == uk0 and tt[idx, 1] == k1 and (w >> np.uint64(32)) == chk
    if not held and np.int64((w >> np.uint64(8)) & np.uint64(63)) > dq:
        i = idx + 1
    tt[i, 0] = uk0
    tt[i, 1] = k1
    tt[i, 2] = (chk << np.uint64(32)) | (np.uint64(best & 0xFFFF) << np.uint64(16)) | np.uint64(
        flag | (best_c << 2) | (dq << 8))


@njit(cache=True, nogil=True, inline=INLINE)
def _static_bounds(hm, ho, m3, m2, m1, sb):
    """Score bounds (lb, ub) from each card's static range (VALUE(c) to VALUE(c) + 2·sb[c], the card
    played now stealing exactly st(c)), plus the sums the sharper bounds reuse (dv, sbo, sbp)."""
    dv = 0
    sbo = 0
    sbp = 0
    slack = 3
    now = 0
    x = hm
    while x:
        c, x = pop_low(x)
        dv += _VAL[c]
        sbo += sb[c]
        st_ = _steal(c, m3, m2, m1)
        if sb[c] - st_ < slack:
            slack = sb[c] - st_
        if st_ > now:
            now = st_
    x = ho
    while x:
        c, x = pop_low(x)
        dv -= _VAL[c]
        sbp += sb[c]
    return dv + 2 * now - 2 * sbp, dv + 2 * sbo - 2 * slack, dv, sbo, sbp


@njit(cache=True, nogil=True, inline=INLINE)
def _can_decide(lb, ub, alpha, beta):
    """Whether sharpening the bounds by a later reply (at most 6) can still decide the window."""
    return ub - 6 <= alpha < ub or lb < beta <= lb + 6


@njit(cache=True, nogil=True, inline=INLINE)
def _bounds_2ply(stacks, heights, mover, hm, ho, pm, cm, po, co, m3, m2, m1, sb, dv, sbo, sbp):
    """Bounds (lb, ub) exact over the next two plies (the opponent's reply's steal is known after own
    card c); never looser than the static pair, so they replace it."""
    ub2 = -INF
    lb2 = -INF
    x = hm
    while x:
        c, x = pop_low(x)
        st_ = _steal(c, m3, m2, m1)
        npm, ncm, npo, nco = _after(stacks, heights, mover, c, st_, pm, cm, po, co)
        r3, r2, r1 = _classes(ho, npo, nco, npm, ncm)
        minst = 3
        minsl = 3
        y = ho
        while y:
            e, y = pop_low(y)
            se = _steal(e, r3, r2, r1)
            if se < minst:
                minst = se
            if sb[e] - se < minsl:
                minsl = sb[e] - se
        u = dv + 2 * st_ + 2 * (sbo - sb[c]) - 2 * minst
        l_ = dv + 2 * st_ - 2 * sbp + 2 * minsl
        if u > ub2:
            ub2 = u
        if l_ > lb2:
            lb2 = l_
    return lb2, ub2


@njit(cache=True, nogil=True, inline=INLINE)
def _bounds_3ply(hands, stacks, heights, mover, hm, ho, po, co, m3, m2, m1, sb, dv, sbo, sbp):
    """Bounds (lb, ub) exact over the next three plies (max-min-max of the exact gains plus the static
    ranges of the other cards); never looser than the 2-ply pair, so they replace it."""
    opp = 1 - mover
    ub3 = -INF
    lb3 = -INF
    x = hm
    while x:
        c, x = pop_low(x)
        st_ = _steal(c, m3, m2, m1)
        own = _play(hands, stacks, heights, mover, hm, c, st_, po, co)
        hm2 = hm & ~(np.int64(1) << c)
        qp, qc, qo, qk = _tops(stacks, heights, opp)
        r3, r2, r1 = _classes(ho, qp, qc, qo, qk)
        umin = INF
        lmin = INF
        y = ho
        while y:
            e, y = pop_low(y)
            se = _steal(e, r3, r2, r1)
            ap, ac, am, ak = _after(stacks, heights, opp, e, se, qp, qc, qo, qk)
            f3, f2, f1 = _classes(hm2, am, ak, ap, ac)
            fu = -INF
            fl = -INF
            z_ = hm2
            while z_:
                f, z_ = pop_low(z_)
                sf = _steal(f, f3, f2, f1)
                if 2 * sf - 2 * sb[f] > fu:
                    fu = 2 * sf - 2 * sb[f]
                if 2 * sf > fl:
                    fl = 2 * sf
            u = dv + 2 * st_ + 2 * (sbo - sb[c]) - 2 * se + fu
            l_ = dv + 2 * st_ - 2 * (sbp - sb[e]) - 2 * se + fl
            if u < umin:
                umin = u
            if l_ < lmin:
                lmin = l_
        _unplay(hands, stacks, heights, mover, hm, own, st_, po, co)
        if umin > ub3:
            ub3 = umin
        if lmin > lb3:
            lb3 = lmin
    return lb3, ub3


@njit(cache=True, nogil=True, inline=INLINE)
def _order(stacks, heights, mover, hm, ho, depth, hint, pm, cm, po, co, m3, m2, m1, mvk, mvc, tid):
    """Fill the move list of `depth` (mvc: cards, mvk: keys), best first: the table's
    card, then immediate gain minus the opponent's best immediate reply (near the end,
    below 3 cards left: gain, then the lower card); a second thread (`tid` 1)
    breaks ties the other way (lazy SMP). Returns the number of moves."""
    n = 0
    x = hm
    while x:
        c, x = pop_low(x)
        st = _steal(c, m3, m2, m1)
        d = _VAL[c] + 2 * st
        if depth >= 3:
            npm, ncm, npo, nco = _after(stacks, heights, mover, c, st, pm, cm, po, co)
            key = (d - _best_gain(ho, npo, nco, npm, ncm) + 16) * 64 + (c if tid == 0 else 63 - c)
        else:
            key = d * 64 + 63 - c
        if c == hint:
            key += 1 << 20
        j = n
        while j > 0 and mvk[depth, j - 1] < key:
            mvk[depth, j] = mvk[depth, j - 1]
            mvc[depth, j] = mvc[depth, j - 1]
            j -= 1
        mvk[depth, j] = key
        mvc[depth, j] = c
        n += 1
    return n


@njit(cache=True, nogil=True)
def _search(hands, mover, stacks, heights, alpha, beta, tt, counter, cmask, sb, mvk, mvc, tt_min, tid):
    """Exact value for `mover` of the rest of the game: fail-soft alpha-beta with
    null windows after the first card (PVS). The table is used with at least `tt_min`
    cards left in the hands; sb[0] (no card 0) is the stop flag of lazy SMP."""
    # The constant tables are module globals, which numba freezes into the machine
    # code: passing them as arguments made every node 12% slower (same nodes).
    counter[0] += 1
    opp = 1 - mover
    hm = hands[mover]
    ho = hands[opp]
    if hm == 0:
        return 0
    pm, cm, po, co = _tops(stacks, heights, mover)
    m3, m2, m1 = _classes(hm, pm, cm, po, co)
    nm = popcount(hm)
    no = popcount(ho)
    if nm == 1 and no <= 1:
        return _last2(stacks, heights, mover, hm, ho, pm, cm, po, co, m3, m2, m1)
    depth = nm + no
    if depth >= 8 and sb[0]:
        # Another thread has the answer: unwind, storing nothing. (The flag lives in
        # sb[0]: a separate argument cost 5% in time.)
        return 0
    use_tt = depth >= tt_min
    hint = -1
    k1 = np.uint64(0)
    chk = np.uint64(0)
    uk0 = np.uint64(0)
    idx = 0
    if use_tt:
        k0, k1, k2 = _key(hands, mover, stacks, heights, cmask, _Z, _PT)
        idx = np.int64((k1 ^ (np.uint64(k0) * np.uint64(0x9E3779B97F4A7C15))) & np.uint64(tt.shape[0] - 2))
        chk = k2 >> np.uint64(32)
        uk0 = np.uint64(k0)
        done, v, hint = _probe(tt, idx, uk0, k1, chk, alpha, beta)
        if done:
            return v
    if depth >= 3:
        lb, ub, dv, sbo, sbp = _static_bounds(hm, ho, m3, m2, m1, sb)
        if ho != 0 and _can_decide(lb, ub, alpha, beta):
            lb, ub = _bounds_2ply(stacks, heights, mover, hm, ho, pm, cm, po, co, m3, m2, m1, sb, dv, sbo, sbp)
            if nm >= 2 and _can_decide(lb, ub, alpha, beta):
                lb, ub = _bounds_3ply(hands, stacks, heights, mover, hm, ho, po, co, m3, m2, m1, sb, dv, sbo, sbp)
        cut, v, alpha, beta = bound_window(lb, ub, alpha, beta)
        if cut:
            return v
    # The last five plies (3 against 2 cards and below): non-recursive code.
    if nm == 2:
        if no == 1:
            return _end3(hands, mover, stacks, heights, alpha, beta)
        if no == 2:
            return _end4(hands, mover, stacks, heights, alpha, beta)
    if nm == 3 and no == 2:
        return _end5(hands, mover, stacks, heights, alpha, beta)
    alpha0 = alpha
    n = _order(stacks, heights, mover, hm, ho, depth, hint, pm, cm, po, co, m3, m2, m1, mvk, mvc, tid)
    best = -INF
    best_c = -1
    for t in range(n):
        c = mvc[depth, t]
        st = _steal(c, m3, m2, m1)
        d = _VAL[c] + 2 * st
        own = _play(hands, stacks, heights, mover, hm, c, st, po, co)
        if t == 0:
            v = d - _search(hands, opp, stacks, heights, d - beta, d - alpha, tt, counter, cmask, sb, mvk, mvc, tt_min,
                            tid)
        else:
            v = d - _search(hands, opp, stacks, heights, d - alpha - 1, d - alpha, tt, counter, cmask, sb, mvk, mvc,
                            tt_min, tid)
            if alpha < v < beta:
                v = d - _search(hands, opp, stacks, heights, d - beta, d - v, tt, counter, cmask, sb, mvk, mvc, tt_min,
                                tid)
        _unplay(hands, stacks, heights, mover, hm, own, st, po, co)
        best, best_c, alpha, cutoff = keep_best(v, c, best, best_c, alpha, beta)
        if cutoff:
            break
    if use_tt and not sb[0]:
        flag = 2 if best <= alpha0 else (1 if best >= beta else 0)
        _store(tt, idx, uk0, k1, chk, best, flag, best_c, depth)
    return best


_GUESS = -3  # the root's first guess: near the typical value of a deal (perfect play favours the second player)
_ASPIRATION = 3  # half width of the root's first window around the guess


class AlphaBetaV2(_kernels.ChildValues):
    """Exact values of 2-player version-2 positions (reuses one transposition table).

    Args:
        tt_bits: log2 of the table size (24 bytes an entry: 2^22 ≈ 100 MB, 2^25 ≈ 805 MB).
        threads: 1, or 2 to search with two threads sharing the table (lazy SMP); the value is the same either way.
        tt_min: use the table only with at least this many cards left in the hands.

    `nodes` counts the `_search` calls, all threads together. Table entries are written without locks; a read checks
    all three words against the position's key, so a torn entry is taken only if both keys agree in all 160 bits or
    collide in 32.
    """

    version = 2

    def __init__(self, tt_bits: int = 22, threads: int = 1, tt_min: int = 12):
        self.threads = _kernels.check_threads(threads)
        self.tt = np.zeros((1 << tt_bits, 3), dtype=np.uint64)
        self.tt_min = int(tt_min)
        self.counter = np.zeros(1, dtype=np.int64)  # nodes searched (all threads) since the solver was made
        self._deck = -1
        self.cmask = np.zeros(_MAXC, dtype=np.int64)
        self.sb = np.zeros(_MAXC, dtype=np.int64)
        # per thread: move lists by depth (keys, cards), node counters
        self._mvk = [np.zeros((64, 32), dtype=np.int64) for _ in range(self.threads)]
        self._mvc = [np.zeros((64, 32), dtype=np.int64) for _ in range(self.threads)]
        self._counters = [np.zeros(1, dtype=np.int64) for _ in range(self.threads)]

    def clear(self) -> None:
        """Forget every stored position."""
        self.tt[:] = 0
        self._deck = -1

    def _root(self, tid: int, h, st, heights, mover: int) -> int | None:
        """Aspiration window around the guess, then MTD(f) from its result (None: stopped)."""
        stop = self.sb

        def probe(a: int, b: int) -> int:
            return int(_search(h, mover, st, heights, a, b, self.tt, self._counters[tid], self.cmask, self.sb,
                               self._mvk[tid], self._mvc[tid], self.tt_min, tid))

        a, b = _GUESS - _ASPIRATION, _GUESS + _ASPIRATION
        g = probe(a, b)
        if stop[0]:
            return None
        lo, hi = (g, g) if a < g < b else ((-INF, g) if g <= a else (g, INF))
        return _kernels.mtdf(probe, g, lo, hi, stopped=lambda: bool(stop[0]))

    def value(self, hands, stacks, mover: int) -> int:
        """Exact value for `mover` of the rest of the game (its future score
        difference gain under perfect play by both sides)."""
        cards = [int(c) for c in hands[0]] + [int(c) for c in hands[1]] + [int(c) for st in stacks for c in st]
        if cards and (max(cards) >= _MAXC or min(cards) < 2):
            raise ValueError(f"AlphaBetaV2 covers cards 2..{_MAXC - 1}")
        deck = sum(1 << c for c in cards)
        if deck != self._deck:
            # The deadness tables depend on the deal's cards; the stored values do not:
            # a key describes the position with its frozen parts removed, whose value
            # is the same whatever the frozen cards were, so the table is kept.
            self._deck = deck
            _deal_tables(np.int64(deck), _REL, _VAL, self.cmask, self.sb)
        h = np.array([sum(1 << int(c) for c in hands[0]), sum(1 << int(c) for c in hands[1])], dtype=np.int64)
        st, heights = self._stacks(hands, stacks)
        # each thread plays moves on its own copy of the position
        args = [(h.copy(), st.copy(), heights.copy()) for _ in range(self.threads)]
        for c in self._counters:
            c[:] = 0
        v = _kernels.race(lambda tid: self._root(tid, *args[tid], int(mover)), self.threads, self.sb)
        self.counter[0] += sum(int(c[0]) for c in self._counters)
        return v
