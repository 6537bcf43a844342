"""`python -m evaluate roborally`: the board list with pictures, a recorded race, and misuse (exit 2)."""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pytest
from PIL import Image

from envs.roborally.board import load_board, shipped_boards
from envs.roborally.render import ROBOT_COLOURS
from envs.roborally.rules import Config, RoboRallyGame
from evaluate.__main__ import main
from evaluate.roborally.boards import board_table, elements_used, record_race


def test_elements_used_names_what_is_on_the_board():
    assert elements_used(load_board("belts")) == ["belts", "rotating"]
    assert elements_used(load_board("lasers")) == ["walls", "lasers (beams 1/2/3)"]
    hard = elements_used(load_board("race_hard"))
    assert "crushers" in hard and "pushers" in hard and "express" in hard


def test_board_table_has_a_line_per_board():
    boards = [load_board(n) for n in ("tiny", "race_easy")]
    lines = board_table(boards).split("\n")
    assert len(lines) == 3
    assert lines[2].split()[:4] == ["race_easy", "12x12", "2", "8"]


def test_boards_lists_every_shipped_board_and_writes_its_picture(tmp_path, capsys):
    assert main(["roborally", "--boards", "--out", str(tmp_path), "--scale", "16"]) == 0
    out = capsys.readouterr().out
    for name in shipped_boards():
        b = load_board(name)
        assert re.search(rf"^{name}\s+{b.width}x{b.height}\s+{len(b.flags)}\s+{len(b.starts)}\s", out, re.M), name
        with Image.open(tmp_path / f"{name}.png") as png:
            assert png.size == (16 * b.width, 16 * b.height)
    assert f"wrote {len(shipped_boards())} picture(s)" in out


def test_boards_with_a_board_option_pictures_that_board_only(tmp_path, capsys):
    assert main(["roborally", "--boards", "--option", "board=random:7", "--out", str(tmp_path)]) == 0
    assert "random:7" in capsys.readouterr().out
    assert [p.name for p in tmp_path.iterdir()] == ["random_7.png"]


def test_record_writes_one_frame_per_register_phase(tmp_path, capsys):
    gif = tmp_path / "race.gif"
    assert main(["roborally", "--agents", "random*3", "--option", "board=arena", "--record", str(gif),
                 "--turns", "3", "--seed", "2", "--scale", "16"]) == 0
    line = capsys.readouterr().out.strip().split("\n")[-1]
    m = re.fullmatch(rf"wrote {re.escape(str(gif))}: (\d+) frames, (\d+) turns, (.*)", line)
    assert m, line
    frames, turns = int(m.group(1)), int(m.group(2))
    with Image.open(gif) as image:
        assert image.n_frames == frames
        image.seek(0)
        first = np.asarray(image.convert("RGB"))
    assert turns <= 3
    if m.group(3).startswith("no winner"):
        assert (turns, frames) == (3, 1 + 5 * 3)
    # The start frame shows the three robots (a caption strip of 24 pixels above the board).
    board = first[24:].reshape(-1, 3)
    for colour in ROBOT_COLOURS[:3]:
        assert (board == np.array(colour, dtype=np.uint8)).all(axis=1).any()


def test_record_race_is_deterministic_and_marks_the_winner(tmp_path):
    # Two robots facing one flag on a strip: somebody is likely to reach it within a few turns.
    path = tmp_path / "duel.rrb"
    path.write_text("name: duel\nsize: 7 1\nlives: 9\ngrid:\n. . S1E F1 S2W . .\n")
    game = RoboRallyGame(Config(board=str(path), num_robots=2, max_turns=50))
    a = record_race(game, ["random", "random"], str(tmp_path / "a.gif"), seed=3)
    b = record_race(game, ["random", "random"], str(tmp_path / "b.gif"), seed=3)
    assert a == b and (tmp_path / "a.gif").read_bytes() == (tmp_path / "b.gif").read_bytes()
    assert a["reason"] in ("win", "eliminated", "max_turns")
    with Image.open(tmp_path / "a.gif") as image:
        assert image.n_frames == a["frames"]
    # Start frame + at most five frames per turn, + the final frame of a win.
    assert a["turns"] * 1 + 1 <= a["frames"] <= 1 + 5 * a["turns"] + (a["winner"] is not None)


def test_record_race_rejects_a_wrong_number_of_agents(tmp_path):
    game = RoboRallyGame(Config(board="tiny", num_robots=2))
    with pytest.raises(ValueError, match="give 2 agent ids"):
        record_race(game, ["random"] * 3, str(tmp_path / "x.gif"))


@pytest.mark.slow
@pytest.mark.parametrize("argv,words", [
    (["--record", "{tmp}/race.png"], "ending in .gif"),
    (["--boards", "--scale", "4", "--out", "{tmp}"], "--scale must be >= 8"),
    (["--record", "{tmp}/x.gif", "--agents", "random*3", "--option", "num_robots=2"], "give 2 agent ids"),
    (["--record", "{tmp}/x.gif", "--turns", "0"], "--turns must be >= 1"),
    (["--boards", "--option", "board=no_such_board"], "shipped board"),
    # the study (`--study`, evaluate.roborally.study)
    (["--study", "{tmp}/s.json", "--study-boards", "nope"], "unknown board"),
    (["--study", "{tmp}/s.json", "--study-sizes", "3"], "--study-sizes"),
    (["--study", "{tmp}/s.json", "--races", "0"], "--races must be >= 1"),
    (["--study", "{tmp}/s.json", "--study-pairing", "roborally/mc"], "--study-pairing"),
    (["--study", "{tmp}/s.json", "--study-pairing", "roborally/nope,roborally/greedy"], "unknown agent"),
])
def test_misuse_is_one_usage_error_and_exit_2(tmp_path, argv, words):
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    r = subprocess.run([sys.executable, "-m", "evaluate", "roborally", *argv], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 2, r.stderr
    assert not any(tmp_path.iterdir())
    errors = [line for line in r.stderr.splitlines() if "error:" in line]
    assert len(errors) == 1 and words in errors[0], r.stderr
    assert "Traceback" not in r.stderr
