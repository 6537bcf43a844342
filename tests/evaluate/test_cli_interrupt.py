"""Tournaments deal by deal: same figures as before the split into `play_deal`, partial results on Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from evaluate.tournament import run_tournament

STORED = Path(__file__).parent / "data" / "tournament_before_play_deal.json"


@pytest.mark.parametrize("case", json.loads(STORED.read_text()), ids=lambda c: c["args"]["game_name"])
def test_same_figures_as_the_stored_tournaments(case):
    """The stored results were computed by the tournament loop before `play_deal` and backends existed."""
    assert json.loads(json.dumps(run_tournament(**case["args"], progress=False).to_dict())) == case["result"]


def test_a_custom_backend_gets_every_deal():
    calls = []

    def backend(fn, seqs):
        for s in seqs:
            calls.append(s)
            yield fn(s)

    a = run_tournament("simple_poker", ["simple_poker/nash", "random"], games=40, seed=4, progress=False)
    b = run_tournament("simple_poker", ["simple_poker/nash", "random"], games=40, seed=4, progress=False, backend=backend)
    assert len(calls) == 20 and a.to_dict() == b.to_dict()


def _interrupted_after(k):
    def backend(fn, seqs):
        for i, s in enumerate(seqs):
            if i == k:
                raise KeyboardInterrupt
            yield fn(s)

    return backend


def test_interrupt_keeps_the_finished_deals():
    ids = ["simple_poker/nash", "random"]
    part = run_tournament("simple_poker", ids, games=100, seed=2, progress=False, backend=_interrupted_after(7),
                          stop_on_interrupt=True)
    whole = run_tournament("simple_poker", ids, games=14, seed=2, progress=False)
    d = part.to_dict()
    assert d["partial"] is True and d["deals"] == 7 and d["planned_deals"] == 50 and d["games"] == 14
    assert d["agents"] == whole.to_dict()["agents"]  # the 7 finished deals are the first 7 of the seeded sequence
    assert "partial" not in whole.to_dict()
    with pytest.raises(KeyboardInterrupt):
        run_tournament("simple_poker", ids, games=100, seed=2, progress=False, backend=_interrupted_after(7))
    with pytest.raises(KeyboardInterrupt):  # nothing finished: nothing to report
        run_tournament("simple_poker", ids, games=100, seed=2, progress=False, backend=_interrupted_after(0),
                       stop_on_interrupt=True)


@pytest.mark.slow
def test_ctrl_c_writes_partial_json(tmp_path):
    path = tmp_path / "r.json"
    proc = subprocess.Popen([sys.executable, "-m", "evaluate", "lama", "--agents", "lama/third,random*3", "--games",
                             "100000", "--no-progress", "--json", str(path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(15)  # imports, then well into the tournament
    assert proc.poll() is None
    os.kill(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert "partial results" in err
    d = json.loads(path.read_text())
    assert d["partial"] is True and 0 < d["deals"] < d["planned_deals"] == 25000 and d["games"] == 4 * d["deals"]
