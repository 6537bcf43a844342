"""The seed's L.A.M.A. strategies as a numba decide kernel on the engine's compiled game loop
(`envs.lama.fast`), game for game what the plain engine plays with `agents.lama.strategies`
(`tests/agents/test_lama_fast.py`): the hot loop of the seed-table reproductions and the parameter search.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from agents.lama.strategies import DEFAULT, RETUNED, TUNED
from envs.core import kernels
from envs.core.game import IllegalActionError
from envs.core.jit import INLINE
from envs.lama import fast as engine
from envs.lama.encoding import LamaEncoder
from envs.lama.rules import DRAW, LLAMA, NUM_ACTIONS, QUIT, Config, LamaGame

FIRST, SECOND, THIRD = 1, 2, 3
#: The registered agents `decide` plays, by id: (strategy code, strategy-3 parameters).
STRATEGY_CODES: dict[str, tuple[int, tuple[float, ...]]] = {
    "lama/first": (FIRST, TUNED), "lama/second": (SECOND, TUNED), "lama/third": (THIRD, TUNED),
    "lama/third-default": (THIRD, DEFAULT), "lama/third-retuned": (THIRD, RETUNED),
}
Results = engine.Results
_SEED_SCORING = engine.SCORING_CODES["sum_all"]  # the fold rule's y scores the seed's way, whatever the game's


@numba.njit(inline=INLINE)
def decide(code, params, hands, seat, sizes, top, can_draw):
    """Seat `seat`'s move under strategy `code` (1, 2, 3), as `agents.lama.strategies` decides.

    `params[seat]` holds strategy 3's (A, B, C, D). Inlined into the batch
    kernel (a called kernel pays reference counting on its array arguments).
    """
    hand = hands[seat]
    nxt = engine.next_card(top)
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
    # the folding rule f(x, y, z) of `agents.lama.strategies.fold_value`
    x = 0
    for v in range(7):
        if hand[v] > 0:
            x += 1
    y = engine.hand_points(hand, _SEED_SCORING)
    z = sizes[0]
    for i in range(1, n):
        if sizes[i] < z:
            z = sizes[i]
    a, b, c, d = params[seat, 0], params[seat, 1], params[seat, 2], params[seat, 3]
    g = -a if x == 1 else b * x
    f = g + (y - c) + d * z
    return DRAW if (f >= 0 and can_draw) else QUIT


@numba.njit(cache=True, parallel=True)
def _batch(seeds, codes, params, switches, totals, won, info, budget):
    for k in numba.prange(seeds.shape[0]):
        engine.play_game(decide, seeds[k], codes[k], params[k], switches, totals[k], won[k], info[k], budget)


def play_games(
    config: Config,
    seeds: np.ndarray,
    strategies: np.ndarray | list[int],
    params: np.ndarray | list[float] | None = None,
    max_turns: int | None = None,
) -> Results:
    """Play one game per seed (as `envs.lama.fast.play_games`) with fixed seat strategies, each cut after
    `max_turns` moves where given.

    `strategies` holds 1, 2 or 3 per seat (n,) or per game and seat (games, n);
    `params` strategy 3's (A, B, C, D) as (4,), (n, 4) or (games, n, 4), ignored
    for seats playing 1 or 2.
    """
    n = config.num_players
    strats = np.asarray(strategies, dtype=np.int64)
    g = np.asarray(seeds).shape[0]
    if strats.shape not in ((n,), (g, n)) or not np.isin(strats, (FIRST, SECOND, THIRD)).all():
        raise ValueError(f"strategies must be codes 1/2/3 of shape ({n},) or ({g}, {n})")
    return engine.play_games(config, seeds, _batch, strats, np.zeros(4) if params is None else params, max_turns)


@numba.njit(cache=True, parallel=True)
def _batch_on(seeds, codes, params, switches, hands, sizes, active, draw, ndraw, disc, nd, rnd, resh, cur, first,
              totals, won, info):
    for k in numba.prange(seeds.shape[0]):
        cards = np.zeros(64, np.int64)
        engine.play_on(decide, seeds[k], codes[k], params[k], switches, hands[k], sizes[k], active[k], draw[k],
                       ndraw[k], disc[k], nd[k], cards, rnd[k], resh[k], cur[k], first[k], totals[k], won[k], info[k],
                       -1)


def play_on_states(
    config: Config,
    states: list,
    strategies: np.ndarray | list[int],
    params: np.ndarray | list[float] | None = None,
    first_actions: np.ndarray | list[int] | None = None,
) -> Results:
    """Play each mid-round `State` on to the end of its game with fixed seat strategies (as `play_games`).

    Later shuffles follow each state's own seed, as `LamaGame` plays them on.
    `first_actions[k]` >= 0 forces state k's first decision (-1: the strategy
    decides). Results' totals and rounds won are whole-game figures; `rounds`
    counts from the first round, `steps` from the state.

    Raises:
        IllegalActionError: a forced first action the rules forbid.
        RuntimeError: a game past `MAX_STEPS` (possible from states the strategies never reach: with the seed's
            reshuffle quirk a table of players who never fold can draw llamas forever).
    """
    n = config.num_players
    g = len(states)
    strats = np.array(np.broadcast_to(np.asarray(strategies, dtype=np.int64), (g, n)), order="C")
    if not np.isin(strats, (FIRST, SECOND, THIRD)).all():
        raise ValueError("strategies must be codes 1/2/3")
    # C order always: the kernel is compiled for exactly these types (a copied broadcast may come out F or A)
    p = np.array(np.broadcast_to(np.zeros(4) if params is None else np.asarray(params, np.float64), (g, n, 4)),
                 order="C")
    first = np.full(g, -1, np.int64) if first_actions is None else np.array(first_actions, dtype=np.int64)
    packed = [engine.pack_state(s) for s in states]

    def stack(name: str, dtype) -> np.ndarray:
        return np.array([getattr(q, name) for q in packed], dtype=dtype)

    totals, won = stack("totals", np.int64), stack("rounds_won", np.int64)
    info = np.zeros((g, 4), np.int64)
    _batch_on(stack("seed", np.uint64), strats, p, engine.config_codes(config), stack("hands", np.int64),
              stack("sizes", np.int64), stack("active", np.bool_), stack("draw", np.int64), stack("ndraw", np.int64),
              stack("disc", np.int64), stack("nd", np.int64), stack("round", np.int64), stack("reshuffles", np.int64),
              stack("current", np.int64), first, totals, won, info)
    if (info[:, 1] == -2).any():
        k = int(np.flatnonzero(info[:, 1] == -2)[0])
        raise IllegalActionError(int(info[k, 3]), int(info[k, 2]), f"in the play-on from state {k}")
    if (info[:, 1] < 0).any():
        raise RuntimeError(f"state(s) {np.flatnonzero(info[:, 1] < 0)[:5].tolist()} exceeded {engine.MAX_STEPS} steps")
    return Results(totals, won, info[:, 0].copy(), info[:, 1].copy(), strats, np.zeros(g, np.bool_))  # none cut


@numba.njit(cache=True)
def determinize(key, seat, hand, sizes, unseen, hands, draw):
    """One uniform deal of the `unseen` cards (counts per value) to the other seats' hands (their `sizes`) and
    the draw pile, as `LamaGame.sample_state` (here a SplitMix64 shuffle of generator state `key`). Fills `hands`
    (n, 7) (`hand` in row `seat`) and `draw`; returns the draw pile's size."""
    pool = np.zeros(64, np.int64)
    m = 0
    for v in range(7):
        for _ in range(unseen[v]):
            pool[m] = v
            m += 1
    kernels.shuffle(pool, m, key)
    pos = 0
    for i in range(sizes.shape[0]):
        for v in range(7):
            hands[i, v] = hand[v] if i == seat else 0
        if i != seat:
            for _ in range(sizes[i]):
                hands[i, pool[pos]] += 1
                pos += 1
    for c in range(m - pos):
        draw[c] = pool[pos + c]
    return m - pos


@numba.njit(inline=INLINE)
def win_share(totals, seat):
    """1/k when `seat` is one of k seats tied at the fewest points, else 0."""
    best = totals[0]
    for i in range(1, totals.shape[0]):
        if totals[i] < best:
            best = totals[i]
    if totals[seat] != best:
        return 0.0
    k = 0
    for i in range(totals.shape[0]):
        if totals[i] == best:
            k += 1
    return 1.0 / k


@numba.njit(cache=True, parallel=True)
def pimc_rollouts(keys, codes, params, switches, seat, hand, sizes, active, unseen, disc, nd, rnd, resh, totals,
                  won, actions, out):
    """PIMC with common random numbers: rollout k determinizes with `keys[k]` (`determinize`), then for each
    candidate `actions[j]` plays it and every seat on with `decide` (seat codes `codes`) to the end of the game,
    later shuffles from `keys[k]` mixed; `out[k, j]` = the seat's win share (NaN: the action was illegal or the game
    passed `MAX_STEPS`)."""
    n = sizes.shape[0]
    for k in numba.prange(keys.shape[0]):
        h0 = np.zeros((n, 7), np.int64)
        d0 = np.zeros(64, np.int64)
        nd0 = determinize(keys[k], seat, hand, sizes, unseen, h0, d0)
        future = keys[k] * np.uint64(0x9E3779B97F4A7C15) + np.uint64(1)
        cards = np.zeros(64, np.int64)
        info = np.zeros(4, np.int64)
        for j in range(actions.shape[0]):
            h = h0.copy()
            sz = sizes.copy()
            ac = active.copy()
            dr = d0.copy()
            dc = disc.copy()
            tot = totals.copy()
            wn = won.copy()
            engine.play_on(decide, future, codes, params, switches, h, sz, ac, dr, nd0, dc, nd, cards, rnd, resh,
                           seat, actions[j], tot, wn, info, -1)
            out[k, j] = np.nan if info[1] < 0 else win_share(tot, seat)


__all__ = ["FIRST", "KERNEL_IDS", "SECOND", "STRATEGY_CODES", "THIRD", "VECTOR_KERNELS", "Results", "decide",
           "determinize", "opponent_kernel", "pimc_rollouts",
           "play_games", "play_on_states", "play_seated", "tournament_games", "win_share"]


# --- the vector env's opponents: `decide` compiled into the engine's vector kernels ------------------------------
@numba.njit(cache=True, _nrt=False)
def _vector_reset(T, B, S, fresh):
    engine.vec_reset(decide, T, B, S, fresh)


@numba.njit(cache=True, _nrt=False)
def _vector_step(T, B, S, actions):
    engine.vec_step(decide, T, B, S, actions)


#: `envs.lama.fast.vec_reset` / `vec_step` with the strategies' `decide` inlined (what `opponent_kernel` carries).
VECTOR_KERNELS = engine.VectorKernels(_vector_reset, _vector_step)
#: The agent ids `opponent_kernel` resolves (and the family `lama/third?a=&b=&c=&d=`).
KERNEL_IDS = ("random", *STRATEGY_CODES, "lama/third?a=A&b=B&c=C&d=D")


def opponent_kernel(agent_id: str, options: dict | None = None):
    """The `OpponentKernel` of `agent_id` for `envs.lama_v0.vector_env` (any game `options`), or None when the agent
    has no kernel."""
    from agents.base import parse_id
    from envs.core.vector import RANDOM, OpponentKernel

    if agent_id == "random":
        return RANDOM
    base, kwargs = parse_id(agent_id)  # the registry's grammar (old spellings rewritten)
    if base in STRATEGY_CODES and not kwargs:
        code, params = STRATEGY_CODES[base]
        return OpponentKernel(agent_id, code, tuple(params), VECTOR_KERNELS)
    if base == "lama/third":
        if set(kwargs) != set("abcd"):
            raise ValueError(f"lama/third takes all four fold parameters a, b, c, d, or none; got {agent_id!r}")
        params = tuple(float(kwargs[k]) for k in "abcd")
        if not all(np.isfinite(params)):
            raise ValueError(f"strategy 3 needs four finite parameters (a, b, c, d), got {agent_id!r}")
        return OpponentKernel(agent_id, THIRD, params, VECTOR_KERNELS)
    return None


# --- tournaments: `GameAgents.compiled_games` ------------------------------------------------------------------
def tournament_games(game: Any, ids: list[str] | tuple[str, ...], max_turns: int | None = None,
                     policies: list | None = None):
    """The compiled runner `play(keys, seatings, streams=None) -> (returns, winners, turns)` of a
    tournament between `ids` (`GameAgents.compiled_games`), each game cut after `max_turns` moves where given;
    `policies[e]` seats a saved network (`play_seated`).

    Raises:
        NoKernelError: an entrant without a deterministic kernel and no policy (`random` is played in Python).
    """
    from envs.core.spec import NoKernelError

    allowed = tuple(k for k in KERNEL_IDS if k != "random")
    policies = list(policies) if policies is not None else [None] * len(ids)
    codes, params = [], []
    for agent_id, policy in zip(ids, policies):
        try:
            kernel = opponent_kernel(agent_id) if isinstance(agent_id, str) and policy is None else None
        except ValueError:
            kernel = None  # an id outside the strategies' grammar (a learned agent, a search)
        if policy is not None:
            codes.append(engine.PAUSE_CODE)
            params.append((0.0,) * 4)
            continue
        if kernel is None or kernel.code not in (FIRST, SECOND, THIRD):
            raise NoKernelError(agent_id, allowed)
        codes.append(kernel.code)
        params.append(kernel.params if len(kernel.params) == 4 else (0.0,) * 4)
    codes_e, params_e = np.array(codes, np.int64), np.array(params, np.float64)
    config = game.config
    seated = any(p is not None for p in policies)

    def play(keys: list[int], seatings: np.ndarray, streams: np.ndarray | None = None
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        seatings = np.asarray(seatings, np.int64)
        rot, n = seatings.shape
        seeds = np.repeat(np.array(keys, np.uint64), rot)
        d = len(keys)
        codes_g, params_g = np.tile(codes_e[seatings], (d, 1)), np.tile(params_e[seatings], (d, 1, 1))
        if seated:
            players = np.tile(np.where(codes_e[seatings] == engine.PAUSE_CODE, seatings, -1), (d, 1))
            res = play_seated(config, seeds, codes_g, params_g, players, policies,
                              None if streams is None else np.asarray(streams, np.uint64).reshape(d * rot, n),
                              max_turns)
        else:
            res = play_games(config, seeds, codes_g, params_g, max_turns)
        return (res.returns(config).reshape(d, rot, n), res.wins.astype(bool).reshape(d, rot, n),
                res.steps.reshape(d, rot))

    play.kernels = (
        (_deal_tables, _advance_tables, engine.inputs_rows) if seated else (_batch,)
    )  # what a first run compiles (the progress bar says so)
    return play


@numba.njit(cache=True)
def _deal_tables(T, seeds):
    """Table r: the start of the game of deal seed `seeds[r]` (as `engine.play_game` starts it)."""
    for r in range(seeds.shape[0]):
        T.seed[r] = seeds[r]
        engine.start_game(T, r, seeds[r])


@numba.njit(cache=True)
def _advance_tables(T, rows, firsts, switches, max_turns, status, bad):
    """`engine.run_row` at tables `rows` (the strategies' `decide` at their seats), `firsts[k]` the move of the
    seat to move (-1: none); `status[k]` why it stopped, `bad[k]` a refused move."""
    for k in range(rows.shape[0]):
        r = rows[k]
        budget = max_turns - T.turns[r] if max_turns > 0 else -1
        status[k], bad[k], _ = engine.run_row(decide, T, r, switches, firsts[k], budget)


def play_seated(config: Config, seeds: np.ndarray, codes: np.ndarray, params: np.ndarray, players: np.ndarray,
                policies: list, streams: np.ndarray | None = None, max_turns: int | None = None) -> Results:
    """`play_games` with game g's seat s played by `policies[players[g, s]]` where that is >= 0, else
    by its strategy code, on the vector env's compiled loop and observations.

    Raises:
        IllegalActionError: a move the rules forbid (by a strategy kernel or a policy).
        RuntimeError: a game past `MAX_STEPS` moves.
    """
    from agents.vector import play_paused

    g, n = codes.shape
    T = engine.new_tables(g, n, 4)
    T.codes[:] = codes
    T.params[:] = params
    _deal_tables(T, np.asarray(seeds, np.uint64))
    switches = engine.config_codes(config)
    limit = -1 if max_turns is None else int(max_turns)
    target = float(config.target_points)
    cut = np.zeros(g, np.bool_)
    width = LamaEncoder(LamaGame(config)).observation_space.shape[0]

    def advance(rows: np.ndarray, firsts: np.ndarray) -> np.ndarray:
        status, bad = np.zeros(rows.size, np.int64), np.zeros(rows.size, np.int64)
        _advance_tables(T, rows, firsts, switches, limit, status, bad)
        if (status == engine.STOP_ILLEGAL).any():
            k = int(np.flatnonzero(status == engine.STOP_ILLEGAL)[0])
            raise IllegalActionError(int(bad[k]), int(T.cur[rows[k]]), f"in the game of seed {int(seeds[rows[k]])}")
        if (status == engine.STOP_STEPS).any():
            raise RuntimeError(f"a game exceeded {engine.MAX_STEPS} steps; a move limit (max_turns) cuts such games")
        paused = status == engine.STOP_SEAT
        if limit > 0:  # a policy's turn after the limit is not asked for: the game is cut there, as `play_game` cuts
            late = paused & (T.turns[rows] >= limit)
            paused &= ~late
            cut[rows[late]] = True
        cut[rows[status == engine.STOP_BUDGET]] = True
        return paused

    def inputs(rows: np.ndarray, seats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        obs = np.zeros((rows.size, width), np.float32)
        mask = np.zeros((rows.size, NUM_ACTIONS), np.int8)
        engine.inputs_rows(T, rows, seats, switches, target, obs, mask)
        return obs, mask.view(np.bool_)

    play_paused(advance, inputs, lambda rows: T.cur[rows], players, policies, streams)
    return Results(T.totals.copy(), T.won.copy(), T.rnd + 1, T.turns.copy(), codes, cut)
