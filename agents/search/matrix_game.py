"""Two-player zero-sum matrix games solved exactly by linear programming (HiGHS)."""

from __future__ import annotations

import numpy as np
from scipy.optimize import linprog


def solve_matrix_game(R: np.ndarray) -> tuple[float, np.ndarray]:
    """Value and optimal mix of the column player, who maximises `min_j (R·p)_j`.

    `R[j, i]` is the column player's payoff when it plays column i and the row
    player row j (the layout of Grothmann's poker tutorial). Returns `(G, p)`.
    """
    R = np.asarray(R, dtype=float)
    rows, cols = R.shape
    c = np.zeros(cols + 1)
    c[-1] = -1.0
    A_ub = np.hstack([-R, np.ones((rows, 1))])  # G − Σ_i R[j,i] p_i <= 0
    A_eq = np.concatenate([np.ones(cols), [0.0]])[None, :]
    res = linprog(c, A_ub=A_ub, b_ub=np.zeros(rows), A_eq=A_eq, b_eq=[1.0],
                  bounds=[(0, None)] * cols + [(None, None)], method="highs")
    if res.status != 0:
        raise RuntimeError(f"HiGHS failed on the matrix game: {res.message}")
    p = np.clip(res.x[:cols], 0, None)
    return float(res.x[-1]), p / p.sum()
