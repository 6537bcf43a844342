"""Primi Composti's student features (`FEATURES["primi_composti"]` for version 1, `["primi_composti_v2"]`), 2
players: per card in the mover's hand its flags, value, dealt position and minimax gains at the depths `DEPTHS`
(`_move_features`), and a context (`_context`); docs/primi_composti.md describes them. Bound to a game (`for_game`)
they play version 2's official options; the compiled runner computes them from its tables (`from_tables`), which
keep the hand positions the encoder's observation lacks.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.learned import FEATURES
from agents.primi_composti.teacher import Position, card_values_depth, choice_depth_values, move_gain, view_arrays
from envs.primi_composti.fast import official_options
from envs.primi_composti.rules import VALID, VALUE

DEPTHS = (1, 2, 3, 4, 5, 6)


def features_for(version: int, view: Any, action_mask: np.ndarray, revealed: bool = False,
                 npairs: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(context [4], per_action [num_actions, 4 + 3·len(DEPTHS)]) of a 2-player view of rules `version`
    (`revealed`: the revealed-operand rule; `npairs` > 0: `steal_choice="player"` with that many operand pairs)."""
    position = Position(*view_arrays(view), view.first)
    k = position.hands.shape[1]
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
    out = np.empty(k, dtype=np.int64)
    values = []
    for j, d in enumerate(DEPTHS):
        if npairs:
            values.append(np.array([gains[j][m] for m in moves], dtype=np.float32))
        else:
            card_values_depth(version, position, me, d, VALUE, VALID, out, revealed)
            values.append(out[:n].astype(np.float32))
    _move_features(per, rows, cards, [pos[c] for c in cards], values)
    return _context(view.turn, k, n, view.scores[me] - view.scores[1 - me], version), per


def _move_features(per: np.ndarray, rows: Any, cards: np.ndarray, positions: list[int],
                   values: list[np.ndarray]) -> None:
    """Fill rows `rows` of `per` with their moves' features: legal, the card, whether its value is 2, its position
    in the hand, and at each depth of `DEPTHS` its gain (`values[j]`), the gain less the best, and whether it is
    the best."""
    per[rows, 0] = 1.0
    per[rows, 1] = cards / 25.0
    per[rows, 2] = VALUE[cards] == 2
    per[rows, 3] = np.array(positions) / 12.0
    for j, v in enumerate(values):
        per[rows, 4 + 3 * j] = v / 10.0
        per[rows, 5 + 3 * j] = (v - v.max()) / 10.0
        per[rows, 6 + 3 * j] = v == v.max()


def _context(turn: int, k: int, cards_left: int, lead: int, version: int) -> np.ndarray:
    """The context features: the turn, the cards left in hand, the score lead, whether the rules are version 2."""
    return np.array([turn / (2 * k), cards_left / 12.0, lead / 20.0, float(version == 2)], dtype=np.float32)


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

    def from_tables(self, tables: Any, rows: np.ndarray, seats: np.ndarray,
                    masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(context (B, 4), per_action (B, A, F)) float32 of the seats `seats` to move at tables `rows` of the
        compiled engine, with their legal masks `masks` (B, A): the Python features of their views, number for
        number (`table_features`). `tables`: the compiled loop's `(Tables, Settings)`
        (`agents.primi_composti.fast.play_seated`).

        Raises:
            ValueError: tables of another action space than these features' (bind them with `for_game`) or of
                other than 2 seats.
        """
        T, S = tables
        choices = self.npairs + 1 if self.npairs else 1
        masks = np.asarray(masks, np.bool_)
        if T.hands.shape[1] != 2 or S.choices != choices or masks.shape != (len(rows), 2 * S.k * choices):
            raise ValueError(f"these primi_composti features read 2-player tables of {choices} operand choice(s) a "
                             f"card and masks (B, 2k x choices); got {T.hands.shape[1]} seats, {S.choices} choice(s), "
                             f"masks {masks.shape}: bind them to the game with for_game(game)")
        return table_features(self.version, T, rows, seats, masks, self.revealed, choices)


def table_features(version: int, T: Any, rows: np.ndarray, seats: np.ndarray, masks: np.ndarray, revealed: bool,
                   choices: int) -> tuple[np.ndarray, np.ndarray]:
    """`features_for` of the seat `seats[j]` to move at table `rows[j]` of 2-player compiled tables
    `T`, each legal action of `masks[j]` a move; the gains are the teacher's (`move_gain`) searched in place on the
    tables' rows. Plain Python around the kernels, as `card_values_depth`."""
    k = T.hands.shape[2]
    ctx = np.zeros((len(rows), 4), np.float32)
    per = np.zeros((len(rows), masks.shape[1], 4 + 3 * len(DEPTHS)), np.float32)
    for j, (r, me) in enumerate(zip(np.asarray(rows).tolist(), np.asarray(seats).tolist())):
        position = Position(T.hands[r], T.alive[r], T.stacks[r], T.heights[r], T.scores[r], int(T.first[r]))
        hands, alive, scores = position.hands, position.alive, position.scores
        live = [i for i in range(k) if (int(alive[me]) >> i) & 1]
        where = {int(hands[me, i]): i for i in live}
        rank = {i: n for n, i in enumerate(live)}
        acts = np.flatnonzero(masks[j])
        cards = acts // choices + 2
        pos = [where[int(c)] for c in cards]
        moves = [(i, int(a) % choices if choices > 1 else -1) for a, i in zip(acts, pos)]
        values = [np.array([move_gain(version, position, me, i, depth, VALUE, VALID, revealed, choice)
                            for i, choice in moves], dtype=np.float32) for depth in DEPTHS]
        _move_features(per[j], acts, cards, [rank[i] for i in pos], values)
        ctx[j] = _context(int(T.turn[r]), k, len(live), int(scores[me]) - int(scores[1 - me]), version)
    return ctx, per


#: The features of a version-1 view (`primi_composti`) and of a version-2 view (`primi_composti_v2`).
features_v1, features_v2 = PrimiFeatures(1), PrimiFeatures(2)
FEATURES["primi_composti"] = features_v1
FEATURES["primi_composti_v2"] = features_v2
