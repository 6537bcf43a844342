"""The `.rrb` board format: parsing, wall mirroring, the loader's errors (file, line, column), round trips."""

from __future__ import annotations

import re

import numpy as np
import pytest

from envs.roborally import board as rb
from envs.roborally.board import BoardError, board_to_text, load_board, parse_board, same_board, shipped_boards

HEADER = "name: t\nsize: 3 2\ngrid:\n"


def board(rows: str, header: str = HEADER):
    return parse_board(header + rows, source="t.rrb")


def test_every_base_and_modifier():
    b = parse_board(
        "name: all\nsize: 4 3\nlives: 2\ngrid:\n"
        "S1E  X    cN:T      eW:F2\n"
        "gL   gR   r1:LS2    r2:PN24\n"
        "F1   S2W  .:K135:wSE  .\n",
        source="all.rrb",
    )
    assert (b.name, b.width, b.height, b.lives) == ("all", 4, 3, 2)
    assert b.floor.tolist() == [[rb.FLOOR, rb.PIT, rb.BELT, rb.EXPRESS],
                                [rb.GEAR_CCW, rb.GEAR_CW, rb.REPAIR, rb.REPAIR2],
                                [rb.FLOOR, rb.FLOOR, rb.FLOOR, rb.FLOOR]]
    assert b.belt_dir[0, 2] == 0 and b.belt_dir[0, 3] == 3 and (b.belt_dir[1:] == -1).all()
    assert b.rotating.sum() == 1 and b.rotating[0, 2]
    assert b.flags == ((0, 2), (3, 0))
    assert b.starts == (rb.Start(0, 0, 1), rb.Start(1, 2, 3))
    assert b.lasers == (rb.Laser(2, 1, 2, 2),)
    assert b.pushers == (rb.Pusher(3, 1, 0, frozenset({2, 4})),)
    assert b.crushers == (rb.Crusher(2, 2, frozenset({1, 3, 5})),)


def test_walls_are_mirrored_onto_the_neighbour():
    b = board(". .:wE .\n.:wN . .:wS\n")
    assert b.wall(1, 0, 1) and b.wall(2, 0, 3)
    assert b.walls[0, 1] == rb.WALL_E and b.walls[0, 2] == rb.WALL_W
    assert b.walls[1, 0] == rb.WALL_N and b.walls[0, 0] == rb.WALL_S
    assert b.walls[1, 2] == rb.WALL_S  # the board edge: nothing to mirror onto
    assert not b.wall(0, 0, 1)


def test_lives_absent_is_none_and_comments_are_ignored():
    b = parse_board("# a comment\nname: c   # trailing\nsize: 2 1\n\ngrid:\n. F1  # row comment\n")
    assert b.lives is None and b.flags == ((1, 0),) and b.starts == ()


def test_in_bounds():
    b = board(". . .\n. . .\n")
    assert b.in_bounds(0, 0) and b.in_bounds(2, 1)
    assert not b.in_bounds(-1, 0) and not b.in_bounds(3, 0) and not b.in_bounds(0, 2)


def test_distances_respect_walls_and_pits_and_are_cached():
    b = parse_board("name: d\nsize: 3 3\ngrid:\n. .:wE .\n. X .\n. . F1\n")
    d = b.distances((2, 2))
    assert d.dtype == np.int32 and d.shape == (3, 3)
    # (1, 0) -> (2, 0) is walled, so the way round goes west and down the left column.
    assert d.tolist() == [[4, 5, 2], [3, -1, 1], [2, 1, 0]]
    assert b.distances((2, 2)) is d and not d.flags.writeable
    enclosed = parse_board("name: e\nsize: 3 1\ngrid:\n. .:wEW F1\n")
    assert enclosed.distances((2, 0)).tolist() == [[-1, -1, 0]]


def test_board_arrays_are_read_only():
    b = load_board("tiny")
    with pytest.raises(ValueError):
        b.floor[0, 0] = rb.PIT


ERRORS = [
    # (text, line, column, words the message must contain)
    (HEADER + ". . .\n. Q .\n", 5, 3, "expected a base"),
    (HEADER + ". . .\n. c .\n", 5, 3, "expected a base"),
    (HEADER + ". . .\n. cZ .\n", 5, 3, "expected a base"),
    (HEADER + ". . .\n. . . .\n", 5, 7, "expected 3 squares"),
    (HEADER + ". . .\n. .\n", 5, 4, "expected 3 squares"),
    (HEADER + ". . .\n", 5, 1, "expected 2 grid rows"),
    (HEADER + ". . .\n. . .\n. . .\n", 6, 1, "expected 2 grid rows"),
    (HEADER + "F1 . .\n. F1 .\n", 5, 3, "duplicate flag 1"),
    (HEADER + "F1 . .\n. F3 .\n", 5, 3, "flag 2 is missing, flag 3 is out of sequence"),
    (HEADER + "F2 . .\n. . .\n", 4, 1, "flag 1 is missing"),
    (HEADER + "S1N . .\n. S1E .\n", 5, 3, "duplicate start 1"),
    (HEADER + "S1N . .\n. S3E .\n", 5, 3, "start 2 is missing"),
    (HEADER + "S2N . .\n. . F1\n", 4, 1, "start 1 is missing"),
    (HEADER + "S1Q . .\n. . .\n", 4, 1, "expected a base"),
    (HEADER + ".:wNQ . .\n. . .\n", 4, 3, "expected wall sides"),
    (HEADER + ".:wNN . .\n. . .\n", 4, 3, "expected wall sides"),
    (HEADER + ".:LW4 . .\n. . .\n", 4, 3, "1-3 beams"),
    (HEADER + ".:LQ1 . .\n. . .\n", 4, 3, "expected a laser"),
    (HEADER + ".:PE136 . .\n. . .\n", 4, 5, "register digits"),
    (HEADER + ".:PE11 . .\n. . .\n", 4, 5, "register digits"),
    (HEADER + ".:PE . .\n. . .\n", 4, 5, "register digits"),
    (HEADER + ".:K0 . .\n. . .\n", 4, 4, "register digits"),
    (HEADER + ". .:Z .\n. . .\n", 4, 5, "expected a modifier"),
    (HEADER + ". .:T .\n. . .\n", 4, 5, "only on a belt"),
    (HEADER + "X:LE1 . .\n. . .\n", 4, 3, "no ':L' on a pit"),
    (HEADER + "X:F1 . .\n. . .\n", 4, 3, "no ':F' on a pit"),
    (HEADER + "F1:F2 . .\n. . .\n", 4, 4, "one flag per square"),
    (HEADER + ".:wN:wE . .\n. . .\n", 4, 6, "duplicate modifier"),
    (HEADER + "cE .:wW .\n. . .\n", 4, 1, "does not run into a wall"),
    (HEADER + ". . .:wE:LE1\n. . .\n", 4, 10, "fire into a wall"),
    ("size: 3 2\ngrid:\n. . .\n. . .\n", 2, 1, "missing header line 'name:'"),
    ("name: t\ngrid:\n. . .\n. . .\n", 2, 1, "missing header line 'size:'"),
    ("name: t\nsize: 3 2\n", 3, 1, "missing header line 'grid:'"),
    ("name: t\nsize: 3\ngrid:\n", 2, 7, "'size: W H'"),
    ("name: t\nsize: 0 2\ngrid:\n", 2, 7, "width and height in 1..64"),
    ("name: t\nsize: 3 2\nlives: 0\ngrid:\n", 3, 8, "'lives: n'"),
    ("name: t\nsize: 3 2\nname: u\ngrid:\n", 3, 1, "duplicate header line"),
    ("name: t\nsize: 3 2\ncolour: red\ngrid:\n", 3, 1, "expected a header line"),
    ("name: t\nsize: 3 2\ngrid: x\n", 3, 1, "nothing after 'grid:'"),
]


@pytest.mark.parametrize("text,line,col,words", ERRORS)
def test_errors_name_file_line_column_and_what_was_expected(text, line, col, words):
    with pytest.raises(BoardError) as info:
        parse_board(text, source="bad.rrb")
    message = str(info.value)
    assert re.match(r"bad\.rrb:\d+:\d+: ", message), message
    assert message.startswith(f"bad.rrb:{line}:{col}: "), message
    assert words in message, message


def test_a_belt_may_run_off_the_board():
    b = board("cW . cE\n. . .\n")
    assert b.belt_dir[0, 0] == 3 and b.belt_dir[0, 2] == 1


def test_board_error_is_a_value_error():
    assert issubclass(BoardError, ValueError)


@pytest.mark.parametrize("name", shipped_boards())
def test_every_shipped_board_loads_and_round_trips(name):
    b = load_board(name)
    assert b.name == name
    again = parse_board(board_to_text(b), source=f"{name} (written)")
    assert same_board(again, b)
    assert board_to_text(again) == board_to_text(b)


def test_same_board_notices_a_difference():
    a = load_board("tiny")
    text = board_to_text(a).replace("r1", "r2", 1)
    assert not same_board(parse_board(text), a)


def test_load_board_from_a_path(tmp_path):
    path = tmp_path / "mine.rrb"
    path.write_text("name: mine\nsize: 2 1\ngrid:\nS1E F1\n")
    b = load_board(str(path))
    assert b.name == "mine" and b.starts == (rb.Start(0, 0, 1),)
    bad = tmp_path / "bad.rrb"
    bad.write_text("name: bad\nsize: 2 1\ngrid:\nS1E F1 .\n")
    with pytest.raises(BoardError, match=re.escape(f"{bad}:4:8: expected 2 squares")):
        load_board(str(bad))


def test_load_board_rejects_unknown_names_listing_the_shipped_ones():
    with pytest.raises(ValueError, match="tiny") as info:
        load_board("no_such_board")
    assert "shipped board" in str(info.value)
    with pytest.raises(ValueError, match="not found"):
        load_board("missing/file.rrb")
    with pytest.raises(ValueError, match="random:<seed>"):
        load_board("random:x")


RACES = ("race_easy", "race_medium", "race_hard")


@pytest.mark.parametrize("name", shipped_boards())
def test_every_flag_is_reachable_from_every_start_and_flag(name):
    b = load_board(name)
    for fx, fy in b.flags:
        d = b.distances((fx, fy))
        assert all(d[s.y, s.x] >= 0 for s in b.starts), (name, (fx, fy))
        assert all(d[y, x] >= 0 for x, y in b.flags), (name, (fx, fy))


@pytest.mark.parametrize("name", RACES)
def test_race_boards_have_a_dock_of_eight_and_two_to_four_flags(name):
    b = load_board(name)
    assert b.width >= 12 and b.height >= 12
    assert len(b.starts) == 8 and 2 <= len(b.flags) <= 4
    assert len({(s.x, s.y) for s in b.starts}) == 8


def test_race_boards_between_them_use_every_element():
    boards = [load_board(n) for n in RACES]
    floors = set().union(*(set(np.unique(b.floor).tolist()) for b in boards))
    assert floors == {rb.FLOOR, rb.PIT, rb.BELT, rb.EXPRESS, rb.GEAR_CW, rb.GEAR_CCW, rb.REPAIR, rb.REPAIR2}
    assert any(b.rotating.any() for b in boards)
    assert any(b.walls.any() for b in boards)
    assert {las.beams for b in boards for las in b.lasers} == {1, 2, 3}
    assert any(b.pushers for b in boards) and any(b.crushers for b in boards)


def test_race_boards_grow_harder():
    # A crude measure of difficulty that the design follows: more flags, more hazards, longer walks.
    def hazards(b):
        return int((b.floor == rb.PIT).sum()) + len(b.lasers) + len(b.pushers) + len(b.crushers) \
            + int((b.belt_dir >= 0).sum())

    def walk(b):
        legs = [b.distances(b.flags[0])[s.y, s.x] for s in b.starts]
        legs = float(np.mean(legs))
        return legs + sum(int(b.distances(b.flags[i + 1])[y, x]) for i, (x, y) in enumerate(b.flags[:-1]))

    boards = [load_board(n) for n in RACES]
    assert [len(b.flags) for b in boards] == [2, 3, 4]
    assert hazards(boards[0]) < hazards(boards[1]) < hazards(boards[2])
    assert walk(boards[0]) < walk(boards[1]) < walk(boards[2])
