"""Gymnasium ids for the single-agent view of every game: `tabletop/<game>-v0`.

    import gymnasium, agents                  # `import agents` lets the ids below be resolved
    env = gymnasium.make("tabletop/lama-v0", opponents=["lama/first"] * 3)
    vec = gymnasium.make_vec("tabletop/lama-v0", num_envs=8, opponents=["lama/first"] * 3)

`gymnasium.make` builds `envs.core.OpponentEnv`: the learner among `opponents`
(agent ids, or agent objects), game options as further keywords. `envs` never
imports `agents` (it sits below it): agent ids are resolved by the function
`agents` hands to `set_agent_resolver` when it is imported; without it an id
raises a `ValueError` that says to `import agents`.

`gymnasium.make_vec` uses this module's `vector_env`: the game's batched compiled
env (`agents.vector_env`: same-step autoreset, declared in `metadata["autoreset_mode"]`)
where the game has one and every opponent id has a compiled kernel, else a Gymnasium
`SyncVectorEnv` of single-agent envs (each with its own opponents built from the ids;
next-step autoreset); `compiled=True` / `False` asks for one of the two. Either way
`info["action_mask"]` comes batched as int8 `(num_envs, num_actions)`.
Pass ids, not agent objects, to `make_vec`: objects would be shared by every copy.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

#: `(agent_id, engine, rng, game_name) -> agent`, set by `agents` when it is imported.
_resolver: Callable[..., Any] | None = None
#: `(game, num_envs, opponents=ids, seed=..., **options) -> vector env`, set by `agents` (`agents.vector_env`).
_vector_resolver: Callable[..., Any] | None = None


def set_agent_resolver(resolver: Callable[..., Any], vector: Callable[..., Any] | None = None) -> None:
    """Install the function that turns an agent id into an agent (`agents.make`) and the one that builds
    a batched compiled env from agent ids (`agents.vector_env`)."""
    global _resolver, _vector_resolver
    _resolver = resolver
    _vector_resolver = vector


def _opponents(game_name: str, engine: Any, opponents: Any, seed: int | None) -> list[Any]:
    if isinstance(opponents, str):
        raise ValueError(f"opponents must be a list of agent ids or agents, got the string {opponents!r}")
    listed = list(opponents)
    # Each opponent gets its own stream; OpponentEnv re-seeds them from reset(seed=...) anyway.
    rngs = np.random.default_rng(seed).spawn(len(listed))
    out = []
    for spec, rng in zip(listed, rngs):
        if isinstance(spec, str):
            if _resolver is None:
                raise ValueError(f"opponent id {spec!r} needs `import agents` (which resolves agent ids) "
                                 "before gymnasium.make; or pass agent objects")
            out.append(_resolver(spec, engine, rng, game_name=game_name))
        else:
            out.append(spec)
    return out


def single_agent_env(game: str, opponents: Sequence[Any] = (), *, control: str = "one_seat",
                     seat: int | None = None, max_turns: int | None = None, seed: int | None = None,
                     render_mode: str | None = None, strict: bool = False, illegal_reward: float = -1.0,
                     **options: Any):
    """`OpponentEnv` of `game` (game options as keywords) against `opponents` (agent ids or agents)."""
    import envs
    from envs.core import OpponentEnv

    engine = envs.make_game(game, **options)
    opps = [] if control == "all_seats" else _opponents(game, engine, opponents, seed)
    return OpponentEnv(engine, envs.make_encoder(game, engine), opps, control=control, seat=seat,
                       max_turns=max_turns, seed=seed, render_mode=render_mode, strict=strict,
                       illegal_reward=illegal_reward)


def vector_env(game: str, num_envs: int = 1, compiled: bool | None = None, **kwargs: Any):
    """`gymnasium.make_vec`'s entry: `num_envs` tables of `game` (see the module docstring for which kind).

    Raises:
        ValueError: `compiled=True` where the game or an opponent has no compiled kernel (the reason named).
    """
    import gymnasium

    import envs

    if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
        raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
    opponents = kwargs.get("opponents", ())
    simple = (_vector_resolver is not None and envs.spec(game).vector_kernels is not None
              and not isinstance(opponents, str) and all(isinstance(o, str) for o in opponents)
              and kwargs.get("control", "one_seat") == "one_seat" and "render_mode" not in kwargs)
    if compiled is not False and simple:
        try:
            return _vector_resolver(game, int(num_envs), **kwargs)
        except ValueError:
            if compiled:
                raise
    elif compiled:
        raise ValueError(f"no compiled vector env for these settings of {game!r}: it needs a game with one, "
                         "opponents given as agent ids with compiled kernels, control='one_seat', no render_mode")
    return gymnasium.vector.SyncVectorEnv([lambda: single_agent_env(game, **kwargs) for _ in range(int(num_envs))])


def _entry(game: str, make: Callable[..., Any]) -> Callable[..., Any]:
    def entry(**kwargs: Any) -> Any:
        return make(game, **kwargs)

    entry.__doc__ = f"`{make.__name__}` of {game!r} (a Gymnasium entry point)."
    return entry


def register_with_gymnasium(games: Sequence[str], version: int) -> None:
    """Register `tabletop/<game>-v<version>` with Gymnasium for each game (once)."""
    import gymnasium

    for game in games:
        env_id = f"tabletop/{game}-v{version}"
        if env_id not in gymnasium.registry:
            gymnasium.register(env_id, entry_point=_entry(game, single_agent_env),
                               vector_entry_point=_entry(game, vector_env))
