"""Exact version-1 values by retrograde analysis over the whole state space (numba).

In version 1 a player's future is fixed by the set of its hand cards already played and its two tops, so the
value v(x, y) for the mover is computed backwards one ply at a time, a layer an int8 matrix (mover's state ×
opponent's state) with the next layer transposed:

    v[x, :] = max over cards c of x's remaining hand of  gain(c, tops(x), tops(:)) − w[next(x, c), :]

The opponent's states are sorted by their tops, so the gain is constant over blocks of columns and the inner loop
vectorises; every layer is kept (≈ 0.4 GB at a full deal) so later positions of the deal are lookups.
`threads=2` splits each layer's rows and each transpose's bands between two threads.

The gain (`_gain`: VALUE(c) plus the version-1 bonus of four tops) is a third form of the engine's rule
(`envs.primi_composti.rules.best_pair`), tested against the readable one; why it is kept: docs/primi_composti.md,
"Rule homes".
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from agents.primi_composti.solvers._kernels import check_threads
from agents.primi_composti.solvers.alphabeta_v1 import AlphaBetaV1
from envs.core.jit import INLINE
from envs.primi_composti.rules import VALID, VALUE

_NEG = -128


@njit(cache=True)
def _enumerate_states(cards, is_prime, tp0, tc0):
    """Every (played set, prime top, composite top) of one player with its layer (cards played), unsorted: a top is
    the current one (`tp0` / `tc0`, 0 = empty) while no card of its kind was played, else a played card of its kind.
    Returns (mask, tp, tc, layer)."""
    n = cards.shape[0]
    # Candidate tops: index 0 = the current top (or empty), 1 + j = hand card j.
    tot = 0
    for m in range(1 << n):
        hp = 0
        hc = 0
        for j in range(n):
            if (m >> j) & 1:
                if is_prime[j]:
                    hp += 1
                else:
                    hc += 1
        tot += max(hp, 1) * max(hc, 1)
    mask = np.empty(tot, dtype=np.int64)
    tp = np.empty(tot, dtype=np.int64)
    tc = np.empty(tot, dtype=np.int64)
    layer = np.empty(tot, dtype=np.int64)
    i = 0
    for m in range(1 << n):
        k = 0
        for j in range(n):
            k += (m >> j) & 1
        for a in range(n + 1):  # a = 0: current prime top; else 1 + index of a played prime
            if a == 0:
                ok = True
                for j in range(n):
                    if (m >> j) & 1 and is_prime[j]:
                        ok = False
                if not ok:
                    continue
                pa = tp0
            else:
                if not ((m >> (a - 1)) & 1 and is_prime[a - 1]):
                    continue
                pa = cards[a - 1]
            for b in range(n + 1):
                if b == 0:
                    ok = True
                    for j in range(n):
                        if (m >> j) & 1 and not is_prime[j]:
                            ok = False
                    if not ok:
                        continue
                    cb = tc0
                else:
                    if not ((m >> (b - 1)) & 1 and not is_prime[b - 1]):
                        continue
                    cb = cards[b - 1]
                mask[i] = m
                tp[i] = pa
                tc[i] = cb
                layer[i] = k
                i += 1
    return mask, tp, tc, layer


@njit(cache=True)
def _player_states(cards, is_prime, tp0, tc0):
    """All (played set, prime top, composite top) of one player, layer by layer.

    cards: the hand (n cards); tp0 / tc0: its current tops (0 = empty stack).
    Returns, for the states of every layer k = 0..n (k cards played) in one flat
    order sorted by (k, prime top, composite top, set):
      start[k]           first flat index of layer k (start[n + 1] = total),
      mask[i], tp[i], tc[i],
      code[i]            index of (tp, tc) among the pairs that occur in its layer,
      nxt[i, j]          rank within layer k + 1 of the state after playing card j
                         (−1 if card j was already played),
      look, slot         rank within its layer of (set, prime top, composite top):
                         look[(set·(n+1) + slot[tp])·(n+1) + slot[tc]] (−1: no such state).
    """
    n = cards.shape[0]
    mask, tp, tc, layer = _enumerate_states(cards, is_prime, tp0, tc0)
    tot = mask.shape[0]
    # Sort by (layer, prime top, composite top, set).
    keyv = ((layer * 128 + tp) * 128 + tc) * (1 << n) + mask
    order = np.argsort(keyv, kind="mergesort")
    mask = mask[order]
    tp = tp[order]
    tc = tc[order]
    layer = layer[order]
    start = np.zeros(n + 2, dtype=np.int64)
    for q in range(tot):
        start[layer[q] + 1] += 1
    for k in range(n + 1):
        start[k + 1] += start[k]
    code = np.zeros(tot, dtype=np.int64)
    for k in range(n + 1):
        cc = -1
        for q in range(start[k], start[k + 1]):
            if q == start[k] or tp[q] != tp[q - 1] or tc[q] != tc[q - 1]:
                cc += 1
            code[q] = cc
    # Rank lookup: (mask, prime top slot, composite top slot) -> rank within its layer;
    # slot 1 + j = hand card j, 0 = the current top (or an empty stack).
    slot = np.zeros(128, dtype=np.int64)
    for j in range(n):
        slot[cards[j]] = j + 1
    look = np.full((1 << n) * (n + 1) * (n + 1), -1, dtype=np.int64)
    for q in range(tot):
        look[(mask[q] * (n + 1) + slot[tp[q]]) * (n + 1) + slot[tc[q]]] = q - start[layer[q]]
    nxt = np.full((tot, n), -1, dtype=np.int64)
    for q in range(tot):
        if layer[q] == n:
            continue
        m = mask[q]
        sp = slot[tp[q]]
        sc = slot[tc[q]]
        for j in range(n):
            if (m >> j) & 1:
                continue
            m2 = m | (1 << j)
            if is_prime[j]:
                nxt[q, j] = look[(m2 * (n + 1) + j + 1) * (n + 1) + sc]
            else:
                nxt[q, j] = look[(m2 * (n + 1) + sp) * (n + 1) + j + 1]
    return start, mask, tp, tc, code, nxt, look, slot


@njit(cache=True)
def _bonus(c, a, b, value):
    """VALUE(a) + VALUE(b) if the two tops a, b (0 = empty) give c, else 0."""
    if a == 0 or b == 0:
        return 0
    if VALID[c, a, b]:
        return value[a] + value[b]
    return 0


@njit(cache=True)
def _gain(c, a0, a1, b0, b1, value):
    """VALUE(c) plus the best VALUE(a) + VALUE(b) over two of the four tops a0..b1
    (0 = empty stack; any two differ in stack) with a # b = c."""
    best = max(_bonus(c, a0, a1, value), _bonus(c, a0, b0, value), _bonus(c, a0, b1, value))
    best = max(best, _bonus(c, a1, b0, value), _bonus(c, a1, b1, value), _bonus(c, b0, b1, value))
    return value[c] + best


@njit(cache=True)
def _gain_table(cards, m_tp, m_tc, m_code, m_lo, m_hi, o_tp, o_tc, o_code, o_lo, o_hi, value):
    """gain[j, mover tops code, opponent tops code] for the mover's hand card j: VALUE(c)
    plus the best VALUE(a) + VALUE(b) over two visible tops (different stacks) with a # b = c."""
    n = cards.shape[0]
    nm = m_code[m_hi - 1] + 1 if m_hi > m_lo else 0
    no = o_code[o_hi - 1] + 1 if o_hi > o_lo else 0
    g = np.zeros((n, max(nm, 1), max(no, 1)), dtype=np.int64)
    for q in range(m_lo, m_hi):
        if q > m_lo and m_code[q] == m_code[q - 1]:
            continue
        a0 = m_tp[q]
        a1 = m_tc[q]
        for r in range(o_lo, o_hi):
            if r > o_lo and o_code[r] == o_code[r - 1]:
                continue
            b0 = o_tp[r]
            b1 = o_tc[r]
            for j in range(n):
                g[j, m_code[q], o_code[r]] = _gain(cards[j], a0, a1, b0, b1, value)
    return g


@njit(cache=True)
def _blocks(o_code, o_lo, o_hi):
    """Column ranges of the opponent's states with equal tops: bounds[b] .. bounds[b + 1]."""
    nb = o_code[o_hi - 1] + 1 if o_hi > o_lo else 0
    bounds = np.zeros(nb + 1, dtype=np.int64)
    for r in range(o_lo, o_hi):
        bounds[o_code[r] + 1] = r - o_lo + 1
    return bounds


@njit(cache=True, nogil=True)
def _row(out, w, nxt_row, n, g, code_x, bounds):
    """out[:] = max over the mover's cards j of gain − w[nxt_row[j], :] (one row of a layer).
    int8 cannot overflow: a move gains 1..6, so with at most 15 cards a hand (`RetrogradeV1`
    checks) a value is within ±75 and gain − value within ±81."""
    nb = bounds.shape[0] - 1
    for y in range(bounds[nb]):
        out[y] = _NEG
    for j in range(n):
        r2 = nxt_row[j]
        if r2 < 0:
            continue
        src = w[r2]
        for b in range(nb):
            gv = np.int8(g[j, code_x, b])
            o = out[bounds[b]:bounds[b + 1]]
            s = src[bounds[b]:bounds[b + 1]]
            for y in range(o.shape[0]):  # this form vectorises (13x faster than a compare-and-store)
                v = np.int8(gv - s[y])
                u = o[y]
                o[y] = v if v > u else u


@njit(cache=True, nogil=True)
def _layer_serial(out, nrows, w, nxt, x_lo, n, g, code, bounds):
    for x in range(nrows):
        _row(out[x], w, nxt[x_lo + x], n, g, code[x_lo + x], bounds)


@njit(cache=True, nogil=True, parallel=True)
def _layer_parallel(out, nrows, w, nxt, x_lo, n, g, code, bounds):
    for x in prange(nrows):
        _row(out[x], w, nxt[x_lo + x], n, g, code[x_lo + x], bounds)


@njit(cache=True, nogil=True, inline=INLINE)
def _block8(aw, tw, i0, bj, bi):
    """Transpose one 8x8 block of bytes held in 8 words (three rounds of swaps: 4, 2, 1 bytes)."""
    m1 = np.uint64(0x00000000FFFFFFFF)
    m2 = np.uint64(0x0000FFFF0000FFFF)
    m3 = np.uint64(0x00FF00FF00FF00FF)
    s32 = np.uint64(32)
    s16 = np.uint64(16)
    s8 = np.uint64(8)
    x0, x1, x2, x3 = aw[i0, bj], aw[i0 + 1, bj], aw[i0 + 2, bj], aw[i0 + 3, bj]
    x4, x5, x6, x7 = aw[i0 + 4, bj], aw[i0 + 5, bj], aw[i0 + 6, bj], aw[i0 + 7, bj]
    y0, y4 = (x0 & m1) | (x4 << s32), (x0 >> s32) | (x4 & ~m1)
    y1, y5 = (x1 & m1) | (x5 << s32), (x1 >> s32) | (x5 & ~m1)
    y2, y6 = (x2 & m1) | (x6 << s32), (x2 >> s32) | (x6 & ~m1)
    y3, y7 = (x3 & m1) | (x7 << s32), (x3 >> s32) | (x7 & ~m1)
    z0, z2 = (y0 & m2) | ((y2 << s16) & ~m2), ((y0 >> s16) & m2) | (y2 & ~m2)
    z1, z3 = (y1 & m2) | ((y3 << s16) & ~m2), ((y1 >> s16) & m2) | (y3 & ~m2)
    z4, z6 = (y4 & m2) | ((y6 << s16) & ~m2), ((y4 >> s16) & m2) | (y6 & ~m2)
    z5, z7 = (y5 & m2) | ((y7 << s16) & ~m2), ((y5 >> s16) & m2) | (y7 & ~m2)
    j0 = bj * 8
    tw[j0, bi] = (z0 & m3) | ((z1 << s8) & ~m3)
    tw[j0 + 1, bi] = ((z0 >> s8) & m3) | (z1 & ~m3)
    tw[j0 + 2, bi] = (z2 & m3) | ((z3 << s8) & ~m3)
    tw[j0 + 3, bi] = ((z2 >> s8) & m3) | (z3 & ~m3)
    tw[j0 + 4, bi] = (z4 & m3) | ((z5 << s8) & ~m3)
    tw[j0 + 5, bi] = ((z4 >> s8) & m3) | (z5 & ~m3)
    tw[j0 + 6, bi] = (z6 & m3) | ((z7 << s8) & ~m3)
    tw[j0 + 7, bi] = ((z6 >> s8) & m3) | (z7 & ~m3)


_BAND = 32  # 8x8 blocks a tile side: 32x32 blocks at a time


@njit(cache=True, nogil=True, inline=INLINE)
def _transpose_band(aw, tw, band, nbi, nbj):
    """Transpose block rows band·32 .. band·32 + 31, a tile of 32x32 blocks at a time."""
    ti = band * _BAND
    for tj in range(0, nbj, _BAND):
        for bi in range(ti, min(ti + _BAND, nbi)):
            for bj in range(tj, min(tj + _BAND, nbj)):
                _block8(aw, tw, bi * 8, bj, bi)


@njit(cache=True, nogil=True)
def _transpose(a, t):
    """t[:] = a.T (t C-contiguous, shape a.shape[::-1]); both sides of `a` must be
    multiples of 8. 8x8 byte blocks as words, 32x32 blocks at a time (0.36 ns a byte
    into memory already touched, against 1.5 for a plain cache-blocked loop)."""
    r, c = a.shape
    nbi, nbj = r // 8, c // 8
    for band in range((nbi + _BAND - 1) // _BAND):
        _transpose_band(a.view(np.uint64), t.view(np.uint64), band, nbi, nbj)


@njit(cache=True, nogil=True, parallel=True)
def _transpose_parallel(a, t):
    """`_transpose` with the bands shared between threads."""
    r, c = a.shape
    nbi, nbj = r // 8, c // 8
    aw, tw = a.view(np.uint64), t.view(np.uint64)
    for band in prange((nbi + _BAND - 1) // _BAND):
        _transpose_band(aw, tw, band, nbi, nbj)


def _pad8(x: int) -> int:
    return (x + 7) // 8 * 8


class RetrogradeV1:
    """Exact values of 2-player version-1 positions by retrograde analysis (a `Solver`; `nodes` counts
    the positions evaluated).

    One pass values every position of alternating play that can follow the one asked about (`AlphaBetaV1` answers
    any other) and is kept, so later positions of the same game are lookups; `clear()` forgets it.

    Args:
        threads: 1, or 2 to split each layer's rows between two threads.
    """

    version = 1

    def __init__(self, threads: int = 1):
        self.threads = check_threads(threads)
        self.counter = np.zeros(1, dtype=np.int64)
        self._fallback = None
        self._pass = None  # the last pass: its root and every layer
        # Memory reused from pass to pass (first-touch page faults cost as much as the
        # transposes themselves): one buffer a ply for the kept layers, two for the
        # transposed next layer.
        self._bufs: dict[int, np.ndarray] = {}

    def clear(self) -> None:
        """Forget the last pass (the next position is solved from scratch; its memory is kept for reuse)."""
        self._pass = None

    @property
    def nodes(self) -> int:
        """Positions evaluated since the solver was made (with the search's nodes off the sequence of play)."""
        return int(self.counter[0])

    def value(self, hands, stacks, mover: int) -> int:
        """Exact value for `mover` of the rest of the game (its future score-difference gain)."""
        if not self._alternating(hands, mover):
            return self._search_value(hands, stacks, mover)
        if not hands[mover]:
            return 0
        v = self._lookup(hands, stacks, mover)
        if v is None:
            self._solve(hands, stacks, mover)
            v = self._lookup(hands, stacks, mover)
        return v

    def move_values(self, hands, stacks, mover: int) -> dict[int, int]:
        """Exact value for `mover` of playing each card in its hand: its gain now minus
        the opponent's value of the position after it (one pass gives them all)."""
        alternating = self._alternating(hands, mover)
        if alternating and self._lookup(hands, stacks, mover) is None:
            self._solve(hands, stacks, mover)
        out = {}
        for c in hands[mover]:
            h = [tuple(hands[0]), tuple(hands[1])]
            h[mover] = tuple(x for x in hands[mover] if x != c)
            st = [tuple(x) for x in stacks]
            st[2 * mover + (0 if VALUE[c] == 2 else 1)] += (c,)
            if not (h[0] or h[1]):
                rest = 0
            elif alternating:
                rest = self._lookup(tuple(h), tuple(st), 1 - mover)
            else:  # off the sequence of play: each child by the search
                rest = self._search_value(tuple(h), tuple(st), 1 - mover)
            out[int(c)] = int(_gain(c, *(x[-1] if len(x) else 0 for x in stacks), VALUE)) - rest
        return out

    @staticmethod
    def _alternating(hands, mover: int) -> bool:
        if mover not in (0, 1):
            raise ValueError(f"mover must be 0 or 1, got {mover!r}")
        for c in (*hands[0], *hands[1]):
            if not 2 <= c < len(VALUE):
                raise ValueError(f"cards must be 2..{len(VALUE) - 1}, got {c}")
        d = len(hands[mover]) - len(hands[1 - mover])
        return 0 <= d <= 1 and len(hands[mover]) <= 15

    def _search_value(self, hands, stacks, mover: int) -> int:
        """The search solver's value, for positions off the alternating sequence of play
        (its nodes are added to this solver's counter)."""
        if self._fallback is None:
            self._fallback = AlphaBetaV1(tt_bits=20)
        before = self._fallback.nodes
        v = self._fallback.value(hands, stacks, mover)
        self.counter[0] += self._fallback.nodes - before
        return v

    def _buffer(self, key: int, shape: tuple[int, int]) -> np.ndarray:
        """A C-contiguous int8 array of `shape` on the memory kept under `key` (grown as needed)."""
        size = shape[0] * shape[1]
        buf = self._bufs.get(key)
        if buf is None or buf.size < size:
            buf = self._bufs[key] = np.empty(max(size, 8), dtype=np.int8)
        return buf[:size].reshape(shape)

    def _lookup(self, hands, stacks, mover: int) -> int | None:
        """The value of a position that follows the last pass's root, else None."""
        ps = self._pass
        if ps is None:
            return None
        ranks, played = [], []
        for i, seat in enumerate(ps["seats"]):
            cards, tops0, look, slot = ps["cards"][i], ps["tops0"][i], ps["look"][i], ps["slot"][i]
            hand = set(hands[seat])
            if not hand <= set(cards):
                return None
            m = 0
            for j, c in enumerate(cards):
                if c not in hand:
                    m |= 1 << j
            code = []
            for s, t0 in zip(stacks[2 * seat:2 * seat + 2], tops0):
                top = s[-1] if len(s) else 0
                if slot[top] == 0 and top != t0:
                    return None  # a top that is neither the root's nor one of its cards played since
                code.append(int(slot[top]))
            n = len(cards)
            r = int(look[(m * (n + 1) + code[0]) * (n + 1) + code[1]])
            if r < 0:
                return None
            ranks.append(r)
            played.append(bin(m).count("1"))
        t = played[0] + played[1]
        if played != [(t + 1) // 2, t // 2] or mover != ps["seats"][t % 2]:
            return None
        if t == 0:
            return ps["root"]
        layer = ps["layers"][t]
        return int(layer[ranks[0], ranks[1]] if t % 2 == 0 else layer[ranks[1], ranks[0]])

    def _solve(self, hands, stacks, mover: int) -> None:
        """One backward pass from the position; keeps every layer for `_lookup`."""
        self._pass = None
        value = VALUE
        seats = (mover, 1 - mover)
        players = []
        for seat in seats:
            hand, st = tuple(hands[seat]), stacks[2 * seat:2 * seat + 2]
            cards = np.array(hand, dtype=np.int64)
            is_prime = np.array([value[c] == 2 for c in hand], dtype=np.bool_)
            tp0 = st[0][-1] if len(st[0]) else 0
            tc0 = st[1][-1] if len(st[1]) else 0
            players.append((cards, (tp0, tc0), _player_states(cards, is_prime, np.int64(tp0), np.int64(tc0))))
        (ca, topsa, (sa, _, tpa, tca, coda, nxa, looka, slota)) = players[0]
        (cb, topsb, (sb, _, tpb, tcb, codb, nxb, lookb, slotb)) = players[1]
        na, nb = len(ca), len(cb)
        layer_fn = _layer_parallel if self.threads == 2 else _layer_serial
        transpose = _transpose_parallel if self.threads == 2 else _transpose
        # Plies t = T-1 .. 0; after t plies A (the mover now) has played ceil(t/2), B floor(t/2).
        T = na + nb
        w_t = None  # the next layer, transposed: rows = this layer's mover's next state
        layers = {}
        evaluated = 0
        root = None
        for t in range(T - 1, -1, -1):
            ka, kb = (t + 1) // 2, t // 2
            if t % 2 == 0:  # A to move: rows = A's states of layer ka, columns = B's of layer kb
                m_lo, m_hi, o_lo, o_hi = sa[ka], sa[ka + 1], sb[kb], sb[kb + 1]
                m_cards, m_tp, m_tc, m_code, m_nxt, n = ca, tpa, tca, coda, nxa, na
                o_tp, o_tc, o_code = tpb, tcb, codb
                w_rows = sa[ka + 2] - sa[ka + 1]
            else:  # B to move
                m_lo, m_hi, o_lo, o_hi = sb[kb], sb[kb + 1], sa[ka], sa[ka + 1]
                m_cards, m_tp, m_tc, m_code, m_nxt, n = cb, tpb, tcb, codb, nxb, nb
                o_tp, o_tc, o_code = tpa, tca, coda
                w_rows = sb[kb + 2] - sb[kb + 1]
            if w_t is None:  # the last ply: the next position is the end (value 0)
                w_t = self._buffer(-1, (_pad8(w_rows), _pad8(o_hi - o_lo)))
                w_t[:] = 0
            g = _gain_table(m_cards, m_tp, m_tc, m_code, m_lo, m_hi, o_tp, o_tc, o_code, o_lo, o_hi, value)
            if t == 0:  # the root: one state each
                root = max(int(g[j, 0, 0]) - int(w_t[m_nxt[0, j], 0]) for j in range(na))
                evaluated += 1
                break
            bounds = _blocks(o_code, o_lo, o_hi)
            # Both sides padded to multiples of 8 for the transpose; the padding is never read.
            out = self._buffer(t, (_pad8(m_hi - m_lo), _pad8(o_hi - o_lo)))
            layer_fn(out, m_hi - m_lo, w_t, m_nxt, m_lo, n, g, m_code, bounds)
            evaluated += (m_hi - m_lo) * (o_hi - o_lo)
            layers[t] = out
            w_t = self._buffer(-2 - t % 2, out.shape[::-1])  # not the one just read
            transpose(out, w_t)
        self.counter[0] += evaluated
        self._pass = {
            "seats": seats, "cards": (tuple(int(c) for c in ca), tuple(int(c) for c in cb)), "tops0": (topsa, topsb),
            "look": (looka, lookb), "slot": (slota, slotb), "layers": layers, "root": root,
        }

