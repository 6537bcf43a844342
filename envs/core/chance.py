"""A game's deal as explicit chance draws, for exports to libraries with chance nodes (OpenSpiel): the base
`ChanceModel`, a multiset `Phase` drawn card by card, and `DeckChance`, a shuffled deck drawn card after card.
A game declares its model in its spec (`GameSpec.chance_model`)."""

from __future__ import annotations

from typing import Any


class ChanceModel:
    """How an exported game meets OpenSpiel: its chance phases, its moves and its information.

    A chance phase is an object with `outcomes(drawn)` (the next draw's outcomes and probabilities, or None once
    complete), `deal(drawn)` (the engine state the draws make) and `outcome_string(index, outcome)`; `start()` is
    the game's first one. `move(state, action)` is the engine's `apply` (for a simultaneous game, `action` lists one
    action per seat), or a phase when chance must act before the move's result is known (then `Phase.returns_of`
    and `Phase.view_of` are the engine states whose returns and views hold while it runs). Subclasses set the bounds.
    """

    perfect_recall = False  # True: the view is the information state (its repr and encoding)
    history_info_state = False  # the information-state string is the seat's own history (`tokens`), no tensor
    simultaneous = False  # every programming round is one OpenSpiel simultaneous node
    terminal_rewards = False  # True: the returns are 0 until the game ends
    players: tuple[int, int] | None = None  # the player-count range, where it is an option
    players_option: str | None = None  # the Config field of the player count: OpenSpiel's parameter `players`

    def __init__(self, game: Any):
        self._game = game

    def __deepcopy__(self, memo: dict) -> ChanceModel:
        return self  # the game's, shared by every state (OpenSpiel clones states with deepcopy)

    def start(self) -> Any:
        """The deal's chance phase (this model itself, for the models that deal once)."""
        return self

    def move(self, state: Any, action: Any) -> Any:
        """The engine state after `action`, or the chance phase that decides it."""
        return self._game.apply(state, action)

    def tokens(self, before: Any, action: Any, after: Any) -> list[str]:
        """Each seat's record of a move (`before` None: of the deal that made `after`); history games only."""
        raise NotImplementedError


class Phase:
    """A chance phase over a multiset of cards, drawn one at a time without replacement, every card left equally
    likely. Outcome k stands for a card of value `kinds[k]` and has probability (copies of it left) / (cards left):
    the law of the values along a uniformly shuffled order, with one outcome per value rather than per copy.
    `finish(order)` is the engine state the drawn order makes; `returns_of` and `view_of` are the engine states
    whose returns and views hold while the phase runs (None: zeros and "dealing"). `finish` is a method of the
    chance model, called as `finish(order, *args)` (no closure: OpenSpiel serializes states by pickling them)."""

    def __init__(self, cards: Any, kinds: Any, finish: Any, label: str, returns_of: Any = None, view_of: Any = None,
                 args: tuple = ()):
        self.kinds = list(kinds)
        index = {v: k for k, v in enumerate(self.kinds)}
        self.counts = [0] * len(self.kinds)
        for c in cards:
            self.counts[index[int(c)]] += 1
        self.total = len(cards)
        self.finish, self.args, self.label = finish, args, label
        self.returns_of, self.view_of = returns_of, view_of

    def __deepcopy__(self, memo: dict) -> Phase:
        return self  # never changed once made: the clones of a state share it

    def outcomes(self, drawn: list[int]) -> list[tuple[int, float]] | None:
        """The values still in the pile, each with its share of the cards left; None once all are drawn."""
        left_total = self.total - len(drawn)
        if left_total == 0:
            return None
        left = list(self.counts)
        for k in drawn:
            left[k] -= 1
        return [(k, c / left_total) for k, c in enumerate(left) if c]

    def deal(self, drawn: list[int]) -> Any:
        """`finish` of the drawn order."""
        return self.finish([self.kinds[k] for k in drawn], *self.args)

    def outcome_string(self, index: int, outcome: int) -> str:
        """`<label>[<position>]=<card>`."""
        return f"{self.label}[{index}]={self.kinds[outcome]}"


class DeckChance(ChanceModel):
    """A shuffled deck as chance draws: the deck's order card after card, each uniform over the cards
    left (outcome i is the i-th smallest card), then the engine's `deal_from` that order. Subclasses say
    which cards and the game's bounds."""

    # perfect_recall stays False: a view is what the seat knows now, not its history (observations only)

    def __init__(self, game: Any, cards: list[int]):
        super().__init__(game)
        self.cards = list(cards)
        self.max_outcomes = len(self.cards)

    def outcomes(self, drawn: list[int]) -> list[tuple[int, float]] | None:
        """The cards still in the deck, equally likely, or None once the whole order is drawn."""
        left = len(self.cards) - len(drawn)
        if left == 0:
            return None
        taken = set(drawn)
        return [(i, 1.0 / left) for i in range(len(self.cards)) if i not in taken]

    def order(self, drawn: list[int]) -> list[int]:
        """The deck order the draws make."""
        return [self.cards[i] for i in drawn]

    def deal(self, drawn: list[int]) -> Any:
        """The engine's `deal_from` the drawn order."""
        return self._game.deal_from(self.order(drawn))

    def outcome_string(self, index: int, outcome: int) -> str:
        """`Deck[<position>]=<card>`."""
        return f"Deck[{index}]={self.cards[outcome]}"
