"""Shared benchmark helpers: random legal play through the AEC API, timed
alternately against a peer in the same process, reported as ratios.

Machines here are noisy, so no absolute figure is trusted alone: each benchmark
runs ours and the peer in alternating rounds and reports the median ratio. Time
is this process's CPU time (`time.process_time`): on a shared machine wall time
mostly measures the neighbours.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np


def per_cpu_second(step: Callable[[], int], seconds: float) -> float:
    """Steps per CPU-second of calling `step()` (which returns how many steps it made) for about `seconds`."""
    steps = 0
    t0 = time.process_time()
    while time.process_time() - t0 < seconds:
        steps += step()
    return steps / (time.process_time() - t0)


def random_play_steps(env: Any, seconds: float, seed: int = 0) -> tuple[int, float]:
    """Play uniformly random legal actions for about `seconds` of CPU time; returns
    (steps, elapsed). The first reset is seeded, later ones continue the stream.

    Every `env.step` call counts, dead steps at the end of an episode included,
    the same way for every environment measured.
    """
    rng = np.random.default_rng(seed)
    steps = 0
    episode = 0
    start = time.process_time()
    deadline = start + seconds
    while True:
        # Seed once, as training loops do: later resets continue the env's stream.
        env.reset(seed=seed if episode == 0 else None)
        episode += 1
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.integers(len(legal))])
            env.step(action)
            steps += 1
        if time.process_time() >= deadline:
            break
    return steps, time.process_time() - start


def compare(
    ours: Callable[[], Any], peer: Callable[[], Any], rounds: int = 5, seconds: float = 1.0
) -> dict[str, float]:
    """Steps/s of `ours()` and `peer()` envs in alternating rounds; median ratio."""
    ratios, ours_sps, peer_sps = [], [], []
    env_a, env_b = ours(), peer()
    for r in range(rounds):
        sa, ta = random_play_steps(env_a, seconds, seed=r * 1000)
        sb, tb = random_play_steps(env_b, seconds, seed=r * 1000)
        ours_sps.append(sa / ta)
        peer_sps.append(sb / tb)
        ratios.append((sa / ta) / (sb / tb))
    return {
        "ours_steps_per_s": statistics.median(ours_sps),
        "peer_steps_per_s": statistics.median(peer_sps),
        "ratio": statistics.median(ratios),
    }


def tictactoe_env() -> Any:
    """The peer: PettingZoo's tictactoe_v3.env() (standard wrappers)."""
    from pettingzoo.classic import tictactoe_v3

    return tictactoe_v3.env()


def random_play_steps_per_sec(make_env: Callable[[], Any], seconds: float = 1.0) -> float:
    """Steps/s of random legal play in a fresh env."""
    steps, elapsed = random_play_steps(make_env(), seconds)
    return steps / elapsed


def benchmark_vector_env(game: str, n_envs: int, options: dict, opponents: list[str] | tuple[str, ...] = (),
                         control: str = "one_seat", copy: bool = False):
    """`game`'s batched compiled env for a learner benchmark: table seed 0, `opponents` (one id, repeated, or
    one per other seat; none in a one-player game or under `control="all_seats"`), `options` as given."""
    import agents
    import envs
    from train.run import seat_line_up

    lineup = seat_line_up(list(opponents), envs.make_game(game, **options).num_players, control)
    return agents.vector_env(game, n_envs, opponents=lineup, seed=0, control=control, copy=copy, **options)
