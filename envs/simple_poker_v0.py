"""PettingZoo module for simple poker: `env()`, `raw_env` (see `envs.simple_poker.env`)."""

from envs.core.aec import make_env_fn
from envs.simple_poker.env import raw_env

env = make_env_fn(raw_env)

__all__ = ["env", "raw_env"]
