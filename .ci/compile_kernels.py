"""Compile the games' numba kernels into their caches before the test suite, over `--jobs` processes at once.

On a fresh clone most of the suite's time is numba compiling the batched envs' and the baselines' kernels (the
largest take one to two minutes each). Left to the test run, two pytest workers that need the same kernel at the
same time both compile it (numba's cache has no lock), and a worker may spend its last minutes on one while the
other waits idle. Here each kernel is compiled once, the longest first, on as many processes as there are cores
for the suite; the tests then load every kernel from the cache (`__pycache__/*.nbi`, `*.nbc` beside its source).

    .venv/bin/python .ci/compile_kernels.py [--jobs N] [--only NAME ...]

Each job plays a tiny piece of the public API (a vector env's reset and step, a two-game tournament, one search
decision) and so compiles the signatures the package's own calls use. A job's failure fails the script (exit 1)
with the job named: the suite would fail on it too. Prints each job's wall time and the total.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import contextlib
import io
import multiprocessing
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _vector(game: str, opponents: list[str], **options) -> None:
    """Reset a small compiled vector env of `game` and step every table with a legal action."""
    import agents

    env = agents.vector_env(game, 2, opponents=opponents, seed=0, **options)
    env.reset(seed=0)
    for _ in range(3):
        env.step(env.action_masks().argmax(axis=1))
    env.close()


def _cli(*argv: str) -> None:
    """`python -m evaluate ARGV` with its output dropped."""
    from evaluate.__main__ import main

    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        try:
            rc = main([*argv, "--no-progress"])
        except SystemExit as e:
            rc = e.code
    if rc not in (0, None):
        raise RuntimeError(f"python -m evaluate {' '.join(argv)} -> exit {rc}: {err.getvalue().strip()[-500:]}")


def _play_on() -> None:
    """`agents.lama.fast.play_on_states` from a dealt game (the PIMC play-on's kernel)."""
    from agents.lama.fast import FIRST, play_on_states
    from envs.lama.rules import Config, LamaGame

    play_on_states(Config(), [LamaGame(Config()).new_game(0)], [FIRST] * 4)


#: (expected seconds on one core, name, function, arguments): the order of the queue, longest first.
JOBS = [
    (120, "lama vector env, strategies", _vector, ("lama", ["lama/first"] * 3)),
    (120, "lama vector env, random", _vector, ("lama", []), {"control": "all_seats"}),
    (110, "roborally vector env, greedy", _vector, ("roborally", ["roborally/greedy"])),
    (110, "roborally vector env, random", _vector, ("roborally", ["random"])),
    (50, "primi_composti vector env, greedy_rand", _vector, ("primi_composti", ["primi_composti/greedy_rand"])),
    (50, "primi_composti vector env, greedy_rand, official", _vector,
     ("primi_composti", ["primi_composti/greedy_rand"]), {"version": 2, "steal_choice": "player"}),
    (45, "primi_composti vector env, random", _vector, ("primi_composti", ["random"])),
    (45, "primi_composti vector env, random, official", _vector, ("primi_composti", ["random"]),
     {"version": 2, "steal_choice": "player"}),
    (30, "the_game vector env, random", _vector, ("the_game", []), {"control": "all_seats", "num_players": 2}),
    (20, "the_game vector env, bestplays", _vector, ("the_game", ["the_game/bestplays"]), {"num_players": 2}),
    # the baselines' compiled tournaments and the search players' kernels
    (30, "lama tournament", _cli, ("lama", "--agents", "lama/third,lama/first*3", "--games", "2")),
    (20, "lama pimc", _cli, ("lama", "--agents", "lama/pimc?k=4,lama/first*3", "--games", "1")),
    (15, "lama play-on", _play_on, ()),
    (25, "primi_composti solver, version 2", _cli, ("primi_composti", "--agents", "primi_composti/solver,"
                                                    "primi_composti/greedy_rand", "--games", "1", "--option",
                                                    "version=2", "--option", "cards_per_player=4")),
    (15, "primi_composti solver, version 1", _cli, ("primi_composti", "--agents", "primi_composti/solver,"
                                                    "primi_composti/greedy_rand", "--games", "1", "--option",
                                                    "cards_per_player=4")),
    (10, "primi_composti solver, official options", _cli, ("primi_composti", "--agents", "primi_composti/solver,"
                                                          "primi_composti/greedy_rand", "--games", "1",
                                                          "--option", "version=2", "--option", "steal_choice=player",
                                                          "--option", "cards_per_player=4")),
    (15, "roborally mc", _cli, ("roborally", "--agents", "roborally/mc?budget=10,roborally/greedy", "--games", "1")),
    (15, "the_game tournaments", _cli, ("the_game", "--agents", "the_game/bestplays,the_game/simplest", "--games", "2")),
]


def _run(job) -> tuple[str, float]:
    name, fn, args, kwargs = job[1], job[2], job[3], (job[4] if len(job) > 4 else {})
    sys.path.insert(0, ROOT)
    t0 = time.perf_counter()
    try:
        fn(*args, **kwargs)
    except SystemExit as e:  # a job's exit would end the pool's worker without a word
        raise RuntimeError(f"exit {e.code}") from None
    return name, time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2, help="processes at once (default 2)")
    parser.add_argument("--only", nargs="*", default=None, help="run only the jobs whose name contains one of these")
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error(f"--jobs must be at least 1, got {args.jobs}")
    jobs = sorted((j for j in JOBS if args.only is None or any(s in j[1] for s in args.only)), key=lambda j: -j[0])
    t0 = time.perf_counter()
    failed = 0
    with cf.ProcessPoolExecutor(args.jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = {pool.submit(_run, j): j[1] for j in jobs}
        for fut in cf.as_completed(futures):
            try:
                name, dt = fut.result()
                print(f"{dt:7.1f} s  {name}", flush=True)
            except Exception as e:  # noqa: BLE001 - name the job, go on with the others
                failed += 1
                print(f"FAILED  {futures[fut]}: {type(e).__name__}: {e}", flush=True)
    print(f"compiled the kernels of {len(jobs) - failed}/{len(jobs)} jobs in {time.perf_counter() - t0:.0f} s "
          f"on {args.jobs} processes", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
