"""Tic-tac-toe's one strategy (`LineStrategy`) and the game's part of the agents layer (its default line-up)."""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.base import register
from agents.games import declare
from examples.tictactoe.rules import LINES


class LineStrategy:
    """Completes its own line, else blocks the other's, else takes the centre, a corner, a side (the
    first free one in cell order); registered as `tictactoe/lines`."""

    def __init__(self, game: Any, rng: np.random.Generator):
        self.rng = rng

    def act(self, view: Any, action_mask: np.ndarray) -> int:
        """A legal cell by the rule above."""
        me, other = view.seat + 1, 2 - view.seat
        for who in (me, other):
            for line in LINES:
                marks = [view.board[c] for c in line]
                if marks.count(who) == 2 and marks.count(0) == 1:
                    return line[marks.index(0)]
        for cell in (4, 0, 2, 6, 8, 1, 3, 5, 7):
            if action_mask[cell]:
                return cell
        raise ValueError("no legal cell: the game is over")


register("tictactoe/lines", LineStrategy)
declare("tictactoe", default_lineup=("tictactoe/lines", "random"))
