"""Tic-tac-toe's part of the evaluate layer: how to describe it to a person, its examples and league size."""

from __future__ import annotations

from typing import Any

from evaluate.games import declare


def describe_view(game: Any, view: Any) -> str:
    """The board for a person, with the cell numbers of the moves."""
    return game.render(view) + f"\nyou are {'XO'[view.seat]}; cells are numbered 0..8 row by row"


#: What the moves mean, shown on `?` in terminal play.
MOVE_HELP = "mark R,C: put your mark in row R, column C (0-based)."

declare(
    "tictactoe",
    move_help=MOVE_HELP,
    describe_view=describe_view,
    examples=("tictactoe --agents tictactoe/lines,random --games 200",),
    league_deals=20,
)
