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
        self._orders = [[(seat + k) % n for k in range(n)] for seat in range(n)]
        self._to_act = [[1.0 if i == k else 0.0 for i in range(n)] for k in range(n)]
        self._none = [0.0] * n
        self._points: dict[tuple[int, ...], float] = {}  # hand -> scaled penalty (memo)

    def encode(self, view: View) -> np.ndarray:
        """The observation of `view`."""
        n = self.n
        seat = view.seat
        disc = view.discard
        top = _ONE_HOT[disc[-1]]
        order = self._orders[seat]
        to_act = self._to_act[(view.current - seat) % n] if not view.game_over else self._none
        target = self.target
        hand = view.hand
        hp = self._points.get(hand)
        if hp is None:
            hp = hand_points(hand, self.scoring) / target
            if len(self._points) < 100_000:
                self._points[hand] = hp
        hs = view.hand_sizes
        act = view.active
        tot = view.totals
        vals = (
            _eighths(hand)
            + top
            + [view.draw_size / DECK_SIZE]
            # discard counts = round's cards − unseen − own hand (no recount)
            + _eighths(tuple([st - un - h for st, un, h in zip(view.stock, view.unseen, hand)]))
            + _eighths(view.unseen)
            + [hs[i] / DECK_SIZE for i in order]
            + [1.0 if act[i] else 0.0 for i in order]
            + [tot[i] / target for i in order]
            + [hp]
            + to_act
        )
        return np.array(vals, dtype=np.float32)


_ONE_HOT = [[1.0 if i == v else 0.0 for i in range(VALUES)] for v in range(VALUES)]
_EIGHTHS: dict[tuple[int, ...], list[float]] = {}


def _eighths(counts: tuple[int, ...]) -> list[float]:
    """`counts / 8` as a list, memoised (a few thousand distinct count vectors occur)."""
    out = _EIGHTHS.get(counts)
    if out is None:
        out = [c / 8.0 for c in counts]
        if len(_EIGHTHS) < 200_000:
            _EIGHTHS[counts] = out
    return out
