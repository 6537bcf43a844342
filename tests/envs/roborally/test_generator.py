"""The procedural board generator: valid boards, solvable from every start, deterministic under the seed."""

from __future__ import annotations

import numpy as np
import pytest

from envs.roborally.board import (
    BELT,
    EXPRESS,
    PIT,
    board_to_text,
    load_board,
    parse_board,
    same_board,
)
from envs.roborally.generator import _carve, _Layout, _reachable, generate_board


def _solvable(b) -> bool:
    for fx, fy in b.flags:
        d = b.distances((fx, fy))
        if any(d[s.y, s.x] < 0 for s in b.starts) or any(d[y, x] < 0 for x, y in b.flags):
            return False
    return True


def test_two_hundred_generated_boards_are_valid_and_solvable():
    for seed in range(200):
        b = generate_board(seed)
        again = parse_board(board_to_text(b), source=f"random:{seed}")
        assert same_board(again, b), seed
        assert _solvable(again), seed
        assert (b.width, b.height, len(b.flags), len(b.starts)) == (12, 12, 3, 8)
        assert len({(s.x, s.y) for s in b.starts} | set(b.flags)) == 11, seed


@pytest.mark.parametrize("kwargs", [
    dict(width=6, height=6, flags=8, starts=6, density=2.0, crushers=True),
    dict(width=20, height=14, flags=4, starts=8),
    dict(width=32, height=8, flags=1, starts=1, density=0.5),
    dict(width=7, height=12, flags=2, starts=7, density=0.0),
])
def test_other_sizes_and_densities_are_valid_and_solvable(kwargs):
    for seed in range(25):
        b = generate_board(seed, **kwargs)
        assert (b.width, b.height, len(b.flags), len(b.starts)) == (kwargs["width"], kwargs["height"],
                                                                    kwargs["flags"], kwargs["starts"])
        assert same_board(parse_board(board_to_text(b)), b)
        assert _solvable(b), (seed, kwargs)


def test_density_zero_is_an_open_floor():
    b = generate_board(5, density=0.0)
    assert not (b.floor == PIT).any() and not b.walls.any() and not b.lasers and not b.pushers


def test_generated_boards_use_the_elements():
    boards = [generate_board(seed, crushers=True) for seed in range(30)]
    floors = set().union(*(set(np.unique(b.floor).tolist()) for b in boards))
    assert len(floors) == 8
    assert any(b.rotating.any() for b in boards) and any(b.crushers for b in boards)
    assert {las.beams for b in boards for las in b.lasers} == {1, 2, 3}
    assert sum(len(b.pushers) for b in boards) > 0


def test_deterministic_under_the_seed_and_seeds_differ():
    assert board_to_text(generate_board(42)) == board_to_text(generate_board(42))
    texts = {board_to_text(generate_board(seed)) for seed in range(20)}
    assert len(texts) == 20


def test_load_board_random_specs():
    b = load_board("random:9")
    assert b.name == "random:9" and (b.width, b.height) == (12, 12)
    assert board_to_text(b) == board_to_text(generate_board(9))
    c = load_board("random:9:16x10")
    assert c.name == "random:9:16x10" and (c.width, c.height) == (16, 10)
    assert board_to_text(c).split("\n", 1)[1] == board_to_text(generate_board(9, width=16, height=10)).split("\n", 1)[1]


def test_belts_never_run_into_walls_or_off_the_board():
    for seed in range(60):
        b = generate_board(seed, density=2.0)
        for y, x in zip(*np.nonzero(np.isin(b.floor, (BELT, EXPRESS)))):
            d = int(b.belt_dir[y, x])
            assert not b.wall(x, y, d)
            assert b.in_bounds(x + (0, 1, 0, -1)[d], y + (-1, 0, 1, 0)[d])


def test_carving_joins_an_enclosed_flag():
    # A flag walled in on all sides and ringed by pits: the carve must open a way to the dock.
    lay = _Layout(6, 6)
    lay.floor[0:3, 0:3] = PIT
    lay.floor[1, 1] = 0
    for side in range(4):
        lay.set_wall(1, 1, side)
    region = _reachable(lay, (0, 5))
    assert not region[1, 1]
    _carve(lay, region, (1, 1))
    assert _reachable(lay, (0, 5))[1, 1]


@pytest.mark.parametrize("kwargs,words", [
    (dict(seed=-1), "seed must be an integer >= 0"),
    (dict(seed=0, width=5), "width must be an integer in 6..32"),
    (dict(seed=0, height=40), "height must be an integer in 6..32"),
    (dict(seed=0, starts=9), "starts must be an integer in 1..8"),
    (dict(seed=0, width=6, starts=7), "starts must be an integer in 1..6"),
    (dict(seed=0, flags=0), "flags must be an integer in 1..8"),
    (dict(seed=0, density=3.0), "density must be a number in 0..2"),
])
def test_bad_parameters_name_the_allowed_values(kwargs, words):
    with pytest.raises(ValueError, match=words.replace(".", r"\.")):
        generate_board(**kwargs)
