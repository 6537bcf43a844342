"""PettingZoo module for RoboRally: `env()`, `raw_env`, `parallel_env()` (see `envs.roborally.env`)."""

from typing import Any

from envs.core.aec import make_env_fn
from envs.roborally.env import RoboRallyParallelEnv, raw_env

env = make_env_fn(raw_env)


def parallel_env(**options: Any) -> RoboRallyParallelEnv:
    """The RoboRally Parallel env: all robots program at once, one register (round) per step."""
    return RoboRallyParallelEnv(**options)


__all__ = ["env", "parallel_env", "raw_env"]
