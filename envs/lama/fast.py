"""The L.A.M.A. engine's compiled kernels: whole games in numba, decisions from outside.

`play_game` plays one whole game under any `Config`, game for game identical to the plain engine (`envs.lama.rules`:
same shuffle seeds, same SplitMix64 shuffles). Every decision is made by a *decide kernel* the caller passes in::

    decide(code, params, hands, seat, sizes, top, can_draw) -> action

(`code` / `params` the deciding seat's policy code and every seat's float parameters, opaque to the engine;
`hands[seat]` the seat's counts per value; the action a card value 0..6, `DRAW` or `QUIT`; rows are passed whole: a
slice per decision costs reference counting). The caller compiles its batch kernel around the inlined `play_game`
with its decide kernel as a global, so the kernel is cached (`agents.lama.fast._batch`, with the strategies'
kernels), and `play_games(config, seeds, batch, codes, params, max_turns)` runs it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numba
import numpy as np

from envs.core import kernels, tables
from envs.core.game import IllegalActionError, check_move_limit
from envs.core.jit import INLINE
from envs.core.vector import BATCH_CODE, ERR_REDEALS, SKIP, VectorKernels, nb_next
from envs.core.vector import SeatBuffers as Buffers  # noqa: F401 - the vector env's; shared with Primi Composti
from envs.lama.rules import DRAW, NUM_ACTIONS, QUIT, Config, State

MAX_STEPS = 1_000_000  # per game, where no move limit is given; `play_games` raises if a game hits it
CUT = -3  # `info[2]` of a game cut at its move limit (`budget` moves, not over)

_U = np.uint64
_ROUND_MIX = _U(0xD1B54A32D192ED03)
_RESHUFFLE_MIX = _U(0x8CB92BA72F3D8DD7)


@numba.njit(cache=True)
def _key(seed, rnd, k):
    return seed ^ (_U(rnd + 1) * _ROUND_MIX) ^ (_U(k) * _RESHUFFLE_MIX)


#: `config_codes`' scoring switch: the code of each `Config.scoring`.
SCORING_CODES = {"distinct": 0, "sum_all": 1}


@numba.njit(inline=INLINE)
def next_card(v):
    """The compiled twin of `envs.lama.rules.next_card`: the value one step higher in the cycle 1→…→6→llama→1."""
    return 0 if v == 6 else v + 1


@numba.njit(cache=True)
def hand_points(hand, scoring):
    """The compiled twin of `envs.lama.rules.hand_points`: the penalty of `hand` (counts per value, llamas first)
    under the scoring code `scoring` (`SCORING_CODES`)."""
    p = 0
    if scoring == 0:
        for v in range(1, 7):
            if hand[v] > 0:
                p += v
        if hand[0] > 0:
            p += 10
    else:
        for v in range(1, 7):
            p += v * hand[v]
        p += 10 * hand[0]
    return p


@numba.njit(inline=INLINE)
def may_draw(last_player_continues, reshuffles, players_in, draw_size, discard_size):
    """The compiled twin of `envs.lama.rules.may_draw`: whether the player to act may draw."""
    if last_player_continues and players_in == 1:
        return False
    return draw_size > 0 or (reshuffles and discard_size > 1)


@numba.njit(inline=INLINE)
def is_legal(hands, seat, top, can_draw, action):
    """Whether `action` is in `envs.lama.rules.legal_actions` of seat `seat`'s hand `hands[seat]` (the compiled
    legality check: quit always, draw where `can_draw`, a held card equal to the top or one step higher). The hands
    are passed whole: a slice per decision costs reference counting."""
    if action == QUIT:
        return True
    if action == DRAW:
        return can_draw
    return 0 <= action < 7 and hands[seat, action] > 0 and (action == top or action == next_card(top))


@numba.njit(inline=INLINE)
def legal_actions(hands, seat, top, can_draw):
    """The compiled twin of `envs.lama.rules.legal_actions` as a bit set (bit a: action a is legal; the same set as
    `is_legal`, tested). Not a loop over `is_legal` of the candidates: that cost the vector env with random
    opponents ~10% a step (measured)."""
    nxt = next_card(top)
    bits = 1 << QUIT
    if hands[seat, top] > 0:
        bits |= 1 << top
    if hands[seat, nxt] > 0:
        bits |= 1 << nxt
    if can_draw:
        bits |= 1 << DRAW
    return bits


@numba.njit(inline=INLINE)
def deal(seed, rnd, cards, disc, hands, sizes, active, draw):
    """Deal round `rnd` of the game of shuffle seed `seed` (as `LamaGame._deal`) into the arrays; returns the
    draw pile's size (the discard pile holds one card)."""
    n = hands.shape[0]
    for v in range(7):
        for c in range(8):
            cards[v * 8 + c] = v
    kernels.shuffle(cards, 56, _key(seed, rnd, 0))
    disc[0] = cards[0]
    for i in range(n):
        for v in range(7):
            hands[i, v] = 0
        for c in range(6):
            hands[i, cards[1 + 6 * i + c]] += 1
        sizes[i] = 6
        active[i] = True
    ndraw = 56 - 1 - 6 * n
    for c in range(ndraw):
        draw[c] = cards[1 + 6 * n + c]
    return ndraw


@numba.njit(inline="always")
def play_game(decide, seed, codes, params, switches, totals, won, info, budget):
    """One game of shuffle seed `seed`, seat i deciding by `decide(codes[i], params, hands, i, ...)`, cut after
    `budget` moves (-1: no limit). `switches` are `config_codes(config)`. Fills `totals` and `won` (final points, rounds
    won) and `info` = (rounds, steps, seat, action): steps -1 past `MAX_STEPS`, -2 when `decide` chose an illegal action
    (that seat and action given); else seat and action -1, or seat `CUT` for a game cut at `budget`. Inlined into the
    caller's batch kernel (a plain call with a function argument could not be cached)."""
    n = codes.shape[0]
    hands = np.zeros((n, 7), np.int64)
    sizes = np.zeros(n, np.int64)
    active = np.zeros(n, np.bool_)
    draw = np.zeros(64, np.int64)
    disc = np.zeros(64, np.int64)
    cards = np.zeros(64, np.int64)
    for i in range(n):
        totals[i] = 0
        won[i] = 0
    ndraw = deal(seed, 0, cards, disc, hands, sizes, active, draw)
    play_on(decide, seed, codes, params, switches, hands, sizes, active, draw, ndraw, disc, 1, cards, 0, 0, 0, -1,
            totals, won, info, budget)


@numba.njit(inline="always")
def play_on(decide, seed, codes, params, switches, hands, sizes, active, draw, ndraw, disc, nd, cards, rnd,
            reshuffles, cur, first_action, totals, won, info, budget):
    """Play on from a mid-round position to the end of the game (`advance` with no seat to stop at).

    The position: `hands` (n, 7) counts, `sizes`, `active`, the draw pile `draw[:ndraw]` and discard pile `disc[:nd]`
    (tops last), round `rnd` after `reshuffles` reshuffles, seat `cur` to act, `totals` / `won` so far; `cards` is
    scratch (64); later shuffles come from `seed` as in the plain engine. `first_action` >= 0 is the first decision
    (checked like any other). Arrays change in place; `info` as in `play_game`, steps counted from here.
    """
    stock = np.empty(7, np.int64)  # the round's cards per value: observations only, not the rules
    for v in range(7):
        stock[v] = 8
    rng = np.zeros(1, np.uint64)  # the stream of seats of code RANDOM_CODE
    ndraw, nd, rnd, reshuffles, cur, steps, status, act = advance(
        decide, seed, codes, params, switches, hands, sizes, active, draw, ndraw, disc, nd, stock, cards, rnd,
        reshuffles, cur, first_action, budget, totals, won, rng, 0)
    info[0] = rnd + 1
    info[1] = steps if status == STOP_OVER or status == STOP_BUDGET else status
    info[2] = cur if status == STOP_ILLEGAL else (CUT if status == STOP_BUDGET else -1)
    info[3] = act if status == STOP_ILLEGAL else -1


RANDOM_CODE = -1  # a seat of this policy code plays uniformly random legal moves (see `advance`)
# What `advance` stopped at (its `status`).
PAUSE_CODE = -2  # `advance` pauses at a seat of this code or below: the vector env's learner (-2), batch policies
assert BATCH_CODE < PAUSE_CODE
STOP_SEAT = 0  # a seat of code <= PAUSE_CODE is to act
STOP_OVER = 1  # the game is over
STOP_BUDGET = 2  # `budget` moves were played
STOP_STEPS = -1  # more than MAX_STEPS moves
STOP_ILLEGAL = -2  # an illegal decision (seat `cur`, action `act`): nothing was changed by it


@numba.njit(inline="always")
def end_round_scores(hands, sizes, active, n_active, totals, won, scoring, return_chip):
    """A round's end (`LamaGame._end_round`): the winner (the first seat with an empty hand, else the last one
    still in, else none) counted in `won`, every hand's points added to `totals`, a chip given back by each seat
    that emptied its hand (`return_chip`); returns the highest total."""
    n = sizes.shape[0]
    winner = -1
    for i in range(n):
        if sizes[i] == 0:
            winner = i
            break
    if winner < 0 and n_active == 1:
        for i in range(n):
            if active[i]:
                winner = i
    for i in range(n):
        totals[i] += hand_points(hands[i], scoring)
    if return_chip:
        for i in range(n):
            if sizes[i] == 0:
                if totals[i] >= 10:
                    totals[i] -= 10
                elif totals[i] >= 1:
                    totals[i] -= 1
    if winner >= 0:
        won[winner] += 1
    mx = totals[0]
    for i in range(1, n):
        mx = max(mx, totals[i])
    return mx


@numba.njit(inline="always")
def advance(decide, seed, codes, params, switches, hands, sizes, active, draw, ndraw, disc, nd, stock, cards, rnd,
            reshuffles, cur, first_action, budget, totals, won, rng, rrow):
    """The compiled game loop: play from a position until a seat of code <= `PAUSE_CODE` is to act (the vector env's
    learner or a batch policy), the game ends, or `budget` moves were played (-1: no limit). One code compare a move,
    not a seat and a code compare (measured: the second cost the vector step ~5%).

    The position as in `play_on`, plus `stock` (7,), the round's cards per value. A seat decides by `decide(...)`,
    except that a seat of code `RANDOM_CODE` plays the k-th legal action in increasing order, k = a draw of the
    SplitMix64 stream `rng[rrow]` mod their number. `first_action` >= 0 is the first move (no pause before it). Returns
    `(ndraw, nd, rnd, reshuffles, cur, steps, status, act)`: the new scalars, the moves played, why it stopped
    (`STOP_*`) and the refused action at `STOP_ILLEGAL`. An ended game's arrays hold its final hands.
    """
    scoring, return_chip, lpc, empty_deck, player0, target = switches
    n = codes.shape[0]
    n_active = 0
    for i in range(n):
        if active[i]:
            n_active += 1
    steps = 0
    while True:
        if codes[cur] <= PAUSE_CODE and not (steps == 0 and first_action >= 0):
            return ndraw, nd, rnd, reshuffles, cur, steps, STOP_SEAT, -1
        if steps == budget:
            return ndraw, nd, rnd, reshuffles, cur, steps, STOP_BUDGET, -1
        steps += 1
        if steps > MAX_STEPS:
            return ndraw, nd, rnd, reshuffles, cur, steps, STOP_STEPS, -1
        top = disc[nd - 1]
        cd = may_draw(lpc, empty_deck != 0, n_active, ndraw, nd)
        if steps == 1 and first_action >= 0:
            act = first_action
        elif codes[cur] == RANDOM_CODE:
            act = random_legal(hands, cur, top, cd, rng, rrow)
        else:
            act = decide(codes[cur], params, hands, cur, sizes, top, cd)
        if not is_legal(hands, cur, top, cd, act):
            return ndraw, nd, rnd, reshuffles, cur, steps, STOP_ILLEGAL, act
        end_round = False
        if act == QUIT:
            active[cur] = False
            n_active -= 1
            if n_active == 0 or (n_active == 1 and not lpc):
                end_round = True
        elif act == DRAW:
            if ndraw == 0:
                reshuffles += 1
                m = nd - 1
                for c in range(m):
                    cards[c] = disc[c]
                kernels.shuffle(cards, m, _key(seed, rnd, reshuffles))
                for c in range(m):
                    draw[c] = cards[c]
                ndraw = m
                if empty_deck == 2:
                    disc[0] = 0  # the seed's quirk: the pile restarts from a llama, the old top card leaves
                    stock[top] -= 1
                    stock[0] += 1
                else:
                    disc[0] = top
                nd = 1
            ndraw -= 1
            hands[cur, draw[ndraw]] += 1
            sizes[cur] += 1
        else:
            hands[cur, act] -= 1
            sizes[cur] -= 1
            disc[nd] = act
            nd += 1
            if sizes[cur] == 0:
                end_round = True
        if end_round:
            if end_round_scores(hands, sizes, active, n_active, totals, won, scoring, return_chip) >= target:
                return ndraw, nd, rnd, reshuffles, cur, steps, STOP_OVER, -1
            cur = 0 if player0 else cur
            rnd += 1
            reshuffles = 0
            ndraw = deal(seed, rnd, cards, disc, hands, sizes, active, draw)
            nd = 1
            n_active = n
            for v in range(7):
                stock[v] = 8
            continue
        # next seat still in, clockwise
        for k in range(1, n + 1):
            s2 = (cur + k) % n
            if active[s2]:
                cur = s2
                break


@numba.njit(inline=INLINE)
def random_legal(hands, cur, top, cd, rng, rrow):
    """A uniformly random legal action of seat `cur` from the stream `rng[rrow]` (see `advance`)."""
    bits = legal_actions(hands, cur, top, cd)
    m = 0
    b = bits
    while b:
        b &= b - 1  # clears the lowest legal action
        m += 1
    k = np.int64(nb_next(rng, rrow) % _U(m))
    for a in range(NUM_ACTIONS):
        if (bits >> a) & 1:
            if k == 0:
                return a
            k -= 1
    return QUIT


@dataclass
class Results:
    """Per-game outcomes of `play_games` (seats are table seats, 0 starts).

    Attributes:
        totals: (games, n) final penalty points.
        rounds_won: (games, n) rounds each seat ended (emptied hand / last one in).
        rounds: (games,) rounds played.
        steps: (games,) actions taken.
        codes: (games, n) the policy code of each seat, as given.
        cut: (games,) True for a game cut at its move limit (not over: no winner).
    """

    totals: np.ndarray
    rounds_won: np.ndarray
    rounds: np.ndarray
    steps: np.ndarray
    codes: np.ndarray
    cut: np.ndarray

    @property
    def wins(self) -> np.ndarray:
        """(games, n) 1 for every seat tied at the fewest points (shared wins count); none in a cut game."""
        won = (self.totals == self.totals.min(axis=1, keepdims=True)) & ~self.cut[:, None]
        return won.astype(np.int64)

    def returns(self, config: Config) -> np.ndarray:
        """(games, n) each seat's return at the game's end (or cut), as `LamaGame.returns`: minus its points under
        `reward="dense"`, else 1 for every winner and 0 for the others."""
        return -self.totals.astype(np.float64) if config.reward == "dense" else self.wins.astype(np.float64)


def config_codes(config: Config) -> tuple[int, int, int, int, int, int]:
    """The engine switches of `config` as the integers `play_game` takes."""
    return (
        SCORING_CODES[config.scoring],
        int(config.return_chip),
        int(config.last_player_continues),
        {"no_draw": 0, "reshuffle": 1, "reshuffle_seed": 2}[config.empty_deck],
        int(config.round_starter == "player0"),
        int(config.target_points),
    )


def play_games(
    config: Config,
    seeds: np.ndarray,
    batch: Any,
    codes: np.ndarray | list[int],
    params: np.ndarray | list[float] | None = None,
    max_turns: int | None = None,
) -> Results:
    """Play one game per seed on the caller's batch kernel (see the module docstring), each cut after `max_turns`
    moves where given (`Results.cut`: no winner, as `envs.core.play.play_game` cuts a game).

    Args:
        config: the game's options (`Config`).
        seeds: shuffle seeds (< 2**63), one per game — `LamaGame.new_game(seed)`
            deals the same game.
        batch: the caller's numba batch kernel around `play_game`.
        codes: each seat's policy code, passed to its decide kernel: shape (n,) or (games, n).
        params: each seat's float parameters, passed to it: shape (k,),
            (n, k) or (games, n, k); default no parameters.
        max_turns: the move limit of a game (None: none; the seed's reshuffle lets players who never fold play
            for ever, and a game past `MAX_STEPS` moves raises).

    Raises:
        IllegalActionError: a decision the rules forbid (the first game's seat and action).
        ValueError: codes or params of the wrong shape, a `max_turns` below 1.
        RuntimeError: a game past `MAX_STEPS` moves with no `max_turns`.
    """
    check_move_limit(max_turns)
    n = config.num_players
    # fresh writable C arrays: the kernels are compiled for exactly these types
    seeds = np.array(seeds, dtype=np.uint64, order="C")
    g = seeds.shape[0]
    c = np.asarray(codes, dtype=np.int64)
    if c.shape == (n,):
        c = np.broadcast_to(c, (g, n))
    if c.shape != (g, n):
        raise ValueError(f"codes must have shape ({n},) or ({g}, {n}), got {np.shape(codes)}")
    p = np.zeros(1) if params is None else np.asarray(params, dtype=np.float64)
    p = np.array(np.broadcast_to(p, (g, n, p.shape[-1])), order="C")
    c = np.array(c, order="C")
    totals = np.zeros((g, n), np.int64)
    won = np.zeros((g, n), np.int64)
    info = np.zeros((g, 4), np.int64)
    batch(seeds, c, p, config_codes(config), totals, won, info, -1 if max_turns is None else int(max_turns))
    rounds, steps = info[:, 0].copy(), info[:, 1].copy()
    if (steps == -2).any():
        k = int(np.flatnonzero(steps == -2)[0])
        seat, action = (int(x) for x in info[k, 2:])
        raise IllegalActionError(action, seat, f"chosen by the decide kernel in the game of seed {int(seeds[k])}")
    if (steps < 0).any():
        bad = seeds[steps < 0][:5].tolist()
        raise RuntimeError(f"{int((steps < 0).sum())} game(s) exceeded {MAX_STEPS} steps (seeds {bad}); statistics "
                           "would be biased: a move limit (max_turns) cuts such games")
    return Results(totals, won, rounds, steps, c, info[:, 2] == CUT)


@dataclass
class Packed:
    """A mid-round `State` as the arrays `play_on` takes (see its docstring); `seed` is the state's shuffle seed."""

    seed: int
    hands: np.ndarray
    sizes: np.ndarray
    active: np.ndarray
    draw: np.ndarray
    ndraw: int
    disc: np.ndarray
    nd: int
    round: int
    reshuffles: int
    current: int
    totals: np.ndarray
    rounds_won: np.ndarray


def pack_state(state: State) -> Packed:
    """`state` (not over) as fresh arrays for `play_on`."""
    if state.game_over:
        raise ValueError("the game is over: nothing to play on")
    n = len(state.hands)
    draw = np.zeros(64, np.int64)
    draw[: len(state.draw_pile)] = state.draw_pile
    disc = np.zeros(64, np.int64)
    disc[: len(state.discard)] = state.discard
    hands = np.array(state.hands, dtype=np.int64).reshape(n, 7)
    return Packed(
        int(state.seed), hands, hands.sum(axis=1), np.array(state.active, dtype=np.bool_), draw,
        len(state.draw_pile), disc, len(state.discard), int(state.round), int(state.reshuffles), int(state.current),
        np.array(state.totals, dtype=np.int64), np.array(state.rounds_won, dtype=np.int64),
    )


# --- the vector env's kernels: many tables, one row each ------------------------------------------------------
Tables = tables.tables_type(__name__, """Every table of a vector env as arrays, one row a table (N tables, n seats,
P opponent parameters).

The game position is `advance`'s: `hands` (N, n, 7), `sizes`, `active`, `draw`/`ndraw`, `disc`/`nd`, `stock`,
`rnd`, `resh`, `cur`, `totals`, `won`, `over`; `cards` (64,) is scratch.""", (
    "hands", "sizes", "active", "draw", "ndraw", "disc", "nd", "stock", "rnd", "resh", "cur", "totals", "won", "over",
    "cards"), optional=("params", "turns", "before"))


def new_tables(num_envs: int, num_players: int, num_params: int) -> Tables:
    """Zeroed `Tables` for `num_envs` tables."""
    N, n = num_envs, num_players
    i64 = np.int64
    return tables.new_tables(
        Tables, N, n, num_params, hands=np.zeros((N, n, 7), i64), sizes=np.zeros((N, n), i64),
        active=np.zeros((N, n), np.bool_), draw=np.zeros((N, 64), i64), ndraw=np.zeros(N, i64),
        disc=np.zeros((N, 64), i64), nd=np.zeros(N, i64), stock=np.zeros((N, 7), i64), rnd=np.zeros(N, i64),
        resh=np.zeros(N, i64), cur=np.zeros(N, i64), totals=np.zeros((N, n), i64), won=np.zeros((N, n), i64),
        over=np.zeros(N, np.bool_), cards=np.zeros(64, i64),
    )


Settings = tables.settings_type(__name__, """A vector env's fixed settings as the kernels take them: `switches`
(`config_codes`), `dense` (reward), `target` (for observations), then the line-up fields (`envs.core.tables.SETTINGS`).
""", ("switches", "dense", "target"))


@numba.njit(inline=INLINE)
def learner_return(T, r, dense):
    """Table r's learner's return so far (`seat_return` of its seat)."""
    return seat_return(T, r, T.learner[r], dense)


@numba.njit(inline=INLINE)
def seat_return(T, r, L, dense):
    """Seat L's return so far at table r (`LamaGame.returns`): minus its points (dense), or 1 for a winner at
    the game's end (shared wins count)."""
    if dense:
        return -float(T.totals[r, L])
    if not T.over[r]:
        return 0.0
    best = T.totals[r, 0]
    for i in range(1, T.totals.shape[1]):
        if T.totals[r, i] < best:
            best = T.totals[r, i]
    return 1.0 if T.totals[r, L] == best else 0.0


@numba.njit(inline="always")
def run_row(decide, T, r, switches, first, budget):
    """`advance` on table r's row (scalars stored back); returns (status, refused action, moves tried)."""
    ndraw, nd, rnd, resh, cur, steps, status, act = advance(
        decide, T.seed[r], T.codes[r], T.params[r], switches, T.hands[r], T.sizes[r], T.active[r], T.draw[r],
        T.ndraw[r], T.disc[r], T.nd[r], T.stock[r], T.cards, T.rnd[r], T.resh[r], T.cur[r], first, budget,
        T.totals[r], T.won[r], T.rng, r)
    T.ndraw[r] = ndraw
    T.nd[r] = nd
    T.rnd[r] = rnd
    T.resh[r] = resh
    T.cur[r] = cur
    T.turns[r] += steps - 1 if status == STOP_ILLEGAL else steps
    T.over[r] = status == STOP_OVER
    return status, act, steps


@numba.njit(inline=INLINE)
def observe_row(T, r, seat, scoring, target, out, o):
    """`LamaEncoder.encode(game.view(state, seat))` of table r into `out[o]` (float32, bit for bit)."""
    n = T.hands.shape[1]
    for v in range(7):
        out[o, v] = T.hands[r, seat, v] / 8.0
    nd = T.nd[r]
    top = T.disc[r, nd - 1]
    for v in range(7):
        out[o, 7 + v] = 1.0 if v == top else 0.0
    out[o, 14] = T.ndraw[r] / 56.0
    for v in range(7):
        out[o, 15 + v] = 0.0
    for c in range(nd):
        out[o, 15 + T.disc[r, c]] += 1.0
    for v in range(7):
        dc = np.int64(out[o, 15 + v])
        out[o, 15 + v] = dc / 8.0
        out[o, 22 + v] = (T.stock[r, v] - dc - T.hands[r, seat, v]) / 8.0
    j = 29
    for k in range(n):
        s = (seat + k) % n
        out[o, j + k] = T.sizes[r, s] / 56.0
        out[o, j + n + k] = 1.0 if T.active[r, s] else 0.0
        out[o, j + 2 * n + k] = T.totals[r, s] / target
    out[o, j + 3 * n] = hand_points(T.hands[r, seat], scoring) / target
    rel = (T.cur[r] - seat) % n
    for k in range(n):
        out[o, j + 3 * n + 1 + k] = 1.0 if (k == rel and not T.over[r]) else 0.0


@numba.njit(inline=INLINE)
def mask_row(T, r, switches, out, o):
    """`LamaGame.legal_mask` of table r's seat to act into `out[o]` (int8)."""
    lpc = switches[2]
    empty_deck = switches[3]
    cur = T.cur[r]
    n_active = 0
    for i in range(T.active.shape[1]):
        if T.active[r, i]:
            n_active += 1
    nd = T.nd[r]
    bits = 0
    if not T.over[r]:
        bits = legal_actions(
            T.hands[r], cur, T.disc[r, nd - 1], may_draw(lpc, empty_deck != 0, n_active, T.ndraw[r], nd)
        )
    for a in range(NUM_ACTIONS):
        out[o, a] = (bits >> a) & 1


@numba.njit(cache=True)
def observe_rows(T, rows, seats, scoring, target, out):
    """`out[k]` = the observation of table `rows[k]` from seat `seats[k]` (as `LamaEncoder`)."""
    for k in range(rows.shape[0]):
        observe_row(T, rows[k], seats[k], scoring, target, out, k)


@numba.njit(cache=True)
def privileged_rows(T, rows, seats, out):
    """`out[k]` = what table `rows[k]` hides from seat `seats[k]` (`LamaEncoder.privileged`, bit for bit): the
    other seats' hands in order after it, the draw pile's counts and its top card."""
    n = T.hands.shape[1]
    pile = 7 * (n - 1)
    for k in range(rows.shape[0]):
        r, seat = rows[k], seats[k]
        for j in range(1, n):
            s = (seat + j) % n
            for v in range(7):
                out[k, 7 * (j - 1) + v] = T.hands[r, s, v] / 8.0
        for v in range(14):
            out[k, pile + v] = 0.0
        nd = T.ndraw[r]
        for c in range(nd):
            out[k, pile + T.draw[r, c]] += 1.0
        for v in range(7):
            out[k, pile + v] = out[k, pile + v] / 8.0
        if nd > 0:
            out[k, pile + 7 + T.draw[r, nd - 1]] = 1.0


@numba.njit(cache=True)
def mask_rows(T, rows, switches, out):
    """`out[k]` = the legal actions of the seat to move at table `rows[k]` (int8, as `LamaGame.legal_mask`)."""
    for k in range(rows.shape[0]):
        mask_row(T, rows[k], switches, out, k)


@numba.njit(cache=True)
def inputs_rows(T, rows, seats, switches, target, obs, mask):
    """`obs[k]` / `mask[k]`: the observation of table `rows[k]` from seat `seats[k]` and the legal actions of its
    seat to move (one call for what a batch policy is given)."""
    for k in range(rows.shape[0]):
        observe_row(T, rows[k], seats[k], switches[0], target, obs, k)
        mask_row(T, rows[k], switches, mask, k)


@numba.njit(inline=INLINE)
def start_game(T, r, deal_seed):
    """Table r at the start of the game of deal seed `deal_seed`: no points yet, every chip in the stock, round 1
    dealt (`deal`), seat 0 to move; what the vector env's next episode and the compiled tournaments start from."""
    for i in range(T.hands.shape[1]):
        T.totals[r, i] = 0
        T.won[r, i] = 0
    for v in range(7):
        T.stock[r, v] = 8
    T.ndraw[r] = deal(deal_seed, 0, T.cards, T.disc[r], T.hands[r], T.sizes[r], T.active[r], T.draw[r])
    T.nd[r] = 1
    T.rnd[r] = 0
    T.resh[r] = 0
    T.cur[r] = 0
    T.over[r] = False
    T.turns[r] = 0


@numba.njit(inline=INLINE)
def deal_row(T, S, r, keep_seat):
    """Deal table r's next episode: deal seed, learner's seat, line-up and random stream from its key and episode
    counter, the line-up seated. A deal dealt again (`keep_seat`: the last one ended before the learner's first
    decision) keeps the learner's seat and line-up, as `OpponentEnv` keeps its seat."""
    # the learner's seat (every seat under all_seats; seat 0 moves first) is `PAUSE_CODE`: never decided by a kernel
    deal_seed, li = kernels.next_episode(T, S, r, keep_seat, PAUSE_CODE)
    if li >= 0:
        kernels.seat_params(T.params, S.line_params, r, T.learner[r], li)
    start_game(T, r, deal_seed)
    T.before[r] = learner_return(T, r, S.dense)
    T.phase[r] = 0 if S.all_seats else 2  # in the episode's opening until the learner's first decision (`open_row`)


@numba.njit(inline="always")
def open_row(decide, T, B, S, r, first):
    """Play table r's opening (from its deal, or from a batch policy's move `first` >= 0) up to the learner's first
    decision: the opponents' return goes to `carry` (the caller observes the table). A deal that ends before the
    learner decides is dealt again from the next episode index (up to 10,000 times). Stops at a batch policy's
    turn (phase 2: the step kernel goes on there with that policy's move). Under `all_seats` nobody moves before
    the seat to move: nothing to play."""
    if S.all_seats:
        T.carry[r] = 0.0
        return
    for _attempt in range(10_000):
        status, act, _ = run_row(decide, T, r, S.switches, first, -1)
        first = -1
        if status < 0:
            kernels.fail(B.err, r, status, T.cur[r], act)
            T.phase[r] = 0
            return
        if status == STOP_SEAT and T.cur[r] != T.learner[r]:
            return  # a batch policy is to move (phase stays 2)
        if status == STOP_SEAT:
            T.phase[r] = 0  # the caller observes the table (one observing site per kernel)
            T.carry[r] = learner_return(T, r, S.dense) - T.before[r]
            return
        deal_row(T, S, r, True)  # over before the learner decided: deal again, keeping the seat and line-up
    T.phase[r] = 0
    kernels.fail(B.err, r, ERR_REDEALS, -1, -1)


# Two kernels (reset and step), `advance` inlined at three sites (one in reset, two in step): the fastest layout
# measured. One kernel body with a single `advance` site compiled in half the time on a fresh clone but stepped
# 10-20% slower.
@numba.njit(inline="always")
def vec_reset(decide, T, B, S, fresh):
    """Start every table's next episode (`fresh`: from episode 0 of its key) and observe it (a table paused at a
    batch policy's turn is observed when the step kernel goes on there)."""
    B.err[0] = -1
    for r in range(T.seed.shape[0]):
        if fresh:
            T.episode[r] = 0
        deal_row(T, S, r, False)
        open_row(decide, T, B, S, r, -1)
        if T.phase[r] == 0:
            observe_row(T, r, T.learner[r], S.switches[0], S.target, B.obs, r)
            mask_row(T, r, S.switches, B.mask, r)


@numba.njit(inline="always")
def vec_step(decide, T, B, S, actions):
    """One learner decision per table (`actions[r]`), the opponents up to its next one; an ended episode is observed
    into `final_obs` and the table dealt anew in the same call (same-step autoreset).

    A refused action changes nothing at the table and ends its episode with `illegal_reward`. The reward is the change
    of the learner's return since its previous decision, plus the `carry` of the opponents' moves before its first one.
    A table reaching a batch policy's turn pauses (`phase` 1, or 2 in an episode's opening) with its outputs unwritten;
    the env calls this kernel again with that policy's move at the paused tables and `SKIP` at the others. The step's
    end is written out here: in a called helper the kernel ran 20-35% slower. `control="all_seats"` is
    `_step_all_seats`, which only the env's own kernels call (it would double the opponents' kernels' compile time).
    """
    scoring = S.switches[0]
    B.err[0] = -1
    for r in range(T.seed.shape[0]):
        a = actions[r]
        if a == SKIP:
            continue
        phase = T.phase[r]
        if phase != 2:
            L = T.learner[r]
            bad = -1
            steps = 0
            status = STOP_ILLEGAL
            if phase == 0:
                kernels.unrefused(B, r)
                before = learner_return(T, r, S.dense) if a >= 0 else 0.0
            else:
                before = T.before[r]  # a batch policy's move inside the learner's step
            if a >= 0:
                budget = S.max_turns - T.turns[r] if S.max_turns > 0 else -1
                status, bad, steps = run_row(decide, T, r, S.switches, a, budget)
                if status == STOP_SEAT and T.cur[r] != L:
                    T.phase[r] = 1  # a batch policy is to move: the env calls again with its move
                    T.before[r] = before
                    continue
            if status == STOP_ILLEGAL and steps <= 1 and phase == 0:
                # the learner's own action was refused: `advance` changed nothing
                rew, term, trunc = kernels.refuse(B, r, a, S.illegal_reward)
            else:
                if status < 0:
                    kernels.fail(B.err, r, status, T.cur[r], bad)
                rew = learner_return(T, r, S.dense) - before + T.carry[r]
                term = T.over[r]
                trunc = (not term) and (status < 0 or (S.max_turns > 0 and T.turns[r] >= S.max_turns))
            if not kernels.end_step(T, B, r, rew, term, trunc):
                observe_row(T, r, L, scoring, S.target, B.obs, r)
                mask_row(T, r, S.switches, B.mask, r)
                continue
            observe_row(T, r, L, scoring, S.target, B.final_obs, r)
            kernels.record_final(T, B, r, L)
            deal_row(T, S, r, False)
            a = -1  # the new episode's opening, from its deal
        open_row(decide, T, B, S, r, a)
        if T.phase[r] == 0:
            observe_row(T, r, T.learner[r], scoring, S.target, B.obs, r)
            mask_row(T, r, S.switches, B.mask, r)


@numba.njit(inline="always")
def _step_all_seats(decide, T, B, S, actions):
    """`vec_step` under `control="all_seats"`: `actions[r]` is the move of table r's seat to move (its `learner`);
    `B.rewards[r, s]` is the change of seat s's return in the step, the reward the mover's, `ep_ret` player_0's
    return; an ended episode's final observation is the mover's (`B.final_player`). A refused action changes
    nothing and ends the episode with `illegal_reward` to the mover."""
    B.err[0] = -1
    n = T.hands.shape[1]
    scoring = S.switches[0]
    before = np.zeros(n)
    for r in range(T.seed.shape[0]):
        a = actions[r]
        L = T.learner[r]
        kernels.unrefused(B, r)
        status = STOP_ILLEGAL
        steps = 0
        bad = -1
        if a >= 0:
            for s in range(n):
                before[s] = seat_return(T, r, s, S.dense)
            budget = S.max_turns - T.turns[r] if S.max_turns > 0 else -1
            status, bad, steps = run_row(decide, T, r, S.switches, a, budget)
        if status == STOP_ILLEGAL and steps <= 1:
            rew, term, trunc = kernels.refuse(B, r, a, S.illegal_reward)
            for s in range(n):
                B.rewards[r, s] = rew if s == L else 0.0
        else:
            if status < 0:
                kernels.fail(B.err, r, status, T.cur[r], bad)
            for s in range(n):
                B.rewards[r, s] = seat_return(T, r, s, S.dense) - before[s]
            rew = B.rewards[r, L]
            term = T.over[r]
            trunc = (not term) and (status < 0 or (S.max_turns > 0 and T.turns[r] >= S.max_turns))
        T.phase[r] = 0
        T.ep_ret[r] += B.rewards[r, 0]
        T.ep_len[r] += 1
        if kernels.step_outputs(B, r, rew, term, trunc):
            observe_row(T, r, L, scoring, S.target, B.final_obs, r)
            kernels.record_final(T, B, r, 0)
            B.final_player[r] = L
            deal_row(T, S, r, False)
        T.learner[r] = T.cur[r]  # the seat to move
        observe_row(T, r, T.learner[r], scoring, S.target, B.obs, r)
        mask_row(T, r, S.switches, B.mask, r)


@numba.njit(inline=INLINE)
def _no_decide(code, params, hands, seat, sizes, top, can_draw):
    return -1  # only random seats (`RANDOM_CODE`) are played by the env's own kernels


@numba.njit(cache=True, _nrt=False)
def _random_reset(T, B, S, fresh):
    vec_reset(_no_decide, T, B, S, fresh)


@numba.njit(cache=True, _nrt=True)
def _all_seats_step(T, B, S, actions):
    _step_all_seats(_no_decide, T, B, S, actions)  # it allocates: with reference counting


@numba.njit(cache=True, _nrt=False)
def _random_step(T, B, S, actions):
    if S.all_seats:  # only the env's own kernels play every seat (an env under all_seats takes no opponents)
        _all_seats_step(T, B, S, actions)
    else:
        vec_step(_no_decide, T, B, S, actions)


#: The env's own kernels: every opponent plays random legal moves (`RANDOM_CODE`).
RANDOM_KERNELS = VectorKernels(_random_reset, _random_step)
