"""The seed's L.A.M.A. strategies as a numba decide kernel, for whole-game tournaments.

`play_games` plays many games of strategies 1/2/3 (`agents.lama`) on the
engine's compiled game loop (`envs.lama.fast`), game for game identical to the
plain engine with the agents of `agents.lama`: same deals, same decisions
(differential tests in `tests/agents/test_lama_fast.py`). It is the hot loop
behind the seed-table reproductions and the parameter search.
"""

from __future__ import annotations

import numba
import numpy as np

from agents.lama import DEFAULT, RETUNED, TUNED
from envs.lama import fast as engine
from envs.lama.rules import DRAW, LLAMA, QUIT, Config

FIRST, SECOND, THIRD = 1, 2, 3
#: The registered agents `decide` plays, by id: (strategy code, strategy-3 parameters).
STRATEGY_CODES: dict[str, tuple[int, tuple[float, ...]]] = {
    "lama/first": (FIRST, TUNED), "lama/second": (SECOND, TUNED), "lama/third": (THIRD, TUNED),
    "lama/third-default": (THIRD, DEFAULT), "lama/third-retuned": (THIRD, RETUNED),
}
Results = engine.Results


@numba.njit(inline="always")
def decide(code, params, hands, seat, sizes, top, can_draw):
    """Seat `seat`'s move under strategy `code` (1, 2, 3), as `agents.lama` decides.

    `params[seat]` holds strategy 3's (A, B, C, D). Inlined into the batch
    kernel (a called kernel pays reference counting on its array arguments).
    """
    hand = hands[seat]
    nxt = 0 if top == 6 else top + 1
    n = sizes.shape[0]
    if code == THIRD and n >= 7 and top == 6 and hand[LLAMA] > 0:
        return LLAMA
    if code == SECOND:
        if hand[nxt] > 0:
            return nxt
        if hand[top] > 0:
            return top
    else:
        if hand[top] > 0:
            return top
        if hand[nxt] > 0:
            return nxt
    if code != THIRD:
        return DRAW if can_draw else QUIT
    # the folding rule f(x, y, z) of `agents.lama.fold_value`
    x = 0
    for v in range(7):
        if hand[v] > 0:
            x += 1
    y = 10 * hand[LLAMA]
    for v in range(1, 7):
        y += v * hand[v]
    z = sizes[0]
    for i in range(1, n):
        if sizes[i] < z:
            z = sizes[i]
    a, b, c, d = params[seat, 0], params[seat, 1], params[seat, 2], params[seat, 3]
    g = -a if x == 1 else b * x
    f = g + (y - c) + d * z
    return DRAW if (f >= 0 and can_draw) else QUIT


@numba.njit(cache=True, parallel=True)
def _batch(seeds, codes, params, switches, totals, won, info):
    for k in numba.prange(seeds.shape[0]):
        engine.play_game(decide, seeds[k], codes[k], params[k], switches, totals[k], won[k], info[k])


def play_games(
    config: Config,
    seeds: np.ndarray,
    strategies: np.ndarray | list[int],
    params: np.ndarray | list[float] | None = None,
) -> Results:
    """Play one game per seed (as `envs.lama.fast.play_games`) with fixed seat strategies.

    `strategies` holds 1, 2 or 3 per seat (n,) or per game and seat (games, n);
    `params` strategy 3's (A, B, C, D) as (4,), (n, 4) or (games, n, 4), ignored
    for seats playing 1 or 2.
    """
    n = config.num_players
    strats = np.asarray(strategies, dtype=np.int64)
    g = np.asarray(seeds).shape[0]
    if strats.shape not in ((n,), (g, n)) or not np.isin(strats, (FIRST, SECOND, THIRD)).all():
        raise ValueError(f"strategies must be codes 1/2/3 of shape ({n},) or ({g}, {n})")
    return engine.play_games(config, seeds, _batch, strats, np.zeros(4) if params is None else params)


__all__ = ["FIRST", "SECOND", "STRATEGY_CODES", "THIRD", "Results", "decide", "play_games"]
