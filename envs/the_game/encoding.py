"""The Game observations: own hand, cards already placed, pile tops, turn and talk.

Every field is relative to the viewing seat (seat offsets 0 = me, 1 = next
player, ...), so one policy can act for any seat (`control="all_seats"`).
"""

from __future__ import annotations

import numpy as np

from envs.core.encoding import Field, Layout
from envs.the_game.rules import LOWEST, NUM_CARDS, NUM_PILES, TheGame, View


class TheGameEncoder:
    """Encodes a `View` as named fields (all in [0, 1]):

    * `hand` (98): 1 for each card 2..99 in the own hand;
    * `placed` (98): 1 for each card already on a pile (public card counting);
    * `tops` (4): pile tops / 100 (piles up0, up1, down0, down1);
    * `gaps` (4 × 98): for each pile and own card, the signed distance to the top
      in the pile's direction, (dir·(card − top) + 100) / 200 (0 where the card is
      not held) — the quantity every heuristic ranks plays by;
    * `deck` (1): draw-pile size / 98;
    * `hand_sizes` (n): every seat's hand size / hand size, own seat first;
    * `to_act` (n): one-hot seat offset of the active player;
    * `played_this_turn` (1) / hand size; `still_required` (1): cards still
      owed this turn / hand size;
    * `flags` (n × 4 × 2): per seat offset and pile, `please_hold` and `ok` bits;
    * `flags_set` (4): piles whose flag the active player set this turn.
    """

    def __init__(self, game: TheGame):
        n = game.num_players
        self.n = n
        self.hand_size = game.hand_size
        self.layout = Layout([
            Field("hand", NUM_CARDS), Field("placed", NUM_CARDS), Field("tops", NUM_PILES),
            Field("gaps", NUM_PILES * NUM_CARDS), Field("deck", 1), Field("hand_sizes", n), Field("to_act", n),
            Field("played_this_turn", 1), Field("still_required", 1), Field("flags", n * NUM_PILES * 2),
            Field("flags_set", NUM_PILES),
        ])
        self.observation_space = self.layout.space
        lay = self.layout
        self._hand = lay["hand"].start
        self._placed = lay["placed"].start
        self._tops = lay["tops"].start
        self._gaps = lay["gaps"].start
        self._deck = lay["deck"].start
        self._sizes = lay["hand_sizes"].start
        self._act = lay["to_act"].start
        self._played = lay["played_this_turn"].start
        self._req = lay["still_required"].start
        self._flags = lay["flags"].start
        self._fset = lay["flags_set"].start
        self.pile_flags = game.pile_flags

    def encode(self, view: View) -> np.ndarray:
        """The observation of `view` (a new float32 array)."""
        obs = np.zeros(self.layout.size, dtype=np.float32)
        n, seat, hs = self.n, view.seat, self.hand_size
        piles = view.piles
        tops = [piles[0][-1], piles[1][-1], piles[2][-1], piles[3][-1]]
        # one fancy assignment for the own hand and the placed cards (few numpy calls: they dominate)
        hb, pb = self._hand - LOWEST, self._placed - LOWEST
        idx = [hb + c for c in view.hand]
        if view.placed:
            idx += [pb + c for c in piles[0][1:] + piles[1][1:] + piles[2][1:] + piles[3][1:]]
        if idx:
            obs.put(idx, 1.0)
        # signed gap of every own card on every pile, in the pile's direction (scalar writes beat
        # small-array numpy math here)
        hand = view.hand
        for p in range(NUM_PILES):
            top = tops[p]
            base = self._gaps + p * NUM_CARDS - LOWEST
            if p < 2:
                for c in hand:
                    obs[base + c] = (c - top + 100) * 0.005
            else:
                for c in hand:
                    obs[base + c] = (top - c + 100) * 0.005
        t = self._tops
        obs[t:t + 4] = (tops[0] * 0.01, tops[1] * 0.01, tops[2] * 0.01, tops[3] * 0.01)
        obs[self._deck] = view.deck_size / NUM_CARDS
        sizes = view.hand_sizes
        for k in range(n):
            obs[self._sizes + k] = min(1.0, sizes[(seat + k) % n] / hs)
        if self.pile_flags:
            for k in range(n):
                fl = view.flags[(seat + k) % n]
                for p in range(NUM_PILES):
                    if fl[p]:
                        obs[self._flags + (k * NUM_PILES + p) * 2 + fl[p] - 1] = 1.0
        if not view.over:
            obs[self._act + (view.player - seat) % n] = 1.0
            obs[self._played] = min(1.0, view.played_this_turn / hs)
            obs[self._req] = min(1.0, max(0, view.required - view.played_this_turn) / hs)
            fs = view.flags_set
            if fs:
                for p in range(NUM_PILES):
                    if fs >> p & 1:
                        obs[self._fset + p] = 1.0
        return obs
