"""L.A.M.A. observations: a seat's `View` as a flat float32 vector.

Seats are listed relative to the observer (index 0 = the observer, then the
next seats clockwise), so one policy can play any seat.
"""

from __future__ import annotations

import numpy as np

from envs.core.encoding import Field, Layout
from envs.lama.rules import DECK_SIZE, VALUES, LamaGame, View, hand_points

# A hand never holds more than the 56 cards of a round, so a round score is
# below 560 and a total below target + 560.
_MAX_ROUND_SCORE = 10 * DECK_SIZE


class LamaEncoder:
    """Encodes a `View` as named fields (counts scaled by 1/8, the copies per value):

    `hand` (7, own cards per value, llama first) · `top` (7, one-hot) ·
    `draw_size` (1, /56) · `discard` (7, discard-pile counts) · `unseen` (7,
    cards in opponents' hands + draw pile) · `hand_sizes` (n, /56, relative
    seats) · `active` (n, still in the round) · `totals` (n, /target) ·
    `hand_points` (1, own penalty now, /target) · `to_act` (n, one-hot).
    """

    def __init__(self, game: LamaGame):
        n = game.num_players
        self.n = n
        self.scoring = game.scoring
        self.target = float(game.target_points)
        top_total = 1.0 + _MAX_ROUND_SCORE / self.target
        self.layout = Layout(
            [
                Field("hand", VALUES, 0.0, DECK_SIZE / 8),
                Field("top", VALUES),
                Field("draw_size", 1),
                Field("discard", VALUES, 0.0, DECK_SIZE / 8),
                Field("unseen", VALUES, 0.0, DECK_SIZE / 8),
                Field("hand_sizes", n),
                Field("active", n),
                Field("totals", n, 0.0, top_total),
                Field("hand_points", 1, 0.0, _MAX_ROUND_SCORE / self.target),
                Field("to_act", n),
            ]
        )
        self.observation_space = self.layout.space
        self._s = {name: sl.start for name, sl in self.layout.slices.items()}

    def encode(self, view: View) -> np.ndarray:
        """The observation of `view`."""
        s = self._s
        n = self.n
        obs = np.zeros(self.layout.size, dtype=np.float32)
        obs[s["hand"] : s["hand"] + VALUES] = np.asarray(view.hand, dtype=np.float32) / 8.0
        obs[s["top"] + view.discard[-1]] = 1.0
        obs[s["draw_size"]] = view.draw_size / DECK_SIZE
        disc = np.bincount(np.asarray(view.discard), minlength=VALUES)[:VALUES]
        obs[s["discard"] : s["discard"] + VALUES] = disc / 8.0
        obs[s["unseen"] : s["unseen"] + VALUES] = np.asarray(view.unseen, dtype=np.float32) / 8.0
        order = [(view.seat + k) % n for k in range(n)]
        obs[s["hand_sizes"] : s["hand_sizes"] + n] = [view.hand_sizes[i] / DECK_SIZE for i in order]
        obs[s["active"] : s["active"] + n] = [1.0 if view.active[i] else 0.0 for i in order]
        obs[s["totals"] : s["totals"] + n] = [view.totals[i] / self.target for i in order]
        obs[s["hand_points"]] = hand_points(view.hand, self.scoring) / self.target
        if not view.game_over:
            obs[s["to_act"] + (view.current - view.seat) % n] = 1.0
        return obs
