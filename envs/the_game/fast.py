"""The Game engine's compiled kernels: whole official-rules games in numba, decisions from outside.

`play_game` plays one game under the official rules (`communication="none"`), game for game identical to the plain
engine (`envs.the_game.rules`) given the same deck (`deal_orders`). Every play is chosen by a *decide kernel* the
caller passes in::

    decide(params, hands, seat, sizes, tops, placed, played, required) -> move

(`hands[seat, :sizes[seat]]` the seat's hand in draw order, `tops` the four piles' tops, two ascending then two
descending, `placed[c]` 1 for every card on a pile, `played` / `required` the turn's plays and its minimum; the move
is `pile * MAX_HAND + index` of a card that fits, or `END_TURN`). The caller compiles its batch kernel around the
inlined `play_game` with its decide kernel as a global, so the kernel is cached (`agents.the_game.fast._batch`, with
the strategies' kernels), and `play_games(config, orders, batch, params)` runs it. `play_on` plays on from any
position (`pack_state`, `redeal`, `unseen_orders`: the search agents' rollouts). All of them, and the vector env's
kernels (`vec_reset` / `vec_step` over `Tables`), run one game loop, `advance`. `deal_order(seed)` is
`rules.deal_order`'s twin.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from envs.core import kernels, tables
from envs.core.game import IllegalActionError
from envs.core.jit import INLINE
from envs.core.vector import BATCH_CODE, ERR_REDEALS, SKIP, VectorKernels, nb_next
from envs.core.vector import Buffers as Buffers  # one class for every game (see its docstring)
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
    """One game from the shuffled deck `order` (as `rng.permutation(arange(2, 100))`). Fills `info` = (cards left, seat,
    move[, moves]): cards left 0 to 98, or -1 when `decide` chose a move the rules forbid (that seat and move given;
    else both -1); a fourth entry, where `info` has one, gets the moves played."""
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
    """Play a game on to its end from any official-rules position, a mid-turn one included (`advance` with no
    seat to pause at).

    The position, changed in place: `hands[s, :sizes[s]]` (hand size `hands.shape[1]`), the draw pile `deck[:dn]` (drawn
    from its end), `tops`, `placed`, `total` cards on the piles, the seat `player` to act having placed `played` cards
    this turn. `first` is the first decision or `NO_MOVE`. `skip_empty`: the turn passes over seats with empty hands
    (`empty_hand="skip"`), else the game ends there. Fills `info` as `play_game` does.
    """
    codes = np.zeros(hands.shape[0], np.int64)  # every seat decides by `decide`
    rng = np.zeros(1, np.uint64)
    dn, total, player, played, steps, status, act = advance(
        decide, codes, params, hands, sizes, deck, dn, tops, placed, total, player, played, first, -1,
        min_cards, skip_empty, rng, 0)
    if status == STOP_ILLEGAL:
        info[0] = -1
        info[1] = player
        info[2] = act
    else:
        info[0] = 98 - total
        info[1] = -1
        info[2] = -1
    if info.shape[0] > 3:
        info[3] = steps


RANDOM_CODE = -1  # a seat of this code plays uniformly random legal moves (see `advance`)
PAUSE_CODE = -2  # `advance` pauses at a seat of this code or below: the vector env's learner, its batch policies
LEARNER_CODE = PAUSE_CODE  # a vector env's learner seat (every seat under all_seats): no kernel decides for it
assert BATCH_CODE < PAUSE_CODE  # a batch policy's seat (`BATCH_CODE - j`) pauses too
# What `advance` stopped at (its `status`).
STOP_SEAT = 0  # a seat of code <= PAUSE_CODE is to act
STOP_OVER = 1  # the game is over
STOP_BUDGET = 2  # `budget` moves were played
STOP_ILLEGAL = -2  # an illegal decision (seat `player`, move `act`): nothing was changed by it


@numba.njit(inline="always")
def advance(decide, codes, params, hands, sizes, deck, dn, tops, placed, total, player, played, first, budget,
            min_cards, skip_empty, rng, rrow):
    """The compiled game loop: play from a position until a seat of code <= `PAUSE_CODE` is to decide (the
    vector env's learner or a batch policy), the game ends, or `budget` moves were played (-1: no limit). One code
    compare a move, as L.A.M.A.'s `advance`.

    The position as in `play_on`. A seat decides by `decide(...)`, except that a seat of code `RANDOM_CODE` plays a
    uniformly random legal move from the SplitMix64 stream `rng[rrow]` (`random_move`), and a seat holding no card that
    fits once its minimum is met ends its turn without asking, unless its code pauses. `first` (not `NO_MOVE`) is the
    first move. Returns `(dn, total, player, played, steps, status, act)`: the new scalars, the moves played, why it
    stopped (`STOP_*`) and the refused move at `STOP_ILLEGAL`.
    """
    n, hs = hands.shape[0], hands.shape[1]
    steps = 0
    while True:
        required = min_cards if dn > 0 else 1
        fit = any_fits(hands, player, sizes, tops)
        # the game ends when all cards are placed or the seat to act owes a card and none fits (rules `_settle`)
        if total == 98 or (played < required and not fit):
            return dn, total, player, played, steps, STOP_OVER, -1
        if codes[player] <= PAUSE_CODE and not (steps == 0 and first != NO_MOVE):
            return dn, total, player, played, steps, STOP_SEAT, -1
        if steps == budget:
            return dn, total, player, played, steps, STOP_BUDGET, -1
        steps += 1
        if steps == 1 and first != NO_MOVE:
            move = first
        elif codes[player] == RANDOM_CODE:  # draws even for a lone end turn, as a random agent shown that mask
            move = random_move(hands, player, sizes, tops, played, required, rng, rrow)
        elif not fit:
            move = END_TURN  # nothing fits, the minimum is met: the turn ends
        else:
            move = decide(params, hands, player, sizes, tops, placed, played, required)
        if move == END_TURN:
            if played < required:
                return dn, total, player, played, steps, STOP_ILLEGAL, move
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
            continue
        p, i = move // MAX_HAND, move % MAX_HAND
        if move < 0 or not (p < 4 and i < sizes[player] and fits(hands[player, i], tops[p], p)):
            return dn, total, player, played, steps, STOP_ILLEGAL, move
        c = hands[player, i]
        for k in range(i, sizes[player] - 1):
            hands[player, k] = hands[player, k + 1]
        sizes[player] -= 1
        hands[player, sizes[player]] = _EMPTY
        tops[p] = c
        placed[c] = 1
        total += 1
        played += 1


@numba.njit(cache=True)
def random_move(hands, seat, sizes, tops, played, required, rng, rrow):
    """A uniformly random legal move of `seat` from the stream `rng[rrow]`: the k-th legal action in the rules'
    order (card ascending, then pile; end turn last), k = draw mod their number — under either action head."""
    n = sizes[seat]
    m = 0
    for i in range(n):
        for p in range(4):
            if fits(hands[seat, i], tops[p], p):
                m += 1
    if played >= required:
        m += 1
    k = np.int64(nb_next(rng, rrow) % np.uint64(max(m, 1)))
    prev = 0
    for _ in range(n):
        best, bi = 1000, -1  # the next card above `prev` (hands are in draw order)
        for i in range(n):
            c = hands[seat, i]
            if prev < c < best:
                best, bi = c, i
        prev = best
        for p in range(4):
            if fits(best, tops[p], p):
                if k == 0:
                    return p * MAX_HAND + bi
                k -= 1
    return END_TURN


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


def play_games(config: Config, orders: np.ndarray, batch: Any, params: np.ndarray,
               steps: np.ndarray | None = None) -> np.ndarray:
    """Cards left in each game of `orders` (official rules, no communication) on the caller's batch kernel.

    Args:
        config: the game's options (`rules="official"`, `communication="none"`, either `empty_hand`).
        orders: shuffled decks, one row per game (`deal_orders`).
        batch: the caller's numba batch kernel around `play_game` (module docstring).
        params: float parameters passed to its decide kernel.
        steps: where given, an int64 array (games,) that receives each game's moves (plays and end turns).

    Raises:
        IllegalActionError: a decision the rules forbid.
        ValueError: a configuration the kernel does not play.
    """
    if config.rules != "official" or config.communication != "none" or config.starter != 0:
        raise ValueError("the compiled game loop plays rules='official', communication='none', starter=0 only")
    info = np.zeros((len(orders), 3 if steps is None else 4), np.int64)
    batch(np.ascontiguousarray(orders, dtype=np.int64), config.num_players, config.resolved_hand_size,
          config.resolved_min_cards, skip_empty(config), np.ascontiguousarray(params, dtype=np.float64), info)
    left = info[:, 0].copy()
    if (left < 0).any():
        k = int(np.flatnonzero(left < 0)[0])
        seat, move = int(info[k, 1]), int(info[k, 2])
        raise IllegalActionError(move, seat,
                                 f"chosen by the decide kernel in game {k} (move = pile * MAX_HAND + index)")
    if steps is not None:
        steps[:] = info[:, 3]
    return left


# --- deals by seed (the compiled twin of `rules.deal_order`) ---------------------------------------------------


@numba.njit(cache=True)
def deal_order(seed, out):
    """`out[:98]` = the deck order of deal seed `seed` (uint64), as `envs.the_game.rules.deal_order`."""
    for k in range(98):
        out[k] = k + 2
    kernels.shuffle(out, 98, seed)


# --- the vector env's kernels: many tables, one row each ------------------------------------------------------
Tables = tables.tables_type(__name__, """Every table of a vector env as arrays, one row a table (N tables, n seats,
hand size h, P parameters).

The position is `advance`'s: `hands` (N, n, h) in draw order, `sizes`, `deck` (N, 98) / `dn`, `tops` (N, 4),
`placed` (N, 102), `total`, `player`, `played`, `over`. A seat's `params` are its decide kernel's (the opponent's
code, then its float parameters); `carry` and `before` are the team's, as the learner's reward is.""", (
    "hands", "sizes", "deck", "dn", "tops", "placed", "total", "player", "played", "over"),
    optional=("params", "turns", "before"))


def new_tables(num_envs: int, num_players: int, hand_size: int, num_params: int) -> Tables:
    """Zeroed `Tables` for `num_envs` tables (empty hands)."""
    N, n = num_envs, num_players
    i64 = np.int64
    return tables.new_tables(
        Tables, N, n, num_params, hands=np.full((N, n, hand_size), _EMPTY, i64), sizes=np.zeros((N, n), i64),
        deck=np.zeros((N, 98), i64), dn=np.zeros(N, i64), tops=np.zeros((N, 4), i64),
        placed=np.zeros((N, 102), i64), total=np.zeros(N, i64), player=np.zeros(N, i64), played=np.zeros(N, i64),
        over=np.zeros(N, np.bool_),
    )


Settings = tables.settings_type(__name__, """A vector env's fixed settings as the kernels take them: `min_cards`,
`skip_empty`, `starter`, `slot` (the `actions="slot"` head), `win_bonus`, `card_reward`, then the line-up fields
(`envs.core.tables.SETTINGS`).""", ("min_cards", "skip_empty", "starter", "slot", "win_bonus", "card_reward"))


@numba.njit(cache=True)
def team_return(T, r, win_bonus, card_reward):
    """Table r's return so far, the same for every seat (`TheGame.returns`): `card_reward` per card placed, +
    `win_bonus` at 98."""
    t = T.total[r]
    return card_reward * t + (win_bonus if t == 98 else 0.0)


@numba.njit(inline="always")
def run_row(decide, T, r, S, first, budget):
    """`advance` on table r's row (scalars stored back); returns (status, refused move, moves tried)."""
    dn, total, player, played, steps, status, act = advance(
        decide, T.codes[r], T.params[r], T.hands[r], T.sizes[r], T.deck[r], T.dn[r], T.tops[r], T.placed[r],
        T.total[r], T.player[r], T.played[r], first, budget, S.min_cards, S.skip_empty, T.rng, r)
    T.dn[r] = dn
    T.total[r] = total
    T.player[r] = player
    T.played[r] = played
    T.turns[r] += steps - 1 if status == STOP_ILLEGAL else steps
    T.over[r] = status == STOP_OVER
    return status, act, steps


@numba.njit(cache=True)
def _rank_index(T, r, seat, k):
    """The hand index of `seat`'s k-th lowest card (-1: fewer cards)."""
    m = T.sizes[r, seat]
    for i in range(m):
        below = 0
        c = T.hands[r, seat, i]
        for j in range(m):
            if T.hands[r, seat, j] < c:
                below += 1
        if below == k:
            return i
    return -1


INVALID = -3  # `head_move`: the action names no move (an empty slot, a card not held, a flag)


@numba.njit(cache=True)
def head_move(T, r, a, slot, hs):
    """The kernel move of action id `a` (>= 0) of the head in use for table r's seat to act, or `INVALID`: the
    card head's `(card - 2) * 4 + pile` / 392, or the slot head's `4 * slot + pile` / `4 * hs` (rules module)."""
    seat = T.player[r]
    if slot:
        if a < 4 * hs:
            i = _rank_index(T, r, seat, a // 4)
            return INVALID if i < 0 else (a % 4) * MAX_HAND + i
        return END_TURN if a == 4 * hs else INVALID
    if a < 392:
        card = a // 4 + 2
        for i in range(T.sizes[r, seat]):
            if T.hands[r, seat, i] == card:
                return (a % 4) * MAX_HAND + i
        return INVALID
    return END_TURN if a == 392 else INVALID


@numba.njit(inline=INLINE)
def observe_row(T, r, seat, min_cards, out, o):
    """`TheGameEncoder.encode(game.view(state, seat))` of table r into `out[o]` (float32, bit for bit;
    `communication="none"`: the flag fields stay 0)."""
    n, hs = T.hands.shape[1], T.hands.shape[2]
    for j in range(out.shape[1]):
        out[o, j] = 0.0
    t0, t1, t2, t3 = T.tops[r, 0], T.tops[r, 1], T.tops[r, 2], T.tops[r, 3]
    for i in range(T.sizes[r, seat]):
        c = T.hands[r, seat, i]
        out[o, c - 2] = 1.0
        g = 200 + c - 2  # the gaps field: 4 x 98 after hand, placed and tops
        out[o, g] = (c - t0 + 100) * 0.005
        out[o, g + 98] = (c - t1 + 100) * 0.005
        out[o, g + 196] = (t2 + 100 - c) * 0.005
        out[o, g + 294] = (t3 + 100 - c) * 0.005
    if T.total[r] > 0:
        for c in range(2, 100):
            if T.placed[r, c]:
                out[o, 96 + c] = 1.0
    out[o, 196] = t0 * 0.01
    out[o, 197] = t1 * 0.01
    out[o, 198] = t2 * 0.01
    out[o, 199] = t3 * 0.01
    dn = T.dn[r]
    out[o, 592] = dn / 98
    for k in range(n):
        out[o, 593 + k] = min(1.0, T.sizes[r, (seat + k) % n] / hs)
    if not T.over[r]:
        out[o, 593 + n + (T.player[r] - seat) % n] = 1.0
        played = T.played[r]
        out[o, 593 + 2 * n] = min(1.0, played / hs)
        required = min_cards if dn > 0 else 1
        out[o, 594 + 2 * n] = min(1.0, max(0, required - played) / hs)


@numba.njit(inline=INLINE)
def mask_row(T, r, slot, hs, min_cards, out, o):
    """`TheGame.legal_mask` (official rules, no flags) of table r's seat to act into `out[o]` (int8), in the
    card head's ids or (`slot`) the slot head's."""
    for a in range(out.shape[1]):
        out[o, a] = 0
    if T.over[r]:
        return
    seat = T.player[r]
    m = T.sizes[r, seat]
    for i in range(m):
        c = T.hands[r, seat, i]
        if slot:
            b = 0
            for j in range(m):
                if T.hands[r, seat, j] < c:
                    b += 4
        else:
            b = (c - 2) * 4
        for p in range(4):
            if fits(c, T.tops[r, p], p):
                out[o, b + p] = 1
    # end turn once the minimum is met (1 once the draw pile is empty)
    if T.played[r] >= (min_cards if T.dn[r] > 0 else 1):
        out[o, 4 * hs if slot else 392] = 1


@numba.njit(cache=True)
def deal_row(T, S, r, keep_seat):
    """Deal table r's next episode: deal seed, learner's seat, line-up and random stream from its key and episode
    counter (`nb_episode_seeds`, `nb_pick_line_up`), the line-up seated (`phase` 2: the opening is to be played).
    A deal dealt again (`keep_seat`: the last one ended before the learner's first decision) keeps the learner's
    seat and line-up, as `OpponentEnv` keeps its seat."""
    n, hs = T.hands.shape[1], T.hands.shape[2]
    deal_seed, li = kernels.next_episode(T, S, r, keep_seat, LEARNER_CODE)
    if li >= 0:
        kernels.seat_params(T.params, S.line_params, r, T.learner[r], li)
    # the deal (`TheGame.deal`): hand_size rounds, each seat taking the draw pile's last card
    deal_order(deal_seed, T.deck[r])
    dn = 98
    for s in range(n):
        T.sizes[r, s] = 0
        for i in range(hs):
            T.hands[r, s, i] = _EMPTY
    for _ in range(hs):
        for s in range(n):
            dn -= 1
            T.hands[r, s, T.sizes[r, s]] = T.deck[r, dn]
            T.sizes[r, s] += 1
    T.dn[r] = dn
    T.tops[r, 0] = 1
    T.tops[r, 1] = 1
    T.tops[r, 2] = 100
    T.tops[r, 3] = 100
    for c in range(102):
        T.placed[r, c] = 0
    T.total[r] = 0
    T.player[r] = S.starter
    T.played[r] = 0
    T.over[r] = False
    T.turns[r] = 0
    T.before[r] = 0.0  # the team's return at the deal
    T.phase[r] = 2  # in the episode's opening until the learner's first decision (`open_row`)


@numba.njit(inline="always")
def open_row(decide, T, B, S, r, first):
    """Play table r's opening (from its deal, or from a batch policy's move `first`) up to the learner's first
    decision: the teammates' cards placed go to `carry` (the caller observes the table). A deal that ends before
    the learner decides is dealt again from the next episode index (up to 10,000 times). Stops at a batch policy's
    turn (phase stays 2: the step kernel goes on there with that policy's move). Under `all_seats` every seat is
    the learner's (`LEARNER_CODE`): it stops at once, at the starter."""
    for _attempt in range(10_000):
        status, act, _ = run_row(decide, T, r, S, first, -1)
        first = NO_MOVE
        if status < 0:
            kernels.fail(B.err, r, status, T.player[r], act)
            T.phase[r] = 0
            return
        if status == STOP_SEAT:
            if T.codes[r, T.player[r]] <= BATCH_CODE:
                return  # a batch policy is to move
            T.phase[r] = 0
            T.carry[r] = team_return(T, r, S.win_bonus, S.card_reward) - T.before[r]
            if S.all_seats:
                T.learner[r] = T.player[r]
            return
        deal_row(T, S, r, True)  # over before the learner decided: deal again, keeping the seat and line-up
    T.phase[r] = 0
    kernels.fail(B.err, r, ERR_REDEALS, -1, -1)


# Two kernels (reset and step), `advance` inlined at the sites that need it, as L.A.M.A.'s (`envs.lama.fast`).
# Only what takes `decide` (advance, run_row, open_row) and the per-table observe/mask (measured ~15% faster
# inlined) are inlined at numba IR level; the other helpers (deal_row, random_move, head_move, team_return, the
# strategies' vector_decide) are plain cached functions: a fresh clone compiles each kernel pair in about 45 s under
# load instead of 60-80 s, at the same speed.
@numba.njit(inline="always")
def vec_reset(decide, T, B, S, fresh):
    """Start every table's next episode (`fresh`: from episode 0 of its key) and observe it (a table paused at a
    batch policy's turn is observed when the step kernel goes on there)."""
    hs = T.hands.shape[2]
    B.err[0] = -1
    for r in range(T.seed.shape[0]):
        if fresh:
            T.episode[r] = 0
        deal_row(T, S, r, False)
        open_row(decide, T, B, S, r, NO_MOVE)
        if T.phase[r] == 0:
            observe_row(T, r, T.learner[r], S.min_cards, B.obs, r)
            mask_row(T, r, S.slot, hs, S.min_cards, B.mask, r)


@numba.njit(inline="always")
def vec_step(decide, T, B, S, actions):
    """One learner decision per table (`actions[r]`, in the head in use), the teammates up to its next one;
    an ended episode is observed into `final_obs` and the table dealt anew in the same call (same-step autoreset).

    A refused action changes nothing at the table and ends its episode with `illegal_reward`. The reward is the team's
    since the learner's previous decision, plus the `carry` of the teammates' moves before its first one. Under
    `all_seats` the action is the move of whoever is to act. A table reaching a batch policy's turn pauses (`phase` 1,
    or 2 in an episode's opening); the env calls this kernel again with that policy's action at the paused tables and
    `SKIP` at the others. A batch policy's turn after `max_turns` moves is not asked for: the step ends truncated.
    """
    hs = T.hands.shape[2]
    A = B.mask.shape[1]
    B.err[0] = -1
    for r in range(T.seed.shape[0]):
        a = actions[r]
        if a == SKIP:
            continue
        move = INVALID
        if 0 <= a < A:
            move = head_move(T, r, a, S.slot, hs)
        phase = T.phase[r]
        if phase != 2:
            bad = -1
            steps = 0
            status = STOP_ILLEGAL
            if phase == 0:
                kernels.unrefused(B, r)
                before = team_return(T, r, S.win_bonus, S.card_reward) if move != INVALID else 0.0
            else:
                before = T.before[r]  # a batch policy's move inside the learner's step
            if move != INVALID:
                # the learner's move always plays (the teammates before its first decision are never cut)
                budget = max(S.max_turns - T.turns[r], 1) if S.max_turns > 0 else -1
                status, bad, steps = run_row(decide, T, r, S, move, budget)
                if (status == STOP_SEAT and T.codes[r, T.player[r]] <= BATCH_CODE
                        and not (S.max_turns > 0 and T.turns[r] >= S.max_turns)):
                    T.phase[r] = 1  # a batch policy is to move: the env calls again with its action
                    T.before[r] = before
                    continue
            L = T.learner[r]
            if status == STOP_ILLEGAL and steps <= 1 and phase == 0:
                # the learner's own action was refused: `advance` changed nothing
                rew, term, trunc = kernels.refuse(B, r, a, S.illegal_reward)
            else:
                if status < 0:
                    kernels.fail(B.err, r, status, T.player[r], bad)
                rew = team_return(T, r, S.win_bonus, S.card_reward) - before + T.carry[r]
                term = T.over[r]
                trunc = (not term) and (status < 0 or (S.max_turns > 0 and T.turns[r] >= S.max_turns))
            if kernels.end_step(T, B, r, rew, term, trunc):
                observe_row(T, r, L, S.min_cards, B.final_obs, r)
                kernels.record_final(T, B, r, L)
                deal_row(T, S, r, False)
                phase = 2
                move = NO_MOVE  # the new episode's opening, from its deal
            elif S.all_seats:
                T.learner[r] = T.player[r]
        if phase == 2:
            open_row(decide, T, B, S, r, move)
        if T.phase[r] == 0:  # one observing site (measured: two cost the step ~4%)
            observe_row(T, r, T.learner[r], S.min_cards, B.obs, r)
            mask_row(T, r, S.slot, hs, S.min_cards, B.mask, r)


@numba.njit(inline=INLINE)
def _no_decide(params, hands, seat, sizes, tops, placed, played, required):
    return END_TURN  # only random seats (`RANDOM_CODE`) are played by the env's own kernels


@numba.njit(cache=True, _nrt=False)
def _random_reset(T, B, S, fresh):
    vec_reset(_no_decide, T, B, S, fresh)


@numba.njit(cache=True, _nrt=False)
def _random_step(T, B, S, actions):
    vec_step(_no_decide, T, B, S, actions)


#: The env's own kernels: every teammate plays random legal moves (`RANDOM_CODE`).
RANDOM_KERNELS = VectorKernels(_random_reset, _random_step)


@numba.njit(cache=True)
def privileged_rows(T, rows, seats, out):
    """`out[k]` = what table `rows[k]` hides from seat `seats[k]` (`TheGameEncoder.privileged`, bit for bit): the
    other seats' hands in order after it, then the draw pile's next hand-size cards."""
    n, hs = T.hands.shape[1], T.hands.shape[2]
    for k in range(rows.shape[0]):
        r, seat = rows[k], seats[k]
        for j in range(out.shape[1]):
            out[k, j] = 0.0
        for j in range(1, n):
            s = (seat + j) % n
            for i in range(T.sizes[r, s]):
                out[k, 98 * (j - 1) + T.hands[r, s, i] - 2] = 1.0
        dn = T.dn[r]
        for i in range(max(0, dn - hs), dn):
            out[k, 98 * (n - 1) + T.deck[r, i] - 2] = 1.0


@numba.njit(cache=True)
def observe_rows(T, rows, seats, min_cards, out):
    """`out[k]` = the observation of table `rows[k]` from seat `seats[k]` (as `TheGameEncoder`)."""
    for k in range(rows.shape[0]):
        observe_row(T, rows[k], seats[k], min_cards, out, k)


@numba.njit(cache=True)
def inputs_rows(T, rows, seats, slot, min_cards, obs, mask):
    """`obs[k]` / `mask[k]`: the observation of table `rows[k]` from seat `seats[k]` and the legal actions of its
    seat to move (int8; one call for what the batch policies are given)."""
    hs = T.hands.shape[2]
    for k in range(rows.shape[0]):
        observe_row(T, rows[k], seats[k], min_cards, obs, k)
        mask_row(T, rows[k], slot, hs, min_cards, mask, k)
