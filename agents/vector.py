"""`agents.vector_env`: a game's batched compiled environment with opponents given as agent ids.

The env layer takes compiled opponent objects (`envs.core.vector.OpponentKernel`)
and never imports `agents`; this module maps agent ids to those kernels through the
module the game's `GameSpec` names (`vector_kernels`: `opponent_kernel(id)` and
`KERNEL_IDS`), and builds the env with its PettingZoo module's `vector_env`.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any

import envs


def kernel_ids(game: str) -> tuple[str, ...]:
    """The agent ids that have a compiled kernel for `game`'s vector env."""
    return tuple(importlib.import_module(_hook(game)[1]).KERNEL_IDS)


def vector_games() -> tuple[str, ...]:
    """The games with a batched compiled env and opponent kernels."""
    return tuple(g for g in envs.available_games() if envs.spec(g).vector_kernels)


def _hook(game: str) -> tuple[str, str]:
    """(the module of the game's vector env, the module of its opponent kernels)."""
    spec = envs.spec(game)  # an unknown game: ValueError naming the games
    if not spec.vector_kernels:
        raise ValueError(f"no vector env for game {game!r}; games with one: {', '.join(vector_games())}")
    return spec.env_module, spec.vector_kernels


def resolve_opponents(game: str, opponents: Sequence[str], options: dict[str, Any] | None = None) -> list[Any]:
    """The `OpponentKernel`s of agent ids `opponents` under the game's `options` (ValueError naming the allowed ids
    for an id without one)."""
    env_mod, agents_mod = _hook(game)
    mod = importlib.import_module(agents_mod)
    out = []
    for agent_id in opponents:
        kernel = mod.opponent_kernel(agent_id, options or {}) if isinstance(agent_id, str) else None
        if kernel is None:
            raise ValueError(f"opponent {agent_id!r} has no compiled kernel for {game}'s vector env; "
                             f"allowed: {', '.join(mod.KERNEL_IDS)}")
        out.append(kernel)
    return out


def vector_env(game: str, num_envs: int = 1024, *, opponents: Sequence[str], seed: int | None = None,
               **options: Any):
    """`envs.<game>_v0.vector_env(num_envs, opponents=<kernels>, seed=seed, **options)` with `opponents` given as
    agent ids (e.g. `["lama/first"] * 3`); `options` are the env's (control, seat, strict, copy, illegal_reward,
    max_turns) and the game's options."""
    if isinstance(opponents, str):
        raise ValueError(f"opponents must be a list of agent ids, got the string {opponents!r}")
    kernels = resolve_opponents(game, opponents, options)
    env_mod = importlib.import_module(_hook(game)[0])
    return env_mod.vector_env(num_envs, opponents=kernels, seed=seed, **options)


__all__ = ["kernel_ids", "resolve_opponents", "vector_env", "vector_games"]
