"""What every game shares: the engine protocol, errors, adapters and helpers."""

from envs.core.aec import GameAECEnv, UnknownAgentError, make_env_fn, standard_wrappers
from envs.core.encoding import Encoder, Field, Layout
from envs.core.game import Game, IllegalActionError, legal_mask, winners
from envs.core.options import make_config, parse_options
from envs.core.play import play_game, play_out, reseed_agent
from envs.core.single_agent import OpponentEnv

# Loaded on first use: the vector base imports numba, the SB3 adapter stable-baselines3 (and torch).
_LAZY = {
    "CompiledVectorEnv": "envs.core.vector", "OpponentKernel": "envs.core.vector", "RANDOM": "envs.core.vector",
    "SB3VecEnv": "envs.core.sb3", "to_sb3": "envs.core.sb3",
}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'envs.core' has no attribute {name!r}")


__all__ = [
    "RANDOM",
    "CompiledVectorEnv",
    "Encoder",
    "Field",
    "Game",
    "GameAECEnv",
    "IllegalActionError",
    "Layout",
    "OpponentEnv",
    "OpponentKernel",
    "SB3VecEnv",
    "UnknownAgentError",
    "legal_mask",
    "make_config",
    "make_env_fn",
    "parse_options",
    "play_game",
    "play_out",
    "reseed_agent",
    "standard_wrappers",
    "to_sb3",
    "winners",
]
