"""L.A.M.A. speed, as ratios against peers measured in the same process.

(a) `lama_v0.env()` steps/s under random legal play vs PettingZoo's
    `tictactoe_v3.env()` (goal ≥ 2×);
(b) tournament throughput for 4 × strategy 1 (seed2022 rules): the numba path
    `agents.lama.fast` (on `envs.lama.fast`) and the plain engine + `agents.lama.strategies`,
    in games/s. The seed's own Python code plays about 500 such games/s on this
    machine class; the goal is ≥ 5,000.

Rates are per CPU-second of this process (`time.process_time`); the numba
path runs its games in parallel threads, so its CPU-second rate is a
per-core figure and its wall-clock rate is printed too.

    python benchmarks/bench_lama.py [--seconds 3] [--repeats 3]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import per_cpu_second, random_play_steps_per_sec, tictactoe_env  # noqa: E402


def engine_steps_per_sec(seconds: float) -> float:
    """Steps/s of the bare engine doing an env step's work (apply, view, encode,
    mask) under random legal play: the env's cost without the AEC adapter and
    PettingZoo's wrappers."""
    from envs.lama.encoding import LamaEncoder
    from envs.lama.rules import Config, LamaGame

    game = LamaGame(Config(num_players=4))
    enc = LamaEncoder(game)
    rng = np.random.default_rng(0)

    def one_game() -> int:
        steps, s = 0, game.initial_state(rng)
        while not s.game_over:
            enc.encode(game.view(s, s.current))
            legal = np.flatnonzero(game.legal_mask(s))
            s = game.apply(s, int(legal[rng.integers(len(legal))]))
            steps += 1
        return steps

    return per_cpu_second(one_game, seconds)


def plain_tournament_games_per_sec(seconds: float) -> float:
    """Games/s of the plain engine with four `lama/first` agents (seed2022)."""
    from agents.lama.strategies import FirstStrategy
    from envs.core.play import play_out
    from envs.lama.rules import Config, LamaGame

    game = LamaGame(Config(rules="seed2022"))
    agents = [FirstStrategy() for _ in range(4)]
    rng = np.random.default_rng(0)

    def one_game() -> int:
        play_out(game, agents, game.initial_state(rng))
        return 1

    return per_cpu_second(one_game, seconds)


def fast_tournament_games_per_sec(games: int) -> tuple[float, float, float]:
    """Games per CPU-second and per wall-second of `agents.lama.fast.play_games`
    for 4 × strategy 1, and its first-call (compile/cache load) time."""
    from agents.lama.fast import FIRST, play_games
    from envs.lama.rules import Config

    cfg = Config(rules="seed2022")
    t0 = time.process_time()
    play_games(cfg, np.arange(10, dtype=np.uint64), [FIRST] * 4)
    warm = time.process_time() - t0
    seeds = np.random.default_rng(1).integers(0, 2**63, size=games).astype(np.uint64)
    t0 = time.process_time()
    w0 = time.perf_counter()
    play_games(cfg, seeds, [FIRST] * 4)
    return games / (time.process_time() - t0), games / (time.perf_counter() - w0), warm


def main() -> None:
    """Print the measurements and ratios."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--games", type=int, default=200_000)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    from envs import lama_v0


    # Alternate the measurements and keep each one's best of `--repeats`: on a
    # shared machine this cancels most of the load noise in the ratio.
    ttt = lama = lama_raw = 0.0
    for _ in range(args.repeats):
        ttt = max(ttt, random_play_steps_per_sec(tictactoe_env, args.seconds))
        lama = max(lama, random_play_steps_per_sec(lambda: lama_v0.env(num_players=4), args.seconds))
        lama_raw = max(lama_raw, random_play_steps_per_sec(lambda: lama_v0.raw_env(num_players=4), args.seconds))
    print(f"tictactoe_v3.env()        {ttt:10.0f} steps per CPU-s (peer)")
    print(f"lama_v0.env()             {lama:10.0f} steps per CPU-s   ratio {lama / ttt:5.2f}x  (goal >= 2x)")
    print(f"lama_v0.raw_env()         {lama_raw:10.0f} steps per CPU-s   ratio {lama_raw / ttt:5.2f}x")
    eng = engine_steps_per_sec(args.seconds)
    print(f"engine only (no adapter)  {eng:10.0f} steps per CPU-s   ratio {eng / ttt:5.2f}x")
    plain = plain_tournament_games_per_sec(args.seconds)
    fast, fast_wall, warm = fast_tournament_games_per_sec(args.games)
    print(f"4 x strategy 1, plain engine + agents: {plain:10.0f} games per CPU-s "
          f"({plain / 500:5.2f}x the seed code's ~500/s)")
    print(f"4 x strategy 1, numba fast path:       {fast:10.0f} games per CPU-s "
          f"({fast / 500:7.1f}x the seed code's ~500/s; "
          f"{fast / plain:6.1f}x the plain engine); wall clock {fast_wall:.0f} games/s; first call {warm:.2f} s")


if __name__ == "__main__":
    main()
