"""Tic-tac-toe as the engine layer knows it: the one file that tells `envs` about the game."""

from __future__ import annotations

from envs.core.spec import GameSpec
from examples.tictactoe.encoding import TicTacToeEncoder
from examples.tictactoe.rules import Config, TicTacToe

SPEC = GameSpec(
    id="tictactoe",
    title="Tic-tac-toe",
    config_class=Config,
    game_class=TicTacToe,
    encoder_class=TicTacToeEncoder,
    env_module="examples.tictactoe.env",
    zero_sum=True,
    fuzz_variants=({"starter": "random"},),
)
