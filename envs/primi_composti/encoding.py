"""Primi Composti observations: hands, stacks (with order), scores and turn.

Seats are encoded relative to the observer (me, next seat, ...); stacks in the
same relative order, primes then composites. Every card field has one slot per
card (card c at index c − 2).
"""

from __future__ import annotations

import numpy as np

from envs.core.encoding import Field, Layout
from envs.primi_composti.rules import VALUE, PrimiCompostiGame, View


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
        self._unseen_all = set(range(2, m + 2))

    def encode(self, view: View) -> np.ndarray:
        """The observation of `view` (one index list, then a few numpy writes: speed)."""
        o, n, m = self._o, self.n, self.m
        obs = np.zeros(self.layout.size, dtype=np.float32)
        me = view.seat
        hands, stacks = view.hands, view.stacks
        ones: list[int] = [self._own + c for c in hands[me]]  # type: ignore[union-attr]
        # A card is "unseen" unless it is in the own hand or on a stack.
        unseen = self._unseen_all.copy()
        for c in hands[me]:  # type: ignore[union-attr]
            unseen.discard(c)
        for r in range(1, n):
            h = hands[(me + r) % n]
            if h is not None:
                base = self._other + (r - 1) * m
                ones += [base + c for c in h]
        hpos: list[int] = []
        hval: list[float] = []
        for r in range(n):
            s = (me + r) % n
            for t in (0, 1):
                st = stacks[2 * s + t]
                if st:
                    k = (2 * r + t) * m
                    base = self._member + k
                    ones += [base + c for c in st]
                    ones.append(self._top + k + st[-1])
                    hpos += [self._height + c for c in st]
                    hval += self._heights[: len(st)]
                    unseen.difference_update(st)
        ones += [self._unseen + c for c in unseen]
        obs[ones] = 1.0
        if hpos:
            obs[hpos] = hval
        order = [(me + r) % n for r in range(n)]
        sc = view.scores
        hs = view.hand_sizes
        obs[o["scores"] : o["scores"] + n] = [sc[s] / self.max_score for s in order]
        obs[o["hand_sizes"] : o["hand_sizes"] + n] = [hs[s] / self.game.cards_per_player for s in order]
        obs[o["turn"]] = view.turn / m
        if "hand_gain" in o:
            # Immediate gain of each own card (greedy players' score), scaled to [0, 1].
            g = self.game
            base = o["hand_gain"] - 2
            for c in hands[me]:  # type: ignore[union-attr]
                gain = g.best_pair(stacks, me, c)[1] + int(VALUE[c])
                obs[base + c] = min(1.0, gain / 8.0)
        return obs
