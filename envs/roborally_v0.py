"""PettingZoo module for RoboRally: `env()`, `raw_env`, `parallel_env()`, `raw_parallel_env` (see `envs.roborally.env`),
and `vector_env` (`envs.roborally.vector`)."""

from typing import Any

from envs.core.aec import make_env_fn
from envs.roborally.env import RoboRallyParallelEnv, raw_env

env = make_env_fn(raw_env)
#: The strict Parallel env: a masked action raises `IllegalActionError` and changes nothing.
raw_parallel_env = RoboRallyParallelEnv


def parallel_env(illegal_reward: float = -1.0, **options: Any) -> RoboRallyParallelEnv:
    """The RoboRally Parallel env: all robots program at once, one register (round) per step. A masked
    action ends the game with `illegal_reward` for the offender, as `env()` does (`raw_parallel_env` raises)."""
    return RoboRallyParallelEnv(illegal_reward=illegal_reward, **options)


def vector_env(num_envs: int, **kwargs: Any):
    """`envs.roborally.vector.vector_env`: `num_envs` compiled races as a Gymnasium `VectorEnv` (imported on first
    use: the compiled engine loads numba)."""
    from envs.roborally.vector import vector_env as make

    return make(num_envs, **kwargs)


__all__ = ["env", "parallel_env", "raw_env", "raw_parallel_env", "vector_env"]
