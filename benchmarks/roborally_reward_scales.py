"""How much each of RoboRally's stage-2 training variants returns: the standard deviation of the discounted
returns-to-go of one rollout of `roborally/ppo` against greedy, per variant (what `train.cleanrl_ppo`'s reward
scale reads: one for all tables).

    OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 python benchmarks/roborally_reward_scales.py --n-steps 32 128

The variants, tables (64 each) and options are those of `roborally/ppo`'s stage 2 (docs/roborally.md,
"Training"); the policy samples, as in training. Prints one row per variant and rollout length.
"""

from __future__ import annotations

import argparse
import os
import sys

# this checkout's code (not an installed copy's) when run as a script from anywhere
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import torch  # noqa: E402

import agents  # noqa: E402
import envs  # noqa: E402
from agents.pretrained import checkpoints  # noqa: E402
from train.cleanrl_ppo import Rollout, load_policy  # noqa: E402

BASE = {"rules": "seed", "max_turns": 60, "reward": "progress", "action_mode": "register"}
VARIANTS = ({}, {"board": "race_medium"}, {"board": "race_hard"}, {"num_robots": 4},
            {"board": "race_medium", "num_robots": 4}, {"board": "random:101"}, {"board": "random:102"},
            {"board": "random:103", "num_robots": 4})


def main() -> None:
    """One rollout per length; the per-variant standard deviations."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n-steps", type=int, nargs="+", default=[32, 128], help="rollout lengths")
    p.add_argument("--n-envs", type=int, default=64, help="tables per variant")
    p.add_argument("--gamma", type=float, default=0.99)
    args = p.parse_args()
    torch.set_num_threads(1)
    venvs = []
    for i, v in enumerate(VARIANTS):
        o = {**BASE, **v}
        n = envs.make_game("roborally", **o).num_players
        venvs.append(agents.feature_vector_env(agents.vector_env(
            "roborally", args.n_envs, opponents=["roborally/greedy"] * (n - 1), seed=100 + i, copy=False, **o),
            "roborally"))
    venv = agents.MultiVectorEnv(venvs)
    policy, _ = load_policy(checkpoints()["roborally/ppo"], "roborally", {"rules": "seed"})
    names = [" ".join(f"{k}={val}" for k, val in v.items()) or "board=race_easy" for v in VARIANTS]
    for T in args.n_steps:
        buf = Rollout(venv, T, False)
        buf.collect(policy, torch.Generator().manual_seed(0))
        rtg, start = buf.returns_to_go(args.gamma), 0
        for name, k in zip(names, getattr(venv, "sizes", [venv.num_envs])):  # tables of each variant
            part = rtg[:, start:start + k]
            print(f"{T:>4} decisions  {name:<32} returns-to-go std {part.std():.3f}  "
                  f"episodes ended {int(buf.done[:, start:start + k].sum())}")
            start += k
        print(f"{T:>4} decisions  {'all tables':<32} returns-to-go std {rtg.std():.3f}")


if __name__ == "__main__":
    main()
