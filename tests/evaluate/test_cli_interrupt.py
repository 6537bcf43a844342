"""Tournaments deal by deal: pinned figures, every deal replayable alone and in any grouping, partial results on
Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from evaluate.tournament import TournamentSpec, play_deals, run_tournament

STORED = Path(__file__).parent / "data" / "tournament_pinned.json"
CASES = [
    {
        "game_name": "simple_poker",
        "agent_ids": ["simple_poker/nash", "random"],
        "games": 301,
        "seed": 3,
        "options": {"n": 5},
    },
    {
        "game_name": "simple_poker",
        "agent_ids": ["simple_poker/threshold?t=1", "random"],
        "games": 200,
        "seed": 1,
        "seating": "fixed",
    },
    {"game_name": "lama", "agent_ids": ["lama/third", "random", "lama/first", "random"], "games": 61, "seed": 2},
    {"game_name": "the_game", "agent_ids": ["the_game/trick", "random"], "games": 20, "seed": 5, "max_turns": 30},
]


def regenerate() -> None:
    """Write STORED from the current `run_tournament` (only when its seeded figures are meant to change)."""
    STORED.write_text(
        json.dumps([{"args": c, "result": run_tournament(**c, progress=False).to_dict()} for c in CASES], indent=1)
    )


@pytest.mark.parametrize("case", json.loads(STORED.read_text()), ids=lambda c: c["args"]["game_name"])
def test_same_figures_as_the_stored_tournaments(case):
    """The stored results were computed by `regenerate()` (per-deal seeding); any change to an engine, an
    agent or the seeding that moves a seeded figure shows here."""
    assert json.loads(json.dumps(run_tournament(**case["args"], progress=False).to_dict())) == case["result"]


class _Recording:
    """A backend that plays the blocks in this process, in reverse order, and records them."""

    parallelism = 3
    remote = True

    def __init__(self):
        self.blocks = []

    def imap(self, fn, blocks):
        blocks = list(blocks)
        self.blocks += blocks
        out = [fn(b) for b in reversed(blocks)][::-1]
        yield from out


def test_a_custom_backend_gets_every_deal_in_blocks():
    a = run_tournament("simple_poker", ["simple_poker/nash", "random"], games=40, seed=4, progress=False)
    rec = _Recording()
    b = run_tournament("simple_poker", ["simple_poker/nash", "random"], games=40, seed=4, progress=False, backend=rec)
    assert [d for blk in rec.blocks for d in blk] == list(range(20)) and len(rec.blocks) > 1
    assert a.to_dict() == b.to_dict()


@pytest.mark.parametrize("game_name,ids", [("lama", ("lama/third", "random", "lama/first", "random")),
                                           ("simple_poker", ("simple_poker/nash", "random"))])
def test_every_deal_replays_alone(game_name, ids):
    """A deal's games depend on (seed, deal) only: played alone, after other deals or in one block, the same."""
    spec = TournamentSpec(game_name, (), ids, 11, len(ids), None)
    together = play_deals(spec, range(12))
    for d in (7, 0, 11, 3):
        alone = play_deals(spec, range(d, d + 1))[0]
        for x, y in zip(alone, together[d]):
            assert np.array_equal(x, y)
    # random seats really draw from their own streams: the deals are not all alike
    assert len({tuple(w.ravel()) + tuple(t) for w, _, t, _ in together}) > 1


def test_an_agent_with_a_hidden_generator_is_refused():
    from evaluate.tournament import check_reseedable

    class Hidden:
        def __init__(self):
            self._gen = np.random.default_rng(0)

    class Plain:
        def __init__(self):
            self.rng = np.random.default_rng(0)

    with pytest.raises(ValueError, match="agent 'x' keeps a generator in '_gen'"):
        check_reseedable(Hidden(), "x")
    check_reseedable(Plain(), "y")
    check_reseedable(object(), "z")  # no generator: nothing random to re-seed


def _interrupted_after(k):
    class Backend:
        parallelism = 1
        remote = False

        def imap(self, fn, blocks):
            for i, b in enumerate(blocks):
                if i == k:
                    raise KeyboardInterrupt
                yield fn(b)

    return Backend()


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


def _stopped(proc, signum: int) -> str:
    """Send `signum` to `proc` 15 s in (imports, then well into its job; still running then); its stderr: one
    line, no traceback, exit 128 + the signal (130 for Ctrl-C, 143 for SIGTERM)."""
    time.sleep(15)
    assert proc.poll() is None
    os.kill(proc.pid, signum)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 128 + signum and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    return err


@pytest.mark.slow
def test_ctrl_c_writes_partial_json(tmp_path, interruptible):
    path = tmp_path / "r.json"
    proc = interruptible([sys.executable, "-m", "evaluate", "lama", "--agents", "lama/third,random*3", "--games",
                          "2000000", "--no-progress", "--json", str(path)])
    err = _stopped(proc, signal.SIGINT)
    assert "partial results" in err
    d = json.loads(path.read_text())
    assert d["partial"] is True and 0 < d["deals"] < d["planned_deals"] == 500000 and d["games"] == 4 * d["deals"]


if __name__ == "__main__":
    regenerate()


@pytest.mark.slow
def test_sigterm_writes_partial_json_and_csv(tmp_path, interruptible):
    """`kill` (a batch system's time limit) keeps the finished deals as Ctrl-C does: JSON marked partial, the CSV
    of the same games, one line saying so, exit 143 (128 + SIGTERM)."""
    path, table = tmp_path / "r.json", tmp_path / "out" / "r.csv"
    proc = interruptible([sys.executable, "-m", "evaluate", "lama", "--agents", "lama/third,random*3", "--games",
                          "2000000", "--no-progress", "--json", str(path), "--csv", str(table)])
    err = _stopped(proc, signal.SIGTERM)
    assert "stopped by SIGTERM after" in err and f"partial results in {path} and {table}" in err
    d = json.loads(path.read_text())
    assert d["partial"] is True and 0 < d["deals"] < d["planned_deals"] == 500000 and d["games"] == 4 * d["deals"]
    rows = table.read_text().splitlines()
    assert rows[1].split(",")[4] == str(d["games"])  # the CSV holds the same games as the JSON
    assert rows[0].endswith("deals,planned_deals") and rows[1].split(",")[-2:] == [str(d["deals"]), "500000"]
    assert sorted(os.listdir(tmp_path)) == ["out", "r.json"] and os.listdir(tmp_path / "out") == ["r.csv"]


def test_a_worker_lost_on_every_retry_keeps_the_finished_deals():
    """A backend whose worker is lost for good after 7 blocks: the tournament keeps those deals, marked partial,
    as on Ctrl-C; with nothing finished the error propagates."""
    from evaluate.backends import WorkerLostError

    class Losing:
        parallelism = 1
        remote = False

        def __init__(self, k):
            self.k = k

        def imap(self, fn, blocks):
            for i, b in enumerate(blocks):
                if i == self.k:
                    raise WorkerLostError(i, b, RuntimeError("worker died"))
                yield fn(b)

    ids = ["simple_poker/nash", "random"]
    part = run_tournament(
        "simple_poker", ids, games=100, seed=2, progress=False, backend=Losing(7), stop_on_interrupt=True
    )
    whole = run_tournament("simple_poker", ids, games=14, seed=2, progress=False)
    assert (
        part.to_dict()["partial"] is True and part.deals == 7 and part.to_dict()["agents"] == whole.to_dict()["agents"]
    )
    with pytest.raises(WorkerLostError):
        run_tournament(
            "simple_poker", ids, games=100, seed=2, progress=False, backend=Losing(0), stop_on_interrupt=True
        )


@pytest.mark.slow
def test_sigterm_keeps_a_paired_runs_finished_deals(tmp_path, interruptible):
    """A paired comparison stopped by `kill` keeps its finished deals as a tournament does: JSON marked partial
    with the deals played and planned, one line saying so, exit 143."""
    path = tmp_path / "p.json"
    proc = interruptible([sys.executable, "-m", "evaluate", "lama", "--paired", "lama/third,random", "--against",
                          "lama/first", "--games", "2000000", "--no-progress", "--json", str(path)])
    err = _stopped(proc, signal.SIGTERM)
    assert "stopped by SIGTERM after" in err and f"partial results in {path}" in err
    (d,) = json.loads(path.read_text())["comparisons"]
    assert d["partial"] is True and 0 < d["deals"] < d["planned_deals"] == 2000000
    assert d["pooled"]["deals"] == d["deals"]


@pytest.mark.slow
def test_sigterm_keeps_a_leagues_finished_deals(tmp_path, interruptible):
    """A league stopped by `kill` fits the deals it finished, writes them (JSON with how many of how many, the
    plot) and says so in one line, exit 143."""
    path = tmp_path / "l.json"
    proc = interruptible([sys.executable, "-m", "evaluate", "simple_poker", "--league", "--games", "200000",
                          "--no-progress", "--json", str(path), "--out", str(tmp_path / "plots")])
    err = _stopped(proc, signal.SIGTERM)
    assert "stopped by SIGTERM after" in err and f"partial results in {path}" in err
    d = json.loads(path.read_text())
    part = d["extra"]["partial"]
    assert 0 < part["deals"] == d["deals"] < part["planned_deals"] == 200000
    assert (tmp_path / "plots" / "league_simple_poker.png").exists()
