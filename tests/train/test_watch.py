"""What a person sees while `python -m train GAME` learns (the default learner, not on a terminal): the kernels'
preparation said and timed first, then a progress line at most every `LINE_EVERY_S` seconds and at the end; and
`--max-minutes` counts learning, not the compilation before it."""

from __future__ import annotations

import csv
import os
import re
import time

from train import vector_ppo
from train.__main__ import main

#: The Game solo, 5 updates of 8 tables x 16 steps, no evaluation.
RUN = ["the_game", "--option", "num_players=1", "--timesteps", "640", "--n-envs", "8", "--n-steps", "16",
       "--batch-size", "64", "--n-epochs", "1", "--hidden", "16,16", "--eval-games", "0", "--final-eval-games", "0",
       "--no-progress"]


def _progress_lines(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith("train the_game: ") and " steps/s" in line]


def test_the_first_lines_say_the_kernels_and_progress_comes_at_most_every_interval(tmp_path, capsys, monkeypatch):
    assert main([*RUN, "--out", str(tmp_path / "a")]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == "train the_game: learner cleanrl"
    assert lines[1].startswith("train the_game: preparing the The Game kernels")
    assert lines[2].startswith("train the_game: kernels ready in ") and lines[2].endswith(" s")
    progress = _progress_lines(out)  # the first update and the last: the other three fall inside 30 s
    assert [p.split()[2] for p in progress] == ["128/640", "640/640"], progress

    monkeypatch.setattr(vector_ppo, "LINE_EVERY_S", 0.0)
    assert main([*RUN, "--out", str(tmp_path / "b")]) == 0
    assert len(_progress_lines(capsys.readouterr().out)) == 5


def test_max_minutes_counts_learning_not_the_compilation(tmp_path, capsys, monkeypatch):
    """The kernels take 3 s more to prepare here; a budget of 0.03 s of learning still ends the run after an update
    or two whose clock reads well under those 3 s."""
    real = vector_ppo.warm_up

    def slow_warm_up(cfg, say):
        took = real(cfg, say)
        time.sleep(3.0)
        return took

    monkeypatch.setattr(vector_ppo, "warm_up", slow_warm_up)
    out = str(tmp_path / "run")
    assert main([*RUN, "--max-minutes", "0.0005", "--out", out]) == 0
    said = re.search(r"the budget of 0\.0005 learning minutes is spent at (\d+) steps", capsys.readouterr().out)
    with open(os.path.join(out, "history.csv"), newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    # an update takes 0.02-0.1 s (warm torch or not): the budget ends the run before its 640 steps, and the clock
    # of every update it learned reads under the 3 s the kernels took
    assert said and int(said.group(1)) == int(rows[-1]["steps"]) < 640
    assert all(float(r["wall_s"]) < 3.0 for r in rows)
