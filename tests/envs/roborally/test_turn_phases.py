"""The readable engine's turn is the rulebook's phases, one `_Turn` method each, each naming its compiled twin."""

import inspect
import re

import numpy as np
import pytest

from envs.roborally import fast
from envs.roborally.board import PIT, BoardError, parse_board
from envs.roborally.rules import Config, RoboRallyGame, Robot, _Turn

REGISTER_PHASE = ("move_robots", "board_elements", "fire_lasers", "touch_checkpoints")
END_OF_TURN = ("repair", "power_down_bookkeeping", "reenter")
HELPERS = ("destroy", "push_step", "damage", "convey")


def test_every_phase_names_its_rulebook_step_and_an_existing_twin():
    for name in REGISTER_PHASE + END_OF_TURN + HELPERS:
        doc = getattr(_Turn, name).__doc__
        assert doc and "rulebook §" in doc, name
        twins = re.findall(r"`fast\.(\w+)`", doc)
        assert twins, f"{name} names no twin in envs.roborally.fast"
        for twin in twins:
            assert callable(getattr(fast, twin, None)), f"{name}: fast.{twin} does not exist"


def test_phase_blocks_named_in_turn_kernel_exist():
    """A phase paired with a commented block of `turn_kernel` names a block that is there."""
    source = inspect.getsource(fast.turn_kernel.py_func)
    for name in REGISTER_PHASE + END_OF_TURN:
        blocks = re.findall(r'block "([^"]+)"', getattr(_Turn, name).__doc__)
        assert blocks, f"{name} names no block of turn_kernel"
        for block in blocks:
            assert f"# {block}" in source, f"{name}: no block {block!r} in turn_kernel"


def _crowd(game, rng, n):
    """`n` robots on distinct squares, most on belts (belt conflicts), random facings."""
    b = game.board
    belts = [(x, y) for y in range(b.height) for x in range(b.width) if b.belt_dir[y, x] >= 0]
    others = [(x, y) for y in range(b.height) for x in range(b.width) if b.belt_dir[y, x] < 0 and b.floor[y, x] != PIT]
    k = min(len(belts), int(rng.integers(1, n + 1)))
    squares = [belts[j] for j in rng.permutation(len(belts))[:k]]
    squares += [others[j] for j in rng.permutation(len(others))[:n - k]]
    return [Robot(x, y, int(rng.integers(4))) for x, y in squares]


def _belt_field(path, seed):
    """An 8x8 board file: rows 0-6 dense random belts (express, rotating squares, walls, pits: merges, swaps, cycles
    and belts off the edge), row 7 eight start squares, flag 1 beside them."""
    rng = np.random.default_rng(seed)
    while True:  # a belt may not run into a wall: draw again until the board is valid
        rows = []
        for _ in range(7):
            row = []
            for _ in range(8):
                u = rng.random()
                d = "NESW"[rng.integers(4)]
                tok = f"c{d}" if u < 0.45 else f"e{d}" if u < 0.7 else "X" if u < 0.8 else "."
                if tok[0] in "ce" and rng.random() < 0.3:
                    tok += ":T"
                if rng.random() < 0.05:
                    tok += ":w" + "NESW"[rng.integers(4)]
                row.append(tok)
            rows.append(row)
        rows[6][0] = "F1"
        rows.append([f"S{k}N" for k in range(1, 9)])
        text = "name: belt_field\nsize: 8 8\ngrid:\n" + "\n".join(" ".join(r) for r in rows) + "\n"
        try:
            parse_board(text, race=True)
        except BoardError:
            continue
        path.write_text(text)
        return str(path)


@pytest.mark.parametrize("board", ["express", "race_medium", "race_hard", "field0", "field1", "field2"])
def test_convey_phase_equals_its_kernel(board, tmp_path):
    """The belt step (register phase 3a/3b) alone, plain `_Turn.convey` against `fast._convey`, on crowded belts
    (the shipped belt boards and dense random belt fields)."""
    if board.startswith("field"):
        board = _belt_field(tmp_path / f"{board}.rrb", int(board[5:]))
    rng = np.random.default_rng(57)
    n = min(8, len(Config(board=board).board_obj.starts))
    game = RoboRallyGame(Config(board=board, num_robots=n, max_turns=None))
    fe = fast.FastEngine(game)
    _, _, floor, belt, rot, walls = fe.board[:6]
    for _ in range(200):
        state = game.setup(_crowd(game, rng, n))
        for express_only in (True, False):
            turn = _Turn(game, state)
            turn.convey(express_only)
            fs = fe.pack(state)
            occ = np.full((game.board.height, game.board.width), -1, np.int64)
            for i, r in enumerate(state.robots):
                occ[r.y, r.x] = i
            dorder = np.zeros(2 * n + 2, np.int64)
            fast._convey(express_only, floor, belt, rot, walls, fs.robots, fs.registers, occ, dorder)
            assert turn.robots() == fe.robots_of(fs), (board, express_only, state.robots)
            assert turn.destroyed == dorder[1:1 + dorder[0]].tolist()


@pytest.mark.parametrize("board", ["pits_edges", "race_hard", "field3"])
def test_push_step_equals_its_kernel(board, tmp_path):
    """One step with a push chain (register phase step 2, one step of a card), plain `_Turn.push_step` against
    `fast._push_step`: robots packed in lines toward walls, pits and the board's edge."""
    if board.startswith("field"):
        board = _belt_field(tmp_path / f"{board}.rrb", int(board[5:]))
    rng = np.random.default_rng(60)
    n = min(8, len(Config(board=board).board_obj.starts))
    game = RoboRallyGame(Config(board=board, num_robots=n, max_turns=None))
    fe = fast.FastEngine(game)
    floor, walls = fe.board[2], fe.board[5]
    b = game.board
    free = [(x, y) for y in range(b.height) for x in range(b.width) if b.floor[y, x] != PIT]
    for _ in range(300):
        # A line of robots from a random square toward a random side, the rest anywhere free.
        d = int(rng.integers(4))
        x, y = free[rng.integers(len(free))]
        line = []
        while len(line) < n and 0 <= x < b.width and 0 <= y < b.height and b.floor[y, x] != PIT:
            line.append((x, y))
            x, y = x + (0, 1, 0, -1)[d], y + (-1, 0, 1, 0)[d]
        rest = [s for s in free if s not in line]
        squares = line + [rest[j] for j in rng.permutation(len(rest))[:n - len(line)]]
        state = game.setup([Robot(x, y, int(rng.integers(4))) for x, y in squares])
        turn = _Turn(game, state)
        moved = turn.push_step(0, d)
        fs = fe.pack(state)
        occ = np.full((b.height, b.width), -1, np.int64)
        for i, r in enumerate(state.robots):
            occ[r.y, r.x] = i
        dorder = np.zeros(2 * n + 2, np.int64)
        chain = np.empty(n + 1, np.int64)
        assert moved == fast._push_step(0, d, floor, walls, fs.robots, fs.registers, occ, dorder, chain)
        assert turn.robots() == fe.robots_of(fs), (board, d, state.robots)
        assert turn.destroyed == dorder[1:1 + dorder[0]].tolist()
