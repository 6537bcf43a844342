"""What every game shares: the engine protocol, errors, game specs, adapters and helpers.

The names below are imported on first use, so that importing an engine (`envs.<game>.rules`)
imports neither PettingZoo nor Gymnasium.
"""

from __future__ import annotations

import importlib
from typing import Any

_WHERE = {
    "GameAECEnv": "envs.core.aec",
    "UnknownAgentError": "envs.core.aec",
    "make_env_fn": "envs.core.aec",
    "standard_wrappers": "envs.core.aec",
    "Encoder": "envs.core.encoding",
    "Field": "envs.core.encoding",
    "Layout": "envs.core.encoding",
    "Game": "envs.core.game",
    "IllegalActionError": "envs.core.game",
    "legal_mask": "envs.core.game",
    "winners": "envs.core.game",
    "make_config": "envs.core.options",
    "parse_options": "envs.core.options",
    "play_game": "envs.core.play",
    "play_out": "envs.core.play",
    "reseed_agent": "envs.core.play",
    "OpponentEnv": "envs.core.single_agent",
    "GameSpec": "envs.core.spec",
    "Option": "envs.core.options",
    "Variant": "envs.core.spec",
    # the vector base imports numba, the SB3 adapter stable-baselines3 (and torch)
    "CompiledVectorEnv": "envs.core.vector",
    "OpponentKernel": "envs.core.vector",
    "RANDOM": "envs.core.vector",
    "SB3VecEnv": "envs.core.sb3",
    "to_sb3": "envs.core.sb3",
}


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(importlib.import_module(_WHERE[name]), name)
    raise AttributeError(f"module 'envs.core' has no attribute {name!r}")


__all__ = sorted(_WHERE)
