"""Fast L.A.M.A. tournaments: whole games of the seed's strategies in numba.

`play_games` plays many games of strategies 1/2/3 (rules doc §5) under any
`Config`, game for game identical to the plain engine (`envs.lama.rules`) with
the agents of `agents.lama`: same shuffle seeds, same SplitMix64 shuffles, same
decisions (differential tests in `tests/envs/lama/test_fast.py`). It is the
hot loop behind the seed-table reproductions and the parameter search.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from envs.lama.rules import Config

FIRST, SECOND, THIRD = 1, 2, 3
STRATEGY_CODES = {"lama/first": FIRST, "lama/second": SECOND, "lama/third": THIRD, "lama/third-default": THIRD}
MAX_STEPS = 1_000_000  # per game; `play_games` raises if a game hits it (never seen in practice)

_U = np.uint64
_GOLDEN = _U(0x9E3779B97F4A7C15)
_MIX1 = _U(0xBF58476D1CE4E5B9)
_MIX2 = _U(0x94D049BB133111EB)
_ROUND_MIX = _U(0xD1B54A32D192ED03)
_RESHUFFLE_MIX = _U(0x8CB92BA72F3D8DD7)


@numba.njit(cache=True)
def _shuffle(cards, n, key):
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


@numba.njit(cache=True)
def _play_one(n, seed, strat, params, scoring, return_chip, lpc, empty_deck, player0, target, totals, won):
    """One game; fills totals/won (length n); returns (rounds, steps)."""
    hands = np.zeros((n, 7), np.int64)
    sizes = np.zeros(n, np.int64)
    active = np.zeros(n, np.bool_)
    draw = np.zeros(64, np.int64)
    disc = np.zeros(64, np.int64)
    cards = np.zeros(64, np.int64)
    for i in range(n):
        totals[i] = 0
        won[i] = 0
    rnd = 0
    starter = 0
    steps = 0
    while True:
        # --- deal (as LamaGame._deal)
        for v in range(7):
            for c in range(8):
                cards[v * 8 + c] = v
        _shuffle(cards, 56, _key(seed, rnd, 0))
        disc[0] = cards[0]
        nd = 1
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
        reshuffles = 0
        n_active = n
        cur = starter
        while True:
            steps += 1
            if steps > MAX_STEPS:
                return rnd + 1, -1
            top = disc[nd - 1]
            nxt = _next_card(top)
            # can_draw (LamaGame.can_draw)
            if lpc and n_active == 1:
                cd = False
            elif ndraw > 0:
                cd = True
            else:
                cd = empty_deck != 0 and nd > 1
            st = strat[cur]
            act = -1
            if st == THIRD and n >= 7 and top == 6 and hands[cur, 0] > 0:
                act = 0
            elif st == SECOND:
                if hands[cur, nxt] > 0:
                    act = nxt
                elif hands[cur, top] > 0:
                    act = top
            else:
                if hands[cur, top] > 0:
                    act = top
                elif hands[cur, nxt] > 0:
                    act = nxt
            if act < 0:
                if st == THIRD:
                    x = 0
                    for v in range(7):
                        if hands[cur, v] > 0:
                            x += 1
                    y = 10 * hands[cur, 0]
                    for v in range(1, 7):
                        y += v * hands[cur, v]
                    z = sizes[0]
                    for i in range(1, n):
                        if sizes[i] < z:
                            z = sizes[i]
                    g = -params[cur, 0] if x == 1 else params[cur, 1] * x
                    f = g + (y - params[cur, 2]) + params[cur, 3] * z
                    act = 7 if (f >= 0 and cd) else 8
                else:
                    act = 7 if cd else 8
            end_round = False
            if act == 8:
                active[cur] = False
                n_active -= 1
                if n_active == 0 or (n_active == 1 and not lpc):
                    end_round = True
            elif act == 7:
                if ndraw == 0:
                    reshuffles += 1
                    m = nd - 1
                    for c in range(m):
                        cards[c] = disc[c]
                    _shuffle(cards, m, _key(seed, rnd, reshuffles))
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
                    return rnd + 1, steps
                starter = 0 if player0 else cur
                rnd += 1
                break
            # next seat still in, clockwise
            for k in range(1, n + 1):
                s2 = (cur + k) % n
                if active[s2]:
                    cur = s2
                    break


@numba.njit(cache=True, parallel=True)
def _play_many(n, seeds, strats, params, scoring, return_chip, lpc, empty_deck, player0, target):
    g = seeds.shape[0]
    totals = np.zeros((g, n), np.int64)
    won = np.zeros((g, n), np.int64)
    rounds = np.zeros(g, np.int64)
    steps = np.zeros(g, np.int64)
    for k in numba.prange(g):
        r, s = _play_one(
            n, seeds[k], strats[k], params[k], scoring, return_chip, lpc, empty_deck, player0, target, totals[k], won[k]
        )
        rounds[k] = r
        steps[k] = s
    return totals, won, rounds, steps


@dataclass
class Results:
    """Per-game outcomes of `play_games` (seats are table seats, 0 starts).

    Attributes:
        totals: (games, n) final penalty points.
        rounds_won: (games, n) rounds each seat ended (emptied hand / last one in).
        rounds: (games,) rounds played.
        steps: (games,) actions taken.
        strategies: (games, n) strategy code of each seat.
    """

    totals: np.ndarray
    rounds_won: np.ndarray
    rounds: np.ndarray
    steps: np.ndarray
    strategies: np.ndarray

    @property
    def wins(self) -> np.ndarray:
        """(games, n) 1 for every seat tied at the fewest points (shared wins count)."""
        return (self.totals == self.totals.min(axis=1, keepdims=True)).astype(np.int64)


def config_codes(config: Config) -> tuple[int, int, int, int, int, int]:
    """The engine switches of `config` as the integers `_play_many` takes."""
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
    strategies: np.ndarray | list[int],
    params: np.ndarray | list[float] | None = None,
) -> Results:
    """Play one game per seed with fixed seat strategies.

    Args:
        config: the game's options (`Config`).
        seeds: shuffle seeds (< 2**63), one per game — `LamaGame.new_game(seed)`
            deals the same game.
        strategies: per seat (n,) or per game and seat (games, n): 1, 2 or 3.
        params: strategy-3 parameters (A, B, C, D): shape (4,), (n, 4) or
            (games, n, 4); ignored for seats playing 1 or 2.
    """
    n = config.num_players
    seeds = np.ascontiguousarray(np.asarray(seeds, dtype=np.uint64))
    g = seeds.shape[0]
    strats = np.asarray(strategies, dtype=np.int64)
    if strats.ndim == 1:
        strats = np.broadcast_to(strats, (g, n))
    if strats.shape != (g, n) or not np.isin(strats, (FIRST, SECOND, THIRD)).all():
        raise ValueError(f"strategies must be codes 1/2/3 of shape ({n},) or ({g}, {n})")
    strats = np.ascontiguousarray(strats)
    if params is None:
        params = np.zeros(4)
    p = np.asarray(params, dtype=np.float64)
    p = np.ascontiguousarray(np.broadcast_to(p, (g, n, 4)))
    totals, won, rounds, steps = _play_many(n, seeds, strats, p, *config_codes(config))
    if (steps < 0).any():
        bad = seeds[steps < 0][:5].tolist()
        raise RuntimeError(f"{int((steps < 0).sum())} game(s) exceeded {MAX_STEPS} steps (seeds {bad}); statistics would be biased")
    return Results(totals, won, rounds, steps, strats)
