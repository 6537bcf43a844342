"""Speed of The Game, as ratios against a peer measured in the same process.

    python benchmarks/bench_the_game.py [--seconds 3] [--profile]

1. Env: `the_game_v0.env()` steps/s under random legal play (observe + mask +
   step each move) vs PettingZoo's `tictactoe_v3.env()` under the same loop
   (goal: ratio >= 2).
2. Engine: raw `TheGame.apply` steps/s under random legal play.
3. Heuristic games/s: `the_game/bestplays` (and the seed strategies under
   berger2024) playing whole games on the engine, and `the_game/bestplays` on the
   numba fast path `agents.the_game.fast` on `envs.the_game.fast` (identical games, differential-tested).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import compare, random_play_steps, tictactoe_env  # noqa: E402


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
    from evaluate.the_game.reproduce import play_with

    game = TheGame(Config(**options))
    rng = np.random.default_rng(0)
    games, left = 0, 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        s = play_with(game, agent_id, rng)
        games += 1
        left += s.cards_left
    return games / (time.perf_counter() - t0), left / games


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--profile", action="store_true", help="only cProfile random legal play on the_game_v0.env()")
    args = ap.parse_args()
    from envs import the_game_v0

    if args.profile:
        import cProfile
        import pstats

        prof = cProfile.Profile()
        steps, elapsed = prof.runcall(random_play_steps, the_game_v0.env(num_players=2), args.seconds)
        print(f"{steps} steps in {elapsed:.2f} s (under the profiler)")
        pstats.Stats(prof).sort_stats("tottime").print_stats(20)
        return
    sec = args.seconds
    for make in (lambda: the_game_v0.env(num_players=2), lambda: the_game_v0.raw_env(num_players=2),
                 lambda: the_game_v0.env(num_players=4, communication="pile_flags"),
                 lambda: the_game_v0.env(num_players=3, rules="berger2024")):
        r = compare(make, tictactoe_env, rounds=5, seconds=sec / 5)
        e = make()
        label = f"{type(e).__name__}({e.unwrapped.game.config})"
        print(f"{label}\n    {r['ours_steps_per_s']:8.0f} steps/s vs tictactoe_v3.env() {r['peer_steps_per_s']:8.0f}: "
              f"ratio {r['ratio']:.2f}x "
              "(goal >= 2x for env())")
    ttt = r["peer_steps_per_s"]
    eng = engine_steps_per_sec(dict(num_players=2), sec)
    print(f"engine TheGame (2 players) apply:            {eng:10.0f} steps/s  ratio {eng / ttt:5.2f}x")
    for aid, opts in (("the_game/bestplays", dict(num_players=2)), ("the_game/bestplays", dict(num_players=4)),
                      ("the_game/bestplays", dict(num_players=3, communication="pile_flags")),
                      ("the_game/trick", dict(num_players=4, rules="berger2024"))):
        gps, left = games_per_sec(aid, opts, sec)
        label = ",".join(f"{k}={v}" for k, v in opts.items())
        print(f"{aid} ({label}): {gps:8.0f} games/s (mean cards left {left:.1f})")
    from agents.the_game.fast import bestplays_cards_left
    from envs.the_game.fast import deal_orders

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
