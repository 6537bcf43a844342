"""Speed of The Game, as ratios against a peer measured in the same process.

    python benchmarks/bench_the_game.py [--seconds 3]

1. Env: `the_game_v0.env()` steps/s under random legal play (observe + mask +
   step each move) vs PettingZoo's `tictactoe_v3.env()` under the same loop
   (the issue's goal: ratio >= 2).
2. Engine: raw `TheGame.apply` steps/s under random legal play.
3. Heuristic games/s: `the_game/bestplays` (and the seed strategies under
   berger2024) playing whole games on the engine, and `the_game/bestplays` on the
   numba fast path `envs.the_game.fast` (identical games, differential-tested).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np


def random_play_steps(env: Any, seconds: float, seed: int = 0) -> tuple[int, float]:
    """Uniformly random legal play through the AEC API for about `seconds`: (steps, elapsed).

    Every `env.step` call counts (dead steps at an episode's end included), the same
    way for every environment measured.
    """
    rng = np.random.default_rng(seed)
    steps, episode = 0, 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        env.reset(seed=seed + episode)
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
        if time.perf_counter() >= deadline:
            break
    return steps, time.perf_counter() - start


def compare(ours: Callable[[], Any], peer: Callable[[], Any], rounds: int = 5, seconds: float = 1.0) -> dict[str, float]:
    """Steps/s of `ours()` and `peer()` in alternating rounds (noisy shared machines); median ratio."""
    env_a, env_b = ours(), peer()
    ra, rb, ratios = [], [], []
    for r in range(rounds):
        sa, ta = random_play_steps(env_a, seconds, seed=1000 * r)
        sb, tb = random_play_steps(env_b, seconds, seed=1000 * r)
        ra.append(sa / ta)
        rb.append(sb / tb)
        ratios.append(ra[-1] / rb[-1])
    return {"ours": statistics.median(ra), "peer": statistics.median(rb), "ratio": statistics.median(ratios)}


def engine_steps_per_sec(options: dict, seconds: float) -> float:
    """Raw engine steps/s (legal_actions + apply) under random legal play."""
    from envs.the_game.rules import Config, TheGame

    game = TheGame(Config(**options))
    rng = np.random.default_rng(0)
    steps = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        s = game.initial_state(rng)
        while not s.over:
            legal = game.legal_actions(s)
            s = game.apply(s, legal[int(rng.integers(len(legal)))])
            steps += 1
    return steps / (time.perf_counter() - t0)


def games_per_sec(agent_id: str, options: dict, seconds: float) -> tuple[float, float]:
    """Whole games/s of `agent_id` in every seat; also the mean cards left."""
    from envs.the_game.rules import Config, TheGame
    from evaluate.the_game import play_game

    game = TheGame(Config(**options))
    rng = np.random.default_rng(0)
    games, left = 0, 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        s = play_game(game, agent_id, rng)
        games += 1
        left += s.cards_left
    return games / (time.perf_counter() - t0), left / games


def _import_tictactoe():
    """PettingZoo's tictactoe_v3; pygame is only needed for its human rendering, so a
    stub module stands in when pygame is not installed."""
    import sys
    import types

    try:
        import pygame  # noqa: F401
    except ImportError:
        sys.modules["pygame"] = types.ModuleType("pygame")
    from pettingzoo.classic import tictactoe_v3

    return tictactoe_v3


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=3.0)
    args = ap.parse_args()
    from envs import the_game_v0

    tictactoe_v3 = _import_tictactoe()

    sec = args.seconds
    for make in (lambda: the_game_v0.env(num_players=2), lambda: the_game_v0.raw_env(num_players=2),
                 lambda: the_game_v0.env(num_players=4, communication="pile_flags"),
                 lambda: the_game_v0.env(num_players=3, rules="berger2024")):
        r = compare(make, tictactoe_v3.env, rounds=5, seconds=sec / 5)
        e = make()
        label = f"{type(e).__name__}({e.unwrapped.game.config})"
        print(f"{label}\n    {r['ours']:8.0f} steps/s vs tictactoe_v3.env() {r['peer']:8.0f}: ratio {r['ratio']:.2f}x "
              "(goal >= 2x for env())")
    ttt = r["peer"]
    eng = engine_steps_per_sec(dict(num_players=2), sec)
    print(f"engine TheGame (2 players) apply:            {eng:10.0f} steps/s  ratio {eng / ttt:5.2f}x")
    for aid, opts in (("the_game/bestplays", dict(num_players=2)), ("the_game/bestplays", dict(num_players=4)),
                      ("the_game/bestplays", dict(num_players=3, communication="pile_flags")),
                      ("the_game/trick", dict(num_players=4, rules="berger2024"))):
        gps, left = games_per_sec(aid, opts, sec)
        label = ",".join(f"{k}={v}" for k, v in opts.items())
        print(f"{aid} ({label}): {gps:8.0f} games/s (mean cards left {left:.1f})")
    from envs.the_game.fast import bestplays_cards_left, deal_orders

    bestplays_cards_left(2, 4, seed=0)  # compile / load the numba cache outside the timing
    for n in (2, 4):
        orders = deal_orders(20_000, seed=1)
        t0 = time.perf_counter()
        left = bestplays_cards_left(n, len(orders), orders=orders)
        dt = time.perf_counter() - t0
        print(f"the_game/bestplays numba fast path (num_players={n}): {len(orders) / dt:8.0f} games/s "
              f"(mean cards left {left.mean():.1f}; same games as the plain engine)")


if __name__ == "__main__":
    main()
