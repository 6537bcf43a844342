"""Reports are strict JSON: an undefined figure is null, never Infinity / NaN."""

import json
import math

import numpy as np
import pytest

from evaluate.jsonio import to_jsonable, write_json


def _strict_load(path):
    def refuse(name):
        raise AssertionError(f"{path} holds {name}, which strict JSON readers reject")

    return json.loads(path.read_text(encoding="utf-8"), parse_constant=refuse)


def test_non_finite_and_numpy_values_become_plain_json(tmp_path):
    obj = {"ci": (float("-inf"), float("inf")), "m": float("nan"), "n": np.int64(3), "x": np.float32(0.5),
           "a": np.arange(3), "b": np.bool_(True), 7: [np.float64("inf"), 1.25]}
    assert to_jsonable(obj) == {"ci": [None, None], "m": None, "n": 3, "x": 0.5, "a": [0, 1, 2], "b": True,
                                "7": [None, 1.25]}
    path = tmp_path / "sub" / "r.json"
    write_json(str(path), obj)
    assert _strict_load(path)["ci"] == [None, None]


def test_unknown_objects_need_a_default(tmp_path):
    with pytest.raises(TypeError):
        write_json(str(tmp_path / "r.json"), {"o": object()})
    write_json(str(tmp_path / "r.json"), {"o": object()}, default=lambda o: "obj")
    assert _strict_load(tmp_path / "r.json") == {"o": "obj"}


def test_a_one_deal_study_writes_null_for_its_undefined_interval(tmp_path, capsys):
    from evaluate.__main__ import main

    base = ["primi_composti", "--seed", "3", "--regret-players", "", "--option", "cards_per_player=4"]
    a, b, m = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "m.json"
    assert main(base + ["--solve-deals", "1", "--json", str(a)]) == 0
    assert main(base + ["--solve-deals", "1", "--solve-from", "1", "--json", str(b)]) == 0
    one = _strict_load(a)
    assert one["deals"] == 1 and one["value_ci"] == [None, None]
    # The parts still merge, and two deals give a defined interval.
    assert main(["primi_composti", "--merge-solves", str(a), str(b), "--json", str(m)]) == 0
    capsys.readouterr()
    both = _strict_load(m)
    assert both["deals"] == 2 and all(math.isfinite(x) for x in both["value_ci"])
