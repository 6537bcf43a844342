"""L.A.M.A. observations: a seat's `View` as a flat float32 vector.

Seats are listed relative to the observer (index 0 = the observer, then the
next seats clockwise), so one policy can play any seat.
"""

from __future__ import annotations

from functools import partial
from operator import sub
from struct import pack as _pack

import numpy as np

from envs.core.encoding import Field, Layout
from envs.lama.rules import DECK_SIZE, VALUES, LamaGame, State, View, hand_points

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
        # Float32 byte strings of the observation's pieces, memoised per key and
        # shared by every encoder of the same (n, target, scoring). Each is made
        # by `_encode_plain`'s formula for that key, so `encode` only joins them:
        # the same array, bit for bit.
        memo = _SHARED.get((n, self.target, self.scoring))
        if memo is None:
            memo = _SHARED[(n, self.target, self.scoring)] = (
                _Memo(partial(_hand_bytes, self.scoring, self.target)).__getitem__,
                _Memo(partial(_seat_bytes, n, DECK_SIZE, False)).__getitem__,
                _Memo(partial(_seat_bytes, n, 1.0, True)).__getitem__,
                _Memo(partial(_seat_bytes, n, self.target, False)).__getitem__,
            )
        self._hand_of, self._sizes_of, self._active_of, self._totals_of = memo
        self._top_b = [_f32(row) for row in _ONE_HOT]
        self._to_act_b = [_f32(row) for row in self._to_act]
        self._none_b = _f32(self._none)

    def encode(self, view: View) -> np.ndarray:
        """The observation of `view`."""
        seat = view.seat
        n = self.n
        if type(seat) is not int or not 0 <= seat < n:
            return self._encode_plain(view)
        try:
            hand = view.hand
            hand_b, points_b = self._hand_of(hand)
            unseen = view.unseen
            sizes_b = self._sizes_of(view.hand_sizes)  # absolute seat order: rotated below
            active_b = self._active_of(view.active)
            totals_b = self._totals_of(view.totals)
            cut = 4 * seat
            data = b"".join(
                [
                    hand_b,
                    self._top_b[view.discard[-1]],
                    _DRAW_OF(view.draw_size),
                    *map(_EIGHTH_OF, map(sub, map(sub, view.stock, unseen), hand)),
                    *map(_EIGHTH_OF, unseen),
                    sizes_b[cut:],
                    sizes_b[:cut],
                    active_b[cut:],
                    active_b[:cut],
                    totals_b[cut:],
                    totals_b[:cut],
                    points_b,
                    self._to_act_b[(view.current - seat) % n] if not view.game_over else self._none_b,
                ]
            )
        except (TypeError, IndexError):
            # An unusual view: unhashable pieces (lists for tuples) or a top card
            # outside 0..6. The reference path encodes it, or raises a clear error.
            return self._encode_plain(view)
        return _from_bytes(data, _FLOAT32).copy()

    def _encode_plain(self, view: View) -> np.ndarray:
        """The observation of `view`, built as a list (the reference for `encode`)."""
        n = self.n
        seat = view.seat
        disc = view.discard
        top = _ONE_HOT[disc[-1]]
        order = self._orders[seat]
        to_act = self._to_act[(view.current - seat) % n] if not view.game_over else self._none
        target = self.target
        hand = view.hand
        hs = view.hand_sizes
        act = view.active
        tot = view.totals
        vals = (
            _eighths(hand)
            + top
            + [view.draw_size / DECK_SIZE]
            # discard counts = round's cards − unseen − own hand (no recount)
            + _eighths([st - un - h for st, un, h in zip(view.stock, view.unseen, hand)])
            + _eighths(view.unseen)
            + [hs[i] / DECK_SIZE for i in order]
            + [1.0 if act[i] else 0.0 for i in order]
            + [tot[i] / target for i in order]
            + [hand_points(hand, self.scoring) / target]
            + to_act
        )
        return np.array(vals, dtype=np.float32)

    def privileged_size(self) -> int:
        """The length of `privileged`."""
        return VALUES * (self.n - 1) + 2 * VALUES

    def privileged(self, state: State, seat: int) -> np.ndarray:
        """What `state` hides from `seat`, for a critic that may know it (an asymmetric critic; never a policy's
        input): each other seat's hand (counts per value / 8, the seats after `seat` in order), the draw pile's
        counts per value / 8, and its top card (one-hot; zeros when it is empty). `fast.privileged_rows` is the
        compiled twin."""
        vals: list[float] = []
        for k in range(1, self.n):
            vals += [c / 8 for c in state.hands[(seat + k) % self.n]]
        pile = state.draw_pile
        vals += [pile.count(v) / 8 for v in range(VALUES)]
        vals += _ONE_HOT[pile[-1]] if pile else [0.0] * VALUES
        return np.array(vals, dtype=np.float32)


_ONE_HOT = [[1.0 if i == v else 0.0 for i in range(VALUES)] for v in range(VALUES)]


def _eighths(counts) -> list[float]:
    """`counts / 8` as a list."""
    return [c / 8.0 for c in counts]


def _f32(values: list[float]) -> bytes:
    """`values` (floats) as native float32 bytes: the C double-to-float cast, as
    `np.array(values, dtype=np.float32).tobytes()` does (tested)."""
    return _pack(f"{len(values)}f", *values)


class _Memo(dict):
    """A dict that fills a missing key with `fn(key)` (kept while it is small)."""

    def __init__(self, fn, limit: int = 200_000):
        super().__init__()
        self.fn = fn
        self.limit = limit

    def __reduce__(self):  # pickles empty: the entries follow from fn
        return (_Memo, (self.fn, self.limit))

    def __missing__(self, key):
        value = self.fn(key)
        if len(self) < self.limit:
            self[key] = value
        return value


def _hand_bytes(scoring: str, target: float, hand: tuple[int, ...]) -> tuple[bytes, bytes]:
    """(hand / 8, hand points / target) as bytes."""
    return b"".join(map(_EIGHTH_OF, hand)), _f32([hand_points(hand, scoring) / target])


def _seat_bytes(n: int, scale: float, flag: bool, values: tuple) -> bytes:
    """The first n values (`1.0 if v else 0.0` with `flag`, else v / scale) as bytes, seat 0 first."""
    return _f32([(1.0 if values[i] else 0.0) if flag else values[i] / scale for i in range(n)])


_from_bytes = np.frombuffer
_FLOAT32 = np.dtype(np.float32)
_SHARED: dict[tuple, tuple] = {}  # (n, target, scoring) -> the memos' look-ups
_EIGHTH_OF = _Memo(lambda c: _f32([c / 8.0])).__getitem__
_DRAW_OF = _Memo(lambda size: _f32([size / DECK_SIZE])).__getitem__
