"""Primi Composti (versions 1 and 2): the pure rules engine.

Source: Giacomin, Meneghetti, Roncolato, "Prime Strategies: Game Theoretic Insights into Primi Composti"; restated
in the project's Primi Composti rules specification (cited as "rules §n"). The rules, options and actions are
described in docs/primi_composti.md; the seed's behaviour is the default (`steal_choice="max"`, operands the tops of
two different stacks as before the move). Stacks are numbered `2·seat` (primes) and `2·seat + 1` (composites);
hands keep the dealt order (the seed's players' tie-break order, rules §4–5); `legal_actions` is sorted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from envs.core.game import IllegalActionError, unchecked_constructor
from envs.core.shuffle import shuffled

MAX_PLAYERS = 6
MAX_CARD = 12 * MAX_PLAYERS + 1  # 73


def is_prime(n: int) -> bool:
    """Whether `n` (>= 2) is prime."""
    if n < 2:
        return False
    i = 2
    while i * i <= n:
        if n % i == 0:
            return False
        i += 1
    return True


#: VALUE of every card 0..73 (rules §1): prime 2, composite 1 (0 and 1 unused).
VALUE = np.array([0, 0] + [2 if is_prime(n) else 1 for n in range(2, MAX_CARD + 1)], dtype=np.int64)
IS_PRIME = VALUE == 2


def combines(c: int, a: int, b: int) -> bool:
    """Whether `c` = a+b, |a−b|, a·b, a/b or b/a exactly (rules §1)."""
    if a + b == c or abs(a - b) == c or a * b == c:
        return True
    if a % b == 0 and a // b == c:
        return True
    return b % a == 0 and b // a == c


#: VALID[c, a, b] = combines(c, a, b) for cards 2..73 (symmetric in a, b).
VALID = np.zeros((MAX_CARD + 1, MAX_CARD + 1, MAX_CARD + 1), dtype=np.bool_)
for _a in range(2, MAX_CARD + 1):
    for _b in range(2, MAX_CARD + 1):
        for _c in {_a + _b, abs(_a - _b), _a * _b, _a // _b if _a % _b == 0 else 0, _b // _a if _b % _a == 0 else 0}:
            if 2 <= _c <= MAX_CARD:
                VALID[_c, _a, _b] = True
del _a, _b, _c

# Plain-Python copies for the hot paths (list indexing beats numpy scalar access).
_VALUE = [int(v) for v in VALUE]
_IS_PRIME = [bool(v) for v in IS_PRIME]
#: _VALID[c][a][b] = VALID[c, a, b]; card 0 stands for an empty stack (never valid).
_VALID = VALID.tolist()
#: _PAIR_VALUE[c][a][b] = VALUE[a] + VALUE[b] where a, b combine to c, else 0 (never a gain).
_PAIR_VALUE = ((VALUE[None, :, None] + VALUE[None, None, :]) * VALID).tolist()


def is_stolen(seat: int, stack: int) -> bool:
    """Whether version 2's mover `seat` takes an operand lying on stack `stack` (rules §3): the stack is another
    seat's (an operand on the mover's own stack stays where it is)."""
    return stack // 2 != seat


def operand_value(version: int, seat: int, stack: int, card: int) -> int:
    """What operand `card`, lying on stack `stack`, adds to the bonus of mover `seat`: its VALUE in version 1
    (rules §2); in version 2 its VALUE where it is stolen (`is_stolen`), else nothing (rules §3)."""
    return _VALUE[card] if version == 1 or is_stolen(seat, stack) else 0


def _cards(cards) -> str:
    """Cards for a person: `2 3 5` (a stack bottom to top, a hand as given), `-` for none."""
    return " ".join(map(str, cards)) or "-"


def shuffled_cards(cards: tuple[int, ...] | list[int], seed: int) -> list[int]:
    """`cards` in the order of deal seed `seed`: Fisher–Yates from the last card down, card i swapped with
    card `z mod (i + 1)`, z the SplitMix64 draws of the stream started at `seed` (what `deal(seed)` deals;
    compiled twin: `envs.primi_composti.fast.shuffle_cards`)."""
    return shuffled(cards, seed)


@dataclass(frozen=True)
class Config:
    """Options of Primi Composti (the table in docs/primi_composti.md).

    Attributes:
        version: 1 (scoreboard race, rules §2) or 2 (captures, rules §3).
        num_players: 2..6; cards 2..(num_players·cards_per_player + 1) are used.
        cards_per_player: 1..12 (12 official; the seed's reduced game uses 6).
        steal_choice: "max" (seed: v2 captures the pair stealing the most value) or "player" (official, version 2
            only: the action also names the operand pair or none).
        allow_revealed_operand: official footnote of version 2: the second operand may be the card uncovered by
            taking the first.
        seat0_holds_two: the seed's deal: the hand holding card 2 (whose owner starts) goes to seat 0. False:
            uniform hands, the holder of 2 starts.
        reward: "score_and_result", "score" or "result", each zero-sum: x(me) − mean of x(others).
        observation_hints: add the observation field `hand_gain` (each hand card's immediate gain from public
            information and the own hand).
    """

    version: Literal[1, 2] = 1
    num_players: int = 2
    cards_per_player: int = 12
    steal_choice: Literal["max", "player"] = "max"
    allow_revealed_operand: bool = False
    seat0_holds_two: bool = True
    reward: Literal["score_and_result", "score", "result"] = "score_and_result"
    observation_hints: bool = False

    def __post_init__(self) -> None:
        def _int(name: str, lo: int, hi: int) -> None:
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not lo <= v <= hi:
                raise ValueError(f"{name} must be an integer in {lo}..{hi}, got {v!r}")

        if self.version not in (1, 2) or isinstance(self.version, bool):
            raise ValueError(f"version must be 1 or 2, got {self.version!r}")
        _int("num_players", 2, MAX_PLAYERS)
        _int("cards_per_player", 1, 12)
        if self.steal_choice not in ("max", "player"):
            raise ValueError(f"steal_choice must be 'max' or 'player', got {self.steal_choice!r}")
        if self.steal_choice == "player" and self.version != 2:
            raise ValueError("steal_choice='player' applies to version 2 only (version 1 always scores the best pair)")
        for name in ("allow_revealed_operand", "seat0_holds_two", "observation_hints"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise ValueError(f"{name} must be True or False, got {getattr(self, name)!r}")
        if self.allow_revealed_operand and self.version != 2:
            raise ValueError("allow_revealed_operand applies to version 2 only (nothing is taken in version 1)")
        if self.reward not in ("score_and_result", "score", "result"):
            raise ValueError(f"reward must be 'score_and_result', 'score' or 'result', got {self.reward!r}")


@dataclass(frozen=True)
class State:
    """The whole truth.

    Attributes:
        hands: every seat's remaining cards, in dealt order.
        stacks: 2·N stacks, bottom to top (stack 2s: seat s primes, 2s+1: composites).
        scores: every seat's score (v1: points so far; v2: value of its stacks).
        turn: cards played so far.
        first: the seat that played first (the holder of card 2).
        last: (seat, card, cards taken) of the last move, or None (for rendering).
    """

    hands: tuple[tuple[int, ...], ...]
    stacks: tuple[tuple[int, ...], ...]
    scores: tuple[int, ...]
    turn: int
    first: int
    last: tuple | None = None


_state = unchecked_constructor(State)


@dataclass(frozen=True)
class View:
    """What one seat knows: `hands[s]` seat s's remaining hand (dealt order) where the seat may know it (its
    own, and with 2 players the opponent's: complete information), else None; sizes, stacks, scores and turn are
    public."""

    seat: int
    hands: tuple[tuple[int, ...] | None, ...]
    hand_sizes: tuple[int, ...]
    stacks: tuple[tuple[int, ...], ...]
    scores: tuple[int, ...]
    turn: int
    first: int


_view = unchecked_constructor(View)


class PrimiCompostiGame:
    """The rules of Primi Composti over immutable `State`s. With `steal_choice="max"` action
    `c − 2` plays card c; with `"player"` action `(c − 2)·num_choices + k` plays c with operand choice k (0 = no
    operation, k >= 1 = `operand_pairs[k − 1]`)."""

    def __init__(self, config: Config | None = None):
        self.config = config or Config()
        cfg = self.config
        self.version = int(cfg.version)
        self.num_players = int(cfg.num_players)
        self.cards_per_player = int(cfg.cards_per_player)
        self.num_cards = self.num_players * self.cards_per_player
        self.max_card = self.num_cards + 1
        self.cards = tuple(range(2, self.max_card + 1))
        self.player_choice = cfg.steal_choice == "player"
        ns = 2 * self.num_players
        # Operand pairs as ((stack, depth), (stack, depth)); depth 0 = top. Distinct
        # stacks first in index order (the seed's pair order for 2 players), then
        # top-and-uncovered pairs of one stack when the footnote rule is on.
        pairs = [((i, 0), (j, 0)) for i in range(ns) for j in range(i + 1, ns)]
        if cfg.allow_revealed_operand:
            pairs += [((i, 0), (i, 1)) for i in range(ns)]
        self.operand_pairs: tuple[tuple[tuple[int, int], tuple[int, int]], ...] = tuple(pairs)
        self.num_choices = 1 + len(pairs) if self.player_choice else 1
        self.num_actions = self.num_cards * self.num_choices
        self.total_value = int(VALUE[2 : self.max_card + 1].sum())
        # Speed tables: operand pairs as (k, stack a, depth a, seat a, stack b, depth b, seat b).
        self._pairs = [(k, sa, da, sa // 2, sb, db, sb // 2) for k, ((sa, da), (sb, db)) in enumerate(pairs)]
        self._tops_only = not cfg.allow_revealed_operand
        # The steal rule tabulated (the plain engine's moves read it from here, speed): _operand_value[seat][stack]
        # [card] = operand_value(version, seat, stack, card), _stolen[seat][stack] = is_stolen(seat, stack).
        self._operand_value = [[[operand_value(self.version, seat, st, c) for c in range(MAX_CARD + 1)]
                                for st in range(ns)] for seat in range(self.num_players)]
        self._stolen = [[is_stolen(seat, st) for st in range(ns)] for seat in range(self.num_players)]
        # best_pair's tops-only loop per mover seat: (k, stack a, stack b, what counts) with 0 = VALUE(a)+VALUE(b),
        # 1 = VALUE(a) only, 2 = VALUE(b) only: which operands `operand_value` counts (a pair that can never gain,
        # two of the mover's own stacks in version 2, is left out).
        self._top_pairs = []
        for seat in range(self.num_players):
            rows = []
            for k, sa, _, _, sb, _, _ in self._pairs:
                counts_a, counts_b = (self._operand_value[seat][st][2] > 0 for st in (sa, sb))
                if counts_a or counts_b:
                    rows.append((k, sa, sb, 0 if counts_a and counts_b else (1 if counts_a else 2)))
            self._top_pairs.append(rows)
        #: `best_pair` as the configuration plays it (one call fewer on the greedy players' path: speed)
        self._seed_pair = self._best_top_pair if self._tops_only else self.best_pair
        self._stack_of = [[2 * seat + (0 if _IS_PRIME[c] else 1) for c in range(MAX_CARD + 1)]
                          for seat in range(self.num_players)]
        self._score_result = cfg.reward != "score"
        self._score_scores = cfg.reward != "result"
        self._zero_returns = (0.0,) * self.num_players
        self._zero_mask = np.zeros(self.num_actions, dtype=np.int8)
        self._deck = np.arange(2, self.max_card + 1)
        self._empty_stacks = ((),) * ns
        self._zero_scores = (0,) * self.num_players
        self._seat0_holds_two = bool(cfg.seat0_holds_two)
        self._apply_consts = (
            self.num_cards, self.num_players, self.num_actions, self.player_choice, self._tops_only, self._top_pairs,
            self._stack_of, self.version == 1,
        )

    # --- helpers -------------------------------------------------------------------
    def card_of(self, action: int) -> int:
        """The card an action plays."""
        return action // self.num_choices + 2

    def choice_of(self, action: int) -> int:
        """The operand choice of an action (always 0 with `steal_choice="max"`)."""
        return action % self.num_choices

    def action_of(self, card: int, choice: int = 0) -> int:
        """The action id playing `card` with operand choice `choice`."""
        return (card - 2) * self.num_choices + choice

    def _operands(self, stacks: tuple[tuple[int, ...], ...], k: int) -> tuple[int, int] | None:
        """The two cards of operand pair k, or None if a position is empty."""
        (sa, da), (sb, db) = self.operand_pairs[k]
        if len(stacks[sa]) <= da or len(stacks[sb]) <= db:
            return None
        return stacks[sa][-1 - da], stacks[sb][-1 - db]

    def valid_pairs(self, stacks: tuple[tuple[int, ...], ...], card: int) -> list[int]:
        """Indices (into `operand_pairs`) of the pairs that combine to `card`."""
        out = []
        vc = _VALID[card]
        for k, sa, da, _, sb, db, _ in self._pairs:
            a_st, b_st = stacks[sa], stacks[sb]
            if len(a_st) > da and len(b_st) > db and vc[a_st[-1 - da]][b_st[-1 - db]]:
                out.append(k)
        return out

    def pair_bonus(self, k: int, stacks: tuple[tuple[int, ...], ...], seat: int) -> int:
        """The bonus of mover `seat` playing with operand pair k (a pair that lies there): the `operand_value` of
        both operands, VALUE(A)+VALUE(B) in version 1 (rules §2), the stolen value in version 2 (rules §3)."""
        ops = self._operands(stacks, k)
        assert ops is not None
        (sa, _), (sb, _) = self.operand_pairs[k]
        ov = self._operand_value[seat]
        return ov[sa][ops[0]] + ov[sb][ops[1]]

    def best_pair(self, stacks: tuple[tuple[int, ...], ...], seat: int, card: int) -> tuple[int | None, int]:
        """The seed's choice for `card` and its bonus: (pair index or None, points). v1: the
        pair of highest VALUE(A)+VALUE(B) (rules §2); v2: the pair stealing the most value (rules §3); the first in
        `operand_pairs` order on ties; None with 0 when nothing combines (v2: or the best steals nothing)."""
        if self._tops_only:
            return self._best_top_pair(stacks, seat, card)
        vc = _VALID[card]
        ov = self._operand_value[seat]
        best, best_v = None, 0
        for k, sa, da, _, sb, db, _ in self._pairs:  # `valid_pairs`, each valid pair's `pair_bonus`
            a_st, b_st = stacks[sa], stacks[sb]
            if len(a_st) > da and len(b_st) > db:
                a = a_st[-1 - da]
                b = b_st[-1 - db]
                if vc[a][b]:
                    v = ov[sa][a] + ov[sb][b]
                    if v > best_v:
                        best, best_v = k, v
        return best, best_v

    def _best_top_pair(self, stacks: tuple[tuple[int, ...], ...], seat: int, card: int) -> tuple[int | None, int]:
        """`best_pair` when operands are the tops of two different stacks, from tables (`_PAIR_VALUE`, `_top_pairs`:
        `operand_value` tabulated): same pair order, same result, tested equal; the plain engine's every move of the
        seed's rules goes through it. An empty stack's top is card 0, which combines with nothing."""
        best, best_v = None, 0
        tops = [st[-1] if st else 0 for st in stacks]
        pv = _PAIR_VALUE[card]
        for k, sa, sb, what in self._top_pairs[seat]:
            v = pv[tops[sa]][tops[sb]]
            if v:
                if what:
                    v = _VALUE[tops[sa]] if what == 1 else _VALUE[tops[sb]]
                if v > best_v:
                    best, best_v = k, v
                    if v == 4:  # the most any pair can give: later ties never win
                        break
        return best, best_v

    def immediate_score(self, state: State, card: int) -> int:
        """The mover's gain of playing `card` the seed's way (rules §4): v1 points
        scored; v2 stolen value + VALUE(card) (used by the greedy players)."""
        return self.card_gain(state.stacks, (state.first + state.turn) % self.num_players, card)

    def card_gain(self, stacks: tuple[tuple[int, ...], ...], seat: int, card: int) -> int:
        """`immediate_score` of `card` for seat `seat` on `stacks`: the seed's pair's bonus + VALUE(card)."""
        return self._seed_pair(stacks, seat, card)[1] + _VALUE[card]

    # --- dynamics --------------------------------------------------------------------
    def initial_state(self, rng: np.random.Generator) -> State:
        """Shuffle cards 2..max and deal `cards_per_player` to every seat (rules §1, §4)."""
        # A permutation is a valid deck: `deal` without its check (speed), same state.
        return self._deal(self.deal_key(rng))

    def deal_key(self, rng: np.random.Generator) -> list[int]:
        """The deck order `initial_state` draws from `rng` (compiled runners replay the deal from it alone)."""
        return rng.permutation(self._deck).tolist()

    def deal(self, seed: int | np.integer | np.ndarray | list[int] | tuple[int, ...]) -> State:
        """The game of deal seed `seed` (0 <= seed < 2**64): `deal_from(shuffled_cards(cards, seed))` (a vector
        env's `info["deal_seed"]` replays here); a deck order (a sequence) is dealt as `deal_from(order)`."""
        if isinstance(seed, (bool, np.bool_, int, np.integer)):  # a bool is refused with the out-of-range seeds
            if isinstance(seed, (bool, np.bool_)) or not 0 <= int(seed) < 2**64:
                raise ValueError(f"a deal seed must be an integer in 0..2**64-1, got {seed!r}")
            return self._deal(shuffled_cards(self.cards, int(seed)))
        return self.deal_from(seed)

    def deal_from(self, order: np.ndarray | list[int] | tuple[int, ...]) -> State:
        """The state dealt from an explicit card order: seat i gets `order[i·k:(i+1)·k]` in
        that order; with `seat0_holds_two` the holder of card 2 swaps hands with
        seat 0 (the seed's rule, rules §4).

        Raises:
            ValueError: `order` is not a permutation of the cards 2..max.
        """
        deck = [int(x) for x in order]
        if sorted(deck) != list(self.cards):
            raise ValueError(f"a deck must be a permutation of the cards 2..{self.max_card}")
        return self._deal(deck)

    def _deal(self, deck: list[int]) -> State:
        """`deal` of a deck known to be a permutation of the cards (Python ints)."""
        k = self.cards_per_player
        hands = [tuple(deck[i : i + k]) for i in range(0, self.num_cards, k)]
        holder = deck.index(2) // k
        if self._seat0_holds_two and holder != 0:
            # The seed swaps the halves so that player 1 always holds card 2.
            hands[0], hands[holder] = hands[holder], hands[0]
            holder = 0
        return _state(tuple(hands), self._empty_stacks, self._zero_scores, 0, holder, None)

    def current_player(self, state: State) -> int:
        """The holder of card 2 plays first, then clockwise (seat order)."""
        return (state.first + state.turn) % self.num_players

    def is_terminal(self, state: State) -> bool:
        """The game ends when every hand is empty."""
        return state.turn >= self.num_cards

    def legal_actions(self, state: State) -> tuple[int, ...]:
        """Every card of the mover's hand (with each valid operand choice, or none)."""
        if self.is_terminal(state):
            return ()
        seat = self.current_player(state)
        hand = state.hands[seat]
        if not self.player_choice:
            return tuple(sorted(c - 2 for c in hand))
        out = []
        for c in hand:
            out.append(self.action_of(c, 0))
            out.extend(self.action_of(c, k + 1) for k in self.valid_pairs(state.stacks, c))
        return tuple(sorted(out))

    def legal_mask(self, state: State) -> np.ndarray:
        """`legal_actions` as an int8 0/1 vector."""
        if state.turn >= self.num_cards:
            return np.zeros(self.num_actions, dtype=np.int8)
        if not self.player_choice:
            mask = self._zero_mask.copy()
            buf = memoryview(mask)  # item writes through a memoryview beat numpy indexing (speed)
            for c in state.hands[(state.first + state.turn) % self.num_players]:
                buf[c - 2] = 1
            return mask
        mask = np.zeros(self.num_actions, dtype=np.int8)
        mask[list(self.legal_actions(state))] = 1
        return mask

    def apply(self, state: State, action: int) -> State:
        """The state after the mover plays `action` (never mutates `state`)."""
        # One tuple unpack instead of many attribute loads (speed).
        num_cards, num_players, num_actions, player_choice, tops_only, top_pairs, stack_of_seat, v1 = self._apply_consts
        turn = state.turn
        if turn >= num_cards:
            raise IllegalActionError(action, self.current_player(state), "the game is over")
        seat = (state.first + turn) % num_players
        if type(action) is int:
            a = action
        else:
            try:
                a = int(action)
            except (TypeError, ValueError):
                raise IllegalActionError(action, seat, "not an integer action id") from None
        if not 0 <= a < num_actions:
            raise IllegalActionError(a, seat, f"outside 0..{self.num_actions - 1}", legal=self.legal_actions(state))
        if player_choice:
            card, choice = divmod(a, self.num_choices)
            card += 2
        else:
            card, choice = a + 2, 0
        hand = state.hands[seat]
        try:
            i = hand.index(card)
        except ValueError:
            raise IllegalActionError(a, seat, f"card {card} is not in the hand {sorted(hand)}",
                                     legal=self.legal_actions(state)) from None
        stacks = state.stacks
        if player_choice:
            if choice == 0:
                pair, bonus = None, 0
            else:
                pair = choice - 1
                if pair not in self.valid_pairs(stacks, card):
                    raise IllegalActionError(
                        a, seat, f"operand choice {choice} does not combine to {card}", legal=self.legal_actions(state)
                    )
                bonus = self.pair_bonus(pair, stacks, seat)
        elif tops_only:
            pair, bonus = self._best_top_pair(stacks, seat, card)
        else:
            pair, bonus = self.best_pair(stacks, seat, card)

        hands = list(state.hands)
        hands[seat] = hand[:i] + hand[i + 1 :]
        new_stacks = list(stacks)
        stack_of = stack_of_seat[seat]
        if v1:
            scores = list(state.scores)
            scores[seat] += bonus + _VALUE[card]
            new_stacks[stack_of[card]] += (card,)
            return _state(tuple(hands), tuple(new_stacks), tuple(scores), turn + 1, state.first, (seat, card, ()))
        taken: list[int] = []
        if pair is not None:
            # Take the operands lying on other seats' stacks, first operand first
            # (for a one-stack pair: the top, then the card it uncovered).
            stolen = self._stolen[seat]
            for st, _depth in self.operand_pairs[pair]:
                if stolen[st]:
                    old = new_stacks[st]
                    taken.append(old[-1])
                    new_stacks[st] = old[:-1]
            # Stolen primes onto the own prime stack, then composites (rules §3).
            for c in [c for c in taken if _IS_PRIME[c]] + [c for c in taken if not _IS_PRIME[c]]:
                k = stack_of[c]
                new_stacks[k] = new_stacks[k] + (c,)
        k = stack_of[card]
        new_stacks[k] = new_stacks[k] + (card,)
        # Stack values: primes are worth 2, composites 1 (stack 2s holds primes only).
        scores = tuple([2 * len(new_stacks[2 * s]) + len(new_stacks[2 * s + 1]) for s in range(self.num_players)])
        return _state(tuple(hands), tuple(new_stacks), scores, turn + 1, state.first, (seat, card, tuple(taken)))

    def winners(self, state: State) -> tuple[int, ...]:
        """The seats with the highest final score; () when all are equal (a draw)."""
        s = state.scores
        best = max(s)
        if all(x == best for x in s):
            return ()
        return tuple(i for i, x in enumerate(s) if x == best)

    def returns(self, state: State) -> tuple[float, ...]:
        """Zero-sum returns: x(me) − mean x(others), x = score and/or result (see Config.reward)."""
        n = self.num_players
        terminal = state.turn >= self.num_cards
        if self._score_scores:
            x = state.scores
        elif not terminal:
            return self._zero_returns  # every x is 0.0
        else:
            x = (0,) * n
        if terminal and self._score_result:
            w = self.winners(state)
            x = [x[i] + (1.0 if i in w else 0.0) for i in range(n)]
        if n == 2:
            # The general formula below with n − 1 = 1 (sum of two floats from 0).
            a, b = float(x[0]), float(x[1])
            tot = a + b
            return (a - (tot - a), b - (tot - b))
        x = [float(v) for v in x]
        tot = sum(x)
        return tuple([x[i] - (tot - x[i]) / (n - 1) for i in range(n)])

    # --- information -----------------------------------------------------------------
    def view(self, state: State, seat: int) -> View:
        """Own hand, the opponent's with 2 players, public stacks and scores."""
        all_hands = state.hands
        if self.num_players == 2:
            return _view(seat, all_hands, (len(all_hands[0]), len(all_hands[1])), state.stacks, state.scores,
                         state.turn, state.first)
        return _view(seat, tuple([h if s == seat else None for s, h in enumerate(all_hands)]),
                     tuple(map(len, all_hands)), state.stacks, state.scores, state.turn, state.first)

    def sample_state(self, view: View, rng: np.random.Generator) -> State:
        """A state consistent with `view`: unknown hands dealt from the unseen cards."""
        known = {c for h in view.hands if h is not None for c in h} | {c for s in view.stacks for c in s}
        unseen = [c for c in self.cards if c not in known]
        order = [int(x) for x in rng.permutation(np.array(unseen, dtype=np.int64))] if unseen else []
        hands = []
        pos = 0
        for s, h in enumerate(view.hands):
            if h is not None:
                hands.append(h)
            else:
                hands.append(tuple(order[pos : pos + view.hand_sizes[s]]))
                pos += view.hand_sizes[s]
        return State(tuple(hands), view.stacks, view.scores, view.turn, view.first)

    def state_of_view(self, view: View) -> State:
        """The exact state behind a complete-information view (2 players)."""
        if any(h is None for h in view.hands):
            raise ValueError("the view hides some hands (more than 2 players): use sample_state")
        return State(tuple(view.hands), view.stacks, view.scores, view.turn, view.first)  # type: ignore[arg-type]

    # --- text -------------------------------------------------------------------------
    def action_to_string(self, state: State, action: int) -> str:
        """`play 7` or, with operand choices, `play 7 using 3+4` / `play 7 alone`."""
        card, choice = self.card_of(action), self.choice_of(action)
        if not self.player_choice:
            return f"play {card}"
        if choice == 0:
            return f"play {card} alone"
        ops = self._operands(state.stacks, choice - 1)
        names = []
        for (st, d), c in zip(self.operand_pairs[choice - 1], ops or (None, None)):
            names.append(f"{c} (P{st // 2 + 1} {'prime' if st % 2 == 0 else 'composite'}{' below top' if d else ''})")
        return f"play {card} using " + " and ".join(names)

    def render(self, state: State) -> str:
        """Hands, stacks (bottom → top) and scores."""
        lines = [f"primi composti v{self.version}, turn {state.turn}/{self.num_cards}"]
        for s in range(self.num_players):
            mark = "*" if not self.is_terminal(state) and s == self.current_player(state) else " "
            lines.append(
                f"{mark}P{s + 1} score {state.scores[s]:>3} | hand {_cards(sorted(state.hands[s]))} | "
                f"primes {_cards(state.stacks[2 * s])} | composites {_cards(state.stacks[2 * s + 1])}"
            )
        if state.last is not None:
            seat, card, taken = state.last
            lines.append(f"last: P{seat + 1} played {card}" + (f", took {_cards(taken)}" if taken else ""))
        if self.is_terminal(state):
            w = self.winners(state)
            lines.append("result: " + ("tie" if not w else "winner " + ", ".join(f"P{i + 1}" for i in w)))
        return "\n".join(lines)
