"""Private fast path: whole official-rules games of `the_game/bestplays` in numba.

Same rules as `envs.the_game.rules` (official, `communication="none"`) and the
same decisions as `agents.the_game.BestPlaysStrategy` with its default
parameters; the deals come from the caller (the same `rng.permutation` the
engine uses), so every game is identical to the plain engine's — the tests
compare them game by game. Use it for large baseline studies:

    from envs.the_game.fast import bestplays_cards_left
    left = bestplays_cards_left(num_players=3, games=100_000, seed=0)
"""

from __future__ import annotations

import numpy as np
from numba import njit

from envs.the_game.rules import Config

_EMPTY = -1


@njit(cache=True)
def _live_between(placed: np.ndarray, a: int, b: int) -> int:
    """Cards strictly between a and b that are not on a pile (placed[c] = 1 if on a pile)."""
    lo, hi = (a, b) if a < b else (b, a)
    n = 0
    for c in range(lo + 1, hi):
        if placed[c] == 0:
            n += 1
    return n


@njit(cache=True)
def _waste(placed: np.ndarray, top: int, new_top: int, d: int, gw: float) -> float:
    move = d * (new_top - top)
    live = _live_between(placed, top, new_top)
    if move < 0:
        return -live - 1 + gw * move
    return live + gw * move


@njit(cache=True)
def _play_one(order: np.ndarray, n: int, hs: int, min_cards: int, extra: float, extra_last: float,
              gw: float) -> int:
    """One game from the shuffled `order` (as `rng.permutation(arange(2, 100))`); returns cards left."""
    deck = np.empty(98, np.int64)
    for k in range(98):
        deck[k] = order[k]
    dn = 98  # cards are drawn from deck[dn - 1]
    hands = np.full((n, hs), _EMPTY, np.int64)  # draw order kept: slots compacted on removal
    sizes = np.zeros(n, np.int64)
    for _ in range(hs):
        for s in range(n):
            dn -= 1
            hands[s, sizes[s]] = deck[dn]
            sizes[s] += 1
    tops = np.array([1, 1, 100, 100], np.int64)
    placed = np.zeros(102, np.int64)
    total = 0
    player = 0
    while True:
        played = 0
        while True:
            required = min_cards if dn > 0 else 1
            # best play (score, pile, index): lexicographic minimum as in the Python agent
            best_s = 1e18
            best_p = -1
            best_i = -1
            for p in range(4):
                top = tops[p]
                d = 1 if p < 2 else -1
                for i in range(sizes[player]):
                    c = hands[player, i]
                    if d == 1:
                        ok = c > top or c == top - 10
                    else:
                        ok = c < top or c == top + 10
                    if not ok:
                        continue
                    sc = _waste(placed, top, c, d, gw)
                    if d * (c - top) > 0:
                        partner = c - 10 * d
                        for j in range(sizes[player]):
                            if hands[player, j] == partner:
                                alt = _waste(placed, top, partner, d, gw) - 1
                                if alt < sc:
                                    sc = alt
                                break
                    if sc < best_s or (sc == best_s and (p < best_p or (p == best_p and i < best_i))):
                        best_s = sc
                        best_p = p
                        best_i = i
            if best_p < 0:
                if played < required:
                    return 98 - total  # stuck below the minimum: the game ends
                break
            limit = extra if required > 1 else extra_last
            if played < required or best_s <= limit:
                c = hands[player, best_i]
                for k in range(best_i, sizes[player] - 1):
                    hands[player, k] = hands[player, k + 1]
                sizes[player] -= 1
                hands[player, sizes[player]] = _EMPTY
                tops[best_p] = c
                placed[c] = 1
                total += 1
                played += 1
                if total == 98:
                    return 0
            else:
                break
        # end of turn: refill, pass to the next seat holding cards
        while sizes[player] < hs and dn > 0:
            dn -= 1
            hands[player, sizes[player]] = deck[dn]
            sizes[player] += 1
        nxt = player
        for k in range(1, n + 1):
            cand = (player + k) % n
            if sizes[cand] > 0:
                nxt = cand
                break
        player = nxt
        # the new player is stuck if nothing fits (its minimum is at least 1)
        anyfit = False
        for i in range(sizes[player]):
            c = hands[player, i]
            if (c > tops[0] or c == tops[0] - 10 or c > tops[1] or c == tops[1] - 10
                    or c < tops[2] or c == tops[2] + 10 or c < tops[3] or c == tops[3] + 10):
                anyfit = True
                break
        if not anyfit:
            return 98 - total


@njit(cache=True)
def _play_many(orders: np.ndarray, n: int, hs: int, min_cards: int, extra: float, extra_last: float,
               gw: float) -> np.ndarray:
    out = np.empty(orders.shape[0], np.int64)
    for g in range(orders.shape[0]):
        out[g] = _play_one(orders[g], n, hs, min_cards, extra, extra_last, gw)
    return out


def deal_orders(games: int, seed: int) -> np.ndarray:
    """The shuffled decks of `games` games: row g is what `TheGame.initial_state` draws from the
    g-th generator spawned from `np.random.default_rng(seed)` (as `evaluate.the_game.simulate`)."""
    root = np.random.default_rng(seed)
    cards = np.arange(2, 100)
    return np.stack([r.permutation(cards) for r in root.spawn(games)]).astype(np.int64)


def bestplays_cards_left(num_players: int, games: int, seed: int = 0, min_cards_per_turn: int | None = None,
                         hand_size: int | None = None, orders: np.ndarray | None = None) -> np.ndarray:
    """Cards left in each of `games` official-rules games of `the_game/bestplays` (default parameters,
    no communication) in every seat; the same games as `simulate(game, "the_game/bestplays", games, seed)`."""
    cfg = Config(num_players=num_players, min_cards_per_turn=min_cards_per_turn, hand_size=hand_size)
    if orders is None:
        orders = deal_orders(games, seed)
    return _play_many(orders, num_players, cfg.resolved_hand_size, cfg.resolved_min_cards, 1.0, 2.0, 0.25)
