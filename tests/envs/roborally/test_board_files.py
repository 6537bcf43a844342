"""Board files a user hands us: special files, binary and oversized files, boards no race can finish on.

Each is refused by `load_board` (and so by every game, env and command) with one line naming the file (and the
line and column where the board's content is at fault), in seconds and without blocking."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

import envs
from envs.core.files import MAX_TEXT_BYTES, InputFileError
from envs.roborally.board import BoardError, load_board, parse_board, shipped_boards, unreachable
from envs.roborally.generator import generate_board

HEADER = "name: t\nsize: 4 1\ngrid:\n"


def refused(spec: str, *match: str) -> str:
    """The one-line message with which a game on board `spec` is refused (within 10 s): the file when the game is
    made, a board that can hold no race when a race is dealt on it (the rules engine takes it, for a test of a
    rule)."""
    old = signal.signal(signal.SIGALRM, lambda *_: (_ for _ in ()).throw(TimeoutError(f"{spec} blocked")))
    signal.alarm(10)
    try:
        with pytest.raises(InputFileError) as err:
            envs.make_game("roborally", board=spec, max_turns=None).deal(0)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    message = str(err.value)
    assert "\n" not in message and all(m in message for m in match), message
    return message


def test_special_files_are_refused_without_blocking(tmp_path):
    os.mkfifo(tmp_path / "pipe.rrb")
    (tmp_path / "zero.rrb").symlink_to("/dev/zero")
    (tmp_path / "folder.rrb").mkdir()
    refused(str(tmp_path / "pipe.rrb"), "pipe.rrb", "is a FIFO")
    refused(str(tmp_path / "zero.rrb"), "zero.rrb", "a link to '/dev/zero'", "character device")
    refused(str(tmp_path / "folder.rrb"), "folder.rrb", "is a directory")


def test_binary_and_oversized_files_are_refused_by_name(tmp_path):
    (tmp_path / "bin.rrb").write_bytes(bytes(range(256)) * 4)
    refused(str(tmp_path / "bin.rrb"), "bin.rrb", "not UTF-8 text (byte 0x80 at offset 128)")
    (tmp_path / "nul.rrb").write_bytes(b"name: x\nsize: 1 1\ngrid:\n\x00\n")
    refused(str(tmp_path / "nul.rrb"), "nul.rrb", "not text (a NUL byte")
    with open(tmp_path / "big.rrb", "wb") as f:
        f.truncate(2 * 2**30)  # 2 GB, sparse: refused from its size alone
    refused(str(tmp_path / "big.rrb"), "big.rrb", "2,147,483,648 bytes", f"more than the {MAX_TEXT_BYTES // 2**20} MiB")


def test_a_board_without_flags_is_refused_at_its_grid_line(tmp_path):
    (tmp_path / "noflag.rrb").write_text(HEADER + "S1E S2E . .\n")
    message = refused(str(tmp_path / "noflag.rrb"), "expected at least one flag")
    assert message.startswith(f"{tmp_path / 'noflag.rrb'}:3:1: ")
    game = envs.make_game("roborally", board=str(tmp_path / "noflag.rrb"), max_turns=40)  # the rules take it
    assert load_board(str(tmp_path / "noflag.rrb")).race_error == message
    with pytest.raises(BoardError, match="expected at least one flag"):  # the typed error, a ValueError
        envs.make_encoder("roborally", game)  # what every env, training run and learned agent reads it through


@pytest.mark.parametrize("row,flag_col,start", [
    ("S1E S2E:wE F1 .", 12, 1),  # a wall between both starts and the flag
    ("S1E S2E X F1", 11, 1),     # a pit: moving two squares steps into it
    ("S1E X S2E F1", 11, 1),     # start 1 is cut off, start 2 is not
])
def test_a_flag_out_of_reach_is_refused_at_its_square(tmp_path, row, flag_col, start):
    (tmp_path / "cut.rrb").write_text(HEADER + row + "\n")
    message = refused(str(tmp_path / "cut.rrb"), f"flag 1 cannot be reached from start {start}")
    assert message.startswith(f"{tmp_path / 'cut.rrb'}:4:{flag_col}: ")


def test_reach_counts_re_entry_beside_an_archive():
    """A destroyed robot re-enters beside its archive (a wrench here) whatever the walls: the flag behind the
    wall is reachable that way, so the board is a race."""
    b = parse_board("name: t\nsize: 3 2\ngrid:\nS1E r1:wE F1\nS2E X:wN X\n", race=True)
    assert unreachable(b) is None
    b = parse_board("name: t\nsize: 3 2\ngrid:\nS1E .:wE F1\nS2E X X\n")
    assert unreachable(b) == (1, 1)


def test_every_shipped_and_generated_board_is_a_race():
    for name in shipped_boards():
        assert unreachable(load_board(name)) is None, name
    for seed in range(40):
        assert unreachable(generate_board(seed)) is None, seed


def test_a_fragment_still_parses_without_the_race_checks():
    assert parse_board(HEADER + ". . . .\n").flags == ()
    with pytest.raises(BoardError, match="expected at least one flag"):
        parse_board(HEADER + ". . . .\n", source="t.rrb", race=True)


def test_the_cli_says_one_line_and_exits_2(tmp_path):
    (tmp_path / "bin.rrb").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64))
    out = tmp_path / "r.json"
    proc = subprocess.run([sys.executable, "-m", "evaluate", "roborally", "--option", f"board={tmp_path / 'bin.rrb'}",
                           "--games", "2", "--no-progress", "--json", str(out)], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "bin.rrb" in proc.stderr and "not UTF-8 text" in proc.stderr and not out.exists()
