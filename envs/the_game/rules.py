"""The Game (Steffen Benndorf, NSV 2015): the pure rules engine.

Rules: the project's "The Game — rules specification" (the *rules doc*). Seed: L. Berger, "Playing 'The game' with
Monte Carlo simulations" (blog post, 2024). Two rule sets (option `rules`): `"official"` (rules doc §2) and
`"berger2024"` (§4, the seed's simulation engine exactly, which can never be won). Cooperative: every seat has the
same return. The rules, options and action ids (`play(card, pile)`, `END_TURN`, `flag(pile, value)`) are described
in docs/the_game.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from envs.core.game import IllegalActionError, unchecked_constructor
from envs.core.shuffle import shuffled

NUM_CARDS = 98
LOWEST, HIGHEST = 2, 99
NUM_PILES = 4
ASCENDING = (0, 1)
DESCENDING = (2, 3)
NUM_PLAY_ACTIONS = NUM_CARDS * NUM_PILES  # 392
END_TURN = NUM_PLAY_ACTIONS  # 392
FLAG_BASE = END_TURN + 1  # 393
FLAG_NONE, FLAG_HOLD, FLAG_OK = 0, 1, 2
FLAG_NAMES = ("none", "please_hold", "ok")
NUM_ACTIONS = FLAG_BASE + NUM_PILES * 3  # 405
TRICK = 10  # the backwards-trick step
PILE_NAMES = ("up0", "up1", "down0", "down1")
#: Values of `Config.empty_hand`: the rulebook's reading first (the default).
EMPTY_HAND_RULES = ("skip", "ends_game")
#: Values of `Config.actions`: the 405-way card x pile head (the default) or hand slot x pile.
ACTION_HEADS = ("card", "slot")


def play_action(card: int, pile: int) -> int:
    """Action id of putting `card` on `pile`."""
    return (card - LOWEST) * NUM_PILES + pile


def decode_play(action: int) -> tuple[int, int]:
    """`(card, pile)` of a play action id (0..391)."""
    return action // NUM_PILES + LOWEST, action % NUM_PILES


def flag_action(pile: int, value: int) -> int:
    """Action id of setting the active player's flag on `pile` to `value`."""
    return FLAG_BASE + 3 * pile + value


def slot_num_actions(hand_size: int) -> int:
    """Size of the `actions="slot"` head: 4 plays per hand slot, end turn, 12 flags."""
    return NUM_PILES * hand_size + 1 + NUM_PILES * 3


def deal_order(seed: int) -> list[int]:
    """The deck order of deal seed `seed` (0 <= seed < 2**64): 2..99 shuffled by Fisher–Yates with SplitMix64
    draws from generator state `seed` (`j = draw mod (i + 1)`), mirrored by `envs.the_game.fast.deal_order`."""
    return shuffled(range(LOWEST, HIGHEST + 1), seed)


def default_hand_size(num_players: int) -> int:
    """Hand size of the rulebook and the seed: 8 / 7 / 6 cards for 1 / 2 / 3+ players."""
    return 8 if num_players == 1 else 7 if num_players == 2 else 6


def fits(card: int, pile: int, top: int, backwards_trick: bool) -> bool:
    """Whether `card` may go on `pile` whose top card is `top`."""
    if pile < 2:
        return card > top or (backwards_trick and card == top - TRICK)
    return card < top or (backwards_trick and card == top + TRICK)


@dataclass(frozen=True)
class Config:
    """Options of The Game (the table in docs/the_game.md).

    Attributes:
        num_players: 1..5 under `"official"`, 1..7 under `"berger2024"`.
        rules: `"official"` (published rules) or `"berger2024"` (the seed's engine).
        communication: `"none"` or `"pile_flags"` (official rules only, §2.5).
        min_cards_per_turn: cards to play per turn while the draw pile lasts (official default 2; 3 = expert
            variant; the seed's engine plays exactly 1, so only None/1 are accepted there).
        hand_size: cards per hand (default 8 / 7 / 6 for 1 / 2 / 3+ players).
        win_bonus: extra return of every seat when all 98 cards are placed (>= 0).
        card_reward: return of every seat per card placed (>= 0; 1 by default).
        starter: the seat that plays first (official rules; the seed starts with 0).
        empty_hand: once the draw pile is empty, a seat with an empty hand is passed over (`"skip"`) or its turn
            ends the game (`"ends_game"`, R. Weinmeister's simulation); official rules.
        actions: `"card"` (405 ids, card x pile) or `"slot"` (`4 * hand_size + 13` ids: the k-th lowest hand card x
            pile, then end turn and the flags).
    """

    num_players: int = 2
    rules: Literal["official", "berger2024"] = "official"
    communication: Literal["none", "pile_flags"] = "none"
    min_cards_per_turn: int | None = None
    hand_size: int | None = None
    win_bonus: float = 10.0
    card_reward: float = 1.0
    starter: int = 0
    empty_hand: Literal["skip", "ends_game"] = "skip"
    actions: Literal["card", "slot"] = "card"

    def __post_init__(self) -> None:
        if self.actions not in ACTION_HEADS:
            raise ValueError(f"actions must be one of {ACTION_HEADS}, got {self.actions!r}")
        if self.rules not in ("official", "berger2024"):
            raise ValueError(f"rules must be 'official' or 'berger2024', got {self.rules!r}")
        if self.empty_hand not in EMPTY_HAND_RULES:
            raise ValueError(f"empty_hand must be one of {EMPTY_HAND_RULES}, got {self.empty_hand!r}")
        if self.rules == "berger2024" and self.empty_hand != "skip":
            raise ValueError(
                "empty_hand must be 'skip' under rules='berger2024' (the seed's engine stops by its own rule)"
            )
        if self.communication not in ("none", "pile_flags"):
            raise ValueError(f"communication must be 'none' or 'pile_flags', got {self.communication!r}")
        top = 5 if self.rules == "official" else 7
        n = self.num_players
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= top:
            raise ValueError(f"num_players must be an integer in 1..{top} under rules={self.rules!r}, got {n!r}")
        h = self.hand_size
        if h is not None and (
            isinstance(h, bool) or not isinstance(h, (int, np.integer)) or h < 1 or n * h >= NUM_CARDS
        ):
            raise ValueError(
                f"hand_size must be None or an integer in 1..{(NUM_CARDS - 1) // n} for {n} players, got {h!r}"
            )
        hs = self.resolved_hand_size
        m = self.min_cards_per_turn
        if self.rules == "berger2024":
            if m not in (None, 1):
                raise ValueError(
                    f"min_cards_per_turn must be None or 1 under rules='berger2024' (one card per turn), got {m!r}"
                )
            if self.communication != "none":
                raise ValueError(
                    "communication must be 'none' under rules='berger2024' (the seed's engine has no talk)"
                )
        elif m is not None and (isinstance(m, bool) or not isinstance(m, (int, np.integer)) or not 1 <= m <= hs):
            raise ValueError(f"min_cards_per_turn must be None or an integer in 1..{hs} (the hand size), got {m!r}")
        for name in ("win_bonus", "card_reward"):
            v = getattr(self, name)
            if (
                isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating))
                or not np.isfinite(v) or v < 0
            ):
                raise ValueError(f"{name} must be a finite number >= 0, got {v!r}")
        s = self.starter
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)) or not 0 <= s < n:
            raise ValueError(f"starter must be a seat in 0..{n - 1}, got {s!r}")

    @property
    def resolved_hand_size(self) -> int:
        """The hand size in use."""
        return self.hand_size if self.hand_size is not None else default_hand_size(self.num_players)

    @property
    def resolved_min_cards(self) -> int:
        """Cards to play per turn while the draw pile lasts."""
        if self.rules == "berger2024":
            return 1
        return self.min_cards_per_turn if self.min_cards_per_turn is not None else 2


@dataclass(frozen=True, slots=True)
class State:
    """The whole truth of a game.

    Attributes:
        piles: the four piles' full histories (start card first, top last).
        hands: every seat's hand, in draw order.
        deck: the draw pile; cards are drawn from the end.
        player: the seat to act.
        played_this_turn: cards the active player placed this turn.
        placed: cards placed on the piles so far.
        over: whether the game has ended.
        failed: under berger2024, whether a card that did not fit ended it.
        flags: per seat, its public flag (0 none, 1 please_hold, 2 ok) on each pile.
        flags_set: bit mask of the piles whose flag the active player set this turn.
    """

    piles: tuple[tuple[int, ...], ...]
    hands: tuple[tuple[int, ...], ...]
    deck: tuple[int, ...]
    player: int
    played_this_turn: int = 0
    placed: int = 0
    over: bool = False
    failed: bool = False
    flags: tuple[tuple[int, ...], ...] = ()
    flags_set: int = 0

    @property
    def cards_left(self) -> int:
        """Cards not on the piles (hands + draw pile + a lost card): the score, lower is better."""
        return NUM_CARDS - self.placed

    @property
    def won(self) -> bool:
        """All 98 cards are on the piles."""
        return self.placed == NUM_CARDS


@dataclass(frozen=True, slots=True)
class View:
    """What one seat knows: its own hand and everything public.

    Attributes:
        seat: the viewing seat.
        hand: its own hand (draw order).
        piles: the four piles' histories (public).
        deck_size: cards in the draw pile.
        hand_sizes: every seat's number of hand cards.
        player: the seat to act.
        played_this_turn: cards the active player placed this turn.
        required: cards the active player must place this turn (the minimum).
        placed: cards on the piles.
        over: whether the game has ended.
        failed: whether a misfit card ended it (berger2024).
        flags: every seat's public pile flags.
        flags_set: piles whose flag the active player already set this turn.
    """

    seat: int
    hand: tuple[int, ...]
    piles: tuple[tuple[int, ...], ...]
    deck_size: int
    hand_sizes: tuple[int, ...]
    player: int
    played_this_turn: int
    required: int
    placed: int
    over: bool
    failed: bool
    flags: tuple[tuple[int, ...], ...]
    flags_set: int

    @property
    def tops(self) -> tuple[int, int, int, int]:
        """The four top cards."""
        return tuple(p[-1] for p in self.piles)  # type: ignore[return-value]

    @property
    def cards_left(self) -> int:
        """Cards not yet on the piles."""
        return NUM_CARDS - self.placed


_START_PILES = ((1,), (1,), (100,), (100,))
_I8 = np.dtype(np.int8)

# Speed: `State`/`View` built without the frozen dataclass `__init__` (about twice
# as fast); the objects are identical.
_state = unchecked_constructor(State)
_view = unchecked_constructor(View)


def _stuck(hand: tuple[int, ...], piles: tuple[tuple[int, ...], ...]) -> bool:
    """No card of `hand` fits any pile (the backwards trick included)."""
    if not hand:
        return True
    a0, a1, d0, d1 = piles[0][-1], piles[1][-1], piles[2][-1], piles[3][-1]
    hi, lo = max(hand), min(hand)
    if hi > a0 or hi > a1 or lo < d0 or lo < d1:
        return False
    return not (a0 - TRICK in hand or a1 - TRICK in hand or d0 + TRICK in hand or d1 + TRICK in hand)


class TheGame:
    """The rules of The Game over immutable `State`s (see the module docstring)."""

    num_actions = NUM_ACTIONS  # the card head's; an instance with `actions="slot"` has its own

    def __init__(self, config: Config | None = None):
        self.config = config or Config()
        c = self.config
        self.num_players = c.num_players
        self.hand_size = c.resolved_hand_size
        self.min_cards = c.resolved_min_cards
        self.berger = c.rules == "berger2024"
        self.backwards_trick = not self.berger
        self.pile_flags = c.communication == "pile_flags"
        self.skip_empty = c.empty_hand == "skip"
        self.win_bonus = float(c.win_bonus)
        self.card_reward = float(c.card_reward)
        self._no_flags = tuple((0, 0, 0, 0) for _ in range(self.num_players))
        n = self.num_players
        # returns by cards placed (cooperative: the same for every seat)
        self._returns = tuple(
            (self.card_reward * p + (self.win_bonus if p == NUM_CARDS else 0.0),) * n for p in range(NUM_CARDS + 1)
        )
        # the action head (`Config.actions`): card x pile, or the k-th lowest hand card x pile
        self.slot_head = c.actions == "slot"
        self.num_actions = slot_num_actions(self.hand_size) if self.slot_head else NUM_ACTIONS
        self.end_turn = NUM_PILES * self.hand_size if self.slot_head else END_TURN

    # --- the slot head ---------------------------------------------------------------
    def to_card_action(self, state: State, action: int) -> int | None:
        """The card-head id of this head's `action` for the active player of `state` (None: a slot without a card,
        or an id outside the head). The identity under `actions="card"`."""
        a = int(action)
        if not 0 <= a < self.num_actions:
            return None
        if not self.slot_head:
            return a
        hs = self.hand_size
        if a < NUM_PILES * hs:
            slot, pile = divmod(a, NUM_PILES)
            hand = state.hands[state.player]
            if slot >= len(hand):
                return None
            return play_action(sorted(hand)[slot], pile)
        return END_TURN + a - NUM_PILES * hs  # end turn, then the flags in the card head's order

    def from_card_action(self, hand: tuple[int, ...], action: int) -> int:
        """This head's id of the card-head `action` of the player holding `hand` (what agents written for the
        card head return, translated). The identity under `actions="card"`."""
        a = int(action)
        if not self.slot_head:
            return a
        if a < NUM_PLAY_ACTIONS:
            card, pile = decode_play(a)
            return NUM_PILES * sum(1 for c in hand if c < card) + pile
        return NUM_PILES * self.hand_size + a - END_TURN

    # --- set-up ------------------------------------------------------------------
    def initial_state(self, rng: np.random.Generator) -> State:
        """Shuffle 2..99 and deal `hand_size` rounds, each seat taking the last card (as the seed)."""
        return self._deal(self.deal_key(rng))

    def deal_key(self, rng: np.random.Generator) -> list[int]:
        """The deck order `initial_state` draws from `rng` (compiled runners replay the deal from it alone)."""
        return rng.permutation(np.arange(LOWEST, HIGHEST + 1)).tolist()

    def deal_from(self, order: list[int] | tuple[int, ...] | np.ndarray) -> State:
        """The state dealt from an explicit deck order (what `initial_state` shuffles): `hand_size`
        rounds, each seat taking the last card, the rest the draw pile (its last card drawn first).

        Raises:
            ValueError: `order` is not a permutation of the cards 2..99.
        """
        deck = [int(c) for c in order]
        if sorted(deck) != list(range(LOWEST, HIGHEST + 1)):
            raise ValueError(f"a deck order must be a permutation of the cards {LOWEST}..{HIGHEST}")
        return self._deal(deck)

    def deal(self, seed: int) -> State:
        """The game of deal seed `seed` (0 <= seed < 2**64): `deal_from(deal_order(seed))` (a vector env's
        `info["deal_seed"]` replays here; `envs.the_game.fast.deal_order` is its compiled twin)."""
        return self._deal(deal_order(seed))

    def _deal(self, deck: list[int]) -> State:
        hands: list[list[int]] = [[] for _ in range(self.num_players)]
        for _ in range(self.hand_size):
            for h in hands:
                h.append(deck.pop())
        starter = 0 if self.berger else self.config.starter
        return self._settle(
            State(_START_PILES, tuple(map(tuple, hands)), tuple(deck), starter, flags=self._no_flags)
        )

    # --- queries -------------------------------------------------------------------
    def current_player(self, state: State) -> int:
        """The seat to act."""
        return state.player

    def is_terminal(self, state: State) -> bool:
        """Whether the game is over (won, stuck, or — berger2024 — stopped or failed)."""
        return state.over

    def required(self, state: State) -> int:
        """Cards the active player must place this turn (1 once the draw pile is empty)."""
        return self.min_cards if state.deck else 1

    def legal_actions(self, state: State) -> tuple[int, ...]:
        """Sorted legal action ids of the configured head (see the module docstring)."""
        if not self.slot_head:
            return self._card_legal(state)
        hand = state.hands[state.player]  # sorted card-head ids stay sorted as slot ids (card, pile: slot, pile)
        return tuple(self.from_card_action(hand, a) for a in self._card_legal(state))

    def _card_legal(self, state: State) -> tuple[int, ...]:
        """Sorted legal card-head ids: those of `_card_mask`."""
        return tuple(np.flatnonzero(self._card_mask(state)).tolist())

    def legal_mask(self, state: State) -> np.ndarray:
        """int8 mask of `legal_actions` (a new array)."""
        if self.slot_head:
            mask = np.zeros(self.num_actions, dtype=np.int8)
            mask[list(self.legal_actions(state))] = 1
            return mask
        return self._card_mask(state)

    def _card_mask(self, state: State) -> np.ndarray:
        """The int8 mask of the card head's legal ids, built directly (the env calls it every step): filled in a
        `bytearray` (cheaper per entry than numpy item assignment), then copied into a new array."""
        if state.over:
            return np.zeros(NUM_ACTIONS, dtype=np.int8)
        mask = bytearray(NUM_ACTIONS)
        hand = state.hands[state.player]
        if self.berger:
            for c in hand:
                b = c * NUM_PILES - LOWEST * NUM_PILES
                mask[b] = mask[b + 1] = mask[b + 2] = mask[b + 3] = 1
        else:
            piles = state.piles
            a0, a1, d0, d1 = piles[0][-1], piles[1][-1], piles[2][-1], piles[3][-1]
            a0t, a1t, d0t, d1t = a0 - TRICK, a1 - TRICK, d0 + TRICK, d1 + TRICK
            for c in hand:
                b = c * NUM_PILES - LOWEST * NUM_PILES
                if c > a0 or c == a0t:
                    mask[b] = 1
                if c > a1 or c == a1t:
                    mask[b + 1] = 1
                if c < d0 or c == d0t:
                    mask[b + 2] = 1
                if c < d1 or c == d1t:
                    mask[b + 3] = 1
            if state.played_this_turn >= (self.min_cards if state.deck else 1):
                mask[END_TURN] = 1
            if self.pile_flags:
                mine = state.flags[state.player]
                for p in range(NUM_PILES):
                    if not state.flags_set >> p & 1:
                        for v in range(3):
                            if v != mine[p]:
                                mask[FLAG_BASE + 3 * p + v] = 1
        return np.frombuffer(mask, _I8)  # a new writable array over the fresh bytearray

    # --- dynamics -----------------------------------------------------------------
    def _illegal(self, state: State, action: int, reason: str) -> IllegalActionError:
        return IllegalActionError(action, state.player, reason, legal=self._card_legal(state))

    def apply(self, state: State, action: int) -> State:
        """The state after the active player takes `action` of the configured head (never mutates `state`)."""
        if not self.slot_head:
            return self._apply_card(state, action)
        if state.over:
            raise IllegalActionError(action, state.player, "the game is over")
        a = int(action)
        card_action = self.to_card_action(state, a)
        if card_action is None:
            why = (f"action ids are 0..{self.num_actions - 1}" if not 0 <= a < self.num_actions
                   else f"hand slot {a // NUM_PILES} holds no card")
            raise IllegalActionError(a, state.player, why, legal=self.legal_actions(state))
        try:
            return self._apply_card(state, card_action)
        except IllegalActionError as e:  # the same refusal, in this head's ids
            raise IllegalActionError(a, state.player, f"{self.action_to_string(state, a)}: {e.reason}",
                                     legal=self.legal_actions(state)) from None

    def _apply_card(self, state: State, action: int) -> State:
        """`apply` of a card-head id."""
        if state.over:
            raise IllegalActionError(action, state.player, "the game is over")
        a = int(action)
        if not 0 <= a < NUM_ACTIONS:
            raise self._illegal(state, a, f"action ids are 0..{NUM_ACTIONS - 1}")
        if a < NUM_PLAY_ACTIONS:
            card, pile = (a >> 2) + LOWEST, a & 3
            player = state.player
            hand = state.hands[player]
            if card not in hand:
                raise self._illegal(state, a, f"card {card} is not in the hand")
            if self.berger:
                return self._apply_berger(state, card, pile)
            piles = state.piles
            top = piles[pile][-1]
            if not (card > top or card == top - TRICK if pile < 2 else card < top or card == top + TRICK):
                raise self._illegal(state, a, f"card {card} does not fit pile {PILE_NAMES[pile]} (top {top})")
            # place the card (no draw: the official rules refill at the end of the turn), then settle
            return self._settle(self._place(state, card, pile, draw=False))
        if self.berger:
            raise self._illegal(state, a, "under rules='berger2024' a turn is exactly one card")
        if a == END_TURN:
            need = self.required(state)
            if state.played_this_turn < need:
                raise self._illegal(state, a, f"{need} card(s) must be played first ({state.played_this_turn} played)")
            return self._settle(self._end_turn(state))
        if not self.pile_flags:
            raise self._illegal(state, a, "flags need communication='pile_flags'")
        pile, value = divmod(a - FLAG_BASE, 3)
        if state.flags_set >> pile & 1:
            raise self._illegal(state, a, f"the flag on pile {PILE_NAMES[pile]} was already set this turn")
        if state.flags[state.player][pile] == value:
            raise self._illegal(state, a, f"the flag on pile {PILE_NAMES[pile]} is already {FLAG_NAMES[value]}")
        flags = list(state.flags)
        mine = list(flags[state.player])
        mine[pile] = value
        flags[state.player] = tuple(mine)
        return _state(state.piles, state.hands, state.deck, state.player, state.played_this_turn, state.placed,
                     False, False, tuple(flags), state.flags_set | (1 << pile))

    def _place(self, state: State, card: int, pile: int, draw: bool) -> State:
        """`card` from the active hand onto `pile` (and, if `draw`, one card drawn)."""
        hand = list(state.hands[state.player])
        hand.remove(card)
        deck = state.deck
        if draw and deck:
            hand.append(deck[-1])
            deck = deck[:-1]
        hands = list(state.hands)
        hands[state.player] = tuple(hand)
        piles = list(state.piles)
        piles[pile] = piles[pile] + (card,)
        return _state(tuple(piles), tuple(hands), deck, state.player, state.played_this_turn + 1, state.placed + 1,
                     False, False, state.flags, state.flags_set)

    def _apply_berger(self, state: State, card: int, pile: int) -> State:
        """Seed engine: one card, strict comparison, a misfit ends the game, stop after the emptying pass."""
        if not fits(card, pile, state.piles[pile][-1], False):
            hand = list(state.hands[state.player])
            hand.remove(card)  # the card is lost and not counted
            hands = list(state.hands)
            hands[state.player] = tuple(hand)
            return _state(state.piles, tuple(hands), state.deck, state.player, 0, state.placed, True, True,
                           state.flags, 0)
        s = self._place(state, card, pile, draw=True)
        nxt = (state.player + 1) % self.num_players  # at a pass's end the seed's loop goes on while the pile lasts
        return _state(s.piles, s.hands, s.deck, nxt, 0, s.placed, nxt == 0 and not s.deck, False, s.flags, 0)

    def _end_turn(self, state: State) -> State:
        """Refill the active hand, pass to the next seat (holding cards, under `empty_hand="skip"`), clear its flags."""
        hands = list(state.hands)
        hand = hands[state.player]
        deck = state.deck
        k = min(self.hand_size - len(hand), len(deck))
        if k > 0:  # draw k cards from the end of the draw pile, last card first
            cut = len(deck) - k
            hands[state.player] = hand + deck[cut:][::-1]
            deck = deck[:cut]
        n = self.num_players
        nxt = (state.player + 1) % n
        if self.skip_empty:
            for k in range(1, n + 1):
                cand = (state.player + k) % n
                if hands[cand]:
                    nxt = cand
                    break
        # else (empty_hand="ends_game") the next seat always comes; with an empty hand it cannot play
        # the minimum, and `_settle` ends the game
        flags = state.flags
        if self.pile_flags and any(flags[nxt]):
            fl = list(flags)
            fl[nxt] = (0, 0, 0, 0)
            flags = tuple(fl)
        return _state(state.piles, tuple(hands), deck, nxt, 0, state.placed, False, False, flags, 0)

    def _settle(self, state: State) -> State:
        """Mark the official-rules ends: all cards placed, or the active player stuck below the minimum."""
        if self.berger or state.over:
            return state
        if state.placed == NUM_CARDS or (state.played_this_turn < (self.min_cards if state.deck else 1)
                                         and _stuck(state.hands[state.player], state.piles)):
            return _with_over(state)
        return state

    # --- results -------------------------------------------------------------------
    def returns(self, state: State) -> tuple[float, ...]:
        """Every seat: `card_reward` (1) per card placed, + `win_bonus` once all 98 are placed (cooperative)."""
        return self._returns[state.placed]

    def placed_returns(self, placed: int) -> tuple[float, ...]:
        """`returns` of a state with `placed` cards on the piles (what compiled runners report)."""
        return self._returns[placed]

    def winners(self, state: State) -> tuple[int, ...]:
        """Cooperative: every seat wins iff all 98 cards are placed; otherwise nobody (the game wins)."""
        return tuple(range(self.num_players)) if state.over and state.won else ()

    def public_info(self, state: State) -> dict:
        """The team's score, public and the same for every seat (the env copies it into each seat's info)."""
        p = state.placed
        return {"cards_left": NUM_CARDS - p, "cards_placed": p, "won": p == NUM_CARDS}

    # --- information ---------------------------------------------------------------
    def view(self, state: State, seat: int) -> View:
        """The seat's own hand plus the public part of the state."""
        hands = state.hands
        deck = state.deck
        return _view(
            seat, hands[seat], state.piles, len(deck), tuple(map(len, hands)), state.player,
            state.played_this_turn, self.min_cards if deck else 1, state.placed, state.over, state.failed, state.flags,
            state.flags_set,
        )

    def sample_state(self, view: View, rng: np.random.Generator) -> State:
        """A state consistent with `view`: unseen cards dealt at random to the other hands and the
        draw pile (under berger2024 a lost misfit card is left out at random: the game is over)."""
        seen = set(view.hand)
        for p in view.piles:
            seen.update(p)
        unseen = [c for c in range(LOWEST, HIGHEST + 1) if c not in seen]
        order = [unseen[i] for i in rng.permutation(len(unseen))]
        hands = []
        k = 0
        for s, size in enumerate(view.hand_sizes):
            if s == view.seat:
                hands.append(view.hand)
            else:
                hands.append(tuple(order[k:k + size]))
                k += size
        deck = tuple(order[k:k + view.deck_size])
        return State(view.piles, tuple(hands), deck, view.player, view.played_this_turn, view.placed, view.over,
                     view.failed, view.flags, view.flags_set)

    # --- text ------------------------------------------------------------------------
    def action_to_string(self, state: State | None, action: int) -> str:
        """`play 37 on up0`, `end turn`, `flag down1 please_hold` (slot head without a state: `play slot 2 on up0`)."""
        a = int(action)
        if self.slot_head:
            hs4 = NUM_PILES * self.hand_size
            if 0 <= a < hs4:
                card_action = self.to_card_action(state, a) if state is not None and not state.over else None
                if card_action is None:
                    return f"play slot {a // NUM_PILES} on {PILE_NAMES[a % NUM_PILES]}"
                a = card_action
            elif hs4 <= a < self.num_actions:
                a = END_TURN + a - hs4
            else:
                return f"invalid action {a}"
        if 0 <= a < NUM_PLAY_ACTIONS:
            card, pile = decode_play(a)
            return f"play {card} on {PILE_NAMES[pile]}"
        if a == END_TURN:
            return "end turn"
        if FLAG_BASE <= a < NUM_ACTIONS:
            pile, value = divmod(a - FLAG_BASE, 3)
            return f"flag {PILE_NAMES[pile]} {FLAG_NAMES[value]}"
        return f"invalid action {a}"

    def render(self, state: State) -> str:
        """Piles, hands, draw pile and the score."""
        players = f"{self.num_players} player{'s' if self.num_players != 1 else ''}"
        lines = [
            f"The Game ({self.config.rules}, {players}) | placed {state.placed}, "
            f"cards left {state.cards_left} | draw pile {len(state.deck)}",
            "piles: " + "  ".join(f"{PILE_NAMES[i]}={state.piles[i][-1]}" for i in range(NUM_PILES)),
        ]
        for s, h in enumerate(state.hands):
            mark = ">" if s == state.player and not state.over else " "
            fl = ""
            if self.pile_flags and any(state.flags[s]):
                fl = "  flags " + ",".join(
                    f"{PILE_NAMES[p]}:{FLAG_NAMES[v]}" for p, v in enumerate(state.flags[s]) if v
                )
            lines.append(f"{mark} player_{s}: {' '.join(map(str, sorted(h))) or '-'}{fl}")
        if state.over:
            lines.append("WON: all 98 cards placed" if state.won else f"game over with {state.cards_left} cards left")
        else:
            lines.append(f"player_{state.player} has played {state.played_this_turn}/{self.required(state)} this turn")
        return "\n".join(lines)


def _with_over(state: State) -> State:
    return _state(state.piles, state.hands, state.deck, state.player, state.played_this_turn, state.placed, True,
                  state.failed, state.flags, state.flags_set)


__all__ = [
    "ACTION_HEADS", "ASCENDING", "DESCENDING", "END_TURN", "FLAG_BASE", "FLAG_HOLD", "FLAG_NONE", "FLAG_OK",
    "NUM_ACTIONS",
    "NUM_CARDS", "NUM_PILES", "PILE_NAMES", "TRICK", "Config", "State", "TheGame", "View", "decode_play",
    "deal_order", "default_hand_size", "fits", "flag_action", "play_action", "slot_num_actions",
]
