"""PettingZoo module for Primi Composti: `env()`, `raw_env` (see `envs.primi_composti.env`), and `vector_env`
(`envs.primi_composti.vector`)."""

from envs.core.aec import make_env_fn
from envs.primi_composti.env import raw_env
from envs.primi_composti.vector import vector_env

env = make_env_fn(raw_env)

__all__ = ["env", "raw_env", "vector_env"]
