"""Simple poker observations: own card (one-hot and scaled), role, and the bet seen."""

from __future__ import annotations

import numpy as np

from envs.core.encoding import Field, Layout
from envs.simple_poker.rules import BET, SimplePokerGame, View


class SimplePokerEncoder:
    """Encodes a `View` as `card` (one-hot, n) · `card_value` (c/n) · `seat` (one-hot, 2) · `bet_seen` (1)."""

    def __init__(self, game: SimplePokerGame):
        self.n = game.n
        self.layout = Layout([Field("card", self.n), Field("card_value", 1), Field("seat", 2), Field("bet_seen", 1)])
        self.observation_space = self.layout.space
        self._card = self.layout["card"].start
        self._value = self.layout["card_value"].start
        self._seat = self.layout["seat"].start
        self._bet = self.layout["bet_seen"].start

    def encode(self, view: View) -> np.ndarray:
        """The observation of `view`."""
        obs = np.zeros(self.layout.size, dtype=np.float32)
        obs[self._card + view.card - 1] = 1.0
        obs[self._value] = view.card / self.n
        obs[self._seat + view.seat] = 1.0
        if view.history and view.history[0] == BET:
            obs[self._bet] = 1.0
        return obs
