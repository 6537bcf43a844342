"""RoboRally board elements: directions, wall bits, floor codes, wall-mounted devices and the immutable `Board`.

Coordinates: x grows east (0..W-1), y grows south (0..H-1), row 0 is north. Directions N=0, E=1, S=2, W=3
(clockwise), so turning right is +1 mod 4. `envs.roborally.board` re-exports every name here together with the
`.rrb` format; import from there.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import numpy as np

N, E, S, W = 0, 1, 2, 3
DX = (0, 1, 0, -1)
DY = (-1, 0, 1, 0)
WALL_N, WALL_E, WALL_S, WALL_W = 1, 2, 4, 8  # bit (1 << direction)
FLOOR, PIT, BELT, EXPRESS, GEAR_CW, GEAR_CCW, REPAIR, REPAIR2 = range(8)
DIRECTION_LETTERS = "NESW"


@dataclass(frozen=True)
class Laser:
    """A board laser mounted in square (x, y), firing toward `direction` with `beams` beams (1..3)."""

    x: int
    y: int
    direction: int
    beams: int


@dataclass(frozen=True)
class Pusher:
    """A pusher on square (x, y) that pushes a robot there toward `direction` in the listed registers (1..5)."""

    x: int
    y: int
    direction: int
    registers: frozenset[int]


@dataclass(frozen=True)
class Crusher:
    """A crusher on square (x, y), active in the listed registers (1..5)."""

    x: int
    y: int
    registers: frozenset[int]


@dataclass(frozen=True)
class Start:
    """The start square (and first archive) of one robot, with its initial facing."""

    x: int
    y: int
    facing: int


@dataclass(frozen=True, eq=False)
class Board:
    """An immutable RoboRally board; arrays are indexed [y, x] and are read-only."""

    name: str
    width: int
    height: int
    floor: np.ndarray  # int8 [h, w] floor codes (a flag/start square has its base's code)
    belt_dir: np.ndarray  # int8 [h, w] direction a (express) belt moves toward, -1 elsewhere
    rotating: np.ndarray  # bool [h, w] rotating belt square
    walls: np.ndarray  # uint8 [h, w] wall bits, mirrored onto the neighbour square
    lasers: tuple[Laser, ...]
    pushers: tuple[Pusher, ...]
    crushers: tuple[Crusher, ...]
    flags: tuple[tuple[int, int], ...]  # (x, y) of flag 1, 2, ..., K
    starts: tuple[Start, ...]  # start square of robot 1, 2, ...
    lives: int | None
    #: Why a race cannot be run on this board (no flag, a flag out of reach of a start), as `load_board` found it
    #: ("<file>:<line>:<col>: ..."), or None: the rules engine takes such a board for a test of its rules, a race
    #: on it is refused (`envs.roborally.board.check_race`).
    race_error: str | None = field(default=None, repr=False, compare=False)
    _distance_cache: dict = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self):
        for name in ("floor", "belt_dir", "rotating", "walls"):
            array = getattr(self, name)
            if array.shape != (self.height, self.width):
                raise ValueError(f"{name} has shape {array.shape}, expected {(self.height, self.width)}")
            array.flags.writeable = False

    def in_bounds(self, x: int, y: int) -> bool:
        """Whether (x, y) is a square of the board."""
        return 0 <= x < self.width and 0 <= y < self.height

    def wall(self, x: int, y: int, direction: int) -> bool:
        """Whether a wall lies on the `direction` side of the in-bounds square (x, y)."""
        return bool(self.walls[y, x] & (1 << direction))

    def distances(self, target: tuple[int, int]) -> np.ndarray:
        """BFS steps from every square to `target` (int32 [h, w], -1 if unreachable).

        Four-neighbour steps; walls block, pits and off-board squares are forbidden; robots and belts are ignored.
        The result is cached on the board and read-only.
        """
        target = (int(target[0]), int(target[1]))
        cached = self._distance_cache.get(target)
        if cached is not None:
            return cached
        tx, ty = target
        if not self.in_bounds(tx, ty):
            raise ValueError(f"target {target} is off the {self.width}x{self.height} board")
        dist = np.full((self.height, self.width), -1, dtype=np.int32)
        if self.floor[ty, tx] != PIT:
            dist[ty, tx] = 0
            queue = deque([(tx, ty)])
            while queue:
                x, y = queue.popleft()
                step = dist[y, x] + 1
                for d in range(4):
                    if self.walls[y, x] & (1 << d):
                        continue
                    nx, ny = x + DX[d], y + DY[d]
                    if 0 <= nx < self.width and 0 <= ny < self.height and dist[ny, nx] < 0 \
                            and self.floor[ny, nx] != PIT:
                        dist[ny, nx] = step
                        queue.append((nx, ny))
        dist.flags.writeable = False
        self._distance_cache[target] = dist
        return dist
