"""The Game strategies: the seed's three (`the_game/random`, `minimal`, `trick`), R. Weinmeister's
`the_game/simplest`, this project's `the_game/bestplays` and the rollout teacher `the_game/rollout?k=<k>`.

Seed: L. Berger (2024), semantics restated in the rules specification §4.1. Under `rules="berger2024"` the seed
strategies behave exactly as the seed's functions (without always checking that a card fits); under
`rules="official"` they choose among legal plays only, play until the turn's minimum is met and end the turn.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right

import numpy as np

from agents.base import old_spelling, positive_int, register
from agents.the_game.rollout import RolloutTeacher
from envs.the_game.rules import (
    END_TURN,
    FLAG_HOLD,
    FLAG_NONE,
    NUM_PILES,
    TRICK,
    TheGame,
    View,
    fits,
    flag_action,
    play_action,
)


def _direction(pile: int) -> int:
    """+1 on the ascending piles 0 and 1, −1 on the descending piles 2 and 3."""
    return 1 if pile < 2 else -1


def _cost(card: int, pile: int, top: int) -> int:
    """How far the pile moves towards its end: dir·(card − top); −10 for a backwards trick."""
    return (card - top) if pile < 2 else (top - card)


class _TheGameAgent:
    """Shared plumbing: the engine's options and the agent's own generator."""

    name = "the_game/agent"

    def __init__(self, game: TheGame, rng: np.random.Generator):
        if not isinstance(rng, np.random.Generator):
            raise TypeError("The Game agents need an explicit np.random.Generator")
        self.game = game
        self.rng = rng
        self.berger = game.berger

    def _choice(self, items: list):
        """Uniform choice (the seed's `random.choice`) through the agent's generator."""
        return items[int(self.rng.integers(len(items)))]

    @staticmethod
    def _legal_plays(view: View, trick: bool = True) -> list[tuple[int, int]]:
        """(pile, hand index) pairs whose card fits (`trick`: the official rules' backwards trick too; without it,
        the seed's strict fit), piles outer, hand order inner."""
        tops = view.tops
        return [(p, i) for p in range(NUM_PILES) for i, c in enumerate(view.hand) if fits(c, p, tops[p], trick)]

    @staticmethod
    def _must_play(view: View) -> bool:
        return view.played_this_turn < view.required

    def _move(self, view: View, pile: int, index: int) -> int:
        return play_action(view.hand[index], pile)

    def act(self, view: View, action_mask: np.ndarray) -> int:
        """The action id of the chosen move."""
        raise NotImplementedError

    def __init_subclass__(cls, **kwargs):
        # The strategies are written in the card head's ids (`play_action`, `END_TURN`, `flag_action`); under
        # `actions="slot"` each one's `act` translates its choice to the slot head in this one place.
        super().__init_subclass__(**kwargs)
        card_act = cls.__dict__.get("act")
        if card_act is None:
            return

        def act(self, view: View, action_mask: np.ndarray) -> int:
            a = card_act(self, view, action_mask)
            return self.game.from_card_action(view.hand, a) if self.game.slot_head else a

        act.__doc__ = card_act.__doc__
        cls.act = act


class RandomStrategy(_TheGameAgent):
    """The seed's *random* strategy (§4.1).

    berger2024 (exact): list every (pile, hand index) whose card is strictly above
    an ascending / below a descending top, piles 0..3 outer and hand order inner;
    pick one uniformly; with none, return (0, 0) — pile 0, first hand card — which
    does not fit and ends the game.

    official (adaptation): uniform over the legal plays (backwards trick
    included) until the turn's minimum is met, then end the turn.
    """

    name = "the_game/random"

    def act(self, view: View, action_mask: np.ndarray) -> int:
        """Uniform among fitting cards (see the class docstring)."""
        if self.berger:
            valid = self._legal_plays(view, trick=False)
            if not valid:
                return self._move(view, 0, 0)
            return self._move(view, *self._choice(valid))
        if not self._must_play(view):
            return END_TURN
        return self._move(view, *self._choice(self._legal_plays(view)))


class MinimalStrategy(_TheGameAgent):
    """The seed's *minimal distance* strategy (§4.1).

    berger2024 (exact): `a` = lower ascending top, `d` = higher descending top;
    if |a − lowest card| < |d − highest card| (strict) play the lowest card on the
    ascending pile whose top is `a` (pile 0 on ties), else the highest card on the
    descending pile whose top is `d` (pile 2 on ties) — without a fit check.

    official (adaptation): among the legal plays take the one with the smallest
    move of its pile, dir·(card − top) (a backwards trick counts −10), first in
    pile/hand order on ties; play until the minimum is met, then end the turn.
    """

    name = "the_game/minimal"

    def act(self, view: View, action_mask: np.ndarray) -> int:
        """The smallest-distance card (see the class docstring)."""
        hand = view.hand
        tops = view.tops
        if self.berger:
            a = min(tops[0], tops[1])
            d = max(tops[2], tops[3])
            lo, hi = min(hand), max(hand)
            if abs(a - lo) < abs(d - hi):
                return self._move(view, 0 if tops[0] == a else 1, hand.index(lo))
            return self._move(view, 2 if tops[2] == d else 3, hand.index(hi))
        if not self._must_play(view):
            return END_TURN
        plays = self._legal_plays(view)
        best = min(plays, key=lambda pi: _cost(hand[pi[1]], pi[0], tops[pi[0]]))
        return self._move(view, *best)


class TrickStrategy(_TheGameAgent):
    """The seed's *trick* strategy (§4.1).

    berger2024 (exact): (1) for every pile, every card ever placed on it (start
    card included) and every hand card 10 apart from it, add (pile, hand index) —
    duplicates kept — and choose uniformly, without a fit check; (2) else, for
    each pair of hand cards 10 apart (hand order, first card c1), for piles 0, 1, 2
    only (the seed skips pile 3), add (pile, index of c1) where c1 fits strictly;
    choose uniformly; (3) else play like *random*.

    official (adaptation, legal plays only): (1) a uniformly chosen backwards
    trick; (2) else a legal play of a card c1 whose partner c1 − 10·dir is in the
    hand, so that the partner becomes a backwards trick on that pile (all four
    piles); (3) else a uniformly random legal play. Until the minimum is met, then
    the turn ends.
    """

    name = "the_game/trick"

    def act(self, view: View, action_mask: np.ndarray) -> int:
        """A (set-up of a) backwards trick if possible (see the class docstring)."""
        hand = view.hand
        if self.berger:
            cands = [
                (p, i)
                for p, pile in enumerate(view.piles)
                for placed in pile
                for i, c in enumerate(hand)
                if abs(placed - c) == TRICK
            ]
            if cands:
                return self._move(view, *self._choice(cands))
            # (2): each pair 10 apart in hand order, its first card c1 onto piles 0..2 where it fits strictly
            cands = [(p, j) for j, c1 in enumerate(hand) for c2 in hand[j + 1:] if abs(c1 - c2) == TRICK
                     for p in range(3) if fits(c1, p, view.tops[p], False)]
            if cands:
                return self._move(view, *self._choice(cands))
            valid = self._legal_plays(view, trick=False)
            return self._move(view, *self._choice(valid)) if valid else self._move(view, 0, 0)
        if not self._must_play(view):
            return END_TURN
        tops = view.tops
        plays = self._legal_plays(view)
        tricks = [(p, i) for p, i in plays if _cost(hand[i], p, tops[p]) == -TRICK]
        if tricks:
            return self._move(view, *self._choice(tricks))
        held = set(hand)
        setups = [(p, i) for p, i in plays if hand[i] - TRICK * _direction(p) in held]
        if setups:
            return self._move(view, *self._choice(setups))
        return self._move(view, *self._choice(plays))


class SimplestStrategy(_TheGameAgent):
    """R. Weinmeister's "simplest ruleset" (rules doc §5; figures in §6), official rules only.

    Each card of a turn: (1) play a backwards trick if there is one; (2) else play
    the closest card within distance 3 (5 with communication) of a top, skipping
    cards whose ±10 partner is also in the hand (kept for a later trick) and — with
    communication — piles another player flagged `please_hold`; (3) else, while
    the minimum is not met, the closest legal card; else end the turn.
    With `communication="pile_flags"` the player flags `please_hold` on every pile
    where it holds a backwards trick before ending its turn (his 2.2, "announce
    tricks"). Deterministic: ties go to the lower pile, then hand order.
    """

    name = "the_game/simplest"

    def __init__(self, game: TheGame, rng: np.random.Generator):
        super().__init__(game, rng)
        if self.berger:
            raise ValueError("the_game/simplest plays the official rules (rules='official')")
        self.talk = game.pile_flags
        self.limit = 5 if self.talk else 3

    def act(self, view: View, action_mask: np.ndarray) -> int:
        """Trick, else a close card, else the minimum, else end the turn (with flags)."""
        hand, tops = view.hand, view.tops
        plays = [(_cost(hand[i], p, tops[p]), p, i) for p, i in self._legal_plays(view)]
        for cost, p, i in plays:
            if cost == -TRICK:
                return self._move(view, p, i)
        blocked = _held_by_others(view) if self.talk else set()
        held = set(hand)
        close = [
            (cost, p, i) for cost, p, i in plays
            if 0 < cost <= self.limit and p not in blocked
            and hand[i] + TRICK not in held and hand[i] - TRICK not in held
        ]
        if close:
            _, p, i = min(close)
            return self._move(view, p, i)
        if self._must_play(view):
            _, p, i = min(plays)
            return self._move(view, p, i)
        if self.talk:  # please_hold where it holds a backwards trick
            return _flag_or_end(view, {p for p in range(NUM_PILES) if any(_cost(c, p, tops[p]) == -TRICK
                                                                          for c in hand)})
        return END_TURN


class BestPlaysStrategy(_TheGameAgent):
    """Strong official-rules baseline: Weinmeister's "best plays" idea (rules doc §5) plus card
    counting.

    A play is scored by what it wastes (lower is better): the live cards strictly between the pile's top and the card,
    plus `gap_weight` × the pile's move; a backwards trick scores minus the live cards it re-opens, minus 1; a chain
    (card, then its partner 10 back on the same pile) is scored by where the pile ends. On a pile flagged
    `please_hold` a wasteful play's score is multiplied by 1 + `hold_penalty` (plus 0.5). The best play is made
    while the minimum is not met, and beyond it while it scores at most `extra_limit` (`extra_limit_last` once the
    draw pile is empty); with `communication="pile_flags"` it first flags `please_hold` on each pile where its own
    best play scores at most `hold_gap`. Deterministic.
    """

    name = "the_game/bestplays"

    def __init__(
        self,
        game: TheGame,
        rng: np.random.Generator,
        extra_limit: float = 1.0,
        extra_limit_last: float = 2.0,
        gap_weight: float = 0.25,
        hold_gap: float = 2.0,
        hold_penalty: float = 0.5,
    ):
        super().__init__(game, rng)
        if self.berger:
            raise ValueError("the_game/bestplays plays the official rules (rules='official')")
        self.talk = game.pile_flags
        self.extra_limit = extra_limit
        self.extra_limit_last = extra_limit_last
        self.gap_weight = gap_weight
        self.hold_gap = hold_gap
        self.hold_penalty = hold_penalty

    def scored_plays(self, view: View) -> list[tuple[float, int, int]]:
        """`(score, pile, hand index)` of every fitting play (penalties for flagged piles excluded)."""
        hand, tops = view.hand, view.tops
        piles = view.piles
        placed = sorted(piles[0] + piles[1] + piles[2] + piles[3])  # start cards 1/100 are never strictly inside
        gw = self.gap_weight

        def waste(top: int, new_top: int, d: int) -> float:
            # live cards strictly between the old and the new top: they can no longer go on this pile
            lo, hi = (top, new_top) if top < new_top else (new_top, top)
            live = (hi - lo - 1) - (bisect_left(placed, hi) - bisect_right(placed, lo))
            move = d * (new_top - top)
            if move < 0:  # the pile went back: live cards re-opened, one card placed for free
                return -live - 1 + gw * move
            return live + gw * move

        held = set(hand)
        out = []
        for p, i in self._legal_plays(view):
            c, top, d = hand[i], tops[p], _direction(p)
            score = waste(top, c, d)
            partner = c - TRICK * d
            if d * (c - top) > 0 and partner in held:
                score = min(score, waste(top, partner, d) - 1)  # chain: two cards, pile ends at partner
            out.append((score, p, i))
        return out

    def best_move(self, view: View) -> tuple[float, int, int] | None:
        """`(score, pile, hand index)` of the best play, flag penalties included; None if nothing fits."""
        blocked = _held_by_others(view) if self.talk else ()
        # a partner asked to hold pile p: wasting there costs more
        return min(((s * (1 + self.hold_penalty) + 0.5 if p in blocked and s > 0 else s, p, i)
                    for s, p, i in self.scored_plays(view)), default=None)

    def act(self, view: View, action_mask: np.ndarray) -> int:
        """Play the best move while owed or cheap enough; else flag and end the turn."""
        best = self.best_move(view)
        if best is not None:
            limit = self.extra_limit if view.required > 1 else self.extra_limit_last
            if self._must_play(view) or best[0] <= limit:
                return self._move(view, best[1], best[2])
        if self.talk:
            return _flag_or_end(view, {p for score, p, _ in self.scored_plays(view) if score <= self.hold_gap})
        return END_TURN


def _held_by_others(view: View) -> set[int]:
    """Piles some other seat flagged `please_hold`."""
    return {p for s, fl in enumerate(view.flags) if s != view.seat for p in range(NUM_PILES) if fl[p] == FLAG_HOLD}


def _flag_or_end(view: View, hold: set[int]) -> int:
    """The next flag action that moves the own flags towards `please_hold` on the piles `hold` and none elsewhere
    (each pile once a turn); END_TURN when there is none."""
    mine = view.flags[view.seat]
    for p in range(NUM_PILES):
        want = FLAG_HOLD if p in hold else FLAG_NONE
        if mine[p] != want and not view.flags_set >> p & 1:
            return flag_action(p, want)
    return END_TURN


register("the_game/random", RandomStrategy)
register("the_game/minimal", MinimalStrategy)
register("the_game/trick", TrickStrategy)
register("the_game/simplest", SimplestStrategy)
register("the_game/bestplays", BestPlaysStrategy)
register("the_game/rollout", RolloutTeacher, params={"k": positive_int},
         doc="Gated rollout improvement of bestplays (?k= rollouts per candidate move).")
old_spelling(r"the_game/rollout-k(?P<k>\d+)", lambda k: f"the_game/rollout?k={k}")

#: The seed's strategies (rules doc §4.1) by their names in the blog's table.
SEED_STRATEGIES = {"random": RandomStrategy, "minimal": MinimalStrategy, "trick": TrickStrategy}

__all__ = [
    "SEED_STRATEGIES", "BestPlaysStrategy", "MinimalStrategy", "RandomStrategy", "SimplestStrategy", "TrickStrategy",
]
