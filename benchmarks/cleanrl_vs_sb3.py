"""Learner steps/s of `train.cleanrl_ppo` against SB3 MaskablePPO (the `python -m train` path), in one process.

    OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 python benchmarks/cleanrl_vs_sb3.py --game lama \
        --timesteps 2000000 --out runs/cleanrl-vs-sb3

Both learn on the same batched compiled env (`agents.vector_env(game, n_envs,
opponents=preset's, seed=0, **preset options)`) with the game's `python -m train`
preset (tables, rollout length, minibatch, epochs, learning rate, entropy, gamma,
hidden sizes; SB3 with its `TrainConfig` activation, tanh; this learner with
ReLU, the saved-student shape), one torch thread. SB3's model is built as
`train.ppo.build_learner` builds it and its env as `train.ppo.build_envs` does
(`VecMonitor(to_sb3(venv))`), without the run's periodic evaluations, so the
figure is the learner's alone. The runs go in the order ours (seed 1), SB3
(seed 1), ours (seed 2), so that drift of the shared machine shows as a
difference between the two runs of ours. Each run's CPU seconds of this process
(`time.process_time`, what the neighbours disturb least) and wall seconds are
reported, with the ratio of steps/s against SB3's. The policies are saved for
`python -m evaluate`: `learned:OUT/cleanrl-seed1`, `ppo:OUT/sb3-seed1/model.zip`.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time

# this checkout's code (not an installed copy's) when run as a script from anywhere
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import torch  # noqa: E402

from benchmarks.common import benchmark_vector_env  # noqa: E402
from train.cleanrl_ppo import save_policy, train  # noqa: E402
from train.config import TrainConfig  # noqa: E402
from train.presets import preset  # noqa: E402


def make_venv(cfg: TrainConfig, copy: bool):
    """The preset's vector env, table seed 0 for every run."""
    return benchmark_vector_env(cfg.game, cfg.n_envs, cfg.options, cfg.opponents, cfg.control, copy=copy)


def run_cleanrl(cfg: TrainConfig, timesteps: int, seed: int, out: str) -> dict:
    """This learner for `timesteps` steps; saves the student; returns the timing."""
    venv = make_venv(cfg, copy=False)
    venv.reset()  # numba compiles before the clock starts (as SB3's first reset below)
    c0, w0 = time.process_time(), time.perf_counter()
    policy, history = train(venv, total_steps=timesteps, n_steps=cfg.n_steps, minibatch=cfg.batch_size,
                            epochs=cfg.n_epochs, lr=cfg.learning_rate, ent_coef=cfg.ent_coef, gamma=cfg.gamma,
                            gae_lambda=0.95, clip=0.2, hidden=cfg.net_arch, seed=seed, log_every=10)
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    rules = {k: v for k, v in cfg.options.items() if k != "reward"}
    save_policy(policy, os.path.join(out, f"cleanrl-seed{seed}"), cfg.game, rules,
                {"method": "benchmarks/cleanrl_vs_sb3.py", "steps": history[-1]["steps"], "seed": seed})
    steps = history[-1]["steps"]
    return {"learner": "cleanrl_ppo", "seed": seed, "steps": steps, "cpu_s": cpu, "wall_s": wall,
            "steps_per_cpu_s": steps / cpu, "steps_per_wall_s": steps / wall,
            "final_mean_return": history[-1]["mean_return"]}


def run_sb3(cfg: TrainConfig, timesteps: int, seed: int, out: str) -> dict:
    """MaskablePPO as `train.ppo` builds it, for `timesteps` steps; saves model.zip; returns the timing."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecMonitor

    from agents.learned import activation_fn
    from envs.core.sb3 import to_sb3

    vec = VecMonitor(to_sb3(make_venv(cfg, copy=True)))
    model = MaskablePPO("MlpPolicy", vec, seed=seed, device="cpu", verbose=0, n_steps=cfg.n_steps,
                        batch_size=cfg.batch_size, n_epochs=cfg.n_epochs, learning_rate=cfg.learning_rate,
                        ent_coef=cfg.ent_coef, gamma=cfg.gamma,
                        policy_kwargs={"net_arch": list(cfg.net_arch), "activation_fn": activation_fn(cfg.activation)})
    c0, w0 = time.process_time(), time.perf_counter()
    model.learn(total_timesteps=timesteps)
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    folder = os.path.join(out, f"sb3-seed{seed}")
    os.makedirs(folder, exist_ok=True)
    model.save(os.path.join(folder, "model.zip"))
    with open(os.path.join(folder, "config.json"), "w", encoding="utf-8") as f:  # what `ppo:<folder>` reads
        json.dump({**dataclasses.asdict(cfg), "seed": seed, "timesteps": timesteps}, f, indent=2)
    steps = int(model.num_timesteps)
    rets = [e["r"] for e in model.ep_info_buffer]
    return {"learner": "sb3_maskable_ppo", "seed": seed, "steps": steps, "cpu_s": cpu, "wall_s": wall,
            "steps_per_cpu_s": steps / cpu, "steps_per_wall_s": steps / wall,
            "final_mean_return": float(sum(rets) / len(rets)) if rets else float("nan")}


def main() -> None:
    """Run the three learners in order and print the table."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--game", default="lama")
    p.add_argument("--timesteps", type=int, default=2_000_000)
    p.add_argument("--out", required=True)
    args = p.parse_args()
    torch.set_num_threads(1)
    cfg = TrainConfig(game=args.game, **preset(args.game))
    os.makedirs(args.out, exist_ok=True)
    rows = [run_cleanrl(cfg, args.timesteps, 1, args.out)]
    print(rows[-1], flush=True)
    rows.append(run_sb3(cfg, args.timesteps, 1, args.out))
    print(rows[-1], flush=True)
    rows.append(run_cleanrl(cfg, args.timesteps, 2, args.out))
    print(rows[-1], flush=True)
    sb3 = rows[1]
    print(f"\n{'learner':18} {'seed':>4} {'steps':>10} {'cpu s':>7} {'wall s':>7} {'steps/cpu s':>12} {'x SB3':>6}")
    for r in rows:
        print(f"{r['learner']:18} {r['seed']:>4} {r['steps']:>10,} {r['cpu_s']:>7.1f} {r['wall_s']:>7.1f} "
              f"{r['steps_per_cpu_s']:>12,.0f} {r['steps_per_cpu_s'] / sb3['steps_per_cpu_s']:>6.2f}")
    with open(os.path.join(args.out, "timings.json"), "w", encoding="utf-8") as f:
        json.dump({"game": args.game, "preset": {k: getattr(cfg, k) for k in ("n_envs", "n_steps", "batch_size",
                   "n_epochs", "learning_rate", "net_arch", "ent_coef", "gamma", "activation", "options",
                   "opponents")}, "rows": rows, "torch": torch.__version__}, f, indent=2)


if __name__ == "__main__":
    main()
