"""The compiled helpers every game's kernels share: the deal's shuffle and the bookkeeping of a vector step.

A game's compiled twin (`envs/<game>/fast.py`) calls them as `kernels.<name>` from its own kernels. They take the
game's own `Tables` (`envs.core.tables.tables_type`: its position, then the bookkeeping every game keeps), the
shared `envs.core.vector.Buffers` and its `Settings` (with `fixed_seat`, `line_cum`, `line_codes`); numba compiles
each for the types it is called with.

The step helpers are inlined at numba IR level (`inline=INLINE`, "always" unless `envs.core.jit` says otherwise): a
game's step kernel runs the same code as when they were written out in every game's step (measured with
`benchmarks/bench_vector.py`).
"""

from __future__ import annotations

import numba
import numpy as np

from envs.core.jit import INLINE
from envs.core.vector import _U_GOLDEN, nb_episode_seeds, nb_mix64, nb_pick_line_up

_U = np.uint64


@numba.njit(cache=True)
def shuffle(cards, n, key):
    """In-place Fisher–Yates of `cards[:n]` from generator state `key` (uint64): `envs.core.shuffle.shuffled`
    compiled, bit for bit (every card game's deal)."""
    s = key
    for i in range(n - 1, 0, -1):
        s = s + _U_GOLDEN
        j = np.int64(nb_mix64(s) % _U(i + 1))
        t = cards[i]
        cards[i] = cards[j]
        cards[j] = t


# --- the bookkeeping of a vector step ---------------------------------------------------------------------------
@numba.njit(inline=INLINE)
def next_episode(T, S, r, keep_seat, learner_code):
    """Start table r's next episode: its deal seed and random stream from its key and episode counter
    (`nb_episode_seeds`); unless `keep_seat`, the learner's seat (drawn, or `S.fixed_seat`), the line-up
    (`nb_pick_line_up`) seated after it (`learner_code` at the learner's seat) and a zeroed episode return and
    length. A deal dealt again (`keep_seat`: the last one ended before the learner's first decision) keeps the seat
    and line-up, as `OpponentEnv` keeps its seat. Under `S.all_seats` every seat is `learner_code`, no line-up is
    drawn, the return and length are zeroed and the learner (the seat to move) is seat 0 until the caller's
    opening says otherwise. Returns the deal seed and the line-up drawn (-1 where kept or under `all_seats`)."""
    n = T.codes.shape[1]
    e = T.episode[r]
    T.episode[r] = e + 1
    deal_seed, drawn, stream = nb_episode_seeds(T.key[r], e, n)
    li = -1
    if S.all_seats:
        T.learner[r] = 0
        for i in range(n):
            T.codes[r, i] = learner_code
        T.ep_ret[r] = 0.0
        T.ep_len[r] = 0
    elif not keep_seat:
        seat = drawn if S.fixed_seat < 0 else S.fixed_seat
        li = nb_pick_line_up(S.line_cum, T.key[r], e)
        T.line[r] = li
        T.learner[r] = seat
        T.codes[r, seat] = learner_code
        for k in range(n - 1):
            T.codes[r, (seat + k + 1) % n] = S.line_codes[li, k]
        T.ep_ret[r] = 0.0
        T.ep_len[r] = 0
    T.seed[r] = deal_seed
    T.rng[r] = stream
    return deal_seed, li


@numba.njit(inline=INLINE)
def seat_params(params, line_params, r, seat, li):
    """Copy line-up `li`'s opponent parameters (`line_params[li, k]`) to the seats after `seat` at table r."""
    n = params.shape[1]
    for k in range(n - 1):
        s = (seat + k + 1) % n
        for j in range(params.shape[2]):
            params[r, s, j] = line_params[li, k, j]


@numba.njit(cache=True)
def fail(err, r, status, seat, act):
    """Record the first failure of a kernel call in `err` (row, status, seat, action; row -1: none so far)."""
    if err[0] < 0:
        err[0] = r
        err[1] = status
        err[2] = seat
        err[3] = act


@numba.njit(inline=INLINE)
def unrefused(B, r):
    """A learner decision is being taken at table r: no refused action recorded (yet)."""
    B.illegal[r] = -1
    B.refused[r] = False


@numba.njit(inline=INLINE)
def refuse(B, r, a, illegal_reward):
    """The learner's action `a` at table r is refused (nothing changed at the table): recorded in `B.illegal` and
    `B.refused`; returns the step's (reward, term, trunc): `illegal_reward`, the episode ended."""
    B.illegal[r] = a
    B.refused[r] = True
    return illegal_reward, True, False


@numba.njit(inline=INLINE)
def step_outputs(B, r, rew, term, trunc):
    """Write table r's reward and end flags of the step; returns whether its episode is done."""
    B.reward[r] = rew
    B.term[r] = term
    B.trunc[r] = trunc
    done = term or trunc
    B.done[r] = done
    return done


@numba.njit(inline=INLINE)
def end_step(T, B, r, rew, term, trunc):
    """Table r's learner step has ended with reward `rew`: back at a learner decision (`phase` 0, no `carry`), the
    episode's return and length counted, the step's outputs written (`step_outputs`); returns whether it is done."""
    T.phase[r] = 0
    T.carry[r] = 0.0
    T.ep_ret[r] += rew
    T.ep_len[r] += 1
    return step_outputs(B, r, rew, term, trunc)


@numba.njit(inline=INLINE)
def record_final(T, B, r, seat):
    """Record table r's ended episode (the game writes its final observation): the seat it is reported for, its
    deal seed, return and length."""
    B.final_seat[r] = seat
    B.final_deal[r] = T.seed[r]
    B.final_ret[r] = T.ep_ret[r]
    B.final_len[r] = T.ep_len[r]


__all__ = ["end_step", "fail", "next_episode", "record_final", "refuse", "seat_params", "shuffle", "step_outputs",
           "unrefused"]
