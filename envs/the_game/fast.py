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
    def batch(orders, n, hand_size, min_cards, skip_empty, params, info):
        for g in range(orders.shape[0]):
            play_game(decide, orders[g], n, hand_size, min_cards, skip_empty, params, info[g])

and `play_games(config, orders, batch, params)` runs it and checks the outcome.
`skip_empty` is `Config.empty_hand == "skip"` (`skip_empty(config)`): whether the turn
passes over a seat with an empty hand (the rulebook) or comes to it and ends the game
(`"ends_game"`, R. Weinmeister's simulation).
`play_on` plays on from any position (a mid-turn one included; `pack_state`
turns an engine `State` into its arrays, `redeal` deals the cards a seat cannot
see in a given order, `unseen_orders` draws such orders): the rollouts of
search agents.
The strategies' kernels live with the agents (`agents.the_game.fast`).
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from envs.core.game import IllegalActionError
from envs.the_game.rules import Config, State, View

_EMPTY = -1
MAX_HAND = 128  # a move is pile * MAX_HAND + index in the hand (hands hold at most 97 cards)
END_TURN = -1
NO_MOVE = -2  # play_on: no forced first decision


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
def play_game(decide, order, n, hs, min_cards, skip_empty, params, info):
    """One game from the shuffled deck `order` (as `rng.permutation(arange(2, 100))`).

    Fills `info` = (cards left, seat, move): cards left 0 to 98, or -1 when
    `decide` chose a move the rules forbid (that seat and move are given;
    otherwise both are -1). Inlined into the caller's batch kernel (see the
    module docstring).
    """
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
    play_on(decide, hands, sizes, deck, dn, tops, placed, 0, 0, 0, NO_MOVE, min_cards, skip_empty, params, info)


@numba.njit(inline="always")
def play_on(decide, hands, sizes, deck, dn, tops, placed, total, player, played, first, min_cards, skip_empty, params,
            info):
    """Play a game on to its end from any official-rules position, a mid-turn one included.

    The position is given as arrays, changed in place: `hands[s, :sizes[s]]`
    (each seat's hand in draw order; `hands.shape[1]` is the hand size),
    `deck[:dn]` the draw pile (drawn from `deck[dn - 1]`), `tops`, `placed`
    (as for a decide kernel), `total` cards on the piles, the seat `player` to
    act having placed `played` cards this turn. `first` is the first decision
    (a move, or `END_TURN`) or `NO_MOVE` to let `decide` make it. `skip_empty`:
    the turn passes over seats with empty hands (`empty_hand="skip"`), else it
    comes to them and the game ends there (`"ends_game"`). Fills `info`
    as `play_game` does. Inlined into the caller's kernel (module docstring).
    """
    info[0] = -1
    info[1] = -1
    info[2] = -1
    n, hs = hands.shape[0], hands.shape[1]
    while True:
        while True:
            required = min_cards if dn > 0 else 1
            if not any_fits(hands, player, sizes, tops):
                if played < required:
                    info[0] = 98 - total  # stuck below the minimum: the game ends
                    return
                if first != NO_MOVE and first != END_TURN:
                    info[1] = player
                    info[2] = first
                    return
                first = NO_MOVE  # nothing fits: the turn ends, as a forced END_TURN would end it
                break
            if first != NO_MOVE:
                move = first
                first = NO_MOVE
            else:
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
        # end of turn: refill, pass to the next seat (the next one holding cards under empty_hand="skip")
        while sizes[player] < hs and dn > 0:
            dn -= 1
            hands[player, sizes[player]] = deck[dn]
            sizes[player] += 1
        nxt = (player + 1) % n
        if skip_empty:
            for k in range(1, n + 1):
                cand = (player + k) % n
                if sizes[cand] > 0:
                    nxt = cand
                    break
        player = nxt
        played = 0
        # the new player is stuck if nothing fits, an empty hand included (its minimum is at least 1)
        if not any_fits(hands, player, sizes, tops):
            info[0] = 98 - total
            return


@numba.njit(cache=True)
def redeal(hands, sizes, deck, dn, seat, order):
    """Deal the cards `seat` cannot see, in the given `order`, to the other seats' hands (their sizes kept,
    seat by seat) and then the draw pile (`deck[:dn]`, `deck[0]` first): one determinization of a view."""
    k = 0
    for s in range(hands.shape[0]):
        if s == seat:
            continue
        for j in range(sizes[s]):
            hands[s, j] = order[k]
            k += 1
    for j in range(dn):
        deck[j] = order[k]
        k += 1


def pack_state(config: Config, state: State) -> tuple:
    """An official-rules `State` as `play_on`'s arrays: `(hands, sizes, deck, dn, tops, placed, total,
    player, played)` (hands in draw order, the draw pile's last card drawn first, as the engine)."""
    n, hs = config.num_players, config.resolved_hand_size
    hands = np.full((n, hs), _EMPTY, np.int64)
    sizes = np.zeros(n, np.int64)
    for s, h in enumerate(state.hands):
        hands[s, :len(h)] = h
        sizes[s] = len(h)
    deck = np.zeros(98, np.int64)
    deck[:len(state.deck)] = state.deck
    tops = np.array([p[-1] for p in state.piles], np.int64)
    placed = np.zeros(102, np.int64)
    for p in state.piles:
        placed[list(p[1:])] = 1
    return hands, sizes, deck, len(state.deck), tops, placed, state.placed, state.player, state.played_this_turn


def unseen_orders(view: View, count: int, seed: int) -> np.ndarray:
    """`count` shuffles (rows) of the cards `view`'s seat cannot see (other hands and the draw pile), from
    `np.random.default_rng(seed)`: the determinizations `redeal` deals."""
    seen = np.zeros(102, bool)
    seen[list(view.hand)] = True
    for p in view.piles:
        seen[list(p)] = True
    unseen = np.flatnonzero(~seen[2:100]) + 2
    rng = np.random.default_rng(seed)
    return np.stack([rng.permutation(unseen) for _ in range(count)]).astype(np.int64).reshape(count, len(unseen))


def skip_empty(config: Config) -> bool:
    """The kernels' `skip_empty` flag of `config`: whether the turn passes over empty hands (`empty_hand="skip"`)."""
    return config.empty_hand == "skip"


def deal_orders(games: int, seed: int) -> np.ndarray:
    """The shuffled decks of `games` games: row g is what `TheGame.initial_state` draws from the
    g-th generator spawned from `np.random.default_rng(seed)` (as `evaluate.the_game.reproduce.simulate`)."""
    root = np.random.default_rng(seed)
    cards = np.arange(2, 100)
    return np.stack([r.permutation(cards) for r in root.spawn(games)]).astype(np.int64)


def play_games(config: Config, orders: np.ndarray, batch: Any, params: np.ndarray) -> np.ndarray:
    """Cards left in each game of `orders` (official rules, no communication) on the caller's batch kernel.

    Args:
        config: the game's options (`rules="official"`, `communication="none"`, either `empty_hand`).
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
          config.resolved_min_cards, skip_empty(config), np.ascontiguousarray(params, dtype=np.float64), info)
    left = info[:, 0].copy()
    if (left < 0).any():
        k = int(np.flatnonzero(left < 0)[0])
        seat, move = int(info[k, 1]), int(info[k, 2])
        raise IllegalActionError(move, seat, f"chosen by the decide kernel in game {k} (move = pile * MAX_HAND + index)")
    return left
