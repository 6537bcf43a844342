"""PettingZoo module for L.A.M.A.: `env()`, `raw_env` (see `envs.lama.env`), and `vector_env` (`envs.lama.vector`)."""

from envs.core.aec import make_env_fn
from envs.lama.env import raw_env
from envs.lama.vector import vector_env

env = make_env_fn(raw_env)

__all__ = ["env", "raw_env", "vector_env"]
