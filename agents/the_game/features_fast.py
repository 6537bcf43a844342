"""The compiled twin of The Game's student features (`agents.the_game.features`), over encoder observations.

`feature_rows` fills the `ActionScorer` inputs of a batch of `TheGameEncoder` observations (what the compiled
tables' `observe` gives, bit for bit the encoder's) with their legal masks: the same numbers as the Python features
of the views they encode. The observation holds all they read: the hand as a set of cards (the hand's order decides
nothing: two plays onto one pile never have the same waste score, so bestplays' choice and the score ranks are the
same in any order of the hand), the cards on the piles, the tops, the draw pile, the hand sizes and this turn's
count; `required` follows from the draw pile (`min_cards` while it lasts, then 1). Bestplays' waste scores are its
own kernel's (`agents.the_game.fast.play_score`, `bestplays_decide`). `tests/agents/test_the_game_features_fast.py`
compares them with the Python features on the states of random games.
"""

from __future__ import annotations

import numba
import numpy as np

from agents.the_game.fast import bestplays_decide, play_score
from envs.core.jit import INLINE
from envs.the_game import fast as engine
from envs.the_game.rules import END_TURN, NUM_CARDS, NUM_PILES, TRICK


@numba.njit(inline=INLINE)
def _flag(b):
    return 1.0 if b else 0.0


@numba.njit(cache=True)
def _live_prefix(onpile, prefix):
    """prefix[x] = cards below x (0..101) that are on no pile."""
    prefix[0] = 0
    for x in range(102):
        prefix[x + 1] = prefix[x] + 1 - onpile[x]


@numba.njit(cache=True)
def _live_between(prefix, a, b):
    lo, hi = (a, b) if a < b else (b, a)
    return prefix[hi] - prefix[lo + 1]


@numba.njit(cache=True)
def _decode(obs, at, hand_size, hands, onpile, tops):
    """The hand (ascending, into hands[0]) and its size, the cards on a pile (the start cards 1 and 100 too) and
    the tops of one observation; `at` = the encoder's field starts (hand, placed, tops)."""
    n = 0
    onpile[:] = 0
    onpile[1] = 1
    onpile[100] = 1
    for ci in range(NUM_CARDS):
        if obs[at[0] + ci] > 0.5:
            hands[0, n] = ci + 2
            n += 1
        if obs[at[1] + ci] > 0.5:
            onpile[ci + 2] = 1
    for p in range(NUM_PILES):
        tops[p] = int(np.rint(obs[at[2] + p] * 100.0))
    return n


@numba.njit(cache=True)
def _ranks(scores, fit, n, ranks):
    """Each fitting play's rank among the fitting plays by score (ties: lower pile, then lower hand index), the
    stable sort's order of the Python features."""
    for p in range(NUM_PILES):
        for i in range(n):
            if not fit[p, i]:
                continue
            r = 0
            for q in range(NUM_PILES):
                for j in range(n):
                    if fit[q, j] and (scores[q, j] < scores[p, i] or (scores[q, j] == scores[p, i]
                                                                       and (q < p or (q == p and j < i)))):
                        r += 1
            ranks[p, i] = r


@numba.njit(inline="always")
def _hand_summary(hands, n, held, hs, x):
    """The context's hand columns of a hand of n > 0 sorted cards: its mean, lowest and highest card (/ 100), and
    its pairs a trick (10) apart (/ the hand size `hs`)."""
    total, pairs = 0, 0
    for i in range(n):
        total += hands[0, i]
        pairs += int(hands[0, i] + TRICK < 102 and held[hands[0, i] + TRICK])
    x[16] = total / n / 100.0
    x[17] = hands[0, 0] / 100.0
    x[18] = hands[0, n - 1] / 100.0
    x[19] = pairs / hs


@numba.njit(cache=True)
def feature_rows(obs, masks, at, dims, params, with_score, ctx, per):
    """The features of observations `obs` (B, D) with legal masks `masks` (B, A) into `ctx` (B, C) and `per`
    (B, A, F), zeroed by the caller. `at`: the encoder's field starts (hand, placed, tops, deck, hand_sizes,
    played_this_turn, still_required); `dims`: (players, the game's hand size, the features' scale hand size,
    min_cards); `params`: bestplays' (`BESTPLAYS_PARAMS`); `with_score`: the score columns (the `the_game` set; the
    `the_game_noscore` ablation without)."""
    players, hsize, hs, min_cards = dims[0], dims[1], float(dims[2]), dims[3]
    last = per.shape[2] - 1
    hands = np.zeros((1, engine.MAX_HAND), np.int64)
    sizes = np.zeros(1, np.int64)
    onpile, prefix = np.zeros(102, np.int64), np.zeros(103, np.int64)
    tops = np.zeros(NUM_PILES, np.int64)
    scores = np.zeros((NUM_PILES, engine.MAX_HAND))
    ranks = np.zeros((NUM_PILES, engine.MAX_HAND))
    fit = np.zeros((NUM_PILES, engine.MAX_HAND), np.bool_)
    held = np.zeros(102, np.bool_)
    for b in range(obs.shape[0]):
        o, mask = obs[b], masks[b]
        n = _decode(o, at, hsize, hands, onpile, tops)
        sizes[0] = n
        _live_prefix(onpile, prefix)
        held[:] = False
        for i in range(n):
            held[hands[0, i]] = True
        deck = int(np.rint(o[at[3]] * NUM_CARDS))
        played = int(np.rint(o[at[5]] * hsize))
        owed = int(np.rint(o[at[6]] * hsize))
        required = min_cards if deck > 0 else 1
        others = 0
        for k in range(1, players):
            others += int(np.rint(o[at[4] + k] * hsize))
        fit[:] = False
        for p in range(NUM_PILES):
            for i in range(n):
                if engine.fits(hands[0, i], tops[p], p):
                    fit[p, i] = True
                    scores[p, i] = play_score(onpile, hands, 0, sizes, tops[p], p, i, params[2])
        _ranks(scores, fit, n, ranks)
        move = bestplays_decide(params, hands, 0, sizes, tops, onpile, played, required)
        best = -1
        if move != engine.END_TURN:
            best = (hands[0, move % engine.MAX_HAND] - 2) * NUM_PILES + move // engine.MAX_HAND
        plays, free, cheapest, any_fit = 0, 0, np.inf, False
        for p in range(NUM_PILES):
            d = 1 if p < 2 else -1
            top = tops[p]
            other = tops[1 - p] if p < 2 else tops[5 - p]
            for i in range(n):
                if not fit[p, i]:
                    continue
                any_fit = True
                cheapest = min(cheapest, scores[p, i])
                c = hands[0, i]
                a = (c - 2) * NUM_PILES + p
                if not mask[a]:
                    continue
                mv = d * (c - top)
                live = _live_between(prefix, top, c) if mv > 0 else 0
                row = per[b, a]
                row[p] = 1.0
                row[4] = mv / 10.0
                row[5] = _flag(mv == -TRICK)
                row[6] = live / 10.0
                row[7] = _flag((c + TRICK < 102 and held[c + TRICK]) or (c >= TRICK and held[c - TRICK]))
                partner = c - TRICK * d
                row[8] = _flag(mv > 0 and 0 <= partner < 102 and held[partner])
                row[9] = c / 100.0
                row[10] = _flag(d * (top - other) < 0)
                row[11] = _flag(mv == 1 or live == 0)
                row[12] = (c - top) / 100.0
                if with_score:
                    row[13] = scores[p, i] / 10.0
                    row[14] = ranks[p, i] / 10.0
                    row[15] = _flag(a == best)
                plays += 1
                free += int((live == 0 and mv > 0) or mv < 0)
        if mask[END_TURN]:
            per[b, END_TURN, last] = 1.0
        x = ctx[b]
        x[0] = deck / NUM_CARDS
        x[1] = _flag(deck == 0)
        x[2] = played / hs
        x[3] = owed / hs
        x[4] = _flag(owed == 0)
        x[5] = (onpile[2:100].sum()) / NUM_CARDS
        x[6] = n / hs
        x[7] = others / NUM_CARDS
        for p in range(NUM_PILES):
            x[8 + p] = np.float32(tops[p]) / np.float32(100.0)
            live = _live_between(prefix, tops[p], 100) if p < 2 else _live_between(prefix, 0, tops[p])
            x[12 + p] = live / NUM_CARDS
        if n:
            _hand_summary(hands, n, held, hs, x)
        x[20] = plays / (4.0 * hs)
        x[21] = free / hs
        if with_score:
            x[22] = cheapest / 10.0 if any_fit else 0.0
