"""RLlib PPO with action masking on L.A.M.A.'s compiled vector env (`train.rllib_vector`) with 1 and 2 Ray env
runners, side by side with the vector env alone.

L.A.M.A. (official rules, 4 players, dense reward), the learner against 3 x `lama/first` (compiled kernels),
`--tables` tables per env runner. Learner decisions per wall-clock second of:
(a) `agents.vector_env` alone, random legal actions drawn in a compiled kernel, in this process (for scale);
(b) RLlib's env runners sampling alone (`EnvRunner.sample` on every remote runner at once: RLlib's per-step
    bookkeeping, the RLModule's forward and the env), what grows with the runners a cluster adds;
(c) whole PPO iterations (`Algorithm.train`: sampling, then the update in the driver), the recipe's defaults
    (`vector_ppo_config`: 8,192 decisions an iteration, 2 epochs of minibatches of 2,048, 64 x 64 MLP).
Each Ray set-up starts a local instance with one CPU per runner, warms up for one iteration (the workers' kernels
come from numba's cache), times `--iterations`, and shuts Ray down. Prints the load average: the machine may be
shared.

    .venv-rllib/bin/python benchmarks/bench_rllib.py [--tables 64] [--iterations 3] [--runners 1,2]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from bench_vector import random_legal_actions  # noqa: E402

GAME, OPPONENTS, OPTIONS = "lama", ["lama/first"] * 3, {"reward": "dense"}


def raw_rate(tables: int, seconds: float) -> float:
    """Learner decisions per wall-clock second of the vector env alone under random legal actions."""
    import agents

    venv = agents.vector_env(GAME, tables, opponents=OPPONENTS, seed=0, copy=False, **OPTIONS)
    venv.reset(seed=0)
    state, acts = np.ones(1, np.uint64), np.zeros(tables, np.int64)
    random_legal_actions(venv.action_masks(), state, acts)
    venv.step(acts)  # compiled before the clock starts
    steps, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        for _ in range(50):
            random_legal_actions(venv.action_masks(), state, acts)
            venv.step(acts)
        steps += 50 * tables
    return steps / (time.perf_counter() - t0)


def ray_rates(runners: int, tables: int, iterations: int) -> tuple[float, float]:
    """(sampling decisions/s of `runners` remote env runners at once, whole-iteration decisions/s)."""
    import ray

    from train.rllib_vector import vector_ppo_config

    ray.init(num_cpus=runners, include_dashboard=False, log_to_driver=False)
    try:
        algo = vector_ppo_config(GAME, OPPONENTS, OPTIONS, num_envs=tables, num_env_runners=runners).build_algo()
        try:
            algo.train()  # warm-up: workers start, kernels load, RLlib builds its connectors
            per_runner = 8192 // runners
            t0 = time.perf_counter()
            sampled = algo.env_runner_group.foreach_env_runner(
                lambda r: sum(len(e) for e in r.sample(num_timesteps=per_runner, explore=True)),
                local_env_runner=False)
            sample_rate = sum(sampled) / (time.perf_counter() - t0)
            steps, t0 = 0, time.perf_counter()
            for _ in range(iterations):
                steps += algo.train()["env_runners"]["num_env_steps_sampled"]
            return sample_rate, steps / (time.perf_counter() - t0)
        finally:
            algo.stop()
    finally:
        ray.shutdown()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tables", type=int, default=64, help="tables per env runner (and of the vector env alone)")
    p.add_argument("--iterations", type=int, default=3, help="timed PPO iterations per set-up")
    p.add_argument("--runners", default="1,2", help="env runner counts, comma-separated")
    p.add_argument("--seconds", type=float, default=5.0, help="length of the vector env's own measurement")
    args = p.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", flush=True)
    raw = raw_rate(args.tables, args.seconds)
    print(f"(a) agents.vector_env alone, {args.tables} tables, one process: {raw:,.0f} decisions/s", flush=True)
    rows = []
    for k in (int(x) for x in args.runners.split(",")):
        sample, train = ray_rates(k, args.tables, args.iterations)
        rows.append((k, sample, train))
        print(f"    {k} env runner(s): sampling {sample:,.0f}/s, PPO iterations {train:,.0f}/s", flush=True)
    print(f"\n{'env runners':>11} | {'(b) sampling, decisions/s':>26} | {'(c) PPO iterations, decisions/s':>32}")
    for k, sample, train in rows:
        print(f"{k:>11} | {sample:>26,.0f} | {train:>32,.0f}")
    print(f"(a) the vector env alone: {raw:,.0f} decisions/s; load average at end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
