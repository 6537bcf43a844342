"""Tournament: rotation, duplicate deals, intervals, the CLI and its JSON."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from evaluate.tournament import run_tournament


def test_rotation_replays_each_deal_from_every_seat():
    res = run_tournament(
        "simple_poker",
        ["simple_poker/threshold?t=2", "simple_poker/threshold?t=2"],
        games=400,
        seed=1,
        options=dict(n=3),
        progress=False,
    )
    a, b = res.agents
    # identical deterministic agents on the same deals from both seats: exactly symmetric
    assert a.mean_score == pytest.approx(0.0, abs=1e-12) and b.mean_score == pytest.approx(0.0, abs=1e-12)
    assert a.win_rate == pytest.approx(b.win_rate)
    assert [s.seat for s in a.per_seat] == [0, 1] and all(s.games == 200 for s in a.per_seat)


def test_same_seed_same_result_and_fixed_seating():
    r1 = run_tournament("simple_poker", ["simple_poker/nash", "random"], games=300, seed=4, progress=False)
    r2 = run_tournament("simple_poker", ["simple_poker/nash", "random"], games=300, seed=4, progress=False)
    assert r1.to_dict() == r2.to_dict()
    fixed = run_tournament(
        "simple_poker", ["simple_poker/nash", "random"], games=300, seed=4, seating="fixed", progress=False
    )
    assert [s.seat for s in fixed.agents[0].per_seat] == [0] and fixed.games == 300


def test_wrong_agent_count_is_explained():
    with pytest.raises(ValueError, match="give 2 agent ids"):
        run_tournament("simple_poker", ["random"], games=10, progress=False)


def test_cli_writes_json(tmp_path):
    out = tmp_path / "r.json"
    proc = subprocess.run(
        [sys.executable, "-m", "evaluate", "simple_poker", "--agents", "simple_poker/nash,random", "--games", "200",
         "--option", "n=4", "--option", "bet=1.5", "--json", str(out), "--no-progress"],
        capture_output=True, text=True, check=True,
    )
    assert "win rate" in proc.stdout
    data = json.loads(out.read_text())
    assert data["options"] == {"n": 4, "bet": 1.5} and data["games"] == 200
    for a in data["agents"]:
        assert set(a) >= {"win_rate", "ci95", "mean_score", "per_seat"}
        assert a["ci95"][0] <= a["win_rate"] <= a["ci95"][1]


def test_cli_exact_and_errors(tmp_path):
    out = tmp_path / "x.json"
    proc = subprocess.run([sys.executable, "-m", "evaluate", "simple_poker", "--exact",
                           "--agents", "simple_poker/nash,simple_poker/threshold?t=1", "--option", "n=3",
                           "--json", str(out)], capture_output=True, text=True, check=True)
    assert "exact game value for player 1 = -0.166667" in proc.stdout
    assert json.loads(out.read_text())["agents"]["simple_poker/nash"]["exploitability"]["total"] == pytest.approx(
        0, abs=1e-9
    )
    bad = subprocess.run(
        [sys.executable, "-m", "evaluate", "simple_poker", "--option", "n=1"], capture_output=True, text=True
    )
    assert bad.returncode == 2 and "n must be an integer >= 2" in bad.stderr
    bad = subprocess.run(
        [sys.executable, "-m", "evaluate", "simple_poker", "--option", "size=3"], capture_output=True, text=True
    )
    assert bad.returncode == 2 and "allowed options are" in bad.stderr


def test_zero_wins_still_get_an_honest_interval():
    # "never" (tactic-00) never wins against "always bet/call" over 3 deals x 2 seats
    res = run_tournament(
        "simple_poker",
        ["simple_poker/tactic?bet=000", "simple_poker/threshold?t=1"],
        games=6,
        seed=0,
        options=dict(n=3),
        progress=False,
    )
    never = res.agents[0]
    assert never.win_rate == 0.0
    assert never.ci95[0] == 0.0 and never.ci95[1] > 0.3  # Wilson's upper bound for 0 of 6 is 0.39
