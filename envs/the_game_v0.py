"""PettingZoo module for The Game: `env()`, `raw_env` (see `envs.the_game.env`)."""

from envs.core.aec import make_env_fn
from envs.the_game.env import raw_env

env = make_env_fn(raw_env)

__all__ = ["env", "raw_env"]
