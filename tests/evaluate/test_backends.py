"""evaluate.backends: the local and Ray backends give the same results in item order, name a failing
item, and tournaments, paired comparisons, leagues and the Primi Composti `--solve-deals` study give the
same JSON (timings aside) on both."""

import json
import os
import sys

import numpy as np
import pytest

from evaluate import backends
from evaluate.backends import LocalBackend, TaskError, get_backend

ray = pytest.importorskip("ray")


def _draw(seed: int) -> list[float]:
    """A job whose result depends only on its item (its own seeded generator)."""
    return np.random.default_rng(seed).random(3).tolist()


def _fail_on_three(x: int) -> int:
    if x == 3:
        raise ValueError(f"three is bad: {x}")
    return x * x


@pytest.fixture(scope="module")
def ray_backend():
    """One local Ray instance (2 CPUs, no dashboard) for the module, shut down after it."""
    if ray.is_initialized():
        ray.shutdown()
    # Ray workers cannot import a test module by name: ship its functions by value.
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    b = get_backend("ray", None, 2)
    yield b
    b.close()
    assert not ray.is_initialized()


def test_local_map_in_order_and_names_the_failing_item():
    assert LocalBackend().map(_draw, [5, 1, 9]) == [_draw(5), _draw(1), _draw(9)]
    with pytest.raises(TaskError, match=r"item 3 \(3\) failed: ValueError: three is bad: 3") as e:
        LocalBackend().map(_fail_on_three, range(5))
    assert isinstance(e.value.__cause__, ValueError) and e.value.index == 3


def test_get_backend_refuses_bad_names_and_options():
    with pytest.raises(ValueError, match="unknown backend 'spark'; choose from local, ray"):
        get_backend("spark")
    with pytest.raises(ValueError, match="--address needs --backend ray"):
        get_backend("local", "auto")
    with pytest.raises(ValueError, match="--num-cpus needs --backend ray"):
        get_backend("local", None, 2)
    with pytest.raises(ValueError, match="num_cpus must be >= 1"):
        get_backend("ray", None, 0)


def test_add_arguments_once():
    import argparse

    p = argparse.ArgumentParser()
    backends.add_arguments(p)
    backends.add_arguments(p)  # a parser that has the flags already is left as is
    args = p.parse_args(["--backend", "ray", "--num-cpus", "2"])
    assert (args.backend, args.address, args.num_cpus) == ("ray", None, 2)


def test_ray_map_equals_local_in_item_order(ray_backend):
    items = list(range(20, 0, -1))
    assert ray_backend.map(_draw, items) == LocalBackend().map(_draw, items)
    assert ray_backend.map(_draw, []) == []


def test_blocks_cover_every_item_once():
    assert backends.blocks(5, LocalBackend()) == [range(i, i + 1) for i in range(5)]

    class Remote:
        remote = True

    for count, workers in [(1, 2), (7, 2), (100, 1), (100, 2), (100, 64), (10**6, 2)]:
        Remote.parallelism = workers
        bl = backends.blocks(count, Remote(), max_size=1000)
        assert [i for b in bl for i in b] == list(range(count))
        assert max(len(b) for b in bl) <= 1000 and (count < 4 * workers or len(bl) >= 4 * workers)
        assert len(bl) <= max(4 * workers, count // 1000 + 1) + 1


def test_ray_imap_yields_in_order_and_stops_early(ray_backend):
    assert ray_backend.parallelism == 2
    it = ray_backend.imap(_draw, range(10))
    assert next(it) == _draw(0) and next(it) == _draw(1)
    it.close()  # the other tasks are left to finish; the instance stays usable
    assert ray_backend.map(_draw, [4]) == [_draw(4)]


def test_ray_map_names_the_failing_item(ray_backend):
    with pytest.raises(TaskError, match=r"item 3 \(3\) failed: ValueError: three is bad: 3") as e:
        ray_backend.map(_fail_on_three, range(6))
    assert isinstance(e.value.__cause__, ValueError)


def _without_timings(study: dict) -> dict:
    """The study with its wall-clock fields removed (the only ones that may differ between runs)."""
    out = {k: v for k, v in study.items() if k not in ("solve_seconds_median", "solve_seconds_worst")}
    out["per_deal"] = [{k: v for k, v in r.items() if k != "seconds"} for r in study["per_deal"]]
    out["regret"] = {p: {k: v for k, v in r.items() if k != "seconds"} for p, r in study["regret"].items()}
    return out


@pytest.mark.parametrize("version", [2])
def test_solve_deals_cli_same_json_on_ray(ray_backend, tmp_path, version):
    """`python -m evaluate primi_composti --solve-deals ... --backend ray` writes the local run's JSON."""
    from evaluate.__main__ import main

    common = ["primi_composti", "--solve-deals", "4", "--solve-from", "2", "--seed", "3",
              "--option", f"version={version}", "--option", "cards_per_player=6",
              "--regret-players", "greedy_rand,minimax_2"]
    main([*common, "--json", str(tmp_path / "local.json")])
    main([*common, "--backend", "ray", "--json", str(tmp_path / "ray.json")])  # uses the module's Ray instance
    local = json.loads((tmp_path / "local.json").read_text())
    on_ray = json.loads((tmp_path / "ray.json").read_text())
    assert [r["index"] for r in on_ray["per_deal"]] == [2, 3, 4, 5]
    assert set(on_ray["regret"]) == {"greedy_rand", "minimax_2"}
    assert _without_timings(on_ray) == _without_timings(local)
    assert ray.is_initialized()  # a caller's instance is left running


def test_solve_deals_cli_usage_errors(capsys):
    from evaluate.__main__ import main

    with pytest.raises(SystemExit) as e:
        main(["primi_composti", "--solve-deals", "1", "--address", "auto"])
    assert e.value.code == 2 and "--address needs --backend ray" in capsys.readouterr().err


TOURNAMENTS = [
    dict(game_name="lama", agent_ids=["lama/third", "random", "lama/first", "random"], games=48, seed=7),
    dict(game_name="the_game", agent_ids=["the_game/trick", "random"], games=30, seed=2, max_turns=40),
    dict(game_name="simple_poker", agent_ids=["simple_poker/nash", "random"], games=101, seed=5, seating="fixed",
         options={"n": 4}),
    dict(game_name="primi_composti", agent_ids=["primi_composti/greedy_rand", "random"], games=40, seed=1,
         options={"cards_per_player": 6}),
    dict(game_name="roborally", agent_ids=["roborally/greedy", "random"], games=40, seed=1, options={"max_turns": 15}),
]


@pytest.mark.parametrize("case", TOURNAMENTS, ids=lambda c: c["game_name"])
def test_tournament_same_json_on_ray(ray_backend, case):
    """The deals of a tournament as Ray tasks (blocks of deals, agents built once per worker): the local JSON."""
    from evaluate.tournament import run_tournament

    local = run_tournament(**case, progress=False).to_dict()
    assert run_tournament(**case, progress=False, backend=ray_backend).to_dict() == local
    assert local["deals"] > 4 * ray_backend.parallelism  # several deals per task: blocks are exercised


def test_tournament_cli_same_json_and_csv_on_ray(ray_backend, tmp_path):
    from evaluate.__main__ import main

    common = ["lama", "--agents", "lama/third,random*3", "--games", "40", "--seed", "3", "--no-progress"]
    assert main([*common, "--json", str(tmp_path / "l.json"), "--csv", str(tmp_path / "l.csv")]) == 0
    assert (
        main([*common, "--backend", "ray", "--json", str(tmp_path / "r.json"), "--csv", str(tmp_path / "r.csv")]) == 0
    )
    assert json.loads((tmp_path / "r.json").read_text()) == json.loads((tmp_path / "l.json").read_text())
    assert (tmp_path / "r.csv").read_text() == (tmp_path / "l.csv").read_text()


def test_paired_and_league_same_json_on_ray(ray_backend, tmp_path):
    from evaluate.__main__ import main

    for job in (["simple_poker", "--paired", "simple_poker/nash,random", "--against", "simple_poker/threshold?t=2",
                 "--games", "60", "--seed", "4"],
                ["lama", "--league", "--agents", "lama/third,lama/first,random", "--games", "6", "--seed", "1",
                 "--out", str(tmp_path)]):
        assert main([*job, "--json", str(tmp_path / "local.json")]) == 0
        assert main([*job, "--backend", "ray", "--json", str(tmp_path / "ray.json")]) == 0
        assert json.loads((tmp_path / "ray.json").read_text()) == json.loads((tmp_path / "local.json").read_text())


def test_backend_refused_for_jobs_that_run_in_this_process(capsys):
    from evaluate.__main__ import main

    with pytest.raises(SystemExit) as e:
        main(["lama", "--reproduce", "--backend", "ray"])
    err = capsys.readouterr().err
    assert (
        e.value.code == 2 and "--reproduce runs in this process: drop --backend" in err and len(err.splitlines()) == 1
    )


@pytest.mark.slow
def test_ctrl_c_on_ray_writes_partial_json(tmp_path, interruptible):
    """Ctrl-C during a tournament on its own local Ray instance: the finished blocks (the first deals) are
    written marked partial, one error line, exit 130, and the instance is gone with the process."""
    import os
    import signal
    import time

    path = tmp_path / "r.json"
    proc = interruptible([sys.executable, "-m", "evaluate", "lama", "--agents", "lama/third,random*3", "--games",
                          "4000000", "--no-progress", "--backend", "ray", "--num-cpus", "2", "--json", str(path)])
    # far more deals than 60 s can play (a CI machine played 400,000 games in under 60 s with the fast L.A.M.A. path)
    time.sleep(60)  # Ray's start, then time for each worker to finish a block or more (1,000 deals each)
    assert proc.poll() is None
    os.kill(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    # Ray's own log lines (its start, its workers' and raylet's warnings such as a nearly full /tmp) are not ours
    lines = [x for x in err.strip().splitlines()
             if not ("Ray" in x or "raylet" in x or x.startswith(("20", "[", "(", " ")) or not x.strip())]
    assert proc.returncode == 130 and len(lines) == 1 and "Traceback" not in err, err
    d = json.loads(path.read_text())
    assert d["partial"] is True and d["planned_deals"] == 1000000 and 0 < d["deals"] < 1000000
    assert d["deals"] % 1000 == 0 and d["games"] == 4 * d["deals"]  # whole blocks only


def _closed_port() -> int:
    """A local TCP port nothing listens on (bound, then released)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_address_nothing_answers_at_is_refused_in_seconds():
    """Ray's own connect retries for minutes against a closed port; the probe answers at once, in one line."""
    import socket
    import subprocess
    import time

    port = _closed_port()
    with pytest.raises(ValueError, match=f"no Ray cluster answers at --address 127.0.0.1:{port} \\(Connection refused"):
        backends.check_address(f"127.0.0.1:{port}")
    for bad in ("nonsense", "head:", ":6379", "head:99999"):
        with pytest.raises(ValueError, match="--address must be HOST:PORT"):
            backends.check_address(bad)
    with socket.socket() as listening:  # something answers: the probe lets Ray take over
        listening.bind(("127.0.0.1", 0))
        listening.listen()
        backends.check_address(f"127.0.0.1:{listening.getsockname()[1]}")
        backends.check_address(f"ray://127.0.0.1:{listening.getsockname()[1]}")
    start = time.monotonic()  # a fresh process: no Ray instance of this module's to fall back on
    proc = subprocess.run([sys.executable, "-m", "evaluate", "simple_poker", "--games", "10", "--backend", "ray",
                           "--address", f"127.0.0.1:{port}"], capture_output=True, text=True, timeout=120)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and "no Ray cluster answers" in lines[0], proc.stderr
    assert time.monotonic() - start < 60 and proc.stdout == ""


def _die_once(marker: str) -> int:
    """Kills its worker process the first time (no marker yet), returns 7 after: a worker lost mid-task."""
    import os

    if not os.path.exists(marker):
        open(marker, "w").close()
        os._exit(1)
    return 7


def _die_always(_: int) -> int:
    import os

    os._exit(1)


def test_a_dead_worker_is_retried_then_named_in_one_line(ray_backend, tmp_path):
    """Items carry their seeds, so a task whose worker died runs again; one that dies on every retry stops the map
    with WorkerLostError, a one-line TaskError naming the item."""
    marker = str(tmp_path / "died")
    assert ray_backend.map(_die_once, [marker]) == [7] and os.path.exists(marker)
    with pytest.raises(backends.WorkerLostError) as e:
        ray_backend.map(_die_always, [5])
    assert isinstance(e.value, TaskError) and ray_backend.lost is e.value
    message = str(e.value)
    assert "\n" not in message and message.startswith(
        f"item 0 (5) lost its Ray worker {backends.RAY_RETRIES + 1} times"
    )


def test_a_local_instance_keeps_the_callers_sigterm_handler():
    """ray.init installs a SIGTERM handler of its own (sys.exit), which would end `python -m evaluate --backend
    ray` on `kill` with nothing written: the backend puts the caller's back (a fresh process: this module's
    instance is already up)."""
    import subprocess

    code = ("import signal\nfrom evaluate.backends import RayBackend\ndef h(*a): pass\n"
            "signal.signal(signal.SIGTERM, h)\nb = RayBackend(num_cpus=1)\n"
            "print('kept' if signal.getsignal(signal.SIGTERM) is h else 'replaced')\nb.close()\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.split() == ["kept"], (proc.stdout, proc.stderr[-2000:])
