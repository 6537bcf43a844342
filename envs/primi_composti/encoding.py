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
    `turn` (1, / M); with the `observation_hints` option also `hand_gain` (M:
    each own card's immediate gain / 8).
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
            + ([Field("hand_gain", m)] if game.config.observation_hints else [])
        )
        self.observation_space = self.layout.space
        self._o = {name: s.start for name, s in self.layout.slices.items()}
        # Offsets shifted by −2 so that card c lands at `offset + c` (speed).
        self._own = self._o["own_hand"] - 2
        self._other = self._o["other_hands"] - 2
        self._unseen = self._o["unseen"] - 2
        self._member = self._o["stack_member"] - 2
        self._top = self._o["stack_top"] - 2
        self._height = self._o["stack_height"] - 2
        self._heights = [(i + 1) / m for i in range(m)]
        # Speed: the observation starts as a copy of a template (every card unseen,
        # which the own hand and the stacks then clear) and is written item by item
        # through a memoryview (cheaper than numpy's own item writes or index lists).
        # Per observer seat: the (seat, offset) of every other hand, the (stack,
        # member offset, top offset) of every stack and the (score slot, hand size
        # slot, seat) of every seat, in the observer's relative order.
        self._template = np.zeros(self.layout.size, dtype=np.float32)
        self._template[self._unseen + 2 : self._unseen + m + 2] = 1.0
        self._others = [[((me + r) % n, self._other + (r - 1) * m) for r in range(1, n)] for me in range(n)]
        self._stack_offsets = [
            [(2 * ((me + r) % n) + t, self._member + (2 * r + t) * m, self._top + (2 * r + t) * m)
             for r in range(n) for t in (0, 1)]
            for me in range(n)
        ]
        self._order = [[(self._o["scores"] + r, self._o["hand_sizes"] + r, (me + r) % n) for r in range(n)]
                       for me in range(n)]
        self._turn_at = self._o["turn"]
        self._gain_at = self._o["hand_gain"] - 2 if "hand_gain" in self._o else None
        # Everything `encode` reads, in one tuple (one attribute load instead of many: speed).
        self._per_seat = [(self._others[me], self._stack_offsets[me], self._order[me]) for me in range(n)]
        self._consts = (self._own, self._unseen, self._height, self._heights, self.max_score, game.cards_per_player,
                        self._turn_at, m, self._gain_at)

    def encode(self, view: View) -> np.ndarray:
        """The observation of `view` (one template copy, then item writes: speed)."""
        out = self._template.copy()
        obs = memoryview(out)
        me = view.seat
        hands, stacks = view.hands, view.stacks
        own_hand = hands[me]
        own, unseen, height, heights, max_score, k, turn_at, m, base = self._consts
        others, stack_offsets, order = self._per_seat[me]
        for c in own_hand:  # type: ignore[union-attr]
            obs[own + c] = 1.0
            obs[unseen + c] = 0.0
        for s, at in others:
            h = hands[s]
            if h is not None:
                for c in h:
                    obs[at + c] = 1.0
        for i, member, top in stack_offsets:
            st = stacks[i]
            if st:
                j = 0  # a counter beats zip/enumerate on these short stacks (speed)
                for c in st:
                    obs[member + c] = 1.0
                    obs[height + c] = heights[j]
                    obs[unseen + c] = 0.0
                    j += 1
                obs[top + st[-1]] = 1.0
        sc, hs = view.scores, view.hand_sizes
        for at_s, at_h, s in order:
            obs[at_s] = sc[s] / max_score
            obs[at_h] = hs[s] / k
        obs[turn_at] = view.turn / m
        if base is not None:
            # Immediate gain of each own card (greedy players' score), scaled to [0, 1].
            card_gain = self.game.card_gain
            for c in own_hand:  # type: ignore[union-attr]
                obs[base + c] = min(1.0, card_gain(stacks, me, c) / 8.0)
        return out
