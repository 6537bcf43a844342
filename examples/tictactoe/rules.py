"""Tic-tac-toe's rules over immutable states: seat 0 plays X, seat 1 plays O; cells 0..8 row by row."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from envs.core.game import IllegalActionError

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


@dataclass(frozen=True)
class Config:
    """Options of tic-tac-toe.

    Attributes:
        starter: who moves first: `"x"` (seat 0) or `"random"` (drawn at the deal).
        reward: `"win"` (+1 / −1, 0 for a draw).
    """

    starter: Literal["x", "random"] = "x"
    reward: Literal["win"] = "win"

    def __post_init__(self) -> None:
        if self.starter not in ("x", "random"):
            raise ValueError(f"starter must be one of ['x', 'random'], got {self.starter!r}")
        if self.reward != "win":
            raise ValueError(f"reward must be one of ['win'], got {self.reward!r}")


@dataclass(frozen=True)
class State:
    """The board (0 empty, 1 seat 0's mark, 2 seat 1's) and who is to move."""

    board: tuple[int, ...] = (0,) * 9
    player: int = 0


@dataclass(frozen=True)
class View:
    """What a seat knows: everything (perfect information), and which seat it is."""

    seat: int
    board: tuple[int, ...]
    player: int


class TicTacToe:
    """The engine (the `envs.core.game.Game` protocol)."""

    num_players = 2
    num_actions = 9

    def __init__(self, config: Config | None = None):
        self.config = config or Config()

    def initial_state(self, rng: np.random.Generator) -> State:
        """The empty board; the starter is drawn from `rng` when `starter="random"`."""
        return State(player=int(rng.integers(2)) if self.config.starter == "random" else 0)

    def deal(self, seed: int) -> State:
        """The start of deal `seed` (the same start wherever the seed is used)."""
        return self.initial_state(np.random.default_rng(seed))

    def current_player(self, state: State) -> int:
        """The seat to move."""
        return state.player

    def winner(self, state: State) -> int | None:
        """The seat with three in a line, if any."""
        for a, b, c in LINES:
            if state.board[a] and state.board[a] == state.board[b] == state.board[c]:
                return state.board[a] - 1
        return None

    def is_terminal(self, state: State) -> bool:
        """Three in a line, or a full board."""
        return self.winner(state) is not None or all(state.board)

    def legal_actions(self, state: State) -> tuple[int, ...]:
        """The empty cells (none once the game is over)."""
        return () if self.is_terminal(state) else tuple(i for i, v in enumerate(state.board) if v == 0)

    def apply(self, state: State, action: int) -> State:
        """The state after the player to move marks `action`."""
        legal = self.legal_actions(state)
        if action not in legal:
            raise IllegalActionError(action, state.player, "the cell is taken or the game is over", legal=legal)
        board = list(state.board)
        board[int(action)] = state.player + 1
        return State(tuple(board), 1 - state.player)

    def returns(self, state: State) -> tuple[float, float]:
        """+1 to the winner, −1 to the loser, 0 each for a draw or a game still running."""
        w = self.winner(state)
        return (0.0, 0.0) if w is None else ((1.0, -1.0) if w == 0 else (-1.0, 1.0))

    def view(self, state: State, seat: int) -> View:
        """Perfect information: the whole state, seen from `seat`."""
        return View(seat, state.board, state.player)

    def sample_state(self, view: View, rng: np.random.Generator) -> State:
        """The state itself (nothing is hidden)."""
        return State(view.board, view.player)

    def action_to_string(self, state: State, action: int) -> str:
        """`mark r,c` (0-based row and column)."""
        return f"mark {action // 3},{action % 3}"

    def render(self, state: State) -> str:
        """The board as three lines of X, O and dots."""
        marks = ".XO"
        return "\n".join("".join(marks[v] for v in state.board[r * 3:(r + 1) * 3]) for r in range(3))
