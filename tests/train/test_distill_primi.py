"""`python -m train.distill_primi`: game options beyond version and size (a policy trained with observation hints
is measured under them), and a bad option is one line with exit status 2."""

from __future__ import annotations

import json

import pytest

from train.distill_primi import main


def test_options_reach_the_game_and_the_json(tmp_path):
    out = tmp_path / "r.json"
    assert main(["--agent", "random", "--against", "primi_composti/minimax?depth=1", "--cards", "4", "--deals", "3",
                 "--option", "observation_hints=True", "--json", str(out)]) == 0
    got = json.loads(out.read_text())
    assert got["options"] == {"observation_hints": True} and got["cards_per_player"] == 4
    assert len(got["head_to_head"]["primi_composti/minimax?depth=1"]["per_deal"]) == 3 and "regret" in got


def test_a_bad_option_is_one_line_and_exit_2(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--agent", "random", "--option", "hints=yes"])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "'hints'" in err[0] and "observation_hints" in err[0]
