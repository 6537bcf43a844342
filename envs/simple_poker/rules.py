"""Simple poker ("Most Simple Poker Game"): the pure rules engine.

Source: R. Grothmann, "Most Simple Poker Game" (Euler Math Toolbox tutorial);
restated in the project's "Simple poker — rules specification".

Both players put the ante A in the pot and get one card each, drawn
independently and uniformly from 1..n (equal cards possible). Player 1 (seat
0) passes — and loses A at once — or bets B more. After a bet, player 2 (seat 1)
passes — and loses A — or calls: the higher card takes the pot (±(A+B)), equal
cards share it (0). Zero-sum.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from envs.core.game import IllegalActionError

PASS = 0
BET = 1  # "bet" for player 1, "call" for player 2
NUM_ACTIONS = 2


#: The largest deck `Config` accepts (a one-hot observation of 10^4 floats is still small).
MAX_N = 10_000


@dataclass(frozen=True)
class Config:
    """Options of simple poker.

    Attributes:
        n: cards are the values 1..n (2 <= n <= 10000, MAX_N: the observation holds a
            one-hot of the card, so memory grows with n).
        ante: what each player puts in first (> 0).
        bet: size of the single bet and of the call (>= 0).
    """

    n: int = 3
    ante: float = 1.0
    bet: float = 2.0

    def __post_init__(self) -> None:
        if isinstance(self.n, bool) or not isinstance(self.n, (int, np.integer)) or not 2 <= self.n <= MAX_N:
            raise ValueError(f"n must be an integer >= 2 and <= {MAX_N}, got {self.n!r}")
        for name in ("ante", "bet"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) or not np.isfinite(v):
                raise ValueError(f"{name} must be a finite number, got {v!r}")
        if self.ante <= 0:
            raise ValueError(f"ante must be > 0, got {self.ante!r}")
        if self.bet < 0:
            raise ValueError(f"bet must be >= 0, got {self.bet!r}")


@dataclass(frozen=True)
class State:
    """The whole truth: both cards and the actions so far."""

    cards: tuple[int, int]
    history: tuple[int, ...] = ()


@dataclass(frozen=True)
class View:
    """What one seat knows: its seat, its own card and the actions so far."""

    seat: int
    card: int
    history: tuple[int, ...]


class SimplePokerGame:
    """The rules of simple poker over immutable `State`s (see module docstring)."""

    num_players = 2
    num_actions = NUM_ACTIONS

    def __init__(self, config: Config | None = None):
        self.config = config or Config()
        self.n = self.config.n
        self.ante = float(self.config.ante)
        self.bet = float(self.config.bet)

    # --- dynamics ---------------------------------------------------------------
    def initial_state(self, rng: np.random.Generator) -> State:
        """Deal two independent uniform cards from 1..n."""
        return self.deal(int(rng.integers(self.n * self.n)))  # one scalar draw for the ordered pair

    def deal(self, seed: int) -> State:
        """The hand of deal seed `seed` (0 <= seed < 2**63): the ordered pair number `seed mod n²` (a vector env's
        `info["deal_seed"]` replays here; `envs.simple_poker.fast.deal_cards` is its batched twin)."""
        k = int(seed) % (self.n * self.n)
        return State((k // self.n + 1, k % self.n + 1))

    def current_player(self, state: State) -> int:
        """Seat 0 acts first, seat 1 answers a bet."""
        return len(state.history)

    def is_terminal(self, state: State) -> bool:
        """A pass by anyone, or a call, ends the hand."""
        h = state.history
        return len(h) == 2 or (len(h) == 1 and h[0] == PASS)

    def legal_actions(self, state: State) -> tuple[int, ...]:
        """Pass or bet/call while the hand is running."""
        return () if self.is_terminal(state) else (PASS, BET)

    def apply(self, state: State, action: int) -> State:
        """The state after the player to act passes (0) or bets/calls (1)."""
        if self.is_terminal(state):
            raise IllegalActionError(action, self.current_player(state) % 2, "the hand is over")
        if action not in (PASS, BET):
            raise IllegalActionError(
                action, self.current_player(state), "actions are 0 (pass) and 1 (bet/call)", legal=(PASS, BET)
            )
        return State(state.cards, state.history + (int(action),))

    def payoff(self, c1: int, c2: int, history: tuple[int, ...]) -> float:
        """Player 1's net result of a finished hand (seed's `play` function)."""
        if history[0] == PASS:
            return -self.ante
        if history[1] == PASS:
            return self.ante
        if c1 > c2:
            return self.ante + self.bet
        if c1 < c2:
            return -(self.ante + self.bet)
        return 0.0

    def returns(self, state: State) -> tuple[float, float]:
        """Net results (zero until the hand ends)."""
        if not self.is_terminal(state):
            return (0.0, 0.0)
        v = self.payoff(state.cards[0], state.cards[1], state.history)
        return (v, -v)

    # --- information --------------------------------------------------------------
    def view(self, state: State, seat: int) -> View:
        """The seat's own card and the public actions."""
        return View(seat, state.cards[seat], state.history)

    def sample_state(self, view: View, rng: np.random.Generator) -> State:
        """Draw the opponent's card uniformly (cards are dealt independently)."""
        other = int(rng.integers(1, self.n + 1))
        cards = (view.card, other) if view.seat == 0 else (other, view.card)
        return State(cards, view.history)

    # --- text ----------------------------------------------------------------------
    def action_to_string(self, state: State, action: int) -> str:
        """`pass`, `bet` (player 1) or `call` (player 2)."""
        if action == PASS:
            return "pass"
        return "bet" if self.current_player(state) == 0 else "call"

    def render(self, state: State) -> str:
        """Cards, actions and (at the end) the result."""
        names = []
        s = State(state.cards)
        for a in state.history:
            names.append(self.action_to_string(s, a))
            s = self.apply(s, a)
        line = (f"simple poker n={self.n} ante={self.ante:g} bet={self.bet:g} "
                f"| cards P1={state.cards[0]} P2={state.cards[1]}")
        line += " | " + (" ".join(names) if names else "(no action yet)")
        if self.is_terminal(state):
            r = self.returns(state)
            line += f" | result P1 {r[0]:+g}, P2 {r[1]:+g}"
        return line
