"""PettingZoo module for The Game: `env()`, `raw_env` (see `envs.the_game.env`), and `vector_env`
(`envs.the_game.vector`)."""

from envs.core.aec import make_env_fn
from envs.the_game.env import raw_env
from envs.the_game.vector import vector_env

env = make_env_fn(raw_env)

__all__ = ["env", "raw_env", "vector_env"]
