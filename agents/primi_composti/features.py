"""Primi Composti's student features (`FEATURES["primi_composti"]` for version 1, `["primi_composti_v2"]`).

Per card (action `card − 2`), for the cards in the mover's hand (zeros elsewhere):
in-hand flag, card / 25, prime flag, position in the dealt hand / 12, and for every
depth d in `DEPTHS` the card's depth-d minimax gain (`card_values_depth`: the
score-difference gain over the next d plies, both sides playing minimax), as
value / 10, its gap to the best card's value at that depth / 10, and whether it
is the best. Context: turn / cards, the mover's hand size / 12, the mover's score
difference / 20, version 2 flag. 2 players.

Bound to a game (`for_game`, what `Student` does), the features play its official
options of version 2: under `allow_revealed_operand` the minimax gains count the
revealed operand's pairs; under `steal_choice="player"` each legal action (a card
and the operand pair it names, or none) gets the card's features and that move's
own gains (the move, then the seed's minimax to depth d: the teacher's fallback,
`choice_depth_values`). Unbound, they are the seed's rules' and refuse a
player-choice action space.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.learned import FEATURES
from agents.primi_composti.teacher import card_values_depth, choice_depth_values, view_arrays
from envs.primi_composti.fast import official_options
from envs.primi_composti.rules import VALID, VALUE

DEPTHS = (1, 2, 3, 4, 5, 6)
def features_for(version: int, view: Any, action_mask: np.ndarray, revealed: bool = False,
                 npairs: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(context [4], per_action [num_actions, 4 + 3·len(DEPTHS)]) of a 2-player view of rules `version`
    (`revealed`: the revealed-operand rule; `npairs` > 0: `steal_choice="player"` with that many operand pairs)."""
    hands, alive, stacks, heights, scores = view_arrays(view)
    k = hands.shape[1]
    me = view.seat
    hand = view.hands[me]
    n = len(hand)
    choices = npairs + 1 if npairs else 1
    if len(action_mask) != 2 * k * choices:
        raise ValueError(f"the primi_composti features of this game give {2 * k * choices} actions, the mask has "
                         f"{len(action_mask)}: bind them to the game with for_game(game) (steal_choice='player')")
    per = np.zeros((len(action_mask), 4 + 3 * len(DEPTHS)), dtype=np.float32)
    if npairs:  # each legal (card, choice) move's gains at every depth
        gains = [choice_depth_values(view, d, npairs, revealed) for d in DEPTHS]
        moves = sorted(gains[0])
    else:
        moves = [(c, 0) for c in hand]
    rows = np.array([(c - 2) * choices + q for c, q in moves])
    cards = np.array([c for c, _ in moves])
    pos = {c: i for i, c in enumerate(hand)}
    per[rows, 0] = 1.0
    per[rows, 1] = cards / 25.0
    per[rows, 2] = VALUE[cards] == 2
    per[rows, 3] = np.array([pos[c] for c in cards]) / 12.0
    out = np.empty(k, dtype=np.int64)
    for j, d in enumerate(DEPTHS):
        if npairs:
            v = np.array([gains[j][m] for m in moves], dtype=np.float32)
        else:
            card_values_depth(version, hands, alive, stacks, heights, scores, view.first, me, d, VALUE, VALID, out,
                              revealed)
            v = out[:n].astype(np.float32)
        per[rows, 4 + 3 * j] = v / 10.0
        per[rows, 5 + 3 * j] = (v - v.max()) / 10.0
        per[rows, 6 + 3 * j] = v == v.max()
    diff = view.scores[me] - view.scores[1 - me]
    ctx = np.array([view.turn / (2 * k), n / 12.0, diff / 20.0, float(version == 2)], dtype=np.float32)
    return ctx, per


class PrimiFeatures:
    """The features of rules `version` (`features_for`), as registered: the seed's rules; `for_game` binds them to
    a game's official options."""

    def __init__(self, version: int, revealed: bool = False, npairs: int = 0):
        self.version, self.revealed, self.npairs = version, revealed, npairs

    def for_game(self, game: Any) -> PrimiFeatures:
        """These features under `game`'s official options of version 2."""
        return PrimiFeatures(self.version, *official_options(game))

    def __call__(self, view: Any, action_mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return features_for(self.version, view, action_mask, self.revealed, self.npairs)


#: The features of a version-1 view (`primi_composti`) and of a version-2 view (`primi_composti_v2`).
features_v1, features_v2 = PrimiFeatures(1), PrimiFeatures(2)
FEATURES["primi_composti"] = features_v1
FEATURES["primi_composti_v2"] = features_v2
