"""The Game engine's compiled kernels: whole official-rules games in numba, decisions from outside.

`play_game` deals from a shuffled deck, checks and applies plays, refills hands
and passes the turn under the official rules (`communication="none"`), game for
game identical to the plain engine (`envs.the_game.rules`) given the same deck
(`deal_orders`: the engine's own `rng.permutation`). Every play is chosen by a
*decide kernel* the caller passes in, a numba function::

    decide(params, hands, seat, sizes, tops, placed, played, required) -> move

where `hands[seat, :sizes[seat]]` is the seat's hand (in draw order), `tops`
the four piles' top cards (two ascending, then two descending), `placed[c]` is
1 for every card already on a pile, and `played`/`required` count the turn's
plays and its minimum. The move is `pile * MAX_HAND + index` of a card that
fits, or `END_TURN`. The engine ends the game when the seat to play holds no
card that fits while it still owes a play.

The caller compiles its batch kernel around `play_game` with its decide kernel
as a global (`play_game` is inlined, so the decisions are direct calls and the
batch kernel is cached)::

    @numba.njit(cache=True)
    def batch(orders, n, hand_size, min_cards, params, info):
        for g in range(orders.shape[0]):
            play_game(decide, orders[g], n, hand_size, min_cards, params, info[g])

and `play_games(config, orders, batch, params)` runs it and checks the outcome.
The strategies' kernels live with the agents (`agents.the_game_fast`).
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from envs.core.game import IllegalActionError
from envs.the_game.rules import Config

_EMPTY = -1
MAX_HAND = 128  # a move is pile * MAX_HAND + index in the hand (hands hold at most 97 cards)
END_TURN = -1


@numba.njit(cache=True)
def fits(card: int, top: int, pile: int) -> bool:
    """`card` may go on pile `pile` (0, 1 ascending; 2, 3 descending) with top card `top`."""
    if pile < 2:
        return card > top or card == top - 10
    return card < top or card == top + 10


@numba.njit(cache=True)
def any_fits(hands: np.ndarray, seat: int, sizes: np.ndarray, tops: np.ndarray) -> bool:
    """Some card of `seat`'s hand fits some pile."""
    for i in range(sizes[seat]):
        for p in range(4):
            if fits(hands[seat, i], tops[p], p):
                return True
    return False


@numba.njit(inline="always")
def play_game(decide, order, n, hs, min_cards, params, info):
    """One game from the shuffled deck `order` (as `rng.permutation(arange(2, 100))`).

    Fills `info` = (cards left, seat, move): cards left 0 to 98, or -1 when
    `decide` chose a move the rules forbid (that seat and move are given;
    otherwise both are -1). Inlined into the caller's batch kernel (see the
    module docstring).
    """
    info[0] = -1
    info[1] = -1
    info[2] = -1
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
            if not any_fits(hands, player, sizes, tops):
                if played < required:
                    info[0] = 98 - total  # stuck below the minimum: the game ends
                    return
                break
            move = decide(params, hands, player, sizes, tops, placed, played, required)
            p, i = move // MAX_HAND, move % MAX_HAND
            if move == END_TURN and played >= required:
                break
            if move < 0 or not (p < 4 and i < sizes[player] and fits(hands[player, i], tops[p], p)):
                info[1] = player
                info[2] = move
                return
            c = hands[player, i]
            for k in range(i, sizes[player] - 1):
                hands[player, k] = hands[player, k + 1]
            sizes[player] -= 1
            hands[player, sizes[player]] = _EMPTY
            tops[p] = c
            placed[c] = 1
            total += 1
            played += 1
            if total == 98:
                info[0] = 0
                return
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
        if not any_fits(hands, player, sizes, tops):
            info[0] = 98 - total
            return


def deal_orders(games: int, seed: int) -> np.ndarray:
    """The shuffled decks of `games` games: row g is what `TheGame.initial_state` draws from the
    g-th generator spawned from `np.random.default_rng(seed)` (as `evaluate.the_game.simulate`)."""
    root = np.random.default_rng(seed)
    cards = np.arange(2, 100)
    return np.stack([r.permutation(cards) for r in root.spawn(games)]).astype(np.int64)


def play_games(config: Config, orders: np.ndarray, batch: Any, params: np.ndarray) -> np.ndarray:
    """Cards left in each game of `orders` (official rules, no communication) on the caller's batch kernel.

    Args:
        config: the game's options (`rules="official"`, `communication="none"`).
        orders: shuffled decks, one row per game (`deal_orders`).
        batch: the caller's numba batch kernel around `play_game` (module docstring).
        params: float parameters passed to its decide kernel.

    Raises:
        IllegalActionError: a decision the rules forbid.
        ValueError: a configuration the kernel does not play.
    """
    if config.rules != "official" or config.communication != "none" or config.starter != 0:
        raise ValueError("the compiled game loop plays rules='official', communication='none', starter=0 only")
    info = np.zeros((len(orders), 3), np.int64)
    batch(np.ascontiguousarray(orders, dtype=np.int64), config.num_players, config.resolved_hand_size,
          config.resolved_min_cards, np.ascontiguousarray(params, dtype=np.float64), info)
    left = info[:, 0].copy()
    if (left < 0).any():
        k = int(np.flatnonzero(left < 0)[0])
        seat, move = int(info[k, 1]), int(info[k, 2])
        raise IllegalActionError(move, seat, f"chosen by the decide kernel in game {k} (move = pile * MAX_HAND + index)")
    return left
