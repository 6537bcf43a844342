"""The reference exact solver of 2-player Primi Composti positions (numba).

Negamax alpha-beta over the rest of the game: v(position) = max over cards c of [δ(c) − v(child)], δ the change of
the mover's score difference (v1: points scored; v2: VALUE(c) + 2·stolen value). General (any deck, both versions,
the engine's own move code `envs.primi_composti.fast.do_move`) and the reference the faster solvers are tested
against. A transposition table under a 128-bit Zobrist hash of what determines the future (tops in v1, the full
stacks in v2), PVS driven by MTD(f), and score bounds (each card gains its mover between VALUE(c) and
VALUE(c) + f·b(c)) keep it usable; the values stay exact.

Covered: 2 players, any `cards_per_player` (cards up to 62), versions 1 and 2, and version 2's official options
(the only exact solver that plays them): `revealed` (`allow_revealed_operand`) and `player_choice`
(`steal_choice="player"`: a move is a card and its operand pair, or none; the search branches on both).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agents.primi_composti.solvers._kernels import INF, ChildValues, bound_window, keep_best, mtdf, popcount
from envs.core.jit import INLINE
from envs.primi_composti.fast import best_pair, do_move, pair_bonus, undo_move
from envs.primi_composti.rules import VALID, VALUE

TT_BITS = 22  # default table size: 2^22 entries of 16 bytes


def _zobrist() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    # A fixed generator: the hash keys are part of the algorithm, not of any game's randomness.
    g = np.random.default_rng(0x9C0DE)
    zh = g.integers(0, 2**63 - 1, size=(2, 2, 80), dtype=np.int64).astype(np.uint64)  # [word, seat, card]
    zs = g.integers(0, 2**63 - 1, size=(2, 4, 80, 80), dtype=np.int64).astype(np.uint64)  # [word, stack, height, card]
    zm = g.integers(0, 2**63 - 1, size=2, dtype=np.int64).astype(np.uint64)  # [word]: seat 1 to move
    return zh, zs, zm


_ZH, _ZS, _ZM = _zobrist()


@njit(cache=True)
def _hash(version, hand0, hand1, mover, stacks, heights, zh, zs, zm, maxcard):
    """Both 64-bit words of the position's Zobrist key: both hands, the mover, and
    the stack tops (v1: nothing below a top can matter) or the full stacks (v2)."""
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
    if mover == 1:
        h1 ^= zm[0]
        h2 ^= zm[1]
    return h1, h2


@njit(cache=True)
def _delta_of(version, c, mover, stacks, heights, value, valid, revealed):
    """The mover's score-difference gain of playing c with the seed's pair: the largest of any move of c (a player's
    own choice of pair gains at most as much now)."""
    bonus, _pair = best_pair(version, c, mover, stacks, heights, value, valid, revealed)
    return bonus + value[c] if version == 1 else 2 * bonus + value[c]


@njit(cache=True)
def _move_delta(version, c, choice, mover, stacks, heights, value, valid, revealed):
    """The mover's gain of move (c, choice): `choice` -1 the seed's pair (`_delta_of`), else (version 2,
    `steal_choice="player"`) 0 none or q + 1 operand pair q; -1 where that pair does not combine to c."""
    if choice < 0:
        return _delta_of(version, c, mover, stacks, heights, value, valid, revealed)
    bonus, _pair = pair_bonus(2, c, choice - 1, mover, stacks, heights, value, valid)
    return -1 if bonus < 0 else 2 * bonus + value[c]


@njit(inline=INLINE)
def _choices(npairs):
    """The range of a card's move choices: -1 alone (the seed's pair), or 0..npairs (the player names it)."""
    return (0, npairs + 1) if npairs > 0 else (-1, 0)


@njit(cache=True)
def _bonus_bound(c, avail, pair_mask, pair_val, pair_n):
    """Largest VALUE(a)+VALUE(b) over pairs (a, b) ⊆ avail with a # b = c (0 if none):
    an upper bound on card c's bonus (v1) or stolen value (v2) while only the cards
    of `avail` can ever be visible."""
    for t in range(pair_n[c]):
        m = pair_mask[c, t]
        if (avail & m) == m:
            return pair_val[c, t]
    return 0


@njit(cache=True)
def _play(version, c, mover, stacks, heights, h1, h2, zh, zs, zm, ch0, scores, value, valid, revealed, choice):
    """do_move for card c (`choice`: -1 the seed's pair, else the player's), and the child's Zobrist key (updated
    incrementally)."""
    k1 = h1 ^ zh[0, mover, c] ^ zm[0]
    k2 = h2 ^ zh[1, mover, c] ^ zm[1]
    own = 2 * mover + (0 if value[c] == 2 else 1)
    if version == 1:
        if heights[own] > 0:
            o = stacks[own, heights[own] - 1]
            k1 ^= zs[0, own, 0, o]
            k2 ^= zs[1, own, 0, o]
        k1 ^= zs[0, own, 0, c]
        k2 ^= zs[1, own, 0, c]
    else:
        for s in range(4):
            ch0[s] = heights[s]
    undo, bonus = do_move(version, c, mover, stacks, heights, scores, value, valid, revealed, choice)
    if version == 2:
        # Cards left the opponent's stacks above their new heights and joined the mover's.
        for s in range(4):
            lo = min(ch0[s], heights[s])
            hi = max(ch0[s], heights[s])
            for p in range(lo, hi):
                k1 ^= zs[0, s, p, stacks[s, p]]
                k2 ^= zs[1, s, p, stacks[s, p]]
    return undo, bonus, k1, k2


#: A move in the candidate lists: card · MOVE_CARD + (choice + 1), choice -1 (the seed's pair) or 0..npairs.
MOVE_CARD = 32


@njit(cache=True)
def _last_two(version, c, e, hm, ho, hands, mover, stacks, heights, scores, value, valid, revealed, npairs):
    """The value of the last two plies: the mover plays its last card c, the opponent its last card e."""
    opp = 1 - mover
    best = -INF
    hands[mover] = 0
    lo, hi = _choices(npairs)
    for choice in range(lo, hi):
        d = _move_delta(version, c, choice, mover, stacks, heights, value, valid, revealed)
        if d < 0:
            continue
        undo, bonus = do_move(version, c, mover, stacks, heights, scores, value, valid, revealed, choice)
        d2 = _delta_of(version, e, opp, stacks, heights, value, valid, revealed)
        undo_move(version, c, mover, stacks, heights, scores, undo, bonus, value)
        if d - d2 > best:
            best = d - d2
    hands[mover] = hm
    return best


# One kernel of 134 lines: split into inlined parts (probe, bounds, candidates, store) it searched at 0.93-0.96x
# the speed (numba 0.68.1, same deals in one process).
@njit(cache=True)
def _search(version, hands, mover, stacks, heights, alpha, beta, ply, h1, h2, tt, zh, zs, zm, cand, deltas, counter,
            scores, value, valid, pair_mask, pair_val, pair_n, ub_all, maxcard, use_bound, revealed, npairs):
    """Exact value of the rest of the game for `mover` (hands: card bit masks),
    fail-soft alpha-beta with principal-variation search. `revealed`: the revealed-operand rule; `npairs` > 0: the
    mover names the pair (`steal_choice="player"`, `npairs` operand pairs), 0: the seed's max-steal pair."""
    counter[0] += 1
    hm = hands[mover]
    if hm == 0:
        return 0
    opp = 1 - mover
    ho = hands[opp]
    nm = popcount(hm)
    no = popcount(ho)
    if nm == 1 and no <= 1:
        # Last one or two plies: no search needed (the last card gains most with the largest steal).
        c = 0
        while not (hm >> c) & 1:
            c += 1
        if no == 0:
            return _delta_of(version, c, mover, stacks, heights, value, valid, revealed)
        e = 0
        while not (ho >> e) & 1:
            e += 1
        return _last_two(version, c, e, hm, ho, hands, mover, stacks, heights, scores, value, valid, revealed, npairs)
    # Two-slot bucket: slot 0 keeps the deepest entry, slot 1 the latest.
    depth = nm + no
    mask = np.uint64(tt.shape[0] - 2)
    idx = np.int64(h1 & mask)
    chk = h2 >> np.uint64(32)
    hint = -1
    for slot in range(2):
        i = idx + slot
        w = tt[i, 1]
        if tt[i, 0] == h1 and (w >> np.uint64(32)) == chk:
            v = np.int64((w >> np.uint64(16)) & np.uint64(0xFFFF))
            if v >= 32768:
                v -= 65536
            info = np.int64(w & np.uint64(0xFFFF))
            f = info & 3
            if f == 0:
                return v
            if f == 1 and v >= beta:
                return v
            if f == 2 and v <= alpha:
                return v
            hint = (info >> 2) & 127
            break
    if use_bound:
        # Score bounds: each card gains at least VALUE(c) and at most VALUE(c) + f·bound.
        fac = 1 if version == 1 else 2
        avail = np.int64(0)
        if version == 1:
            avail = hm | ho
            for s in range(4):
                if heights[s] > 0:
                    avail |= np.int64(1) << stacks[s, heights[s] - 1]
        ub = 0
        lb = 0
        for c in range(2, maxcard + 1):
            if (hm >> c) & 1:
                b = _bonus_bound(c, avail, pair_mask, pair_val, pair_n) if version == 1 else ub_all[c]
                ub += value[c] + fac * b
                lb += value[c]
            elif (ho >> c) & 1:
                b = _bonus_bound(c, avail, pair_mask, pair_val, pair_n) if version == 1 else ub_all[c]
                ub -= value[c]
                lb -= value[c] + fac * b
        cut, v, alpha, beta = bound_window(lb, ub, alpha, beta)
        if cut:
            return v
    alpha0 = alpha
    # Candidates ordered: the table's best card (every pair of it), then by immediate gain δ.
    n = 0
    for c in range(2, maxcard + 1):
        if (hm >> c) & 1:
            lo, hi = _choices(npairs)
            for choice in range(lo, hi):
                d = _move_delta(version, c, choice, mover, stacks, heights, value, valid, revealed)
                if d < 0:
                    continue
                key = d + ((np.int64(1) << 40) if c == hint else 0)
                j = n
                while j > 0 and cand[ply, j - 1, 1] < key:
                    cand[ply, j, 0] = cand[ply, j - 1, 0]
                    cand[ply, j, 1] = cand[ply, j - 1, 1]
                    deltas[ply, j] = deltas[ply, j - 1]
                    j -= 1
                cand[ply, j, 0] = c * MOVE_CARD + choice + 1
                cand[ply, j, 1] = key
                deltas[ply, j] = d
                n += 1
    ch0 = np.empty(4, dtype=np.int64)
    best = -INF
    best_c = -1
    for t in range(n):
        c = cand[ply, t, 0] // MOVE_CARD
        choice = cand[ply, t, 0] % MOVE_CARD - 1
        d = deltas[ply, t]
        hands[mover] ^= np.int64(1) << c
        undo, bonus, k1, k2 = _play(version, c, mover, stacks, heights, h1, h2, zh, zs, zm, ch0, scores, value, valid,
                                    revealed, choice)
        if t == 0:
            v = d - _search(version, hands, opp, stacks, heights, d - beta, d - alpha, ply + 1, k1, k2, tt, zh, zs, zm,
                            cand, deltas, counter, scores, value, valid, pair_mask, pair_val, pair_n, ub_all, maxcard,
                            use_bound, revealed, npairs)
        else:
            # Principal-variation search: prove the move is no better with a null window first.
            v = d - _search(version, hands, opp, stacks, heights, d - alpha - 1, d - alpha, ply + 1, k1, k2, tt, zh, zs,
                            zm, cand, deltas, counter, scores, value, valid, pair_mask, pair_val, pair_n, ub_all,
                            maxcard, use_bound, revealed, npairs)
            if alpha < v < beta:
                v = d - _search(version, hands, opp, stacks, heights, d - beta, d - v, ply + 1, k1, k2, tt, zh, zs, zm,
                                cand, deltas, counter, scores, value, valid, pair_mask, pair_val, pair_n, ub_all,
                                maxcard, use_bound, revealed, npairs)
        undo_move(version, c, mover, stacks, heights, scores, undo, bonus, value)
        hands[mover] ^= np.int64(1) << c
        best, best_c, alpha, cutoff = keep_best(v, c, best, best_c, alpha, beta)
        if cutoff:
            break
    if best <= alpha0:
        flag = 2
    elif best >= beta:
        flag = 1
    else:
        flag = 0
    dq = min(depth, 31)
    i = idx
    w = tt[idx, 1]
    if not (tt[idx, 0] == h1 and (w >> np.uint64(32)) == chk) and np.int64((w >> np.uint64(9)) & np.uint64(31)) > dq:
        i = idx + 1
    tt[i, 0] = h1
    tt[i, 1] = ((chk << np.uint64(32)) | (np.uint64(best & 0xFFFF) << np.uint64(16))
                | np.uint64(flag | (best_c << 2) | (dq << 9)))
    return best


def _pair_tables(maxcard: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For each card c ≤ maxcard: the pairs a < b with a # b = c as bit masks, by
    VALUE(a)+VALUE(b) descending; and that value's maximum over all cards (v2 bound)."""
    lists = [[] for _ in range(maxcard + 1)]
    for c in range(2, maxcard + 1):
        for a in range(2, maxcard + 1):
            for b in range(a + 1, maxcard + 1):
                if VALID[c, a, b] and a != c and b != c:
                    lists[c].append((int(VALUE[a] + VALUE[b]), (1 << a) | (1 << b)))
        lists[c].sort(key=lambda x: -x[0])
    w = max(1, max(len(x) for x in lists))
    pm = np.zeros((maxcard + 1, w), dtype=np.int64)
    pv = np.zeros((maxcard + 1, w), dtype=np.int64)
    pn = np.zeros(maxcard + 1, dtype=np.int64)
    ub = np.zeros(maxcard + 1, dtype=np.int64)
    for c, lst in enumerate(lists):
        pn[c] = len(lst)
        for t, (v, m) in enumerate(lst):
            pm[c, t] = m
            pv[c, t] = v
        ub[c] = lst[0][0] if lst else 0
    return pm, pv, pn, ub


#: Operand pairs of 2 players (4 stacks): the 6 pairs of tops, then (revealed operand) each stack's top with the
#: card below it (`PrimiCompostiGame.operand_pairs`).
TOP_PAIRS, REVEALED_PAIRS = 6, 4


class ReferenceSolver(ChildValues):
    """Exact values of 2-player positions, general and plain (reuses one transposition table).

    Args:
        version: 1 or 2.
        tt_bits: log2 of the table size (16 bytes an entry: 2^22 ≈ 67 MB, 2^25 ≈ 537 MB).
        use_bound: prune with the score bounds (see `_search`); exact either way.
        mtdf: drive the search by MTD(f) from `guess`; else one full-window search.
        guess: MTD(f)'s first guess (default: the typical deal value of the version).
        revealed: version 2's official footnote (`allow_revealed_operand=True`).
        player_choice: version 2's official `steal_choice="player"`: a move names its operand pair, or none
            (`choice_values` gives each move's value).
    """

    threads = 1

    def __init__(self, version: int, tt_bits: int = TT_BITS, use_bound: bool = True, mtdf: bool = True,
                 guess: int | None = None, revealed: bool = False, player_choice: bool = False):
        if version not in (1, 2):
            raise ValueError(f"version must be 1 or 2, got {version!r}")
        if (revealed or player_choice) and version != 2:
            raise ValueError("revealed and player_choice are version 2's options (nothing is taken in version 1)")
        self.version = int(version)
        self.revealed = bool(revealed)
        self.player_choice = bool(player_choice)
        #: operand pairs a move may name (0: the seed's max-steal pair, no choice)
        self.npairs = (TOP_PAIRS + REVEALED_PAIRS * self.revealed) if self.player_choice else 0
        self.mtdf = bool(mtdf)
        # First guess of MTD(f): near the typical value of a deal (perfect play favours the second player).
        self.guess = int(guess) if guess is not None else (-1 if self.version == 1 else -3)
        self.use_bound = bool(use_bound)
        # Entry: [key word 1, (32 bits of key word 2) | value (16) | depth (5) best card (7) flag (2)].
        self.tt = np.zeros((1 << tt_bits, 2), dtype=np.uint64)
        self.cand = np.zeros((80, 40 * (self.npairs + 1), 2), dtype=np.int64)
        self.deltas = np.zeros((80, 40 * (self.npairs + 1)), dtype=np.int64)
        self.counter = np.zeros(1, dtype=np.int64)  # nodes searched since the solver was made
        self._scores = np.zeros(2, dtype=np.int64)  # scratch scores for the engine's move code
        self._pairs: dict[int, tuple] = {}

    def clear(self) -> None:
        """Forget every stored position."""
        self.tt[:] = 0

    def value(self, hands: tuple[tuple[int, ...], tuple[int, ...]], stacks: tuple[tuple[int, ...], ...],
              mover: int) -> int:
        """Exact value for `mover` of the rest of the game (its future score
        difference gain under perfect play by both sides)."""
        h = np.array([sum(1 << c for c in hands[0]), sum(1 << c for c in hands[1])], dtype=np.int64)
        st, heights = self._stacks(hands, stacks)
        maxcard = int(max(max(hands[0], default=2), max(hands[1], default=2), *[max(x, default=2) for x in stacks]))
        if maxcard not in self._pairs:
            self._pairs[maxcard] = _pair_tables(maxcard)
        pm, pv, pn, ub = self._pairs[maxcard]
        if self.version == 2:
            # Any card in play may become visible again (captures uncover cards).
            allc = set(hands[0]) | set(hands[1]) | {c for s in stacks for c in s}
            avail = sum(1 << c for c in allc)
            ub = np.array([_bonus_bound(c, avail, pm, pv, pn) if c >= 2 else 0 for c in range(maxcard + 1)],
                          dtype=np.int64)
        k1, k2 = _hash(self.version, h[0], h[1], mover, st, heights, _ZH, _ZS, _ZM, maxcard)

        def probe(a: int, b: int) -> int:
            return int(_search(self.version, h, mover, st, heights, a, b, 0, k1, k2, self.tt, _ZH, _ZS, _ZM, self.cand,
                               self.deltas, self.counter, self._scores, VALUE, VALID, pm, pv, pn, ub, maxcard,
                               self.use_bound, self.revealed, self.npairs))

        if not self.mtdf:
            return probe(-INF, INF)
        return mtdf(probe, self.guess)
