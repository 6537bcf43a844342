"""Exact version-1 values by retrograde analysis over the whole state space (numba).

In version 1 nothing below a stack's top ever matters, and every card in a hand
is played exactly once. So from a position, a player's future is fixed by three
things: the set S of its hand cards already played, its prime top (its last
prime played, or the top it had) and its composite top. With both players'
hands at 12 cards that is at most ~9,000 states a player per count of cards
played, and ~4 × 10⁸ joint states in all: as many as the alpha-beta search
(`solver_v1`) visits nodes, but each costs one byte operation here instead of a
search node.

The value v(x, y) for the mover of the rest of the game (its future score-
difference gain) is computed backwards, one ply at a time (layer t = positions
after t more cards). A layer is an int8 matrix with the **mover's** state as the
row and the opponent's as the column; with the next layer transposed (its
opponent is this layer's mover),

    v[x, :] = max over cards c of x's remaining hand of  gain(c, tops(x), tops(:)) − w[next(x, c), :]

is a contiguous byte loop. The opponent's states of a layer are sorted by their
pair of tops, so the gain — VALUE(c) plus the best VALUE(a)+VALUE(b) of two
visible tops with a # b = c — is constant over each block of columns, and the
inner loop vectorises. The matrices peak at ~7 × 10⁷ bytes (two layers and a
transpose: ~250 MB).

This needs no table, no move ordering and no bounds, and its time hardly varies
between deals: it visits every state once. `threads=2` splits each layer's rows
between two threads.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from envs.primi_composti.fast import _VALID, _VALUE

_NEG = -128


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
                         (−1 if card j was already played).
    """
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
    # Sort by (layer, prime top, composite top, set).
    keyv = ((layer * 64 + tp) * 64 + tc) * (1 << n) + mask
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
    slot = np.zeros(64, dtype=np.int64)
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
    return start, mask, tp, tc, code, nxt


@njit(cache=True)
def _bonus(c, a, b, value):
    """VALUE(a) + VALUE(b) if the two tops a, b (0 = empty) give c, else 0."""
    if a == 0 or b == 0:
        return 0
    if _VALID[c, a, b]:
        return value[a] + value[b]
    return 0


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
                c = cards[j]
                best = 0
                best = max(best, _bonus(c, a0, a1, value))
                best = max(best, _bonus(c, a0, b0, value))
                best = max(best, _bonus(c, a0, b1, value))
                best = max(best, _bonus(c, a1, b0, value))
                best = max(best, _bonus(c, a1, b1, value))
                best = max(best, _bonus(c, b0, b1, value))
                g[j, m_code[q], o_code[r]] = value[c] + best
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
def _row(x, out, w, nxt_row, n, g, code_x, bounds):
    """out[:] = max over the mover's cards j of gain − w[nxt_row[j], :] (one row of a layer)."""
    ncol = out.shape[0]
    for y in range(ncol):
        out[y] = _NEG
    nb = bounds.shape[0] - 1
    for j in range(n):
        r2 = nxt_row[j]
        if r2 < 0:
            continue
        src = w[r2]
        for b in range(nb):
            gv = np.int8(g[j, code_x, b])
            for y in range(bounds[b], bounds[b + 1]):
                v = np.int8(gv - src[y])
                if v > out[y]:
                    out[y] = v


@njit(cache=True, nogil=True)
def _layer_serial(out, w, nxt, x_lo, n, g, code, bounds):
    for x in range(out.shape[0]):
        _row(x, out[x], w, nxt[x_lo + x], n, g, code[x_lo + x], bounds)


@njit(cache=True, nogil=True, parallel=True)
def _layer_parallel(out, w, nxt, x_lo, n, g, code, bounds):
    for x in prange(out.shape[0]):
        _row(x, out[x], w, nxt[x_lo + x], n, g, code[x_lo + x], bounds)


@njit(cache=True, nogil=True)
def _transpose(a):
    """a.T as a new C-contiguous array (cache-blocked)."""
    r, c = a.shape
    t = np.empty((c, r), dtype=a.dtype)
    B = 64
    for i0 in range(0, r, B):
        i1 = min(i0 + B, r)
        for j0 in range(0, c, B):
            j1 = min(j0 + B, c)
            for i in range(i0, i1):
                for j in range(j0, j1):
                    t[j, i] = a[i, j]
    return t


class RetroV1:
    """Exact values of 2-player version-1 positions by retrograde analysis.

    The same `value(hands, stacks, mover)` / `clear()` / `counter` API as the
    search solvers (`solver_v1.SolverV1`); `counter` counts the positions
    evaluated. Positions must alternate as in play: the mover holds as many
    cards as the opponent or one more (the search solver handles any other).

    Args:
        threads: 1, or 2 to split each layer's rows between two threads.
    """

    version = 1

    def __init__(self, threads: int = 1):
        if threads not in (1, 2):
            raise ValueError(f"threads must be 1 or 2, got {threads!r}")
        self.threads = int(threads)
        self.counter = np.zeros(1, dtype=np.int64)
        self._fallback = None

    def clear(self) -> None:
        """Nothing is stored between calls (kept for the solvers' common API)."""

    @property
    def nodes(self) -> int:
        return int(self.counter[0])

    def value(self, hands, stacks, mover: int) -> int:
        """Exact value for `mover` of the rest of the game (its future score-difference gain)."""
        mine, theirs = tuple(hands[mover]), tuple(hands[1 - mover])
        if not (0 <= len(mine) - len(theirs) <= 1) or len(mine) > 15:
            if self._fallback is None:
                from envs.primi_composti.solver_v1 import SolverV1

                self._fallback = SolverV1(tt_bits=20)
            v = self._fallback.value(hands, stacks, mover)
            self.counter[0] += self._fallback.counter[0]
            self._fallback.counter[0] = 0
            return v
        if not mine:
            return 0
        return self._solve(mine, theirs, stacks[2 * mover:2 * mover + 2], stacks[2 - 2 * mover:4 - 2 * mover])

    def _solve(self, mine, theirs, my_stacks, their_stacks) -> int:
        value = _VALUE
        players = []
        for hand, st in ((mine, my_stacks), (theirs, their_stacks)):
            cards = np.array(hand, dtype=np.int64)
            is_prime = np.array([value[c] == 2 for c in hand], dtype=np.bool_)
            tp0 = st[0][-1] if len(st[0]) else 0
            tc0 = st[1][-1] if len(st[1]) else 0
            players.append((cards, _player_states(cards, is_prime, np.int64(tp0), np.int64(tc0))))
        (ca, (sa, _, tpa, tca, coda, nxa)), (cb, (sb, _, tpb, tcb, codb, nxb)) = players
        na, nb = len(ca), len(cb)
        layer_fn = _layer_parallel if self.threads == 2 else _layer_serial
        # Plies t = T-1 .. 0; after t plies A (the mover now) has played ceil(t/2), B floor(t/2).
        T = na + nb
        w_t = None  # the next layer, transposed: rows = this layer's mover's next state
        evaluated = 0
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
                w_t = np.zeros((w_rows, o_hi - o_lo), dtype=np.int8)
            g = _gain_table(m_cards, m_tp, m_tc, m_code, m_lo, m_hi, o_tp, o_tc, o_code, o_lo, o_hi, value)
            bounds = _blocks(o_code, o_lo, o_hi)
            out = np.empty((m_hi - m_lo, o_hi - o_lo), dtype=np.int8)
            layer_fn(out, w_t, m_nxt, m_lo, n, g, m_code, bounds)
            evaluated += out.size
            w_t = _transpose(out) if t > 0 else out
        self.counter[0] += evaluated
        # Layer 0: one state each (nothing played): the row and column 0.
        return int(w_t[0, 0])
