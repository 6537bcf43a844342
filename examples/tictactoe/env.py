"""Tic-tac-toe as a PettingZoo AEC environment (`env()`, `raw_env`), through the shared adapter."""

from __future__ import annotations

from envs.core.aec import GameAECEnv, make_env_fn
from examples.tictactoe.encoding import TicTacToeEncoder
from examples.tictactoe.rules import Config, TicTacToe


class raw_env(GameAECEnv):  # noqa: N801 (PettingZoo's naming)
    """Strict tic-tac-toe AEC env (options of `Config`, plus render_mode, max_turns)."""

    metadata = {"name": "tictactoe_v0", "render_modes": ["ansi", "human"], "is_parallelizable": False}
    config_class = Config
    game_class = TicTacToe
    encoder_class = TicTacToeEncoder


env = make_env_fn(raw_env)
