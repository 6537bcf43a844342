"""The readable engine's turn is the rulebook's phases, one `_Turn` method each, each naming its compiled twin."""

import inspect
import re

import numpy as np
import pytest

from envs.roborally import fast
from envs.roborally.board import PIT, BoardError, parse_board
from envs.roborally.rules import Config, RoboRallyGame, Robot, _Turn, locked_count

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


def test_turn_kernel_is_the_sequence_of_the_phase_twins():
    """`turn_kernel` runs `_turn_phases`, which calls each phase's twin (the one its readable phase names), in the
    readable turn's order."""
    assert "_turn_phases(" in inspect.getsource(fast.turn_kernel.py_func)
    source = inspect.getsource(fast._turn_phases.py_func)
    at = []
    for name in REGISTER_PHASE + END_OF_TURN:
        (twin,) = re.findall(r"`fast\.(\w+)`", getattr(_Turn, name).__doc__)
        assert f"{twin}(" in source, f"{name}: _turn_phases does not call fast.{twin}"
        at.append(source.index(f"{twin}("))
    assert at == sorted(at), "_turn_phases runs the phases out of the rulebook's order"


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
    junk = np.random.default_rng(1)  # the kernel's scratch starts with whatever a previous use left there
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
            belts = junk.integers(-3, 12, (6, n))
            fast._convey(express_only, floor, belt, rot, walls, fs.robots, fs.registers, occ, dorder, belts)
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


def _mixed_state(game, rng, n):
    """A state at a register phase: `n` robots crowded on belts, random damage, facings, next flags, power downs
    (announced, staying), a few off the board waiting to re-enter (archives on taken squares too), five distinct
    cards in each robot's registers and the rest of the deck."""
    b = game.board
    free = [(x, y) for y in range(b.height) for x in range(b.width) if b.floor[y, x] != PIT]
    robots = []
    for r in _crowd(game, rng, n):
        ax, ay = free[rng.integers(len(free))] if rng.random() < 0.5 else (r.x, r.y)
        robots.append(Robot(r.x, r.y, r.facing, damage=int(rng.integers(10)), lives=int(rng.integers(1, 4)),
                            next_flag=int(rng.integers(len(b.flags))), on_board=bool(rng.random() < 0.85),
                            powered_down=bool(rng.random() < 0.2), archive_x=ax, archive_y=ay,
                            archive_facing=int(rng.integers(4)), announced=bool(rng.random() < 0.2),
                            stay_down=bool(rng.random() < 0.5)))
    cards = rng.permutation(np.arange(1, 85))
    # A powered-down robot holds only its locked registers (newly locked ones take the deck's top card).
    registers = tuple(tuple(int(c) if not r.powered_down or j >= 5 - locked_count(r.damage) else 0
                            for j, c in enumerate(cards[5 * i:5 * i + 5])) for i, r in enumerate(robots))
    held = {c for reg in registers for c in reg}
    deck = tuple(int(c) for c in cards if c not in held)
    return game.setup(robots)._replace(robots=tuple(robots), registers=registers, deck=deck, discard=())


def _same(turn, fe, fs, occ, dorder, where):
    """The readable turn and the kernels' arrays hold the same robots, registers, deck, squares and destroyed."""
    assert turn.robots() == fe.robots_of(fs), where
    assert [list(r) for r in turn.regs] == fs.registers.tolist(), where
    assert turn.deck == fs.deck[:fs.meta[fast.M_DECK]].tolist(), where
    assert turn.occ == {(x, y): int(occ[y, x]) for y, x in zip(*np.nonzero(occ >= 0))}, where
    assert turn.destroyed == dorder[1:1 + dorder[0]].tolist(), where


@pytest.mark.parametrize("board", ["race_hard", "arena", "race_medium", "gears_pushers", "field4"])
def test_each_phase_equals_its_kernel(board, tmp_path):
    """A whole turn in lockstep: each readable phase (`_Turn.move_robots` ... `reenter`, then `_deal`'s clearing)
    against the kernel `turn_kernel` runs for it, the two compared after every phase, from mixed random states
    (belts crowded, damage near the limit, power downs, robots waiting to re-enter; crushers on)."""
    if board.startswith("field"):
        board = _belt_field(tmp_path / f"{board}.rrb", int(board[5:]))
    rng = np.random.default_rng(61)
    n = min(8, len(Config(board=board).board_obj.starts))
    game = RoboRallyGame(Config(board=board, num_robots=n, max_turns=None, crushers=True))
    fe = fast.FastEngine(game)
    bd = fe.board
    for t in range(60):
        state = _mixed_state(game, rng, n)
        turn = _Turn(game, state)
        fs = fe.pack(state)
        R, regs = fs.robots, fs.registers
        occ = np.full((game.board.height, game.board.width), -1, np.int64)
        for i, r in enumerate(state.robots):
            if r.on_board:
                occ[r.y, r.x] = i
        dorder = np.zeros(2 * n + 2, np.int64)
        chain, order, hits = np.empty(n + 1, np.int64), np.empty(n, np.int64), np.zeros(n, np.int64)
        belts = np.empty((6, n), np.int64)
        winner = -1
        for ri in range(5):
            turn.move_robots(ri)
            fast._move_robots(bd, ri, R, regs, occ, dorder, chain, order)
            _same(turn, fe, fs, occ, dorder, (t, ri, "move_robots"))
            turn.board_elements(ri)
            fast._board_elements(bd, ri, R, regs, occ, dorder, chain, belts)
            _same(turn, fe, fs, occ, dorder, (t, ri, "board_elements"))
            turn.fire_lasers()
            fast._fire_lasers(bd, R, regs, fs.deck, fs.meta, occ, dorder, hits)
            _same(turn, fe, fs, occ, dorder, (t, ri, "fire_lasers"))
            turn.touch_checkpoints()
            winner = fast._touch_checkpoints(bd, R, winner)
            _same(turn, fe, fs, occ, dorder, (t, ri, "touch_checkpoints"))
            assert turn.winner == winner
        turn.repair()
        fast._repair(bd, R)
        _same(turn, fe, fs, occ, dorder, (t, "repair"))
        turn.power_down_bookkeeping()
        fast._power_down_bookkeeping(R)
        _same(turn, fe, fs, occ, dorder, (t, "power_down_bookkeeping"))
        turn.reenter()
        fast._reenter(bd, R, occ, dorder)
        _same(turn, fe, fs, occ, dorder, (t, "reenter"))
        dealt = game._deal(0, 1, turn.robots(), turn.regs, ())
        fast._start_next_turn(R, regs)
        assert dealt.robots == fe.robots_of(fs) and dealt.registers == tuple(map(tuple, regs.tolist())), t
