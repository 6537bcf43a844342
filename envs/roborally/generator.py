"""Procedural RoboRally boards: `generate_board(seed, ...)`, also reached as `load_board("random:<seed>[:WxH]")`.

All draws come from one `np.random.default_rng(seed)`: a dock, belt lines, hazards, lasers and pushers, loose walls,
then the flags; a flag the dock cannot reach gets a corridor carved to it, so every flag is reachable from every
start. The layout, step by step, is described in docs/roborally.md ("Generated boards").
"""

from __future__ import annotations

from collections import deque

import numpy as np

from envs.roborally.elements import (
    BELT,
    DX,
    DY,
    EXPRESS,
    FLOOR,
    GEAR_CCW,
    GEAR_CW,
    PIT,
    REPAIR,
    REPAIR2,
    Board,
    Crusher,
    Laser,
    N,
    Pusher,
    Start,
)

MIN_SIDE, MAX_SIDE = 6, 32
DOCK_ROWS = 2


class _Layout:
    """Mutable arrays a board is drawn on before it is frozen into a `Board`."""

    def __init__(self, width: int, height: int):
        self.width, self.height = width, height
        self.floor = np.full((height, width), FLOOR, dtype=np.int8)
        self.belt_dir = np.full((height, width), -1, dtype=np.int8)
        self.rotating = np.zeros((height, width), dtype=bool)
        self.walls = np.zeros((height, width), dtype=np.uint8)
        self.lasers: list[Laser] = []
        self.pushers: list[Pusher] = []
        self.crushers: list[Crusher] = []
        self.taken = np.zeros((height, width), dtype=bool)  # a device, flag or start already sits here
        self.taken[height - DOCK_ROWS:, :] = True  # the dock stays plain floor

    def in_bounds(self, x: int, y: int) -> bool:
        return 0 <= x < self.width and 0 <= y < self.height

    def free(self, x: int, y: int) -> bool:
        """Plain floor with nothing on it, outside the dock."""
        return self.in_bounds(x, y) and not self.taken[y, x] and self.floor[y, x] == FLOOR

    def can_wall(self, x: int, y: int, side: int) -> bool:
        """Whether a wall may go on that side of (x, y): no belt exits across it, no laser fires across it from
        its own square, and it does not touch the dock."""
        if y >= self.height - DOCK_ROWS:
            return False
        nx, ny = x + DX[side], y + DY[side]
        back = (side + 2) % 4
        if self.belt_dir[y, x] == side:
            return False
        if self.in_bounds(nx, ny):
            if ny >= self.height - DOCK_ROWS or self.belt_dir[ny, nx] == back:
                return False
        for laser in self.lasers:
            if ((laser.x, laser.y), laser.direction) in (((x, y), side), ((nx, ny), back)):
                return False
        return True

    def set_wall(self, x: int, y: int, side: int, on: bool = True) -> None:
        nx, ny = x + DX[side], y + DY[side]
        bit, back_bit = 1 << side, 1 << ((side + 2) % 4)
        for sx, sy, b in ((x, y, bit), (nx, ny, back_bit)):
            if self.in_bounds(sx, sy):
                self.walls[sy, sx] = (self.walls[sy, sx] | b) if on else (self.walls[sy, sx] & (0xFF ^ b))


def _check(seed, width, height, flags, starts, density) -> None:
    if not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0, got {seed!r}")
    for label, value in (("width", width), ("height", height)):
        if not isinstance(value, (int, np.integer)) or not MIN_SIDE <= value <= MAX_SIDE:
            raise ValueError(f"{label} must be an integer in {MIN_SIDE}..{MAX_SIDE}, got {value!r}")
    if not isinstance(starts, (int, np.integer)) or not 1 <= starts <= min(8, width):
        raise ValueError(f"starts must be an integer in 1..{min(8, width)} (at most 8 and at most the width), "
                         f"got {starts!r}")
    if not isinstance(flags, (int, np.integer)) or not 1 <= flags <= 8:
        raise ValueError(f"flags must be an integer in 1..8, got {flags!r}")
    if not isinstance(density, (int, float)) or not 0.0 <= density <= 2.0:
        raise ValueError(f"density must be a number in 0..2, got {density!r}")


def _free_squares(lay: _Layout) -> list[tuple[int, int]]:
    return [(x, y) for y in range(lay.height) for x in range(lay.width) if lay.free(x, y)]


def _pick(rng: np.random.Generator, squares: list) -> tuple[int, int] | None:
    return squares[int(rng.integers(len(squares)))] if squares else None


def _belt_lines(lay: _Layout, rng: np.random.Generator, count: int) -> None:
    """Random-walk belt lines; a square where the line turns is a rotating belt square."""
    for _ in range(count):
        start = _pick(rng, _free_squares(lay))
        if start is None:
            return
        code = EXPRESS if rng.random() < 0.35 else BELT
        direction = int(rng.integers(4))
        length = int(rng.integers(3, 8))
        path: list[tuple[int, int, int]] = []  # (x, y, direction toward the next square)
        x, y = start
        for _step in range(length):
            if path and rng.random() < 0.3:
                direction = (direction + (1 if rng.random() < 0.5 else 3)) % 4
            nx, ny = x + DX[direction], y + DY[direction]
            # The square the belt delivers onto must be on the board, outside the dock and not on the line itself.
            if not (lay.in_bounds(nx, ny) and ny < lay.height - DOCK_ROWS) or any(p[:2] == (nx, ny) for p in path):
                break
            path.append((x, y, direction))
            if not lay.free(nx, ny):
                break
            x, y = nx, ny
        if len(path) < 2:
            continue
        previous = None
        for px, py, d in path:
            lay.floor[py, px] = code
            lay.belt_dir[py, px] = d
            lay.rotating[py, px] = previous is not None and previous != d
            lay.taken[py, px] = True
            previous = d


def _scatter(lay: _Layout, rng: np.random.Generator, code: int, count: int) -> None:
    for _ in range(count):
        square = _pick(rng, _free_squares(lay))
        if square is None:
            return
        x, y = square
        lay.floor[y, x] = code
        lay.taken[y, x] = True


def _mounted(lay: _Layout, rng: np.random.Generator, count: int, kind: str) -> None:
    """Lasers or pushers, each on a free floor square with a wall behind it (opposite its direction)."""
    for _ in range(count):
        for _attempt in range(20):
            square = _pick(rng, _free_squares(lay))
            if square is None:
                return
            x, y = square
            d = int(rng.integers(4))
            back = (d + 2) % 4
            if lay.walls[y, x] & (1 << d) or not lay.can_wall(x, y, back):
                continue
            lay.set_wall(x, y, back)
            if kind == "laser":
                lay.lasers.append(Laser(x, y, d, int(rng.choice([1, 1, 2, 2, 3]))))
            else:
                lay.pushers.append(Pusher(x, y, d, frozenset({1, 3, 5}) if rng.random() < 0.5 else frozenset({2, 4})))
            lay.taken[y, x] = True
            break


def _loose_walls(lay: _Layout, rng: np.random.Generator, count: int) -> None:
    for _ in range(count):
        x, y = int(rng.integers(lay.width)), int(rng.integers(lay.height - DOCK_ROWS))
        side = int(rng.integers(4))
        if lay.can_wall(x, y, side):
            lay.set_wall(x, y, side)


def _place_flags(lay: _Layout, rng: np.random.Generator, flags: int) -> list[tuple[int, int]]:
    """The most spread of a few random sets of flag squares (largest smallest pairwise distance)."""
    candidates = [(x, y) for x, y in _free_squares(lay) if y < lay.height - DOCK_ROWS - 1]
    if len(candidates) < flags:
        candidates = _free_squares(lay)
    if len(candidates) < flags:
        # A crowded small board: any non-dock square that is not a pit, its contents cleared back to floor.
        candidates = [(x, y) for y in range(lay.height - DOCK_ROWS) for x in range(lay.width)]
    best, best_spread = None, -1
    for _ in range(12):
        idx = rng.choice(len(candidates), size=flags, replace=False)
        chosen = [candidates[int(i)] for i in idx]
        spread = min((abs(a[0] - b[0]) + abs(a[1] - b[1]) for i, a in enumerate(chosen) for b in chosen[i + 1:]),
                     default=0)
        if spread > best_spread:
            best, best_spread = chosen, spread
    for x, y in best:
        if lay.floor[y, x] == PIT:
            lay.floor[y, x] = FLOOR
        lay.taken[y, x] = True
    return best


def _reachable(lay: _Layout, origin: tuple[int, int]) -> np.ndarray:
    seen = np.zeros((lay.height, lay.width), dtype=bool)
    seen[origin[1], origin[0]] = True
    queue = deque([origin])
    while queue:
        x, y = queue.popleft()
        for d in range(4):
            nx, ny = x + DX[d], y + DY[d]
            if not lay.walls[y, x] & (1 << d) and lay.in_bounds(nx, ny) and not seen[ny, nx] \
                    and lay.floor[ny, nx] != PIT:
                seen[ny, nx] = True
                queue.append((nx, ny))
    return seen


def _carve(lay: _Layout, region: np.ndarray, flag: tuple[int, int]) -> None:
    """Open a corridor from `flag` to the nearest square of `region` along a shortest grid path."""
    parent = {flag: None}
    queue = deque([flag])
    end = None
    while queue:
        x, y = queue.popleft()
        if region[y, x]:
            end = (x, y)
            break
        for d in range(4):
            nxt = (x + DX[d], y + DY[d])
            if lay.in_bounds(*nxt) and nxt not in parent:
                parent[nxt] = (x, y, d)
                queue.append(nxt)
    square = end
    while parent[square] is not None:
        px, py, d = parent[square]
        if lay.walls[py, px] & (1 << d):
            lay.set_wall(px, py, d, on=False)
        for sx, sy in (square, (px, py)):
            if lay.floor[sy, sx] == PIT:
                lay.floor[sy, sx] = FLOOR
        square = (px, py)
    # A laser or pusher whose mounting wall was carved away goes with it.
    lay.lasers = [las for las in lay.lasers if lay.walls[las.y, las.x] & (1 << ((las.direction + 2) % 4))]
    lay.pushers = [p for p in lay.pushers if lay.walls[p.y, p.x] & (1 << ((p.direction + 2) % 4))]


def generate_board(seed: int, width: int = 12, height: int = 12, flags: int = 3, starts: int = 8,
                   density: float = 1.0, crushers: bool = False, name: str | None = None) -> Board:
    """A random valid board in which every flag is reachable from every start and every other flag.

    `density` scales the number of hazards (0 gives an open floor with only the flags and the dock); `crushers`
    adds a few crushers (they act only when the game enables them). Deterministic under `seed`.
    """
    _check(seed, width, height, flags, starts, density)
    rng = np.random.default_rng(seed)
    lay = _Layout(width, height)
    area = width * (height - DOCK_ROWS)

    def amount(per_square: float) -> int:
        return int(rng.poisson(per_square * area * density))

    _belt_lines(lay, rng, amount(1 / 30))
    for code, per in ((PIT, 1 / 18), (GEAR_CW, 1 / 60), (GEAR_CCW, 1 / 60), (REPAIR, 1 / 60), (REPAIR2, 1 / 140)):
        _scatter(lay, rng, code, amount(per))
    _mounted(lay, rng, amount(1 / 50), "laser")
    _mounted(lay, rng, amount(1 / 70), "pusher")
    if crushers:
        for _ in range(amount(1 / 70)):
            square = _pick(rng, _free_squares(lay))
            if square is None:
                break
            regs = sorted(int(r) for r in rng.choice(np.arange(1, 6), size=int(rng.integers(1, 4)), replace=False))
            lay.crushers.append(Crusher(square[0], square[1], frozenset(regs)))
            lay.taken[square[1], square[0]] = True
    _loose_walls(lay, rng, amount(1 / 7))
    flag_squares = _place_flags(lay, rng, flags)

    left = (width - starts) // 2
    start_list = [Start(left + i, height - 1, N) for i in range(starts)]
    origin = (start_list[0].x, start_list[0].y)
    for flag in flag_squares:
        region = _reachable(lay, origin)
        if not region[flag[1], flag[0]]:
            _carve(lay, region, flag)

    return Board(
        name=name or (f"random:{seed}" if (width, height) == (12, 12) else f"random:{seed}:{width}x{height}"),
        width=width, height=height, floor=lay.floor, belt_dir=lay.belt_dir, rotating=lay.rotating, walls=lay.walls,
        lasers=tuple(lay.lasers), pushers=tuple(lay.pushers), crushers=tuple(lay.crushers),
        flags=tuple(flag_squares), starts=tuple(start_list), lives=None,
    )
