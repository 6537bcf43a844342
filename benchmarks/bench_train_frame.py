"""Learner steps per CPU-second of `python -m train GAME`'s loop against its peers, in one process.

    OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 python benchmarks/bench_train_frame.py --game lama --updates 3 --rounds 3

Three learners, in alternating rounds (so a shared machine's drift shows in all three), each round a fresh run of
`--updates` whole rollouts at the game's preset settings (tables, steps, minibatch, epochs, network; evaluation
and checkpoints off), timed in this process's CPU seconds:

- `frame`: the run frame's loop (`train.vector_ppo.learn`: `PPO.update`, curve bookkeeping, progress lines) on the
  game's compiled vector env, as `python -m train GAME` runs it;
- `before`: the one-file learner's `train()` as it was before the frame (`train/cleanrl_ppo.py` at commit
  `BEFORE`, read from git; skipped outside a git checkout), on the same env;
- `cost-free`: the frame's `PPO` on an env of the same shapes that costs nothing (a constant observation, a fixed
  mask, an episode end every 20 steps): the learner's own cost, the ceiling the game's env leaves room under.

A first round of each is played and not counted. Printed: each round's steps per CPU second and the median ratios
frame / before and frame / cost-free.

`--tables 4,256` instead sizes a preset: the frame alone at each number of tables, the steps a rollout scaled so
that every update learns from the preset's samples (tables x steps) with its minibatch and epochs; printed, each
one's median steps per CPU second over the first's.

    OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 python benchmarks/bench_train_frame.py --game the_game --tables 4,256
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import time

# this checkout's code (not an installed copy's) when run as a script from anywhere
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import gymnasium  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402

import envs  # noqa: E402
from envs.core.options import parse_options  # noqa: E402
from train.config import TrainConfig  # noqa: E402
from train.presets import preset  # noqa: E402

#: The last commit before the run frame ran the one-file learner.
BEFORE = "6661616"


class CostFreeEnv(gymnasium.vector.VectorEnv):
    """A vector env of given shapes whose steps cost nothing: one constant observation, a fixed mask (every third
    action illegal, action 0 always legal), reward 1 and an episode end every 20 steps."""

    metadata = {"autoreset_mode": gymnasium.vector.AutoresetMode.SAME_STEP}

    def __init__(self, num_envs: int, obs_dim: int, num_actions: int):
        self.num_envs = num_envs
        self.single_observation_space = gymnasium.spaces.Box(-1.0, 1.0, (obs_dim,), np.float32)
        self.single_action_space = gymnasium.spaces.Discrete(num_actions)
        self._obs = np.random.default_rng(0).uniform(-1, 1, (num_envs, obs_dim)).astype(np.float32)
        self._mask = np.ones((num_envs, num_actions), bool)
        self._mask[:, 1::3] = False
        self._t = 0

    def action_masks(self) -> np.ndarray:
        return self._mask

    def reset(self, *, seed=None, options=None):
        return self._obs, {}

    def step(self, actions):
        self._t += 1
        done = np.full(self.num_envs, self._t % 20 == 0)
        ep = {"r": np.full(self.num_envs, 20.0), "l": np.full(self.num_envs, 20)}
        # both keys: the learner at BEFORE read `episode`, today's reads `tabletop_episode` (same work for each)
        info = {"_tabletop_episode": done, "tabletop_episode": ep, "_episode": done, "episode": ep}
        return self._obs, np.ones(self.num_envs, np.float32), done, np.zeros(self.num_envs, bool), info


def old_learner() -> object | None:
    """`train/cleanrl_ppo.py` at `BEFORE` as a module, or None where git cannot give it."""
    try:
        text = subprocess.run(["git", "show", f"{BEFORE}:train/cleanrl_ppo.py"], cwd=ROOT, capture_output=True,
                              text=True, check=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    path = os.path.join(tempfile.mkdtemp(), "cleanrl_ppo_before.py")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    spec = importlib.util.spec_from_file_location("cleanrl_ppo_before", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def timed(fn) -> float:
    """Steps per CPU second of `fn()`, which returns the steps it made."""
    t = time.process_time()
    steps = fn()
    return steps / (time.process_time() - t)


def main() -> None:
    """Run the rounds and print the ratios."""
    from train import vector_ppo

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", default="lama")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("--updates", type=int, default=3)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--tables", default="", help="comma-separated table counts to compare (the frame alone)")
    args = p.parse_args()
    torch.set_num_threads(1)
    values = preset(args.game)
    values["options"] = {**values.get("options", {}), **parse_options(envs.config_class(args.game), args.option)}
    values.update(eval_games=0, final_eval_games=0, learner="cleanrl", checkpoint_every=10**9)
    cfg = TrainConfig(game=args.game, seed=0, out=tempfile.mkdtemp(), **values)
    batch = cfg.n_envs * cfg.n_steps
    cfg = dataclasses.replace(cfg, timesteps=batch * args.updates)
    vector_ppo.warm_up(cfg, print)
    settings = {"n_steps": cfg.n_steps, "minibatch": cfg.batch_size, "epochs": cfg.n_epochs, "lr": cfg.learning_rate,
                "ent_coef": cfg.ent_coef, "gamma": cfg.gamma, "hidden": list(cfg.net_arch), "seed": 0}
    before = old_learner()
    probe = vector_ppo.build_venv(cfg)
    shapes = (cfg.n_envs, probe.single_observation_space.shape[0], probe.single_action_space.n)
    print(f"{args.game}: {cfg.n_envs} tables x {cfg.n_steps} steps, minibatch {cfg.batch_size}, {cfg.n_epochs} epochs, "
          f"hidden {cfg.net_arch}; {args.updates} updates a round; observation {shapes[1]}, {shapes[2]} actions")

    def frame() -> int:
        ppo = vector_ppo.learner_for(cfg, vector_ppo.build_venv(cfg))
        vector_ppo.learn(cfg, ppo, [], False, vector_ppo.lineage(cfg), None)
        return ppo.steps

    def old() -> int:
        _, history = before.train(vector_ppo.build_venv(cfg), total_steps=cfg.timesteps, log=None, **settings)
        return history[-1]["steps"]

    def free() -> int:
        from train.cleanrl_ppo import PPO

        ppo = PPO(CostFreeEnv(*shapes), total_steps=cfg.timesteps, **settings)
        while not ppo.done:
            ppo.update()
        return ppo.steps

    def frame_at(n: int):
        sized = dataclasses.replace(cfg, n_envs=n, n_steps=max(1, batch // n), timesteps=batch * args.updates)
        print(f"  {n} tables x {sized.n_steps} steps an update")

        def run() -> int:
            ppo = vector_ppo.learner_for(sized, vector_ppo.build_venv(sized))
            vector_ppo.learn(sized, ppo, [], False, vector_ppo.lineage(sized), None)
            return ppo.steps

        return run

    runs = {"frame": frame, "cost-free": free, **({"before": old} if before is not None else {})}
    if args.tables:
        runs = {f"{n} tables": frame_at(int(n)) for n in args.tables.split(",")}
    for fn in runs.values():  # a first round of each, not counted: torch's and the allocator's first calls
        fn()
    rates: dict[str, list[float]] = {k: [] for k in runs}
    for r in range(args.rounds):
        for name, fn in runs.items():
            rates[name].append(timed(fn))
        print(f"round {r + 1}: " + "  ".join(f"{k} {v[-1]:,.0f}" for k, v in rates.items()) + " steps per CPU second")
    med = {k: statistics.median(v) for k, v in rates.items()}
    if args.tables:
        first = next(iter(med))
        print("  ".join(f"{k} / {first}: {v / med[first]:.2f}" for k, v in med.items()))
        return
    if "before" in med:
        print(f"frame / before ({BEFORE}): {med['frame'] / med['before']:.3f}")
    print(f"frame / cost-free env of the same shapes: {med['frame'] / med['cost-free']:.3f}")


if __name__ == "__main__":
    main()
