"""PettingZoo module for simple poker: `env()`, `raw_env` (see `envs.simple_poker.env`), `vector_env`
(`envs.simple_poker.vector`)."""

from envs.core.aec import make_env_fn
from envs.simple_poker.env import raw_env
from envs.simple_poker.vector import vector_env

env = make_env_fn(raw_env)

__all__ = ["env", "raw_env", "vector_env"]
