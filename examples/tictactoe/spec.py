"""Tic-tac-toe declared for the shared tools: the one file that tells them about the game."""

from __future__ import annotations

from typing import Any

from envs.core.spec import GameSpec
from examples.tictactoe.encoding import TicTacToeEncoder
from examples.tictactoe.rules import Config, TicTacToe


def describe_view(game: Any, view: Any) -> str:
    """The board for a person, with the cell numbers of the moves."""
    return game.render(view) + f"\nyou are {'XO'[view.seat]}; cells are numbered 0..8 row by row"


SPEC = GameSpec(
    id="tictactoe",
    title="Tic-tac-toe",
    config_class=Config,
    game_class=TicTacToe,
    encoder_class=TicTacToeEncoder,
    env_module="examples.tictactoe.env",
    zero_sum=True,
    default_lineup=("tictactoe/lines", "random"),
    fuzz_variants=({"starter": "random"},),
    move_help="mark R,C: put your mark in row R, column C (0-based).",
    describe_view=describe_view,
    examples=("tictactoe --agents tictactoe/lines,random --games 200",),
    league_deals=20,
    agents_module="examples.tictactoe.agents",
)
