"""Compile the games' numba kernels into their caches before the test suite, over `--jobs` processes at once.

On a fresh clone most of the suite's time is numba compiling the batched envs' and the baselines' kernels (the
largest take one to two minutes each). Left to the test run, two pytest workers that need the same kernel at the
same time both compile it (numba's cache has no lock), and a worker may spend its last minutes on one while the
other waits idle. Here each kernel is compiled once, the largest first, on as many processes as there are cores
for the suite; the tests then load every kernel from the cache (`__pycache__/*.nbi`, `*.nbc` beside its source).

    .venv/bin/python .ci/compile_kernels.py [--jobs N] [--only NAME ...]

The jobs come from the registered games' specs (`envs.core.spec.GameSpec`) and their agents' and evaluate parts
(`agents.games`, `evaluate.games`), so a new game or kernel is warmed without editing this file: each game's vector env
with its own kernels and with its opponents' (`agents.part(game).kernels`), its compiled tournaments (`compiled_games`),
each under every option set of `kernel_variants`, then its `warm_up` command lines (search players). Each job plays a
tiny piece of the public API (a vector env's reset and step, a two-game tournament, one search game) and so compiles the
signatures the package's own calls use. A job's failure fails the script (exit 1) with the job named: the suite would
fail on it too; so does a kernel numba cannot cache. Prints each job's wall and CPU time and the total.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import contextlib
import importlib
import io
import multiprocessing
import os
import shlex
import sys
import time
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@dataclass(frozen=True)
class Job:
    """One piece of the public API to play, compiling the kernels it calls: `run(*args, **kwargs)`."""

    name: str
    run: Callable[..., None]
    args: tuple[Any, ...] = ()
    kwargs: Mapping[str, Any] = field(default_factory=dict)


def _vector(game: str, opponents: list[str], **options: Any) -> None:
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


def _described(options: Mapping[str, Any]) -> str:
    return "".join(f", {k}={v}" for k, v in options.items())


def jobs() -> list[Job]:
    """The jobs the registered games' specs call for, the longest kinds first: each game's vector env (its own
    kernels, under `control="all_seats"`, and its opponents' kernels, with the first strategy that has one), then
    its compiled tournament runner (the default line-up, two games), each under every option set of
    `GameSpec.kernel_variants`; then its `warm_up` command lines (search players, `evaluate.games`)."""
    import agents.games
    import envs
    import evaluate.games

    specs = [envs.spec(g) for g in envs.registered()]
    vector, tournaments, warm_up = [], [], []
    for spec in specs:
        mine = agents.games.part(spec.id)
        for options in spec.kernel_variants:
            said = _described(options)
            if spec.vector and mine.kernels:
                ids = importlib.import_module(mine.kernels).KERNEL_IDS
                strategy = next(i for i in ids if i != "random" and "?" not in i)
                seats = spec.make_game(**options).num_players
                vector.append(Job(f"{spec.id} vector env, {strategy}{said}", _vector,
                                  (spec.id, [strategy] * (seats - 1)), options))
                vector.append(Job(f"{spec.id} vector env, all seats{said}", _vector, (spec.id, []),
                                  {**options, "control": "all_seats"}))
            if mine.compiled_games:
                argv = [a for k, v in options.items() for a in ("--option", f"{k}={v}")]
                tournaments.append(Job(f"{spec.id} tournament{said}", _cli, (spec.id, "--games", "2", *argv)))
        warm_up += [Job(f"{spec.id}: python -m evaluate {line}", _cli, tuple(shlex.split(line)))
                    for line in evaluate.games.part(spec.id).warm_up]
    return vector + tournaments + warm_up


def _on_path() -> None:
    """Each worker's start (the pool's initializer): the repository importable."""
    if ROOT not in sys.path:
        sys.path.insert(0, ROOT)


def _run(job: Job) -> tuple[str, float, float]:
    """Run `job`: its name, wall time and CPU time (the CPU time says what a job costs on a busy machine)."""
    t0, c0 = time.perf_counter(), time.process_time()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            job.run(*job.args, **job.kwargs)
        except SystemExit as e:  # a job's exit would end the pool's worker without a word
            raise RuntimeError(f"exit {e.code}") from None
    # A kernel numba cannot cache would be compiled again in every test process.
    said = [str(w.message) for w in seen]
    uncached = sorted({m.split('"')[1] for m in said if m.startswith("Cannot cache compiled function")})
    if uncached:
        raise RuntimeError(f"numba cannot cache {', '.join(uncached)} (it says: uses dynamic globals)")
    return job.name, time.perf_counter() - t0, time.process_time() - c0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2, help="processes at once (default 2)")
    parser.add_argument("--only", nargs="*", default=None, help="run only the jobs whose name contains one of these")
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error(f"--jobs must be at least 1, got {args.jobs}")
    _on_path()
    todo = [j for j in jobs() if args.only is None or any(s in j.name for s in args.only)]
    t0 = time.perf_counter()
    failed = 0
    with cf.ProcessPoolExecutor(args.jobs, mp_context=multiprocessing.get_context("spawn"),
                                initializer=_on_path) as pool:
        futures = {pool.submit(_run, j): j.name for j in todo}
        for fut in cf.as_completed(futures):
            try:
                name, dt, cpu = fut.result()
                print(f"{dt:7.1f} s  ({cpu:6.1f} s CPU)  {name}", flush=True)
            except Exception as e:  # noqa: BLE001 - name the job, go on with the others
                failed += 1
                print(f"FAILED  {futures[fut]}: {type(e).__name__}: {e}", flush=True)
    print(f"compiled the kernels of {len(todo) - failed}/{len(todo)} jobs in {time.perf_counter() - t0:.0f} s "
          f"on {args.jobs} processes", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
