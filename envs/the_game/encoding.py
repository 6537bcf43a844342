"""The Game observations: own hand, cards already placed, pile tops, turn and talk.

Every field is relative to the viewing seat (seat offsets 0 = me, 1 = next
player, ...), so one policy can act for any seat (`control="all_seats"`).
"""

from __future__ import annotations

from array import array

import numpy as np

from envs.core.encoding import Field, Layout
from envs.the_game.rules import ASCENDING, DESCENDING, LOWEST, NUM_CARDS, NUM_PILES, TRICK, State, TheGame, View

_F32 = np.dtype(np.float32)


# the rules' pile numbers (0, 1 and 2, 3) as slices: basic indexing gives a view, where a list of them would copy
_UP, _DOWN = slice(ASCENDING[0], ASCENDING[-1] + 1), slice(DESCENDING[0], DESCENDING[-1] + 1)


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
        self.slot_head, self.num_actions = game.slot_head, game.num_actions
        # Speed (the env encodes every step, and a numpy call costs more than the few values set): the
        # observation is filled in a copy of a zero `array.array('f')` by plain item assignment and
        # returned as a numpy array over that fresh buffer. A gap value is looked up by its integer
        # numerator dir·(card − top) + 100 in one small (cache-friendly) list; values are bit-identical
        # to computing (dir·(card − top) + 100)·0.005 in Python and storing it as float32.
        self._zero = array("f", bytes(4 * self.layout.size))
        self._gap_value = [k * 0.005 for k in range(201)]  # [dir·(card − top) + 100]: one small, cache-hot list
        self._hs_frac = [min(1.0, k / self.hand_size) for k in range(NUM_CARDS + 1)]
        # per card: its hand position and its gap positions on the four piles
        g = self._gaps - LOWEST
        self._card_pos = [
            (self._hand - LOWEST + c, g + c, g + NUM_CARDS + c, g + 2 * NUM_CARDS + c, g + 3 * NUM_CARDS + c)
            for c in range(LOWEST + NUM_CARDS)
        ]
        self._others = [[(seat + k) % n for k in range(n)] for seat in range(n)]  # seats by offset from `seat`
        self._scalar_pos = (self._tops, self._deck, self._sizes)
        self._turn_pos = (self._act, self._played, self._req, self._fset)

    #: The number of `action_keys` values: a card's gap numerator on its pile (0..200) x its backwards-trick
    #: partner held (0, 1).
    num_action_keys = 2 * 201

    def action_keys(self, obs: np.ndarray) -> np.ndarray:
        """Each action's key in a batch of observations `(B, D)`: int16 `(B, A)`, what a policy may look up a
        learned logit by (`train.cleanrl_ppo`'s `--action-table`). A card onto a pile: its gap on that pile as the
        integer dir·(card − top) + 100 (0..200, read back from the `gaps` field), plus 201 where the card ±10
        that the backwards trick would play after it (card − 10 on an up pile, card + 10 on a down pile) is also
        in the hand; every other action (end turn, flags, a slot without a card): `num_action_keys`, the
        key of no entry. A card not held has gap field 0: its key is that of a gap of -100, never legal."""
        obs = np.asarray(obs, np.float32).reshape(-1, self.layout.size)
        B, C, P = obs.shape[0], NUM_CARDS, NUM_PILES
        # int16 all through (a batch of 1,024 observations in ~1 ms): gap fields are exact multiples of 1/200
        keys = (obs[:, self._gaps:self._gaps + P * C] * 200.0 + 0.5).astype(np.int16).reshape(B, P, C)
        hand = obs[:, self._hand:self._hand + C] > 0.5
        keys[:, _UP, TRICK:] += np.int16(201) * hand[:, None, :C - TRICK]  # up piles: card - 10 held
        keys[:, _DOWN, :C - TRICK] += np.int16(201) * hand[:, None, TRICK:]  # down piles: card + 10 held
        out = np.full((B, self.num_actions), self.num_action_keys, np.int16)
        if not self.slot_head:
            out[:, :C * P].reshape(B, C, P)[:] = keys.transpose(0, 2, 1)  # the card head: card-major
            return out
        hs = self.hand_size  # slot k: the k-th lowest held card
        order = np.argsort(~hand, axis=1, kind="stable")[:, :hs]
        held = np.take_along_axis(hand, order, axis=1)
        slot = np.take_along_axis(keys.transpose(0, 2, 1), order[:, :, None], axis=1)
        out[:, :hs * P] = np.where(held[:, :, None], slot, self.num_action_keys).reshape(B, hs * P)
        return out

    def privileged_size(self) -> int:
        """The length of `privileged`."""
        return NUM_CARDS * self.n

    def privileged(self, state: State, seat: int) -> np.ndarray:
        """What `state` hides from `seat`, for a critic that may know it (an asymmetric critic; never a policy's
        input): each other seat's hand (1 per card 2..99 held, the seats after `seat` in order), then the next
        hand-size cards of the draw pile (1 per card; they are drawn from its end). `fast.privileged_rows` is the
        compiled twin."""
        out = np.zeros(self.privileged_size(), np.float32)
        for k in range(1, self.n):
            for c in state.hands[(seat + k) % self.n]:
                out[NUM_CARDS * (k - 1) + c - LOWEST] = 1.0
        for c in state.deck[-self.hand_size:]:
            out[NUM_CARDS * (self.n - 1) + c - LOWEST] = 1.0
        return out

    def encode(self, view: View) -> np.ndarray:
        """The observation of `view` (a new float32 array)."""
        obs = self._zero[:]
        n, seat = self.n, view.seat
        p0, p1, p2, p3 = view.piles
        t0, t1, t2, t3 = p0[-1], p1[-1], p2[-1], p3[-1]
        gap = self._gap_value
        k0, k1, k2, k3 = 100 - t0, 100 - t1, t2 + 100, t3 + 100
        pos = self._card_pos
        # own hand and the signed gap of every own card on every pile, in the pile's direction
        for c in view.hand:
            h, i0, i1, i2, i3 = pos[c]
            obs[h] = 1.0
            obs[i0] = gap[c + k0]
            obs[i1] = gap[c + k1]
            obs[i2] = gap[k2 - c]
            obs[i3] = gap[k3 - c]
        if view.placed:
            pb = self._placed - LOWEST
            for c in p0[1:] + p1[1:] + p2[1:] + p3[1:]:
                obs[pb + c] = 1.0
        t, deck, sz = self._scalar_pos
        obs[t] = t0 * 0.01
        obs[t + 1] = t1 * 0.01
        obs[t + 2] = t2 * 0.01
        obs[t + 3] = t3 * 0.01
        obs[deck] = view.deck_size / NUM_CARDS
        sizes = view.hand_sizes
        frac = self._hs_frac
        for k in self._others[seat]:
            obs[sz] = frac[sizes[k]]
            sz += 1
        if self.pile_flags:
            flags = view.flags
            fb = self._flags - 1
            for k in self._others[seat]:
                fl = flags[k]
                for p in range(NUM_PILES):
                    if fl[p]:
                        obs[fb + 2 * p + fl[p]] = 1.0
                fb += 2 * NUM_PILES
        if not view.over:
            act, played_at, req_at, fset = self._turn_pos
            obs[act + (view.player - seat) % n] = 1.0
            played = view.played_this_turn
            obs[played_at] = frac[played]  # min(1, played / hand size)
            obs[req_at] = frac[max(0, view.required - played)]
            fs = view.flags_set
            if fs:
                for p in range(NUM_PILES):
                    if fs >> p & 1:
                        obs[fset + p] = 1.0
        return np.frombuffer(obs, _F32)  # a new writable array over the fresh buffer
