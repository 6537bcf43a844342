"""Zero-sum matrix games solved by LP: known values and optimal mixes."""

from __future__ import annotations

import numpy as np
import pytest

from agents.search.matrix_game import solve_matrix_game


def test_rock_paper_scissors_is_fair_and_uniform():
    # Column player's payoff: rows = the opponent's rock, paper, scissors; columns = ours.
    R = np.array([[0, 1, -1], [-1, 0, 1], [1, -1, 0]])
    value, p = solve_matrix_game(R)
    assert value == pytest.approx(0, abs=1e-9)
    assert p == pytest.approx([1 / 3] * 3, abs=1e-9)


def test_biased_matching_pennies():
    # We win 3 on heads-heads, 1 on tails-tails, lose 1 otherwise: p(heads) = 1/3, value 1/3
    # (the indifference equations 3p − (1 − p) = −p + (1 − p)).
    R = np.array([[3, -1], [-1, 1]])
    value, p = solve_matrix_game(R)
    assert value == pytest.approx(1 / 3, abs=1e-9)
    assert p == pytest.approx([1 / 3, 2 / 3], abs=1e-9)


def test_a_dominant_column_is_played_alone():
    R = np.array([[2, 5], [1, 4]])  # column 1 is better against every row
    value, p = solve_matrix_game(R)
    assert value == pytest.approx(4)
    assert p == pytest.approx([0, 1], abs=1e-9)
    # The optimal mix guarantees the value against every row.
    assert (R @ p >= value - 1e-9).all()
