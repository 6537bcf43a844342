"""Board pictures: text, RGB arrays and GIFs (robots are duck-typed, so a namedtuple stands in for the engine's)."""

from __future__ import annotations

from collections import namedtuple

import numpy as np
import pytest
from PIL import Image

from envs.roborally.board import load_board, parse_board, shipped_boards
from envs.roborally.generator import generate_board
from envs.roborally.render import (
    FLAG_NUMBER_RGB,
    LASER_BEAM_RGB,
    PIT_RGB,
    ROBOT_COLOURS,
    SHOT_RGB,
    WALL_RGB,
    ansi,
    rgb_array,
    with_caption,
    write_gif,
)

Robot = namedtuple("Robot", "x y facing damage lives next_flag on_board powered_down eliminated")
Shot = namedtuple("Shot", "x0 y0 x1 y1 robot")


def robot(x, y, facing=0, damage=0, lives=3, next_flag=0, on_board=True, powered_down=False, eliminated=False):
    return Robot(x, y, facing, damage, lives, next_flag, on_board, powered_down, eliminated)


def square(picture, x, y, s):
    return picture[y * s:(y + 1) * s, x * s:(x + 1) * s].reshape(-1, 3)


def has_colour(pixels, colour) -> bool:
    return bool((pixels == np.array(colour, dtype=np.uint8)).all(axis=1).any())


@pytest.mark.parametrize("name", shipped_boards())
def test_shape_and_dtype_of_every_shipped_board(name):
    b = load_board(name)
    pic = rgb_array(b, scale=16)
    assert pic.shape == (b.height * 16, b.width * 16, 3) and pic.dtype == np.uint8


def test_deterministic():
    b = load_board("race_hard")
    robots = [robot(s.x, s.y, s.facing) for s in b.starts]
    assert np.array_equal(rgb_array(b, robots, scale=24), rgb_array(b, robots, scale=24))


def test_each_robot_colour_appears_at_its_square_and_nowhere_without_robots():
    b = load_board("race_medium")
    s = 32
    robots = [robot(st.x, st.y - 2, facing=i % 4) for i, st in enumerate(b.starts)]
    pic = rgb_array(b, robots, scale=s)
    empty = rgb_array(b, scale=s)
    for i, r in enumerate(robots):
        assert has_colour(square(pic, r.x, r.y, s), ROBOT_COLOURS[i]), i
        others = np.delete(np.arange(8), i)
        assert not any(has_colour(square(pic, r.x, r.y, s), ROBOT_COLOURS[j]) for j in others)
        assert not has_colour(empty.reshape(-1, 3), ROBOT_COLOURS[i])


def test_flag_numbers_are_large_dark_digits_on_a_white_disc():
    """Each flag's number sits on a white disc in its square's lower right, drawn large enough that the digits of
    flags 1, 2 and 3 differ in many pixels (the old 9-pixel digit on the yellow pennant was barely readable)."""
    b = load_board("race_medium")
    s = 32
    pic = rgb_array(b, scale=s)
    discs = []
    for x, y in b.flags:
        disc = pic[y * s + s // 2:(y + 1) * s - 1, x * s + s // 2 - 2:(x + 1) * s - 1].reshape(-1, 3)
        white = (disc == np.array(FLAG_NUMBER_RGB, np.uint8)).all(axis=1)
        dark = disc.max(axis=1) < 100
        assert white.sum() >= 40 and dark.sum() >= 8
        discs.append(dark)
    assert all((a != c).sum() >= 8 for i, a in enumerate(discs) for c in discs[i + 1:])


def test_robots_off_the_board_are_not_drawn():
    b = load_board("arena")
    pic = rgb_array(b, [robot(3, 3, on_board=False), robot(4, 4, eliminated=True)], scale=16)
    assert not has_colour(pic.reshape(-1, 3), ROBOT_COLOURS[0])
    assert not has_colour(pic.reshape(-1, 3), ROBOT_COLOURS[1])


def test_the_facing_turns_the_picture():
    b = parse_board("name: p\nsize: 1 1\ngrid:\n.\n")
    pics = [rgb_array(b, [robot(0, 0, facing=d)], scale=32) for d in range(4)]
    assert len({p.tobytes() for p in pics}) == 4
    # The arrow reaches furthest from the centre on the side it faces (tip 0.42 of a square, back 0.34).
    for d, p in enumerate(pics):
        rows, cols = np.nonzero((p == np.array(ROBOT_COLOURS[0], dtype=np.uint8)).all(axis=2))
        c = 15.5
        reach = [c - rows.min(), cols.max() - c, rows.max() - c, c - cols.min()]
        assert int(np.argmax(reach)) == d, (d, reach)


def test_shots_walls_pits_and_beams_are_drawn():
    b = parse_board("name: p\nsize: 4 2\ngrid:\n.:LE2 . .:wE X\n. . . .\n")
    s = 32
    plain = rgb_array(b, scale=s)
    assert has_colour(square(plain, 3, 0, s), PIT_RGB)
    assert has_colour(square(plain, 1, 0, s), LASER_BEAM_RGB)
    assert not has_colour(square(plain, 3, 0, s), LASER_BEAM_RGB)  # the wall stops the beam at (2, 0)
    assert has_colour(plain.reshape(-1, 3), WALL_RGB)
    # A robot in the beam's way stops it there.
    blocked = rgb_array(b, [robot(1, 0)], scale=s)
    assert not has_colour(square(blocked, 2, 0, s), LASER_BEAM_RGB)
    assert not has_colour(plain.reshape(-1, 3), SHOT_RGB)
    shot = rgb_array(b, [robot(0, 1, facing=1), robot(3, 1)], [Shot(0, 1, 3, 1, 0)], scale=s)
    assert has_colour(square(shot, 1, 1, s), SHOT_RGB) and has_colour(square(shot, 2, 1, s), SHOT_RGB)


def test_bad_scale_is_rejected():
    with pytest.raises(ValueError, match="scale must be an integer >= 8"):
        rgb_array(load_board("tiny"), scale=4)


def test_ansi_shows_robots_flags_walls_and_a_legend():
    b = load_board("tiny")
    text = ansi(b, [robot(0, 0, facing=1, damage=2), robot(3, 2, facing=2, powered_down=True, next_flag=2),
                    robot(1, 1, on_board=False)])
    lines = text.split("\n")
    assert len(lines) == 2 * b.height + 1 + 3
    assert "1>" in lines[1] and "2v" in lines[5]
    assert "F1" in text and "F2" in text and "---" in text and "|" in text
    assert "robot 1: at (0,0) facing E, damage 2, lives 3, next flag 1/2" in text
    assert "robot 2: at (3,2) facing S, damage 0, lives 3, all flags, powered down" in text
    assert "robot 3: destroyed" in text


def test_ansi_rows_have_one_width():
    b = generate_board(3)
    widths = {len(line) for line in ansi(b).split("\n")}
    assert widths == {4 * b.width + 1}


def test_write_gif_writes_n_readable_frames(tmp_path):
    b = load_board("tiny")
    frames = [with_caption(rgb_array(b, [robot(i % 6, 0, facing=1)], scale=16), f"register {i + 1}")
              for i in range(5)]
    path = tmp_path / "race.gif"
    write_gif(frames, str(path), ms_per_frame=250)
    with Image.open(path) as gif:
        assert gif.format == "GIF" and gif.n_frames == 5
        assert gif.size == (frames[0].shape[1], frames[0].shape[0])
        assert gif.info["duration"] == 250


def test_caption_adds_a_strip():
    pic = rgb_array(load_board("tiny"), scale=16)
    assert with_caption(pic, "turn 1", height=20).shape == (pic.shape[0] + 20, pic.shape[1], 3)


def test_write_gif_rejects_no_frames_and_mixed_sizes(tmp_path):
    with pytest.raises(ValueError, match="at least one frame"):
        write_gif([], str(tmp_path / "x.gif"))
    with pytest.raises(ValueError, match="one shape"):
        write_gif([np.zeros((8, 8, 3), np.uint8), np.zeros((8, 9, 3), np.uint8)], str(tmp_path / "x.gif"))
