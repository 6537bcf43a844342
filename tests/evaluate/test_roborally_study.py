"""The RoboRally study: cells of duplicate races, incremental and resumable JSON, summaries, plots (its CLI misuse:
`test_roborally_cli`)."""

import json

import pytest

from evaluate.roborally.study import budget_cells, play_cell, plot, run_cells, run_curve, study_cells, summarise
from evaluate.tournament import run_tournament


def test_play_cell_rotates_seats_over_each_deal():
    cell = play_cell("race_easy", 2, "roborally/greedy", "roborally/random", range(3))
    races = cell["races"]
    assert [(r[0], r[1]) for r in races] == [(d, r) for d in range(3) for r in range(2)]
    for _, _, winner, turns, ending in races:
        assert winner in ("roborally/greedy", "roborally/random", None)
        assert (winner is not None) == (ending == "win")
        assert 1 <= turns <= 60
    s = summarise(cell, "roborally/greedy", "roborally/random")
    g = s["agents"]["roborally/greedy"]
    assert s["races"] == 6 and s["deals"] == 3
    assert g["ci95"][0] <= g["win_rate"] <= g["ci95"][1]
    assert sum(s["endings"].values()) == 6
    assert cell["timing"]["roborally/greedy"][1] > 0  # decisions were timed


def test_run_cells_writes_incrementally_and_resumes(tmp_path):
    path = str(tmp_path / "study.json")
    cells = [("race_easy", 2, "roborally/greedy", "roborally/random")]
    lines = []
    run_cells(path, cells, races=4, chunk=1, log=lines.append)
    assert len(lines) == 2  # one write per deal
    first = json.loads(open(path).read())
    cell = first["cells"]["race_easy|2|roborally/greedy|roborally/random"]
    assert cell["summary"]["races"] == 4
    # More races: only the missing deals are played, the first ones are kept as they were.
    run_cells(path, cells, races=6, chunk=5, log=lines.append)
    again = json.loads(open(path).read())["cells"]["race_easy|2|roborally/greedy|roborally/random"]
    assert again["raw"]["races"][:4] == cell["raw"]["races"]
    assert [r[0] for r in again["raw"]["races"]] == [0, 0, 1, 1, 2, 2]
    written = plot(path, None, str(tmp_path / "img"))
    assert [p.rsplit("/", 1)[1] for p in written] == ["results_win_rates.png"]


def test_grids():
    assert len(study_cells()) == 18
    assert all(a.startswith("roborally/mc?budget=") and b == "roborally/greedy" for _, _, a, b in budget_cells())
    budgets = [int(a.split("budget=")[1].split("&")[0]) for _, _, a, _ in budget_cells()]
    assert len(budgets) == 12 and budgets == sorted(budgets) and max(budgets) == 20000


def test_a_cell_is_a_tournament_and_chunks_do_not_change_its_races():
    whole = play_cell("race_easy", 2, "roborally/greedy", "roborally/random", range(3), seed=4)
    parts = [play_cell("race_easy", 2, "roborally/greedy", "roborally/random", deals, seed=4)
             for deals in (range(0, 1), range(1, 3))]
    assert parts[0]["races"] + parts[1]["races"] == whole["races"]
    # the runner's games: deal d of the seed, greedy (entrant 0) at seat r in rotation r
    res = run_tournament("roborally", ["roborally/greedy", "roborally/random"], games=6, seed=4, progress=False,
                         records=True, options={"rules": "seed", "max_turns": 60, "board": "race_easy"})
    names = ("roborally/greedy", "roborally/random")
    assert [r[2] for r in whole["races"]] == [names[g.winners[0]] if g.winners else None for g in res.records]


def test_a_file_of_the_former_loop_is_refused(tmp_path):
    path = tmp_path / "old.json"
    path.write_text(json.dumps({"settings": {"race_options": {}, "seed": 0}, "cells": {}}))
    with pytest.raises(ValueError, match="former loop"):
        run_cells(str(path), [("race_easy", 2, "roborally/greedy", "roborally/random")], races=2)
    run_cells(str(tmp_path / "new.json"), [("race_easy", 2, "roborally/greedy", "roborally/random")], races=2,
              log=lambda _: None)
    with pytest.raises(ValueError, match="deals of seed 0, not 1"):
        run_cells(str(tmp_path / "new.json"), [("race_easy", 2, "roborally/greedy", "roborally/random")], races=2,
                  seed=1)


def test_options_are_the_files_and_program_mode_plays_the_same_races(tmp_path):
    """A file keeps its game options; the flag seeker plays the same races choosing whole programs (program mode)
    as register by register, so cells of both modes compare race for race."""
    cells = [("race_medium", 2, "roborally/greedy", "roborally/random")]
    path = str(tmp_path / "program.json")
    run_cells(path, cells, races=2, options={"action_mode": "program"}, log=lambda _: None)
    assert json.loads(open(path).read())["settings"]["options"] == {"action_mode": "program"}
    with pytest.raises(ValueError, match="options"):
        run_cells(path, cells, races=4, log=lambda _: None)
    greedy = ("roborally/greedy", "roborally/greedy")
    register = play_cell("random:7", 2, *greedy, range(3), seed=5)
    program = play_cell("random:7", 2, *greedy, range(3), seed=5, options={"action_mode": "program"})
    assert program["races"] == register["races"]


def test_a_runs_curve_has_a_point_per_snapshot_and_the_baselines_levels(tmp_path):
    import shutil

    shipped = "agents/pretrained/roborally-ppo-program-joint"
    run = tmp_path / "run"
    for where in ("snapshots/000000000064", "policy"):
        shutil.copytree(shipped, run / where)
    (run / "config.json").write_text(json.dumps({"options": json.loads(open(f"{shipped}/config.json").read())
                                                 .get("options", {"rules": "seed", "action_mode": "program"})}))
    (run / "history.csv").write_text("update,steps,wall_s\n1,64,2.0\n2,128,4.0\n")
    written = run_curve(str(run), ["race_easy"], races=2, seed=31, out=str(tmp_path / "out"), log=lambda _: None)
    assert [p.rsplit("/", 1)[1] for p in written] == ["curve.csv", "curve.png", "curve.json"]
    data = json.loads(open(written[2]).read())
    assert [p["steps"] for p in data["points"]] == [64, 128]
    assert data["points"][0]["win_rate"] == data["points"][1]["win_rate"]  # the same policy on the same races
    assert set(data["levels"]["race_easy"]) == {"greedy", "mc"}
    with pytest.raises(ValueError, match="not a training run"):
        run_curve(str(tmp_path), ["race_easy"], races=2, seed=31, out=str(tmp_path / "x"))
