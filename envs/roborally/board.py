"""RoboRally boards: the immutable `Board`, the `.rrb` text format (parser and writer) and the shipped boards.

Coordinates and directions as in `envs.roborally.elements`; the format, its tokens and what the loader rejects (a
`BoardError` "<file>:<line>:<col>: <what was expected>") in docs/roborally.md ("Boards"). Every board a game plays
has a flag reachable from every start (`unreachable`).
"""

from __future__ import annotations

import dataclasses
import re
from collections import deque
from pathlib import Path

import numpy as np

from envs.core.files import InputFileError, read_text
from envs.roborally.elements import (
    BELT,
    DIRECTION_LETTERS,
    DX,
    DY,
    EXPRESS,
    FLOOR,
    GEAR_CCW,
    GEAR_CW,
    PIT,
    REPAIR,
    REPAIR2,
    WALL_E,
    WALL_N,
    WALL_S,
    WALL_W,
    Board,
    Crusher,
    E,
    Laser,
    N,
    Pusher,
    S,
    Start,
    W,
)
from envs.roborally.generator import generate_board

BOARDS_DIR = Path(__file__).resolve().parent / "boards"
MAX_SIDE = 64  # keeps a typo in `size:` from allocating a huge board


class BoardError(InputFileError):
    """A malformed board file; the message reads "<file>:<line>:<col>: <what was expected>"."""


class RaceBoardError(BoardError):
    """A well-formed board on which no race can be run: no flag, or a flag out of reach of a start."""


# --------------------------------------------------------------------------------------------------- parsing

_BASE_RE = {
    "belt": re.compile(r"([ce])([NESW])"),
    "flag": re.compile(r"F([0-9]+)"),
    "start": re.compile(r"S([0-9]+)([NESW])"),
}
_SIMPLE_BASES = {".": FLOOR, "X": PIT, "gL": GEAR_CCW, "gR": GEAR_CW, "r1": REPAIR, "r2": REPAIR2}
_BASE_HELP = "a base: . X c{D} e{D} gL gR r1 r2 F{k} S{k}{D} (D in N E S W)"
_MOD_HELP = "a modifier: w{sides} L{D}{1-3} P{D}{registers} K{registers} T F{k}"


def _registers(text: str, where: str) -> frozenset[int]:
    """Register digits 1..5, each at most once, at least one."""
    if not text or any(ch not in "12345" for ch in text) or len(set(text)) != len(text):
        raise BoardError(f"{where}: expected register digits 1-5, each at most once (e.g. 135), got {text!r}")
    return frozenset(int(ch) for ch in text)


def _read_header(text: str, source: str) -> tuple[str, int, int, int | None, list, int]:
    """(name, width, height, lives, rows, grid line) of `.rrb` text: the checked header lines, then the grid's
    rows as (line number, [(token, column)])."""
    header: dict[str, tuple[str, int, int]] = {}
    grid_line = None
    lines = text.splitlines()
    rows: list[tuple[int, list[tuple[str, int]]]] = []  # (line number, [(token, column)])
    for number, raw in enumerate(lines, start=1):
        line = raw.split("#", 1)[0].rstrip()
        if not line.strip():
            continue
        if grid_line is None:
            key, sep, value = line.partition(":")
            key = key.strip()
            col = len(line) - len(line.lstrip()) + 1
            if not sep or key not in ("name", "size", "lives", "grid"):
                raise BoardError(f"{source}:{number}:{col}: expected a header line 'name:', 'size:', 'lives:' "
                                 f"or 'grid:', got {line.strip()!r}")
            if key in header or (key == "grid" and grid_line is not None):
                raise BoardError(f"{source}:{number}:{col}: duplicate header line '{key}:'")
            if key == "grid":
                if value.strip():
                    raise BoardError(f"{source}:{number}:{col}: expected nothing after 'grid:' (rows follow)")
                grid_line = number
                continue
            value_col = line.index(":") + 2 + len(value) - len(value.lstrip())
            header[key] = (value.strip(), number, value_col)
            continue
        tokens = [(m.group(0), m.start() + 1) for m in re.finditer(r"\S+", line)]
        rows.append((number, tokens))

    last = len(lines) + 1
    for key in ("name", "size"):
        if key not in header:
            raise BoardError(f"{source}:{last if grid_line is None else grid_line}:1: missing header line '{key}:'")
    if grid_line is None:
        raise BoardError(f"{source}:{last}:1: missing header line 'grid:' before the rows")
    name, _, _ = header["name"]
    if not name:
        raise BoardError(f"{source}:{header['name'][1]}:{header['name'][2]}: expected a board name after 'name:'")
    size_text, size_line, size_col = header["size"]
    if not re.fullmatch(r"[0-9]+\s+[0-9]+", size_text):
        raise BoardError(f"{source}:{size_line}:{size_col}: expected 'size: W H' (two integers), got {size_text!r}")
    width, height = (int(v) for v in size_text.split())
    if not (1 <= width <= MAX_SIDE and 1 <= height <= MAX_SIDE):
        raise BoardError(f"{source}:{size_line}:{size_col}: expected width and height in 1..{MAX_SIDE}, "
                         f"got {width} {height}")
    lives = None
    if "lives" in header:
        lives_text, lives_line, lives_col = header["lives"]
        if not re.fullmatch(r"[0-9]+", lives_text) or int(lives_text) < 1:
            raise BoardError(f"{source}:{lives_line}:{lives_col}: expected 'lives: n' with n >= 1, got {lives_text!r}")
        lives = int(lives_text)
    if len(rows) != height:
        at = rows[height][0] if len(rows) > height else last
        raise BoardError(f"{source}:{at}:1: expected {height} grid rows (size {width} {height}), got {len(rows)}")
    return name, width, height, lives, rows, grid_line


class _Grid:
    """The squares of a board being parsed: its arrays and devices, and where each was written (for messages)."""

    def __init__(self, width: int, height: int, source: str):
        self.width, self.height, self.source = width, height, source
        self.floor = np.zeros((height, width), dtype=np.int8)
        self.belt_dir = np.full((height, width), -1, dtype=np.int8)
        self.rotating = np.zeros((height, width), dtype=bool)
        self.walls = np.zeros((height, width), dtype=np.uint8)
        self.lasers: list[Laser] = []
        self.pushers: list[Pusher] = []
        self.crushers: list[Crusher] = []
        self.flags: dict[int, tuple[int, int, int, int]] = {}  # k -> (x, y, line, col)
        self.starts: dict[int, tuple[Start, int, int]] = {}
        self.wall_sources: list[tuple[int, int, int, int, int]] = []  # (x, y, side, line, col) as written
        self.laser_sources: list[tuple[Laser, int, int]] = []
        self.belt_sources: list[tuple[int, int, int, int]] = []

    def row(self, y: int, number: int, tokens: list[tuple[str, int]]) -> None:
        """Read grid row `y` (line `number`)."""
        if len(tokens) != self.width:
            col = tokens[self.width][1] if len(tokens) > self.width else tokens[-1][1] + len(tokens[-1][0])
            raise BoardError(f"{self.source}:{number}:{col}: expected {self.width} squares in this row, "
                             f"got {len(tokens)}")
        for x, (token, col) in enumerate(tokens):
            self.square(x, y, token, number, col)

    def square(self, x: int, y: int, token: str, number: int, col: int) -> None:
        """Read the square (x, y) from its token, written at line `number`, column `col`."""
        where = f"{self.source}:{number}:{col}"
        parts = token.split(":")
        base = parts[0]
        flag_here = self._base(x, y, base, where, number, col)
        seen: set[str] = set()
        mod_col = col + len(base) + 1
        for mod in parts[1:]:
            mwhere = f"{self.source}:{number}:{mod_col}"
            kind = mod[:1]
            if kind in seen:
                raise BoardError(f"{mwhere}: duplicate modifier ':{kind}' on one square (write it once)")
            seen.add(kind)
            flag_here = self._modifier(x, y, mod, mwhere, number, mod_col, flag_here)
            if kind in "LPKF" and self.floor[y, x] == PIT:
                raise BoardError(f"{mwhere}: expected no ':{kind}' on a pit")
            mod_col += len(mod) + 1
        if self.floor[y, x] in (BELT, EXPRESS):
            self.belt_sources.append((x, y, number, col))
        if flag_here is not None:
            if flag_here < 1:
                raise BoardError(f"{where}: expected a flag number >= 1, got {flag_here}")
            if flag_here in self.flags:
                _, _, line0, col0 = self.flags[flag_here]
                raise BoardError(f"{where}: duplicate flag {flag_here} (also at line {line0}, column {col0})")
            self.flags[flag_here] = (x, y, number, col)

    def _base(self, x: int, y: int, base: str, where: str, number: int, col: int) -> int | None:
        """Read a square's base; the flag number if it is a flag."""
        if base in _SIMPLE_BASES:
            self.floor[y, x] = _SIMPLE_BASES[base]
        elif m := _BASE_RE["belt"].fullmatch(base):  # c: belt, e: express belt
            self.floor[y, x] = BELT if m.group(1) == "c" else EXPRESS
            self.belt_dir[y, x] = DIRECTION_LETTERS.index(m.group(2))
        elif m := _BASE_RE["flag"].fullmatch(base):
            return int(m.group(1))
        elif m := _BASE_RE["start"].fullmatch(base):
            k = int(m.group(1))
            if k < 1:
                raise BoardError(f"{where}: expected a start number >= 1, got {base!r}")
            if k in self.starts:
                _, line0, col0 = self.starts[k]
                raise BoardError(f"{where}: duplicate start {k} (also at line {line0}, column {col0})")
            self.starts[k] = (Start(x, y, DIRECTION_LETTERS.index(m.group(2))), number, col)
        else:
            raise BoardError(f"{where}: expected {_BASE_HELP}, got {base!r}")
        return None

    def _modifier(self, x: int, y: int, mod: str, mwhere: str, number: int, mod_col: int,
                  flag_here: int | None) -> int | None:
        """Read one modifier of square (x, y); the square's flag number (a flag modifier sets it)."""
        kind = mod[:1]
        if kind == "w" and len(mod) > 1 and all(ch in DIRECTION_LETTERS for ch in mod[1:]) \
                and len(set(mod[1:])) == len(mod) - 1:
            for ch in mod[1:]:
                side = DIRECTION_LETTERS.index(ch)
                self.walls[y, x] |= 1 << side
                self.wall_sources.append((x, y, side, number, mod_col))
        elif kind == "w":
            raise BoardError(f"{mwhere}: expected wall sides from N E S W, each once (e.g. wNE), got {mod!r}")
        elif kind == "L":
            m = re.fullmatch(r"L([NESW])([0-9])", mod)
            if not m or not 1 <= int(m.group(2)) <= 3:
                raise BoardError(f"{mwhere}: expected a laser L{{D}}{{beams}} with D in N E S W and "
                                 f"1-3 beams (e.g. LW2), got {mod!r}")
            laser = Laser(x, y, DIRECTION_LETTERS.index(m.group(1)), int(m.group(2)))
            self.lasers.append(laser)
            self.laser_sources.append((laser, number, mod_col))
        elif kind == "P":
            m = re.fullmatch(r"P([NESW])(.*)", mod)
            if not m:
                raise BoardError(f"{mwhere}: expected a pusher P{{D}}{{registers}} (e.g. PE135), got {mod!r}")
            self.pushers.append(Pusher(x, y, DIRECTION_LETTERS.index(m.group(1)),
                                       _registers(m.group(2), f"{self.source}:{number}:{mod_col + 2}")))
        elif kind == "K":
            self.crushers.append(Crusher(x, y, _registers(mod[1:], f"{self.source}:{number}:{mod_col + 1}")))
        elif kind == "T" and mod == "T":
            if self.floor[y, x] not in (BELT, EXPRESS):
                raise BoardError(f"{mwhere}: expected ':T' (rotating belt) only on a belt or express belt")
            self.rotating[y, x] = True
        elif kind == "F" and (m := re.fullmatch(r"F([0-9]+)", mod)):
            if flag_here is not None:
                raise BoardError(f"{mwhere}: expected one flag per square")
            return int(m.group(1))
        else:
            raise BoardError(f"{mwhere}: expected {_MOD_HELP}, got {mod!r}")
        return flag_here

    def finish(self) -> None:
        """Mirror the walls, then check the belts, lasers and the numbering of flags and starts."""
        source, walls = self.source, self.walls
        # Mirror walls: a wall on the E side of (x, y) is the wall on the W side of (x + 1, y).
        for x, y, side, _, _ in self.wall_sources:
            nx, ny = x + DX[side], y + DY[side]
            if 0 <= nx < self.width and 0 <= ny < self.height:
                walls[ny, nx] |= 1 << ((side + 2) % 4)
        for x, y, number, col in self.belt_sources:
            d = int(self.belt_dir[y, x])
            if walls[y, x] & (1 << d):
                raise BoardError(f"{source}:{number}:{col}: expected a belt that does not run into a wall "
                                 f"(wall on its {DIRECTION_LETTERS[d]} side)")
        for laser, number, col in self.laser_sources:
            if walls[laser.y, laser.x] & (1 << laser.direction):
                raise BoardError(f"{source}:{number}:{col}: expected a laser that does not fire into a wall on its "
                                 f"own square (wall on its {DIRECTION_LETTERS[laser.direction]} side)")
        for label, numbered in (("flag", self.flags), ("start", self.starts)):
            count = len(numbered)
            beyond = sorted(k for k in numbered if k > count)
            if beyond:  # a gap below: point at the first number past the end of the sequence
                missing = min(set(range(1, count + 1)) - set(numbered))
                line0, col0 = numbered[beyond[0]][-2:]
                raise BoardError(f"{source}:{line0}:{col0}: expected {label}s numbered 1..{count} without gaps: "
                                 f"{label} {missing} is missing, {label} {beyond[0]} is out of sequence")


def parse_board(text: str, source: str = "<string>", race: bool = False) -> Board:
    """Parse `.rrb` text into a `Board`; raise `BoardError` naming file, line, column and what was expected.

    With `race` (as `load_board`, and so every game, reads a board), also what a race needs: at least one flag,
    and every flag within reach of every start square (`unreachable`); without it a fragment parses as drawn
    (a picture, a test of one element)."""
    name, width, height, lives, rows, grid_line = _read_header(text, source)
    grid = _Grid(width, height, source)
    for y, (number, tokens) in enumerate(rows):
        grid.row(y, number, tokens)
    grid.finish()
    flags, starts = grid.flags, grid.starts
    board = Board(
        name=name, width=width, height=height, floor=grid.floor, belt_dir=grid.belt_dir, rotating=grid.rotating,
        walls=grid.walls, lasers=tuple(grid.lasers), pushers=tuple(grid.pushers), crushers=tuple(grid.crushers),
        flags=tuple((flags[k][0], flags[k][1]) for k in sorted(flags)),
        starts=tuple(starts[k][0] for k in sorted(starts)), lives=lives,
    )
    if race:
        _check_race(board, source, grid_line, {k: v[2:] for k, v in flags.items()},
                    {k: v[1:] for k, v in starts.items()})
    return board


def check_race(board: Board) -> None:
    """Raise `RaceBoardError` (the file, line and column `load_board` found) where no race can be run on `board`."""
    if board.race_error is not None:
        raise RaceBoardError(board.race_error)


def _check_race(board: Board, source: str, grid_line: int, flag_at: dict, start_at: dict) -> None:
    """Raise `BoardError` (at the `grid:` line, or at the flag's line and column) unless `board` has a flag and
    every flag is within reach of every start; `flag_at` / `start_at`: number -> (line, column)."""
    if not board.flags:
        raise RaceBoardError(f"{source}:{grid_line}:1: expected at least one flag (F1) on the board: a race needs a "
                             "goal")
    cut = unreachable(board)
    if cut is not None:
        k, j = cut
        raise RaceBoardError(f"{source}:{flag_at[k][0]}:{flag_at[k][1]}: expected every flag reachable from every "
                             f"start: flag {k} cannot be reached from start {j} (line {start_at[j][0]}, column "
                             f"{start_at[j][1]}); walls and pits close it off")


def _reach(board: Board, start: tuple[int, int]) -> np.ndarray:
    """Every square a robot from `start` could ever stand on (bool [h, w]), over-approximated so that a square
    outside it is surely out of reach: a robot moves, is pushed or carried one square at a time into an on-board
    square that is not a pit and not behind a wall; a destroyed robot re-enters on its archive (a square it stood
    on: its start, a flag or a wrench) or on any of the archive's eight neighbours. Robots, belt directions and gears
    are ignored."""
    archive = np.isin(board.floor, (REPAIR, REPAIR2))
    for x, y in board.flags:
        archive[y, x] = True
    seen = np.zeros((board.height, board.width), dtype=bool)
    seen[start[1], start[0]] = True
    queue = deque([start])
    while queue:
        x, y = queue.popleft()
        steps = [(x + DX[d], y + DY[d]) for d in range(4) if not board.walls[y, x] & (1 << d)]
        if archive[y, x] or (x, y) == start:  # re-entry beside an archive, walls or not
            steps += [(x + dx, y + dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)]
        for nx, ny in steps:
            if 0 <= nx < board.width and 0 <= ny < board.height and not seen[ny, nx] and board.floor[ny, nx] != PIT:
                seen[ny, nx] = True
                queue.append((nx, ny))
    return seen


def unreachable(board: Board) -> tuple[int, int] | None:
    """(flag k, start j), both numbered from 1, for the first flag that the robot of some start can never reach
    (so a race with that robot could never be won by it, and one of only such robots would never end); None when
    every flag is within reach of every start (see `_reach` for what counts as reachable)."""
    for j, s in enumerate(board.starts, start=1):
        seen = _reach(board, (s.x, s.y))
        for k, (x, y) in enumerate(board.flags, start=1):
            if not seen[y, x]:
                return k, j
    return None


# --------------------------------------------------------------------------------------------------- writing

def _square_token(board: Board, x: int, y: int, flag_at: dict, start_at: dict) -> str:
    """The `.rrb` token of one square."""
    code = int(board.floor[y, x])
    mods = []
    if (x, y) in start_at:
        k, start = start_at[(x, y)]
        base = f"S{k}{DIRECTION_LETTERS[start.facing]}"
    elif code == FLOOR and (x, y) in flag_at:
        base = f"F{flag_at[(x, y)]}"
    elif code in (BELT, EXPRESS):
        base = ("c" if code == BELT else "e") + DIRECTION_LETTERS[int(board.belt_dir[y, x])]
    else:
        base = next(token for token, c in _SIMPLE_BASES.items() if c == code)
    if (x, y) in flag_at and not base.startswith("F"):
        mods.append(f"F{flag_at[(x, y)]}")
    bits = int(board.walls[y, x])
    if bits:
        mods.append("w" + "".join(DIRECTION_LETTERS[d] for d in range(4) if bits & (1 << d)))
    mods += [f"L{DIRECTION_LETTERS[las.direction]}{las.beams}" for las in board.lasers if (las.x, las.y) == (x, y)]
    mods += [f"P{DIRECTION_LETTERS[p.direction]}{''.join(map(str, sorted(p.registers)))}"
             for p in board.pushers if (p.x, p.y) == (x, y)]
    mods += [f"K{''.join(map(str, sorted(c.registers)))}" for c in board.crushers if (c.x, c.y) == (x, y)]
    if board.rotating[y, x]:
        mods.append("T")
    return ":".join([base, *mods])


def board_to_text(board: Board) -> str:
    """The `.rrb` text of a board (walls written on both squares); `parse_board` of it gives the same content."""
    flag_at = {xy: k for k, xy in enumerate(board.flags, start=1)}
    start_at = {(s.x, s.y): (k, s) for k, s in enumerate(board.starts, start=1)}
    tokens = [[_square_token(board, x, y, flag_at, start_at) for x in range(board.width)] for y in range(board.height)]
    widths = [max(len(row[x]) for row in tokens) + 2 for x in range(board.width)]
    out = [f"name: {board.name}", f"size: {board.width} {board.height}"]
    if board.lives is not None:
        out.append(f"lives: {board.lives}")
    out.append("grid:")
    out += ["".join(t.ljust(w) for t, w in zip(row, widths)).rstrip() for row in tokens]
    return "\n".join(out) + "\n"


def same_board(a: Board, b: Board) -> bool:
    """Whether two boards have the same content (name, size, squares, devices, flags, starts, lives)."""
    return (a.name, a.width, a.height, a.lives, a.flags, a.starts) == (b.name, b.width, b.height, b.lives, b.flags,
                                                                       b.starts) \
        and set(a.lasers) == set(b.lasers) and set(a.pushers) == set(b.pushers) and set(a.crushers) == set(b.crushers) \
        and all(np.array_equal(getattr(a, f), getattr(b, f)) for f in ("floor", "belt_dir", "rotating", "walls"))


# --------------------------------------------------------------------------------------------------- loading

def shipped_boards() -> tuple[str, ...]:
    """Names of the boards shipped in the package (envs/roborally/boards/*.rrb), sorted."""
    return tuple(sorted(p.stem for p in BOARDS_DIR.glob("*.rrb")))


def load_board(spec: str) -> Board:
    """A board from a shipped name ("tiny", "race_easy", ...), a path to a `.rrb` file, or "random:<seed>[:WxH]"."""
    if not isinstance(spec, str) or not spec:
        raise ValueError(f"board must be a non-empty string, got {spec!r}")
    if spec.startswith("random:"):
        m = re.fullmatch(r"random:([0-9]+)(?::([0-9]+)x([0-9]+))?", spec)
        if not m:
            raise ValueError(f"random board spec must be 'random:<seed>' or 'random:<seed>:<W>x<H>', got {spec!r}")
        if m.group(2):
            return generate_board(int(m.group(1)), width=int(m.group(2)), height=int(m.group(3)))
        return generate_board(int(m.group(1)))
    shipped = shipped_boards()
    if spec in shipped:
        path = BOARDS_DIR / f"{spec}.rrb"
    else:
        path = Path(spec)
        if not (spec.endswith(".rrb") or path.is_file()):
            raise ValueError(f"unknown board {spec!r}: expected a shipped board ({', '.join(shipped)}), "
                             f"a path to a .rrb file, or 'random:<seed>[:WxH]'")
        if not path.exists():
            raise BoardError(f"board file {spec!r} not found (shipped boards: {', '.join(shipped)})")
    text = read_text(path, what="board file")
    try:
        return parse_board(text, source=str(path), race=True)
    except RaceBoardError as e:  # the rules engine takes it (a test of one rule); a race on it is refused
        return dataclasses.replace(parse_board(text, source=str(path)), race_error=str(e))


__all__ = [
    "BELT", "BOARDS_DIR", "DIRECTION_LETTERS", "DX", "DY", "E", "EXPRESS", "FLOOR", "GEAR_CCW", "GEAR_CW", "N", "PIT",
    "REPAIR", "REPAIR2", "S", "W", "WALL_E", "WALL_N", "WALL_S", "WALL_W", "Board", "BoardError", "Crusher",
    "RaceBoardError", "check_race", "Laser",
    "Pusher", "Start", "board_to_text", "load_board", "parse_board", "same_board", "shipped_boards",
    "unreachable",
]
