"""Last-iterate self-play on simple poker's batched env: the one-file PPO (`train.cleanrl_ppo`) with
`control="all_seats"` (one policy for both seats, sign-flipped advantages), and the exact exploitability of its
policy along the run. It falls fast, then cycles: a last iterate of self-play does not converge in this game
(`python -m train simple_poker`'s pool of snapshots and their meta-Nash mixture is what does).

    python benchmarks/simple_poker_self_play.py [--n 3] [--steps 2000000]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from agents.simple_poker.strategies import Behaviour, exploitability
from envs.simple_poker import fast
from envs.simple_poker.rules import Config, SimplePokerGame
from envs.simple_poker.vector import vector_env
from train.cleanrl_ppo import Policy, train


def behaviour(policy: Policy, n: int) -> Behaviour:
    """The policy's bet (seat 0) and call (seat 1, facing a bet) probabilities per card, read from its network."""
    cards = np.tile(np.arange(1, n + 1), 2)
    seats = np.repeat([0, 1], n)
    obs = np.zeros((2 * n, n + 4), np.float32)
    fast.observe(cards, seats, seats == 1, n, obs)
    with torch.no_grad():
        p = torch.softmax(policy.logits(torch.from_numpy(obs), torch.ones(2 * n, 2, dtype=torch.bool)).double(), -1)
    return Behaviour(tuple(p[:n, 1].tolist()), tuple(p[n:, 1].tolist()))


def main() -> None:
    """Train and print the exploitability every 20 updates."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=3)
    p.add_argument("--steps", type=float, default=2e6)
    p.add_argument("--envs", type=int, default=512)
    args = p.parse_args()
    torch.set_num_threads(1)
    game = SimplePokerGame(Config(n=args.n))
    t0, seen = time.time(), []

    def every(entry, policy):
        if len(seen) % 20 == 0:
            e = exploitability(game, behaviour(policy, args.n)).total
            print(f"{time.time() - t0:6.1f} s  {entry['steps']:>10,} steps  exploitability {e:.5f}", flush=True)
        seen.append(1)

    policy, _ = train(vector_env(args.envs, seed=0, control="all_seats", n=args.n), total_steps=int(args.steps),
                      n_steps=16, minibatch=2048, epochs=4, hidden=(64, 64), seed=0, log=None, callback=every)
    print(f"final exploitability {exploitability(game, behaviour(policy, args.n)).total:.5f} "
          f"({time.time() - t0:.0f} s)")


if __name__ == "__main__":
    main()
