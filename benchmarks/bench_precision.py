"""Learner steps/s of `train.cleanrl_ppo` with `precision="bf16"` against "fp32", in one process.

    OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 python benchmarks/bench_precision.py --game the_game \
        --option num_players=1 --action-table --n-envs 1024 --n-steps 128 --minibatch 4096 --epochs 4 \
        --hidden 256,256 --updates 2 --rounds 3

Both learn on the same batched compiled env (`agents.vector_env(game, n_envs, opponents=the preset's, seed=0,
**options)`) with the same settings and seed, one torch thread; the only difference is the autocast of the
networks' forward passes. Rounds alternate fp32, bf16, fp32, bf16, ... so that drift of a shared machine shows in
both; each round is a fresh `train` of `--updates` whole rollouts, timed in this process's CPU seconds
(`time.process_time`). Printed: each round's steps per CPU second, the collect and learn seconds, and the
median ratio bf16 / fp32. Whether bf16 pays depends on the CPU: it multiplies bfloat16 natively with AMX or
AVX512-BF16 (Intel Sapphire Rapids and later, AMD Zen 4 and later), elsewhere autocast emulates it and is
slower. Whether it learns as well is a separate measurement (the docs' training curves).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

# this checkout's code (not an installed copy's) when run as a script from anywhere
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import torch  # noqa: E402

import envs  # noqa: E402
from benchmarks.common import benchmark_vector_env  # noqa: E402
from envs.core.options import parse_options  # noqa: E402
from train.cleanrl_ppo import train  # noqa: E402
from train.networks import bf16_flags  # noqa: E402
from train.presets import preset  # noqa: E402


def main() -> None:
    """Run the alternating rounds and print the table."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--game", default="the_game")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("--action-table", action="store_true")
    p.add_argument("--n-envs", type=int, default=1024)
    p.add_argument("--n-steps", type=int, default=128)
    p.add_argument("--minibatch", type=int, default=4096)
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--hidden", default="256,256")
    p.add_argument("--updates", type=int, default=2, help="rollouts per round")
    p.add_argument("--rounds", type=int, default=3, help="rounds of each precision")
    args = p.parse_args()
    torch.set_num_threads(1)
    cfg = preset(args.game)
    options = {**cfg.get("options", {}), **parse_options(envs.config_class(args.game), args.option)}
    venv = benchmark_vector_env(args.game, args.n_envs, options, cfg.get("opponents", ()),
                                cfg.get("control", "one_seat"))
    venv.reset()  # numba compiles before the clock starts
    hidden = [int(h) for h in args.hidden.split(",")]
    rows: list[dict] = []
    for r in range(2 * args.rounds):
        precision = ("fp32", "bf16")[r % 2]
        c0 = time.process_time()
        _, history = train(venv, total_steps=args.updates * args.n_steps * args.n_envs, n_steps=args.n_steps,
                           minibatch=args.minibatch, epochs=args.epochs, hidden=hidden, seed=1, log=None,
                           action_table=args.action_table, precision=precision)
        cpu = time.process_time() - c0
        steps = history[-1]["steps"]
        rows.append({"precision": precision, "steps": steps, "cpu_s": cpu, "rate": steps / cpu,
                     "collect_s": sum(h["collect_s"] for h in history), "learn_s": sum(h["learn_s"] for h in history)})
        row = rows[-1]
        print(f"{precision}  {steps:>9,} steps  {cpu:6.1f} CPU s  {row['rate']:>8,.0f} steps/CPU s  "
              f"collect {row['collect_s']:5.1f} s  learn {row['learn_s']:5.1f} s", flush=True)
    ratios = [b["rate"] / a["rate"] for a, b in zip(rows[0::2], rows[1::2])]
    print(f"\n{args.game} {options}, {args.n_envs} tables x {args.n_steps}, minibatch {args.minibatch}, "
          f"{args.epochs} epochs, hidden {hidden}, action table {args.action_table}; torch {torch.__version__}, "
          f"CPU bf16 flags: {bf16_flags() or 'none'}")
    print(f"bf16 / fp32 learner steps per CPU second: median {statistics.median(ratios):.2f} "
          f"(rounds: {', '.join(f'{x:.2f}' for x in ratios)})")


if __name__ == "__main__":
    main()
