"""Primi Composti's student features (`FEATURES["primi_composti"]` for version 1, `["primi_composti_v2"]`).

Per card (action `card − 2`), for the cards in the mover's hand (zeros elsewhere):
in-hand flag, card / 25, prime flag, position in the dealt hand / 12, and for every
depth d in `DEPTHS` the card's depth-d minimax gain (`card_values_depth`: the
score-difference gain over the next d plies, both sides playing minimax), as
value / 10, its gap to the best card's value at that depth / 10, and whether it
is the best. Context: turn / cards, the mover's hand size / 12, the mover's score
difference / 20, version 2 flag. 2 players, the seed's configuration.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.learned import FEATURES
from agents.primi_composti.teacher import card_values_depth, view_arrays
from envs.primi_composti.rules import VALID, VALUE

DEPTHS = (1, 2, 3, 4, 5, 6)
def features_for(version: int, view: Any, action_mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(context [4], per_action [num_actions, 4 + 3·len(DEPTHS)]) of a 2-player view of rules `version`."""
    hands, alive, stacks, heights, scores = view_arrays(view)
    k = hands.shape[1]
    me = view.seat
    hand = view.hands[me]
    n = len(hand)
    per = np.zeros((len(action_mask), 4 + 3 * len(DEPTHS)), dtype=np.float32)
    rows = np.array([c - 2 for c in hand])
    per[rows, 0] = 1.0
    per[rows, 1] = np.array(hand) / 25.0
    per[rows, 2] = VALUE[np.array(hand)] == 2
    per[rows, 3] = np.arange(n) / 12.0
    out = np.empty(k, dtype=np.int64)
    for j, d in enumerate(DEPTHS):
        card_values_depth(version, hands, alive, stacks, heights, scores, view.first, me, d, VALUE, VALID, out)
        v = out[:n].astype(np.float32)
        per[rows, 4 + 3 * j] = v / 10.0
        per[rows, 5 + 3 * j] = (v - v.max()) / 10.0
        per[rows, 6 + 3 * j] = v == v.max()
    diff = view.scores[me] - view.scores[1 - me]
    ctx = np.array([view.turn / (2 * k), n / 12.0, diff / 20.0, float(version == 2)], dtype=np.float32)
    return ctx, per


def features_v1(view: Any, action_mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The features of a version-1 view (`primi_composti`)."""
    return features_for(1, view, action_mask)


def features_v2(view: Any, action_mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The features of a version-2 view (`primi_composti_v2`)."""
    return features_for(2, view, action_mask)


FEATURES["primi_composti"] = features_v1
FEATURES["primi_composti_v2"] = features_v2
