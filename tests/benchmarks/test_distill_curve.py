"""benchmarks/distill_curve.py: it plots the paired runner's comparisons (student minus baseline) and the saved
curves."""

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from evaluate.jsonio import write_json
from evaluate.paired import run_paired_many

_ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("distill_curve", _ROOT / "benchmarks" / "distill_curve.py")
curve = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(curve)


def test_runner_json_is_plotted_as_student_minus_baseline(tmp_path, monkeypatch, capsys):
    results = run_paired_many("simple_poker", ["simple_poker/nash", "random", "simple_poker/threshold?t=2"],
                              "simple_poker/nash", games=20, seed=1)
    path = tmp_path / "curve.json"
    write_json(str(path), {"comparisons": [r.to_dict() for r in results]})  # what `--paired --json` writes
    diffs = curve.differences(json.loads(path.read_text()))
    for r in results:
        assert diffs[r.b] == (-r.pooled.diff, -r.pooled.diff_ci95[1], -r.pooled.diff_ci95[0])
    wins = curve.differences(json.loads(path.read_text()), "win")
    assert wins["random"] == pytest.approx((-results[0].pooled.win_diff, -results[0].pooled.win_diff_ci95[1],
                                            -results[0].pooled.win_diff_ci95[0]))
    png = tmp_path / "curve.png"
    monkeypatch.setattr(sys, "argv", ["distill_curve.py", "--paired", str(path), "--out", str(png),
                                      "--students", "random=10,simple_poker/threshold?t=2=100=t2"])
    curve.main()
    assert png.stat().st_size > 0 and f"wrote {png}" in capsys.readouterr().out


@pytest.mark.parametrize("name,student", [("the_game_solo", "the_game/learned"),
                                          ("lama_seed2022", "lama/learned-seed2022"),
                                          ("primi_composti_v1", "distill-30")])
def test_saved_curves_still_read(name, student):
    with open(_ROOT / "docs" / "data" / f"{name}_distill_curve.json", encoding="utf-8") as f:
        diff, low, high = curve.differences(json.load(f))[student]
    assert low <= diff <= high
