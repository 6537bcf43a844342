"""`agents.vector_env`: a game's batched compiled environment with opponents given as agent ids.

The env layer takes compiled opponent objects (`envs.core.vector.OpponentKernel`)
and never imports `agents`; this module maps agent ids to those kernels, one
hook per game (`_HOOKS`: the module and function that resolve an id, and the
ids it knows), so adding a game's kernels is one line here.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any

# game -> (module of its vector env, module of its opponent kernels: `opponent_kernel(id)` and `KERNEL_IDS`)
_HOOKS: dict[str, tuple[str, str]] = {
    "lama": ("envs.lama_v0", "agents.lama_fast"),
    "simple_poker": ("envs.simple_poker_v0", "agents.simple_poker"),
}


def kernel_ids(game: str) -> tuple[str, ...]:
    """The agent ids that have a compiled kernel for `game`'s vector env."""
    return tuple(importlib.import_module(_hook(game)[1]).KERNEL_IDS)


def _hook(game: str) -> tuple[str, str]:
    if game not in _HOOKS:
        raise ValueError(f"no vector env for game {game!r}; allowed games: {', '.join(sorted(_HOOKS))}")
    return _HOOKS[game]


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


__all__ = ["kernel_ids", "resolve_opponents", "vector_env"]
