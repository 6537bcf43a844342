"""The RoboRally study: cells of duplicate races, incremental and resumable JSON, summaries, plots (its CLI misuse:
`test_roborally_cli`)."""

import json

from evaluate.roborally.study import budget_cells, play_cell, plot, run_cells, study_cells, summarise


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
