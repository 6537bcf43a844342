"""What batch-policy opponents cost in a vector env, as ratios against compiled-kernel opponents in one process.

L.A.M.A. (official rules, 4 players, dense reward), random legal learner actions drawn in a compiled kernel, learner
steps per CPU-second of:
(a) 3 x `lama/first` as compiled kernels (the peer);
(b) 3 x a numpy batch policy (the lowest legal action: the cost of pausing the compiled step and serving the
    tables from Python, without a network);
(c) 3 x `agents.vector.batch_policy("lama/ppo-sb3")` (the shipped PPO policy, sampled: one torch forward per
    opponent turn over every waiting table, what a self-play snapshot costs);
(d) a `Pool` of the two line-ups (a) and (c), half each.
Simple poker (n = 10): `simple_poker/nash` as its behaviour-strategy kernel against the same strategy as a
numpy batch policy. The Game (3 players, `actions="slot"`): 2 x `the_game/bestplays` as kernels against one of
them replaced by a numpy batch policy (the lowest legal action), and a `Pool` of the two line-ups.

    python benchmarks/bench_batch_policies.py [--seconds 3] [--tables 1024]
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from bench_vector import random_legal_actions  # noqa: E402

from benchmarks.common import per_cpu_second  # noqa: E402


def rate(venv, seconds: float) -> float:
    """Learner steps per CPU-second of `venv` under random legal actions."""
    n = venv.num_envs
    venv.reset()
    state = np.ones(1, np.uint64)
    acts = np.zeros(n, np.int64)
    random_legal_actions(venv.action_masks(), state, acts)
    venv.step(acts)

    def five_steps() -> int:
        for _ in range(5):
            random_legal_actions(venv.action_masks(), state, acts)
            venv.step(acts)
        return 5 * n

    return per_cpu_second(five_steps, seconds)


def main(argv: list[str] | None = None) -> int:
    import torch

    import agents
    from envs.core.vector import BatchPolicy, Pool

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--tables", type=int, default=1024)
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    n = args.tables
    lowest = BatchPolicy(lambda obs, mask, rows, rng: mask.argmax(axis=1), "lowest")
    ppo = agents.vector.batch_policy("lama/ppo-sb3")
    opts = {"rules": "official", "reward": "dense"}
    rows = [
        ("3 x lama/first (kernels)", ["lama/first"] * 3),
        ("3 x numpy batch policy", [lowest] * 3),
        ("3 x batch_policy('lama/ppo-sb3')", [ppo] * 3),
        ("Pool: kernels / lama/ppo-sb3, half each", Pool([["lama/first"] * 3, [ppo] * 3])),
    ]
    base = None
    print(f"L.A.M.A., {n} tables, learner steps per CPU-second")
    for label, opps in rows:
        r = rate(agents.vector_env("lama", n, opponents=opps, seed=0, **opts), args.seconds)
        base = base or r
        print(f"  {label:40s} {r:12,.0f}   {r / base:5.2f}x the kernels")
    nash = agents.vector.resolve_opponents("simple_poker", ["simple_poker/nash"], {"n": 10})[0]
    p = np.asarray(nash.params)

    def nash_fn(obs, mask, rows, rng):
        card = obs[:, :10].argmax(axis=1)
        prob = p[np.where(obs[:, 13] > 0, 10, 0) + card]
        return (rng.random(len(rows)) < prob).astype(np.int64)

    print(f"simple poker (n = 10), {n} tables")
    k = rate(agents.vector_env("simple_poker", n, opponents=[nash], seed=0, n=10), args.seconds)
    b = rate(agents.vector_env("simple_poker", n, opponents=[BatchPolicy(nash_fn, "nash")], seed=0, n=10),
             args.seconds)
    print(f"  {'simple_poker/nash (behaviour kernel)':40s} {k:12,.0f}   1.00x")
    print(f"  {'the same as a numpy batch policy':40s} {b:12,.0f}   {b / k:5.2f}x the kernel")
    best = "the_game/bestplays"
    print(f"The Game (3 players, actions='slot'), {n} tables")
    base = None
    for label, opps in [("2 x the_game/bestplays (kernels)", [best, best]),
                        ("numpy batch policy + bestplays", [lowest, best]),
                        ("Pool: the two line-ups, half each", Pool([[best, best], [lowest, best]]))]:
        r = rate(agents.vector_env("the_game", n, opponents=opps, seed=0, num_players=3, actions="slot"),
                 args.seconds)
        base = base or r
        print(f"  {label:40s} {r:12,.0f}   {r / base:5.2f}x the kernels")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
