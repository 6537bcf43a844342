"""Simple poker speed: env steps/s as a ratio against PettingZoo's tictactoe_v3
(same process, alternating rounds), and LP solve times.

    python benchmarks/bench_simple_poker.py [--rounds 5] [--seconds 1]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import compare, tictactoe_env  # noqa: E402

from agents.simple_poker.strategies import solve  # noqa: E402
from envs import simple_poker_v0  # noqa: E402


def lp_seconds(n: int, repeats: int = 5) -> float:
    """Median wall time of one equilibrium solve (cache cleared each time)."""
    times = []
    for _ in range(repeats):
        solve.cache_clear()
        t = time.perf_counter()
        solve(n, 1.0, 2.0)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--seconds", type=float, default=1.0)
    a = p.parse_args()
    kw = dict(n=10, ante=1, bet=2)
    env_r = compare(lambda: simple_poker_v0.env(**kw), tictactoe_env, a.rounds, a.seconds)
    raw_r = compare(lambda: simple_poker_v0.raw_env(**kw), tictactoe_env, a.rounds, a.seconds)
    print("simple_poker_v0 (n=10, ante=1, bet=2), random legal play, median of", a.rounds, "alternating rounds:")
    print(f"  env()     {env_r['ours_steps_per_s']:>10,.0f} steps/s  "
          f"vs tictactoe_v3.env() {env_r['peer_steps_per_s']:>10,.0f}  ratio {env_r['ratio']:.2f}x")
    print(f"  raw_env() {raw_r['ours_steps_per_s']:>10,.0f} steps/s  "
          f"vs tictactoe_v3.env() {raw_r['peer_steps_per_s']:>10,.0f}  ratio {raw_r['ratio']:.2f}x")
    for n in (10, 100, 1000):
        print(f"  LP equilibrium n={n:<5} {lp_seconds(n) * 1000:8.1f} ms")


if __name__ == "__main__":
    main()
