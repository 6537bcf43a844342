"""`run_tournament` on its two engines: the same tournament played move by move through the agents' Python `act`
and on the game's compiled whole-game runner (`GameSpec.compiled_games`), timed in the same process.

Line-ups (L.A.M.A., official rules, seating rotate): 4 x lama/first, and lama/third-retuned + 3 x lama/first;
`--deals` deals each (4 games a deal). Both engines start from the same deals and, these agents being
deterministic, must give the same figures: the script checks that before it prints a ratio. Times are CPU
seconds of this process (`time.process_time`: on a shared machine wall time mostly measures the neighbours);
the compiled engine's first call (compile or cache load) is timed apart and left out of its rate.

    python benchmarks/bench_tournament.py [--deals 2000]
"""

from __future__ import annotations

import argparse
import time

LINE_UPS = (["lama/first"] * 4, ["lama/third-retuned"] + ["lama/first"] * 3)


def timed(ids: list[str], deals: int, engine: str) -> tuple[float, dict]:
    """CPU seconds of one tournament of `deals` deals on `engine`, and its result (without the engine field)."""
    from evaluate.tournament import run_tournament

    t0 = time.process_time()
    result = run_tournament("lama", ids, games=4 * deals, seed=0, progress=False, engine=engine)
    seconds = time.process_time() - t0
    d = result.to_dict()
    assert d.pop("engine") == engine
    return seconds, d


def main() -> None:
    """Print games per CPU-second on both engines and their ratio, per line-up."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=2000)
    args = ap.parse_args()
    first_call, _ = timed(LINE_UPS[0], 1, "compiled")
    print(f"compiled engine's first call (compile or cache load): {first_call:.2f} CPU-s")
    for ids in LINE_UPS:
        py_s, py = timed(ids, args.deals, "python")
        cc_s, cc = timed(ids, args.deals, "compiled")
        if py != cc:
            raise SystemExit(f"{ids}: the engines' figures differ")
        games = py["games"]
        print(f"{','.join(ids):<56} {games} games, same figures on both engines: "
              f"python {games / py_s:8.0f} games per CPU-s, compiled {games / cc_s:10.0f} games per CPU-s, "
              f"ratio {py_s / cc_s:6.1f}x")


if __name__ == "__main__":
    main()
