"""The L.A.M.A. engine's compiled kernels: whole games in numba, decisions from outside.

`play_game` deals, shuffles, checks legality, applies actions and scores one
whole game under any `Config`, game for game identical to the plain engine
(`envs.lama.rules`): same shuffle seeds, same SplitMix64 shuffles. Every
decision is made by a *decide kernel* the caller passes in, a numba function::

    decide(code, params, hands, seat, sizes, top, can_draw) -> action

where `code` is the deciding seat's policy code and `params` every seat's
float parameters (both opaque to the engine), `hands[seat]` counts the seat's
cards per value, `sizes` holds every seat's hand size, and the action is a
card value (0 = llama, 1..6), `DRAW` or `QUIT`. Rows are passed whole rather
than sliced: a slice per decision costs reference counting in the hot loop.

The caller compiles its batch kernel around `play_game` with its own decide
kernel as a global (`play_game` is inlined, so the decisions are direct calls
and the batch kernel is cached)::

    @numba.njit(cache=True, parallel=True)
    def batch(seeds, codes, params, switches, totals, won, info):
        for k in numba.prange(seeds.shape[0]):
            play_game(decide, seeds[k], codes[k], params[k], switches, totals[k], won[k], info[k])

and `play_games(config, seeds, batch, codes, params)` prepares the arrays,
runs it and checks the outcome. The strategies' kernels live with the agents
(`agents.lama.fast`); the engine knows no agent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numba
import numpy as np

from envs.core.game import IllegalActionError
from envs.lama.rules import DRAW, QUIT, Config, State

MAX_STEPS = 1_000_000  # per game; `play_games` raises if a game hits it (never seen in practice)

_U = np.uint64
_GOLDEN = _U(0x9E3779B97F4A7C15)
_MIX1 = _U(0xBF58476D1CE4E5B9)
_MIX2 = _U(0x94D049BB133111EB)
_ROUND_MIX = _U(0xD1B54A32D192ED03)
_RESHUFFLE_MIX = _U(0x8CB92BA72F3D8DD7)


@numba.njit(cache=True)
def shuffle(cards, n, key):
    """In-place Fisher–Yates of cards[:n], as `rules.shuffled`."""
    s = key
    for i in range(n - 1, 0, -1):
        s = s + _GOLDEN
        z = s
        z = (z ^ (z >> _U(30))) * _MIX1
        z = (z ^ (z >> _U(27))) * _MIX2
        z = z ^ (z >> _U(31))
        j = np.int64(z % _U(i + 1))
        t = cards[i]
        cards[i] = cards[j]
        cards[j] = t


@numba.njit(cache=True)
def _key(seed, rnd, k):
    return seed ^ (_U(rnd + 1) * _ROUND_MIX) ^ (_U(k) * _RESHUFFLE_MIX)


@numba.njit(cache=True)
def _next_card(v):
    return 0 if v == 6 else v + 1


@numba.njit(cache=True)
def _hand_points(hand, scoring):
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


@numba.njit(inline="always")
def deal(seed, rnd, cards, disc, hands, sizes, active, draw):
    """Deal round `rnd` of the game of shuffle seed `seed` (as `LamaGame._deal`) into the arrays; returns the
    draw pile's size (the discard pile holds one card)."""
    n = hands.shape[0]
    for v in range(7):
        for c in range(8):
            cards[v * 8 + c] = v
    shuffle(cards, 56, _key(seed, rnd, 0))
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
def play_game(decide, seed, codes, params, switches, totals, won, info):
    """One game of shuffle seed `seed`, seat i deciding by `decide(codes[i], params, hands, i, ...)`.

    `switches` are `config_codes(config)`. Fills `totals` and `won` (length n:
    final points, rounds won) and `info` = (rounds, steps, seat, action): steps
    is -1 past `MAX_STEPS`, -2 when `decide` chose an illegal action (that seat
    and action are given); otherwise seat and action are -1.

    Inlined into each caller's batch kernel at numba IR level: `decide` then
    becomes a direct call there (as fast as a hand-written loop) and the batch
    kernel can be cached; a plain call with a function argument can be neither.
    """
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
            totals, won, info)


@numba.njit(inline="always")
def play_on(decide, seed, codes, params, switches, hands, sizes, active, draw, ndraw, disc, nd, cards, rnd,
            reshuffles, cur, first_action, totals, won, info):
    """Play on from a mid-round position to the end of the game (what `play_game` runs after its first deal).

    The position: `hands` (n, 7) counts, `sizes` (n,), `active` (n,), the draw
    pile `draw[:ndraw]` (top last), the discard pile `disc[:nd]` (top last),
    round `rnd` after `reshuffles` reshuffles, seat `cur` to act, and `totals`
    / `won` so far (updated in place). `cards` is scratch (64). Later shuffles
    come from `seed` as in the plain engine, so a `State` packed here plays on
    exactly as `LamaGame` does. `first_action` >= 0 is taken as the first
    decision instead of asking `decide` (a forced move, checked like any other).
    Every array is modified in place; `info` as in `play_game`, steps counted
    from this position.
    """
    scoring, return_chip, lpc, empty_deck, player0, target = switches
    n = codes.shape[0]
    info[2] = -1
    info[3] = -1
    n_active = 0
    for i in range(n):
        if active[i]:
            n_active += 1
    steps = 0
    while True:
        steps += 1
        if steps > MAX_STEPS:
            info[0] = rnd + 1
            info[1] = -1
            return
        top = disc[nd - 1]
        # can_draw (LamaGame.can_draw)
        if lpc and n_active == 1:
            cd = False
        elif ndraw > 0:
            cd = True
        else:
            cd = empty_deck != 0 and nd > 1
        if steps == 1 and first_action >= 0:
            act = first_action
        else:
            act = decide(codes[cur], params, hands, cur, sizes, top, cd)
        if act == DRAW:
            legal = cd
        elif act == QUIT:
            legal = True
        else:
            legal = 0 <= act < 7 and hands[cur, act] > 0 and (act == top or act == _next_card(top))
        if not legal:
            info[0] = rnd + 1
            info[1] = -2
            info[2] = cur
            info[3] = act
            return
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
                shuffle(cards, m, _key(seed, rnd, reshuffles))
                for c in range(m):
                    draw[c] = cards[c]
                ndraw = m
                if empty_deck == 2:
                    disc[0] = 0  # the seed's quirk: the pile restarts from a llama
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
                totals[i] += _hand_points(hands[i], scoring)
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
                if totals[i] > mx:
                    mx = totals[i]
            if mx >= target:
                info[0] = rnd + 1
                info[1] = steps
                return
            cur = 0 if player0 else cur
            rnd += 1
            reshuffles = 0
            ndraw = deal(seed, rnd, cards, disc, hands, sizes, active, draw)
            nd = 1
            n_active = n
            continue
        # next seat still in, clockwise
        for k in range(1, n + 1):
            s2 = (cur + k) % n
            if active[s2]:
                cur = s2
                break


@dataclass
class Results:
    """Per-game outcomes of `play_games` (seats are table seats, 0 starts).

    Attributes:
        totals: (games, n) final penalty points.
        rounds_won: (games, n) rounds each seat ended (emptied hand / last one in).
        rounds: (games,) rounds played.
        steps: (games,) actions taken.
        codes: (games, n) the policy code of each seat, as given.
    """

    totals: np.ndarray
    rounds_won: np.ndarray
    rounds: np.ndarray
    steps: np.ndarray
    codes: np.ndarray

    @property
    def wins(self) -> np.ndarray:
        """(games, n) 1 for every seat tied at the fewest points (shared wins count)."""
        return (self.totals == self.totals.min(axis=1, keepdims=True)).astype(np.int64)


def config_codes(config: Config) -> tuple[int, int, int, int, int, int]:
    """The engine switches of `config` as the integers `play_game` takes."""
    return (
        0 if config.scoring == "distinct" else 1,
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
) -> Results:
    """Play one game per seed on the caller's batch kernel (see the module docstring).

    Args:
        config: the game's options (`Config`).
        seeds: shuffle seeds (< 2**63), one per game — `LamaGame.new_game(seed)`
            deals the same game.
        batch: the caller's numba batch kernel around `play_game`.
        codes: each seat's policy code, passed to its decide kernel: shape (n,) or (games, n).
        params: each seat's float parameters, passed to it: shape (k,),
            (n, k) or (games, n, k); default no parameters.

    Raises:
        IllegalActionError: a decision the rules forbid (the first game's seat and action).
        ValueError: codes or params of the wrong shape.
    """
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
    batch(seeds, c, p, config_codes(config), totals, won, info)
    rounds, steps = info[:, 0].copy(), info[:, 1].copy()
    if (steps == -2).any():
        k = int(np.flatnonzero(steps == -2)[0])
        seat, action = (int(x) for x in info[k, 2:])
        raise IllegalActionError(action, seat, f"chosen by the decide kernel in the game of seed {int(seeds[k])}")
    if (steps < 0).any():
        bad = seeds[steps < 0][:5].tolist()
        raise RuntimeError(f"{int((steps < 0).sum())} game(s) exceeded {MAX_STEPS} steps (seeds {bad}); statistics would be biased")
    return Results(totals, won, rounds, steps, c)


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
