"""Tic-tac-toe observations: the board from the mover's side (own marks, the other's) and the seat."""

from __future__ import annotations

import numpy as np

from envs.core.encoding import Field, Layout
from examples.tictactoe.rules import TicTacToe, View


class TicTacToeEncoder:
    """Encodes a view as `mine` (9) · `theirs` (9) · `seat` (one-hot, 2), from the encoded seat's side."""

    def __init__(self, game: TicTacToe):
        self.layout = Layout([Field("mine", 9), Field("theirs", 9), Field("seat", 2)])
        self.observation_space = self.layout.space

    def encode(self, view: View) -> np.ndarray:
        """The observation of `view` (from its seat's side)."""
        me = view.seat
        board = np.asarray(view.board)
        obs = np.zeros(self.layout.size, dtype=np.float32)
        obs[:9] = board == me + 1
        obs[9:18] = board == 2 - me
        obs[18 + me] = 1.0
        return obs
