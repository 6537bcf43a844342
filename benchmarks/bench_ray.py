"""Speed-up of `--backend ray` with 1 and 2 local workers against the local backend.

Two jobs: a tournament (`lama/third` against three `random`, 20,000 games) and the teacher
labelling step of distillation (`train.distill._label_round`, teacher `lama/pimc?k=50`). Each
set-up runs in a fresh process, alternated local, 1 worker, 2 workers, 2, 1, local (`--repeats`
times over), so a load that drifts linearly cancels in the means; every run checks that its
result (the tournament JSON, a hash of the labels) equals the first local run's. Prints each run
and the ratios local/Ray of the job alone and of the whole command (Ray's start and shutdown
included), with the load average: the machine may be shared.

    python benchmarks/bench_ray.py [--job tournament|label|both] [--games 20000] [--label-games 150] [--repeats 1]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ORDER = ("local", "ray1", "ray2", "ray2", "ray1", "local")


def one_run(job: str, where: str, games: int, label_games: int) -> dict:
    """The timed job in this process (called in a fresh subprocess by `main`)."""
    import numpy as np

    from evaluate.backends import get_backend

    t0 = time.perf_counter()
    backend = get_backend("local") if where == "local" else get_backend("ray", None, int(where[-1]))
    res: dict = {"job": job, "where": where, "load": os.getloadavg()[0]}
    t = time.perf_counter()
    if job == "tournament":
        from evaluate.tournament import run_tournament

        r = run_tournament("lama", ["lama/third", "random", "random", "random"], games=games, seed=0, progress=False,
                           backend=backend)
        res["digest"] = hashlib.sha256(json.dumps(r.to_dict(), sort_keys=True).encode()).hexdigest()
    else:
        from train.distill import DistillConfig, _label_round, resolve_kind
        from train.seeds import children

        cfg = DistillConfig(game="lama", teacher="lama/pimc?k=50", games_per_round=label_games)
        kind, features = resolve_kind(cfg)
        b = _label_round(cfg, kind, features, None, 1.0, children(np.random.SeedSequence(0), label_games), None,
                         None if where == "local" else backend)
        res["decisions"] = b["decisions"]
        res["digest"] = hashlib.sha256(np.nan_to_num(b["values"], nan=-9.0).tobytes() + b["chosen"].tobytes()
                                       + b"".join(x.tobytes() for x in b["inputs"])).hexdigest()
    res["job_s"] = time.perf_counter() - t
    backend.close()
    res["command_s"] = time.perf_counter() - t0
    return res


def _mean(runs: list[dict], where: str, key: str) -> float:
    xs = [r[key] for r in runs if r["where"] == where]
    return sum(xs) / len(xs)


def main(argv: list[str] | None = None) -> int:
    """Run the alternated set-ups and print the ratios."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--job", choices=("tournament", "label", "both"), default="both")
    p.add_argument("--games", type=int, default=20000)
    p.add_argument("--label-games", type=int, default=150)
    p.add_argument("--repeats", type=int, default=1)
    p.add_argument("--one", nargs=2, metavar=("JOB", "WHERE"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.one:
        print(json.dumps(one_run(args.one[0], args.one[1], args.games, args.label_games)))
        return 0
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", NUMBA_NUM_THREADS="1")
    for job in (("tournament", "label") if args.job == "both" else (args.job,)):
        runs = []
        for where in ORDER * args.repeats:
            with tempfile.TemporaryDirectory() as tmp:
                out = subprocess.run([sys.executable, __file__, "--one", job, where, "--games", str(args.games),
                                      "--label-games", str(args.label_games)], capture_output=True, text=True,
                                     check=True, env=env, cwd=tmp)
            r = json.loads(out.stdout.strip().splitlines()[-1])
            runs.append(r)
            same = r["digest"] == runs[0]["digest"]
            print(
                f"{job:<10} {where:<6} job {r['job_s']:6.1f} s  command {r['command_s']:6.1f} s  load {r['load']:.2f}  "
                f"{'same result as local' if same else 'RESULT DIFFERS'}",
                flush=True,
            )
            if not same:
                return 1

        for where in ("ray1", "ray2"):
            print(f"{job}: {where[-1]} Ray worker(s) vs local: "
                  f"job x{_mean(runs, 'local', 'job_s') / _mean(runs, where, 'job_s'):.2f}, "
                  f"whole command x{_mean(runs, 'local', 'command_s') / _mean(runs, where, 'command_s'):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
