"""RoboRally's joint turn of each candidate program: the learner's program run with the other robots' likely
programs through the compiled turn (`fast.turn_kernel`), for a program scorer's per-candidate features. The other
hands are dealt from the unseen cards by a generator seeded by the view (`view_key`), each other robot programmed by
the caller's `decide` kernel; the columns (`JOINT_FEATURES`) are described in docs/roborally.md ("The joint turn as
features").
"""
from __future__ import annotations

import numba
import numpy as np

from envs.roborally import fast
from envs.roborally.cards import NUM_CARDS
from envs.roborally.rules import HAND, REGISTERS

JOINT_FEATURES = ("won", "lost", "flags", "distance", "turns", "damage", "destroyed", "displaced", "rival_distance",
                  "rival_flags")
JOINT_DIM = len(JOINT_FEATURES)
_F = {name: i for i, name in enumerate(fast.PROGRAM_FEATURES)}
_SALIVE, _SDIST, _SX, _SY, _SFN = _F["alive"], _F["distance"], _F["x"], _F["y"], _F["facing_n"]
_MIX = np.uint64(0x100000001B3)


@numba.njit(cache=True)
def view_key(R, regs, me, hand, n, turn):
    """A key of what robot `me` sees at its decision (robots `R`, its hand `hand[:n]`, its registers, the turn):
    equal views give equal keys."""
    key = np.uint64(0xCBF29CE484222325) ^ np.uint64(turn)
    for s in range(n):
        key = (key ^ np.uint64(hand[s])) * _MIX
    for j in range(REGISTERS):
        key = (key ^ np.uint64(regs[me, j])) * _MIX
    for i in range(R.shape[0]):
        for f in (fast.RX, fast.RY, fast.RF, fast.RDMG, fast.RNF, fast.RON, fast.RLIVES):
            key = (key ^ np.uint64(R[i, f] + 64)) * _MIX
    return key


@numba.njit(cache=True)
def unseen_cards(R, regs, me, hand, n, out):
    """The cards robot `me` cannot see (not in `hand[:n]`, its registers or any robot's locked registers),
    ascending, into `out`; returns how many."""
    seen = np.zeros(NUM_CARDS + 1, np.bool_)
    for s in range(n):
        seen[hand[s]] = True
    for i in range(R.shape[0]):
        for j in range(0 if i == me else fast.free_regs(R, i), REGISTERS):
            seen[regs[i, j]] = True
    u = 0
    for c in range(1, NUM_CARDS + 1):
        if not seen[c]:
            out[u] = c
            u += 1
    return u


@numba.njit(cache=True)
def deal_world(R, regs, me, sizes, unseen, u, rng, deck, hands, lens):
    """The other robots' hands dealt from a shuffle of `unseen[:u]` (sizes `sizes`, sorted, into `hands`/`lens`), the
    cards left into `deck`; returns how many are left."""
    for s in range(u):
        deck[s] = unseen[s]
    fast.rng_shuffle(deck, u, rng)
    for i in range(R.shape[0]):
        lens[i] = 0 if i == me else sizes[i]
    return fast.deal_sizes(deck, u, lens, hands, lens)


@numba.njit(cache=True)
def steps_to_flag(R, i, nflags, dist, big):
    """Robot i's BFS steps to its next flag / `big` (0 when it has claimed every flag, 1 off the board or no
    path); `dist` the packed board's distances [flags, H, W]."""
    nf = R[i, fast.RNF]
    if nf >= nflags:
        return 0.0
    x, y = R[i, fast.RX], R[i, fast.RY]
    if R[i, fast.RON] == 0 or not (0 <= x < dist.shape[2] and 0 <= y < dist.shape[1]) or dist[nf, y, x] < 0:
        return 1.0
    return min(float(dist[nf, y, x]), big) / big


@numba.njit(cache=True)
def joint_columns(bd, R0, R, meta, me, solo, turns, worst, out):
    """Add the `JOINT_FEATURES` of robot `me` after a joint turn (robots `R0` before, `R` and `meta` after; `solo`
    the candidate's `PROGRAM_FEATURES`) to `out`."""
    W, H, nflags = bd[0], bd[1], bd[9]
    w = meta[fast.M_WINNER]
    out[0] += 1.0 if w == me else 0.0
    out[1] += 1.0 if w >= 0 and w != me else 0.0
    nf = R[me, fast.RNF]
    out[2] += nf - R0[me, fast.RNF]
    big = float(W + H)
    out[3] += steps_to_flag(R, me, nflags, bd[15], big) - solo[_SDIST]
    on = R[me, fast.RON] == 1
    x, y, f = R[me, fast.RX], R[me, fast.RY], R[me, fast.RF]
    if nf >= nflags:
        t = 0.0
    elif not on or not (0 <= x < W and 0 <= y < H):
        t = worst
    else:
        t = turns[nf, y, x, f]
    out[4] += t / 10.0
    out[5] += (R[me, fast.RDMG] - R0[me, fast.RDMG]) / 10.0
    destroyed = (not on) or R[me, fast.RLIVES] < R0[me, fast.RLIVES]
    out[6] += 1.0 if destroyed else 0.0
    sx = np.int64(np.rint(solo[_SX] * max(W - 1, 1)))
    sy = np.int64(np.rint(solo[_SY] * max(H - 1, 1)))
    sf = 0
    for d in range(1, 4):
        if solo[_SFN + d] > solo[_SFN + sf]:
            sf = d
    alive = solo[_SALIVE] > 0
    if alive and nflags > 0 and nf >= nflags:
        moved = False  # finished: where it stands does not matter
    else:
        moved = alive == destroyed or (alive and (x != sx or y != sy or f != sf))
    out[7] += 1.0 if moved else 0.0
    fewest, most = 1.0, 0
    for i in range(R.shape[0]):
        if i != me:
            fewest = min(fewest, steps_to_flag(R, i, nflags, bd[15], big))
            most = max(most, R[i, fast.RNF] - R0[i, fast.RNF])
    out[8] += fewest if R.shape[0] > 1 else 1.0
    out[9] += most


@numba.njit(inline="always")
def joint_rows(decide, code, bd, T, rows, seats, cands, solo, mask, worlds, turns, out):
    """`out[q, j]` (float32 [R, K, JOINT_DIM], written whole) = the `JOINT_FEATURES` of candidate j (cards
    `cands[q, j]` for the free registers, `PROGRAM_FEATURES` `solo[q, j]`, where `mask[q, j]`) of seat `seats[q]` at
    table `rows[q]` of `T`, averaged over `worlds` deals of the unseen cards (see the module docstring); the other
    robots play `decide(code, bd, R, regs, seat, hand, n, kinds, rng, out)`'s program."""
    kinds = bd[14]
    worst = turns.max() + 1.0
    rng = np.zeros(1, np.uint64)
    unseen = np.zeros(NUM_CARDS, np.int64)
    deck0 = np.zeros(NUM_CARDS, np.int32)
    out[:] = 0.0
    for q in range(rows.shape[0]):
        r, me = rows[q], seats[q]
        n = T.R.shape[1]
        R0 = T.R[r]
        hl = T.hand_len[r, me]
        if hl == 0:
            continue
        regs0 = np.zeros((n, REGISTERS), np.int32)
        for i in range(n):
            for j in range(0 if i == me else fast.free_regs(R0, i), REGISTERS):
                regs0[i, j] = T.regs[r, i, j]
        hand = T.hands[r, me]
        u = unseen_cards(R0, regs0, me, hand, hl, unseen)
        key = view_key(R0, regs0, me, hand, hl, T.meta[r, fast.M_TURN])
        hands = np.zeros((n, HAND), np.int64)
        lens = np.zeros(n, np.int64)
        programs = np.zeros((n, REGISTERS), np.int64)
        one = np.zeros(REGISTERS, np.int64)
        acc = np.zeros((cands.shape[1], out.shape[2]))
        for w in range(worlds):
            fast.rng_seed(rng, key, w)
            left = deal_world(R0, regs0, me, T.hand_len[r], unseen, u, rng, deck0, hands, lens)
            for i in range(n):
                if i != me:
                    if lens[i] == 0:
                        programs[i, :] = 0
                    else:
                        decide(code, bd, R0, regs0, i, hands[i], lens[i], kinds, rng, one)
                        programs[i, :] = one
            for j in range(cands.shape[1]):
                if not mask[q, j]:
                    continue
                R = R0.copy()
                regs = regs0.copy()
                deck = deck0.copy()
                meta = T.meta[r].copy()
                meta[fast.M_DECK] = left
                meta[fast.M_WINNER] = -1
                for c in range(REGISTERS):
                    programs[me, c] = cands[q, j, c]
                fast.set_programs(R, regs, programs)
                fast.turn_kernel(bd, R, regs, deck, meta, np.zeros((0, n, fast.NFIELDS), np.int32))
                joint_columns(bd, R0, R, meta, me, solo[q, j], turns, worst, acc[j])
        for j in range(cands.shape[1]):
            for c in range(out.shape[2]):
                out[q, j, c] = acc[j, c] / worlds
