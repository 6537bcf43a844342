"""Primi Composti observations: hands, stacks (with order), scores and turn.

Seats are encoded relative to the observer (me, next seat, ...); stacks in the
same relative order, primes then composites. Every card field has one slot per
card (card c at index c − 2).
"""

from __future__ import annotations

import numpy as np

from envs.core.encoding import Field, Layout
from envs.primi_composti.rules import PrimiCompostiGame, View


class PrimiCompostiEncoder:
    """Encodes a `View` with the fields (M = number of cards, N = players):

    `own_hand` (M), `other_hands` ((N−1)·M, only where the view knows them: 2
    players), `unseen` (M: cards in somebody else's hand), `stack_member`
    (2N·M: which stack each card lies in), `stack_top` (2N·M), `stack_height`
    (M: position in its stack / M, so the order under the tops is known),
    `scores` (N, score / maximum), `hand_sizes` (N, / cards_per_player),
    `turn` (1, / M).
    """

    def __init__(self, game: PrimiCompostiGame):
        self.game = game
        n, m = game.num_players, game.num_cards
        self.n, self.m = n, m
        self.max_score = 6 * game.cards_per_player if game.version == 1 else game.total_value
        self.layout = Layout(
            [
                Field("own_hand", m),
                Field("other_hands", (n - 1) * m),
                Field("unseen", m),
                Field("stack_member", 2 * n * m),
                Field("stack_top", 2 * n * m),
                Field("stack_height", m),
                Field("scores", n),
                Field("hand_sizes", n),
                Field("turn", 1),
            ]
        )
        self.observation_space = self.layout.space
        self._o = {name: s.start for name, s in self.layout.slices.items()}

    def encode(self, view: View) -> np.ndarray:
        """The observation of `view`."""
        o, n, m = self._o, self.n, self.m
        obs = np.zeros(self.layout.size, dtype=np.float32)
        me = view.seat
        held = set()
        for r in range(n):
            s = (me + r) % n
            h = view.hands[s]
            if h is None:
                continue
            if r == 0:
                for c in h:
                    obs[o["own_hand"] + c - 2] = 1.0
            else:
                base = o["other_hands"] + (r - 1) * m
                for c in h:
                    obs[base + c - 2] = 1.0
                    held.add(c)
        on_stack = set()
        for r in range(n):
            s = (me + r) % n
            for t in range(2):
                st = view.stacks[2 * s + t]
                k = 2 * r + t
                for pos, c in enumerate(st):
                    obs[o["stack_member"] + k * m + c - 2] = 1.0
                    obs[o["stack_height"] + c - 2] = (pos + 1) / m
                    on_stack.add(c)
                if st:
                    obs[o["stack_top"] + k * m + st[-1] - 2] = 1.0
        own = set(view.hands[me] or ())
        for c in range(2, m + 2):
            if c not in own and c not in on_stack:
                obs[o["unseen"] + c - 2] = 1.0
        for r in range(n):
            s = (me + r) % n
            obs[o["scores"] + r] = view.scores[s] / self.max_score
            obs[o["hand_sizes"] + r] = view.hand_sizes[s] / self.game.cards_per_player
        obs[o["turn"]] = view.turn / m
        return obs
