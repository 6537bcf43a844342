"""L.A.M.A. (Reiner Knizia, Amigo 2019): the rules engine.

Spec: the project's "L.A.M.A. — rules specification" (the *rules doc*); seed: P. Romero Marimon, "The L.A.M.A card
game" (TU Eindhoven report, 2022), whose public code pins down the variant behind the seed's tables (rules doc §3).
The rules, the two presets (`rules="official"`, `"seed2022"`) and their switches are described in docs/lama.md.
Chance after the deal comes from a 64-bit seed kept in the state (SplitMix64 + Fisher–Yates), which the compiled
game loop (`envs.lama.fast`) reproduces bit for bit.
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import sub
from typing import Literal, NamedTuple

import numpy as np

from envs.core.game import IllegalActionError, unchecked_constructor
from envs.core.shuffle import shuffled  # the deal's Fisher–Yates (one home for every card game)

LLAMA = 0
VALUES = 7  # card values 0 (llama), 1..6
COPIES = 8  # copies of each value
DECK_SIZE = VALUES * COPIES  # 56
HAND_SIZE = 6
DRAW = 7
QUIT = 8
NUM_ACTIONS = 9
ACTION_NAMES = ("play llama", "play 1", "play 2", "play 3", "play 4", "play 5", "play 6", "draw", "quit")

MAX_PLAYERS = {"official": 6, "seed2022": 8}
PRESETS: dict[str, dict[str, object]] = {
    "official": {
        "scoring": "distinct",
        "return_chip": True,
        "last_player_continues": True,
        "empty_deck": "no_draw",
        "round_starter": "ender",
        "target_points": 40,
    },
    "seed2022": {
        "scoring": "sum_all",
        "return_chip": False,
        "last_player_continues": False,
        "empty_deck": "reshuffle_seed",
        "round_starter": "player0",
        "target_points": 40,
    },
}

_VALUE_RANGE = range(VALUES)
_MASKS: dict[tuple[int, ...], np.ndarray] = {}  # legal-action tuple -> mask (states off the tables)
_DECK = tuple(v for v in range(VALUES) for _ in range(COPIES))
_M64 = (1 << 64) - 1
_ROUND_MIX = 0xD1B54A32D192ED03
_RESHUFFLE_MIX = 0x8CB92BA72F3D8DD7


def next_card(value: int) -> int:
    """The value one step higher in the cycle 1→…→6→llama→1."""
    return LLAMA if value == 6 else value + 1


def shuffle_key(seed: int, round_index: int, reshuffle_index: int) -> int:
    """The generator state for one shuffle: round `round_index`'s deal
    (`reshuffle_index` 0) or its k-th reshuffle of the discard pile (k >= 1)."""
    return (seed ^ (((round_index + 1) * _ROUND_MIX) & _M64) ^ ((reshuffle_index * _RESHUFFLE_MIX) & _M64)) & _M64


def hand_points(counts: tuple[int, ...] | list[int], scoring: str) -> int:
    """Penalty of a hand given as counts per value (index 0 = llamas): `"distinct"` each distinct number once,
    10 for any llamas; `"sum_all"` every card, 10 per llama. Compiled twin: `envs.lama.fast.hand_points`."""
    if scoring == "distinct":
        return sum(v for v in range(1, VALUES) if counts[v]) + (10 if counts[LLAMA] else 0)
    return sum(v * counts[v] for v in range(1, VALUES)) + 10 * counts[LLAMA]


def may_draw(last_player_continues: bool, reshuffles: bool, players_in: int, draw_size: int,
             discard_size: int) -> bool:
    """Whether the player to act may draw (rules doc §2.2 / §3), with `players_in` players still in: never
    as the last player in under `last_player_continues`; else from a non-empty draw pile, or an empty one the
    variant reshuffles from a discard pile holding more than its top card. Compiled twin: `envs.lama.fast.may_draw`."""
    if last_player_continues and players_in == 1:
        return False
    return draw_size > 0 or (reshuffles and discard_size > 1)


def legal_actions(hand: tuple[int, ...] | list[int], top: int, can_draw: bool) -> tuple[int, ...]:
    """The legal actions of a player holding `hand` (counts per value) on the top card `top`, in increasing
    order: each held card equal to the top or one step higher, draw where `can_draw` (`may_draw`), quit.
    Compiled twin: `envs.lama.fast.legal_actions` (the same set as bits)."""
    acts = [v for v in sorted({top, next_card(top)}) if hand[v]]
    if can_draw:
        acts.append(DRAW)
    acts.append(QUIT)
    return tuple(acts)


@dataclass(frozen=True)
class Config:
    """Options of L.A.M.A. (the table in docs/lama.md).

    Attributes:
        num_players: 2–6 with `rules="official"`, 2–8 with `rules="seed2022"`.
        rules: the preset filling every option left as None.
        scoring: `"distinct"` (published) or `"sum_all"` (seed: every card counts).
        return_chip: a player who empties their hand gives back a 10 chip, else a 1 chip.
        last_player_continues: when all others have quit, the last player plays on without drawing.
        empty_deck: `"no_draw"`, `"reshuffle"` (the discard pile below its top becomes the draw pile) or
            `"reshuffle_seed"` (the seed's quirk: the discard pile restarts from a llama, the old top leaves).
        round_starter: `"ender"` (the seat that took the round's last turn) or `"player0"`.
        target_points: the game ends after a round in which a total reached this.
        reward: `"win"` (+1 for each winner at the game's end, shared wins count) or `"dense"` (minus the penalty
            points).
    """

    num_players: int = 4
    rules: Literal["official", "seed2022"] = "official"
    scoring: Literal["distinct", "sum_all"] | None = None
    return_chip: bool | None = None
    last_player_continues: bool | None = None
    empty_deck: Literal["no_draw", "reshuffle", "reshuffle_seed"] | None = None
    round_starter: Literal["ender", "player0"] | None = None
    target_points: int | None = None
    reward: Literal["win", "dense"] = "win"

    def __post_init__(self) -> None:
        if self.rules not in PRESETS:
            raise ValueError(f"rules must be one of {sorted(PRESETS)}, got {self.rules!r}")
        hi = MAX_PLAYERS[self.rules]
        n = self.num_players
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 2 <= n <= hi:
            raise ValueError(f"num_players must be an integer in 2..{hi} for rules={self.rules!r}, got {n!r}")
        object.__setattr__(self, "num_players", int(n))
        for key, default in PRESETS[self.rules].items():
            if getattr(self, key) is None:
                object.__setattr__(self, key, default)
        choices = {
            "scoring": ("distinct", "sum_all"),
            "empty_deck": ("no_draw", "reshuffle", "reshuffle_seed"),
            "round_starter": ("ender", "player0"),
            "reward": ("win", "dense"),
        }
        for key, allowed in choices.items():
            if getattr(self, key) not in allowed:
                raise ValueError(f"{key} must be one of {list(allowed)}, got {getattr(self, key)!r}")
        for key in ("return_chip", "last_player_continues"):
            v = getattr(self, key)
            if not isinstance(v, (bool, np.bool_)):
                raise ValueError(f"{key} must be True or False, got {v!r}")
            object.__setattr__(self, key, bool(v))
        t = self.target_points
        if isinstance(t, bool) or not isinstance(t, (int, np.integer)) or not 1 <= t <= 1_000_000:
            raise ValueError(f"target_points must be an integer in 1..1000000, got {t!r}")
        object.__setattr__(self, "target_points", int(t))


class State(NamedTuple):
    """The whole truth of a game in progress: hands as counts per value (index 0 = llamas), piles as tuples
    (top last), `stock` the composition of every card in the round (8 of each value except after the seed's reshuffle).
    A NamedTuple: immutable, hashable and cheaper to build than a dataclass."""

    seed: int
    round: int
    reshuffles: int
    hands: tuple[tuple[int, ...], ...]
    draw_pile: tuple[int, ...]
    discard: tuple[int, ...]
    stock: tuple[int, ...]
    active: tuple[bool, ...]
    current: int
    starter: int
    totals: tuple[int, ...]
    rounds_won: tuple[int, ...]
    last_scores: tuple[int, ...]
    game_over: bool = False


@dataclass(frozen=True)
class View:
    """What one seat may know: its own hand and everything public (`unseen`: the opponents' hands and the draw
    pile by value, which follows from the public history)."""

    seat: int
    hand: tuple[int, ...]
    discard: tuple[int, ...]
    draw_size: int
    unseen: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    active: tuple[bool, ...]
    current: int
    starter: int
    totals: tuple[int, ...]
    rounds_won: tuple[int, ...]
    last_scores: tuple[int, ...]
    round: int
    reshuffles: int
    stock: tuple[int, ...]
    game_over: bool

    @property
    def top(self) -> int:
        """The top card of the discard pile."""
        return self.discard[-1]


_view = unchecked_constructor(View)  # `View(...)` without the frozen dataclass's per-field setattr


# Per-top-card tables of `legal_actions`: `_LEGAL[top][k]` is the (legal
# tuple, int8 mask) pair for k = bit 0: holds the lower of {top, next}, bit 1:
# holds the higher one, bit 2: may draw.
def _legal_table(top: int) -> tuple[int, int, list[tuple[tuple[int, ...], np.ndarray]]]:
    lo, hi = sorted({top, next_card(top)})
    rows = []
    for k in range(8):
        hand = [0] * VALUES
        hand[lo], hand[hi] = k & 1, (k >> 1) & 1
        acts = legal_actions(hand, top, bool(k & 4))
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        mask[list(acts)] = 1
        rows.append((acts, mask))
    return lo, hi, rows


_LEGAL = [_legal_table(v) for v in range(VALUES)]
_NO_ACTIONS = ((), np.zeros(NUM_ACTIONS, dtype=np.int8))
_new_tuple = tuple.__new__


class LamaGame:
    """The rules of L.A.M.A. over immutable `State`s. Actions: 0 = play a llama, 1..6 = play a card of that
    value, 7 = draw, 8 = quit (fold) the round.

    It keeps a one-entry cache of derived facts (hand sizes, legal actions) of the last state it saw, keyed by that
    state's identity: a pure cache (a miss recomputes), so no result depends on it.
    """

    num_actions = NUM_ACTIONS
    #: The move at which an episode is truncated and a tournament's game cut unless `max_turns` says otherwise
    #: (`envs.core.game.default_max_turns`): the seed's reshuffle lets players who never fold go on for ever
    #: (`rules="seed2022"`, strategies 2, 1, 3 and third-retuned at one table: one of 8,000 games, seed 5); the
    #: longest game that ended there took 970 moves.
    max_game_length = 10_000

    def __init__(self, config: Config | None = None):
        self.config = config or Config()
        c = self.config
        self.num_players = c.num_players
        self.scoring = c.scoring
        self.target_points = c.target_points
        self._lpc = c.last_player_continues
        self._reshuffles = c.empty_deck != "no_draw"
        self._dense = c.reward == "dense"
        self._zero_returns = (0.0,) * c.num_players
        # [state, hand sizes | None, stock minus discard counts | None, (legal, mask) | None]
        self._memo: list = [None, None, None, None]

    def _rec(self, state: State) -> list:
        """The derived-facts record of `state` (a fresh one on a miss)."""
        rec = self._memo
        if rec[0] is not state:
            rec = [state, None, None, None]
            self._memo = rec
        return rec

    # --- dealing ------------------------------------------------------------------
    def initial_state(self, rng: np.random.Generator) -> State:
        """A new game whose every shuffle follows from one seed drawn from `rng`: `deal(deal_key(rng))`."""
        return self.new_game(self.deal_key(rng))

    def deal_key(self, rng: np.random.Generator) -> int:
        """The deal seed `initial_state` draws from `rng` (compiled runners replay the deal from it alone)."""
        return int(rng.integers(0, 2**63))

    def deal(self, seed: int) -> State:
        """The game of deal seed `seed`, as `new_game` (a vector env's `info["deal_seed"]` replays here)."""
        return self.new_game(seed)

    def new_game(self, seed: int) -> State:
        """The game with shuffle seed `seed` (what `envs.lama.fast` replays)."""
        n = self.num_players
        zeros = (0,) * n
        return self._deal(seed, 0, 0, zeros, zeros, zeros)

    def deal_from(self, order, *, seed: int = 0, round: int = 0, starter: int = 0, totals=None, rounds_won=None,
                  last_scores=None) -> State:
        """Round `round` dealt from the explicit card order `order` (the 56 cards, values 0..6, 8 of each):
        `order[0]` starts the discard pile, the next 6 go to seat 0, the next 6 to seat 1, ..., the rest is the
        draw pile (drawn from its end). The other arguments are the game so far (default: a new game); `seed`
        only drives later shuffles. For tools that own the chance, e.g. the OpenSpiel export's chance nodes."""
        cards = [int(c) for c in order]
        if sorted(cards) != sorted(_DECK):
            raise ValueError(
                f"order must hold the {DECK_SIZE} cards, {COPIES} of each value 0..{VALUES - 1}, got {order!r}"
            )
        zeros = (0,) * self.num_players
        return self._deal_order(cards, seed, round, starter, totals or zeros, rounds_won or zeros,
                                last_scores or zeros)

    def _deal(self, seed: int, rnd: int, starter: int, totals, rounds_won, last_scores) -> State:
        return self._deal_order(shuffled(_DECK, shuffle_key(seed, rnd, 0)), seed, rnd, starter, totals,
                                rounds_won, last_scores)

    def _deal_order(self, cards: list[int], seed: int, rnd: int, starter: int, totals, rounds_won,
                    last_scores) -> State:
        n = self.num_players
        hands = []
        for i in range(n):
            held = cards[1 + HAND_SIZE * i : 1 + HAND_SIZE * (i + 1)]
            hands.append(tuple(map(held.count, _VALUE_RANGE)))
        return State(
            seed=seed,
            round=rnd,
            reshuffles=0,
            hands=tuple(hands),
            draw_pile=tuple(cards[1 + HAND_SIZE * n :]),
            discard=(cards[0],),
            stock=(COPIES,) * VALUES,
            active=(True,) * n,
            current=starter,
            starter=starter,
            totals=tuple(totals),
            rounds_won=tuple(rounds_won),
            last_scores=tuple(last_scores),
        )

    # --- queries ------------------------------------------------------------------------
    def current_player(self, state: State) -> int:
        """The seat to act."""
        return state.current

    def is_terminal(self, state: State) -> bool:
        """Whether a round ended with a total at or above `target_points`."""
        return state.game_over

    def can_draw(self, state: State) -> bool:
        """Whether the player to act may draw (`may_draw` of the state)."""
        return may_draw(self._lpc, self._reshuffles, sum(state.active), len(state.draw_pile), len(state.discard))

    def _legal_plain(self, state: State) -> tuple[int, ...]:
        """`legal_actions` computed from scratch (any state)."""
        if state.game_over:
            return ()
        return legal_actions(state.hands[state.current], state.discard[-1], self.can_draw(state))

    def _legal_entry(self, state: State) -> tuple[tuple[int, ...], np.ndarray]:
        """(legal actions, int8 mask) of `state`, from the tables."""
        if state.game_over:
            return _NO_ACTIONS
        top = state.discard[-1]
        if type(top) is not int or not 0 <= top < VALUES:
            legal = self._legal_plain(state)
            mask = _MASKS.get(legal)
            if mask is None:
                mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
                mask[list(legal)] = 1
                _MASKS[legal] = mask
            return legal, mask
        lo, hi, rows = _LEGAL[top]
        hand = state.hands[state.current]
        k = 1 if hand[lo] else 0
        if hand[hi]:
            k += 2
        if may_draw(self._lpc, self._reshuffles, sum(state.active), len(state.draw_pile), len(state.discard)):
            k += 4
        return rows[k]

    def legal_actions(self, state: State) -> tuple[int, ...]:
        """Plays of held cards equal to or one above the top card, draw, quit."""
        rec = self._memo
        if rec[0] is not state:
            rec = self._rec(state)
        entry = rec[3]
        if entry is None:
            entry = rec[3] = self._legal_entry(state)
        return entry[0]

    def legal_mask(self, state: State) -> np.ndarray:
        """`legal_actions` as an int8 0/1 vector (a new array)."""
        rec = self._memo
        if rec[0] is not state:
            rec = self._rec(state)
        entry = rec[3]
        if entry is None:
            entry = rec[3] = self._legal_entry(state)
        return entry[1].copy()

    def winners(self, state: State) -> tuple[int, ...]:
        """Every seat tied at the fewest points (only meaningful at the end)."""
        best = min(state.totals)
        return tuple(i for i, t in enumerate(state.totals) if t == best)

    def returns(self, state: State) -> tuple[float, ...]:
        """`reward="win"`: 1 for each winner at the end, else 0.
        `reward="dense"`: minus each seat's penalty total so far."""
        if self._dense:
            return tuple([-float(t) for t in state.totals])
        if not state.game_over:
            return self._zero_returns
        w = set(self.winners(state))
        return tuple(1.0 if i in w else 0.0 for i in range(self.num_players))

    # --- dynamics -------------------------------------------------------------------------
    def _next_active(self, active: tuple[bool, ...], seat: int) -> int:
        n = self.num_players
        s = (seat + 1) % n
        if active[s]:
            return s
        for k in range(2, n + 1):
            s = (seat + k) % n
            if active[s]:
                return s
        return seat

    def apply(self, state: State, action: int) -> State:
        """The state after the player to act plays `action` (never mutates `state`)."""
        seat = state.current
        if state.game_over:
            raise IllegalActionError(action, seat, "the game is over")
        rec = self._memo
        if rec[0] is not state:
            rec = self._rec(state)
        entry = rec[3]
        if entry is None:
            entry = rec[3] = self._legal_entry(state)
        legal = entry[0]
        if action not in legal:
            if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
                raise IllegalActionError(action, seat, "actions are integers 0..8", legal=legal)
            if 0 <= action <= 6:
                reason = (
                    f"cannot {ACTION_NAMES[action]} on a {'llama' if state.discard[-1] == LLAMA else state.discard[-1]}"
                )
                if not state.hands[seat][action]:
                    reason = f"no {'llama' if action == LLAMA else action} in hand"
            elif action == DRAW:
                reason = "drawing is not possible now"
            else:
                reason = "not an action of L.A.M.A. (0-6 play, 7 draw, 8 quit)"
            raise IllegalActionError(action, seat, reason, legal=legal)
        action = int(action)
        seed, rnd, resh, hands, draw_pile, discard, stock, active, _, starter, totals, won, last, over = state
        cls = type(state)
        sizes = rec[1]
        if action == QUIT:
            active = active[:seat] + (False,) + active[seat + 1 :]
            remaining = sum(active)
            if remaining == 0 or (remaining == 1 and not self._lpc):
                return self._end_round(state._replace(active=active), seat)
            child = _new_tuple(cls, (seed, rnd, resh, hands, draw_pile, discard, stock, active,
                                     self._next_active(active, seat), starter, totals, won, last, over))
            self._memo = [child, sizes, rec[2], None]
            return child
        if action == DRAW:
            if not draw_pile:  # the pile is rebuilt from the discard pile, then drawn from
                return self.apply(self._reshuffle(state), DRAW)
            card = draw_pile[-1]
            h = list(hands[seat])
            h[card] += 1
            child = _new_tuple(cls, (seed, rnd, resh, hands[:seat] + (tuple(h),) + hands[seat + 1 :], draw_pile[:-1],
                                     discard, stock, active, self._next_active(active, seat), starter, totals, won,
                                     last, over))
            if sizes is not None:
                sizes = sizes[:seat] + (sizes[seat] + 1,) + sizes[seat + 1 :]
            self._memo = [child, sizes, rec[2], None]
            return child
        h = list(hands[seat])
        h[action] -= 1
        new_hands = hands[:seat] + (tuple(h),) + hands[seat + 1 :]
        if (sum(h) if sizes is None else sizes[seat] - 1) == 0:
            return self._end_round(state._replace(hands=new_hands, discard=discard + (action,)), seat)
        nxt = (seat + 1) % self.num_players
        if not active[nxt]:
            nxt = self._next_active(active, seat)
        child = _new_tuple(cls, (seed, rnd, resh, new_hands, draw_pile, discard + (action,), stock, active,
                                 nxt, starter, totals, won, last, over))
        if sizes is not None:
            sizes = sizes[:seat] + (sizes[seat] - 1,) + sizes[seat + 1 :]
        off = rec[2]
        if off is not None:
            off = off[:action] + (off[action] - 1,) + off[action + 1 :]
        self._memo = [child, sizes, off, None]
        return child

    def _reshuffle(self, s: State) -> State:
        """Rebuild the empty draw pile from the discard pile below its top card."""
        return self.reshuffle_from(s, shuffled(s.discard[:-1], shuffle_key(s.seed, s.round, s.reshuffles + 1)))

    def reshuffle_from(self, s: State, pile) -> State:
        """`s` with its draw pile rebuilt as `pile`, an order of the discard pile below its top card (drawn from
        its end): the reshuffle of `empty_deck` with the chance given, as `deal_from` for the deal."""
        pile = [int(c) for c in pile]
        if sorted(pile) != sorted(s.discard[:-1]):
            raise ValueError(f"pile must be an order of the discard pile below its top card, got {pile!r}")
        k = s.reshuffles + 1
        if self.config.empty_deck == "reshuffle_seed":
            # Seed quirk (Class_Table.shuffleDeck): the discard pile restarts as
            # a single llama; the old top card is gone for the rest of the round.
            stock = list(s.stock)
            stock[s.discard[-1]] -= 1
            stock[LLAMA] += 1
            return s._replace(draw_pile=tuple(pile), discard=(LLAMA,), reshuffles=k, stock=tuple(stock))
        return s._replace(draw_pile=tuple(pile), discard=s.discard[-1:], reshuffles=k)

    def _end_round(self, s: State, last_seat: int) -> State:
        """Score the round, maybe return a chip, then end the game or deal anew."""
        c = self.config
        n = self.num_players
        emptied = [i for i in range(n) if sum(s.hands[i]) == 0]
        if emptied:
            winner = emptied[0]
        elif sum(s.active) == 1:
            winner = s.active.index(True)  # the last one in "wins" the round (seed)
        else:
            winner = -1  # everybody quit (official rules)
        scores = tuple(hand_points(h, c.scoring) for h in s.hands)
        totals = [t + sc for t, sc in zip(s.totals, scores)]
        if c.return_chip:
            for i in emptied:
                if totals[i] >= 10:
                    totals[i] -= 10
                elif totals[i] >= 1:
                    totals[i] -= 1
        won = list(s.rounds_won)
        if winner >= 0:
            won[winner] += 1
        if max(totals) >= c.target_points:
            return s._replace(totals=tuple(totals), rounds_won=tuple(won), last_scores=scores, game_over=True)
        starter = 0 if c.round_starter == "player0" else last_seat
        return self._deal(s.seed, s.round + 1, starter, totals, won, scores)

    # --- information ------------------------------------------------------------------------
    def view(self, state: State, seat: int) -> View:
        """The seat's own hand and the public facts of the game."""
        rec = self._memo
        if rec[0] is not state:
            rec = self._rec(state)
        _, rnd, resh, hands, draw_pile, discard, stock, active, current, starter, totals, won, last, over = state
        sizes = rec[1]
        if sizes is None:
            sizes = rec[1] = tuple(map(sum, hands))
        off = rec[2]  # per value: the round's cards not on the discard pile
        if off is None:
            off = rec[2] = tuple([stock[v] - discard.count(v) for v in _VALUE_RANGE])
        hand = hands[seat]
        unseen = tuple(map(sub, off, hand)) if len(hand) >= VALUES else tuple([off[i] - hand[i] for i in _VALUE_RANGE])
        return _view(seat, hand, discard, len(draw_pile), unseen, sizes, active, current, starter, totals, won, last,
                     rnd, resh, stock, over)

    def sample_state(self, view: View, rng: np.random.Generator) -> State:
        """A state consistent with `view`: the unseen cards dealt uniformly at random to the opponents' hands
        (their known sizes) and the draw pile, with a fresh seed for future shuffles (what the course of play
        revealed beyond the view is ignored)."""
        pool = np.array([v for v in range(VALUES) for _ in range(view.unseen[v])], dtype=np.int64)
        rng.shuffle(pool)
        pool = pool.tolist()
        hands = []
        pos = 0
        for i, size in enumerate(view.hand_sizes):
            if i == view.seat:
                hands.append(view.hand)
                continue
            h = [0] * VALUES
            for c in pool[pos : pos + size]:
                h[c] += 1
            pos += size
            hands.append(tuple(h))
        return State(
            seed=int(rng.integers(0, 2**63)),
            round=view.round,
            reshuffles=view.reshuffles,
            hands=tuple(hands),
            draw_pile=tuple(pool[pos:]),
            discard=view.discard,
            stock=view.stock,
            active=view.active,
            current=view.current,
            starter=view.starter,
            totals=view.totals,
            rounds_won=view.rounds_won,
            last_scores=view.last_scores,
            game_over=view.game_over,
        )

    # --- text ---------------------------------------------------------------------------------
    def action_to_string(self, state: State, action: int) -> str:
        """`play llama`, `play 1`..`play 6`, `draw` or `quit`."""
        return ACTION_NAMES[action] if 0 <= action < NUM_ACTIONS else f"?{action}"

    def render(self, state: State) -> str:
        """Round, piles, every hand and the totals as text."""
        def name(v: int) -> str:
            return "L" if v == LLAMA else str(v)

        c = self.config
        lines = [
            f"L.A.M.A. ({c.rules}, {self.num_players} players) round {state.round + 1}"
            f" | top {name(state.discard[-1])} | draw pile {len(state.draw_pile)} | discard {len(state.discard)}"
        ]
        for i, h in enumerate(state.hands):
            cards = " ".join(name(v) for v in range(1, VALUES) for _ in range(h[v])) + " L" * h[LLAMA]
            mark = ">" if (i == state.current and not state.game_over) else " "
            flag = "in " if state.active[i] else "out"
            lines.append(f"{mark} player_{i} [{flag}] total {state.totals[i]:3d} | {cards.strip() or '-'}")
        if state.game_over:
            won = [f"player_{i}" for i in self.winners(state)]
            if len(won) == 1:
                lines.append(f"game over. Winner: {won[0]}")
            else:  # a tie for the fewest points: every tied seat wins
                lines.append(f"game over. Winners: {', '.join(won[:-1])} and {won[-1]}")
        return "\n".join(lines)
