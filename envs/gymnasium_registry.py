"""Gymnasium ids for the single-agent view of every game: `tabletop/<game>-v0`.

`gymnasium.make` builds `envs.core.OpponentEnv` (the learner among `opponents`, by default the game's default
line-up); `gymnasium.make_vec` the game's compiled vector env where every opponent id has a kernel, else a
`SyncVectorEnv`. `envs` never imports `agents`: ids are resolved by the functions `agents` hands to
`set_agent_resolver` on import. Described in docs/integrations.md ("Gymnasium and Stable-Baselines3").
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

#: `(agent_id, engine, rng, game_name) -> agent`, set by `agents` when it is imported.
_resolver: Callable[..., Any] | None = None
#: `(game, num_envs, opponents=ids, seed=..., **options) -> vector env`, set by `agents` (`agents.vector_env`).
_vector_resolver: Callable[..., Any] | None = None
#: `(game) -> agent ids`, the game's default line-up, set by `agents` (`agents.default_lineup`).
_lineup_resolver: Callable[[str], Sequence[str]] | None = None


def set_agent_resolver(resolver: Callable[..., Any], vector: Callable[..., Any] | None = None,
                       lineup: Callable[[str], Sequence[str]] | None = None) -> None:
    """Install the function that turns an agent id into an agent (`agents.make`), the one that builds
    a batched compiled env from agent ids (`agents.vector_env`) and the one that names a game's default
    line-up (`agents.default_lineup`)."""
    global _resolver, _vector_resolver, _lineup_resolver
    _resolver, _vector_resolver, _lineup_resolver = resolver, vector, lineup


def _needs_agents(what: str) -> ValueError:
    return ValueError(f"{what} needs `import agents` (which resolves agent ids) before gymnasium.make, or the id "
                      "'agents:tabletop/<game>-v0'; or pass agent objects")


#: The `opponents` value that seats the game's default line-up (what `gymnasium.make(id)` registers).
DEFAULT = "default"


def default_opponents(game: str, num_players: int) -> list[str]:
    """The learner's opponents in the game's default line-up: its strongest baseline (the first id of the line-up
    its agents declare) in each of the other `num_players - 1` seats."""
    if num_players < 2:
        return []
    if _lineup_resolver is None:
        raise _needs_agents(f"the default line-up of {game!r}")
    return [_lineup_resolver(game)[0]] * (num_players - 1)


def _line_up(game: str, opponents: Any, num_players: int) -> tuple[list[Any], bool]:
    """`opponents` as a list, and whether it is the default line-up (`DEFAULT` or None)."""
    if opponents is None or (isinstance(opponents, str) and opponents == DEFAULT):
        return default_opponents(game, num_players), True
    if isinstance(opponents, str):
        raise ValueError(f"opponents must be a list of agent ids or agents, or {DEFAULT!r} (the game's default "
                         f"line-up), got the string {opponents!r}")
    return list(opponents), False


def _opponents(game_name: str, engine: Any, listed: list[Any], seed: int | None) -> list[Any]:
    # Each opponent gets its own stream; OpponentEnv re-seeds them from reset(seed=...) anyway.
    rngs = np.random.default_rng(seed).spawn(len(listed))
    out = []
    for spec, rng in zip(listed, rngs):
        if isinstance(spec, str):
            if _resolver is None:
                raise _needs_agents(f"opponent id {spec!r}")
            out.append(_resolver(spec, engine, rng, game_name=game_name))
        else:
            out.append(spec)
    return out


def _with_line_up(env: Any, listed: list[Any], default: bool) -> Any:
    """`env` with its own copy of `metadata` saying who sits in the other seats."""
    names = tuple(o if isinstance(o, str) else type(o).__name__ for o in listed)
    env.metadata = {**env.metadata, "opponents": names, "default_line_up": default}
    return env


def single_agent_env(game: str, opponents: Sequence[Any] | str | None = DEFAULT, *, control: str = "one_seat",
                     seat: int | None = None, max_turns: int | None = None, seed: int | None = None,
                     render_mode: str | None = None, strict: bool = False, illegal_reward: float = -1.0,
                     **options: Any):
    """`OpponentEnv` of `game` (game options as keywords) against `opponents` (agent ids or agents; `"default"` or
    None: the game's default line-up, `default_opponents`)."""
    import envs
    from envs.core import OpponentEnv

    engine = envs.make_game(game, **options)
    listed, default = ([], False) if control == "all_seats" else _line_up(game, opponents, engine.num_players)
    opps = _opponents(game, engine, listed, seed)
    env = OpponentEnv(engine, envs.make_encoder(game, engine), opps, control=control, seat=seat,
                      max_turns=max_turns, seed=seed, render_mode=render_mode, strict=strict,
                      illegal_reward=illegal_reward)
    return _with_line_up(env, listed, default)


def _num_players(game: str, kwargs: dict[str, Any]) -> int:
    """The player count of `game` under the game options among `kwargs` (the rest are the env's)."""
    import envs

    names = {o.name for o in envs.spec(game).options()}
    return envs.make_game(game, **{k: v for k, v in kwargs.items() if k in names}).num_players


def _move_limit(kwargs: dict[str, Any]) -> dict[str, Any]:
    """`kwargs` with Gymnasium's `max_episode_steps` as the env's `max_turns` (the same number, or an error)."""
    if kwargs.get("max_episode_steps") is None:
        return {k: v for k, v in kwargs.items() if k != "max_episode_steps"}
    out = dict(kwargs)
    steps = out.pop("max_episode_steps")
    if out.get("max_turns") is not None and out["max_turns"] != steps:
        raise ValueError(f"max_episode_steps={steps!r} and max_turns={out['max_turns']!r} disagree: give one")
    out["max_turns"] = steps
    return out


def vector_env(game: str, num_envs: int = 1, compiled: bool | None = None, **kwargs: Any):
    """`gymnasium.make_vec`'s entry: `num_envs` tables of `game` (see the module docstring for which kind).

    Raises:
        ValueError: `compiled=True` where the game or an opponent has no compiled kernel (the reason named).
    """
    import gymnasium

    import envs

    if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
        raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
    kwargs = _move_limit(kwargs)
    one_seat = kwargs.get("control", "one_seat") == "one_seat"
    listed, default = _line_up(game, kwargs.get("opponents", DEFAULT), _num_players(game, kwargs)) if one_seat \
        else ([], False)
    kwargs = {**kwargs, "opponents": listed}
    simple = (_vector_resolver is not None and envs.spec(game).vector
              and all(isinstance(o, str) for o in listed) and one_seat and "render_mode" not in kwargs)
    if compiled is not False and simple:
        try:
            return _with_line_up(_vector_resolver(game, int(num_envs), **kwargs), listed, default)
        except ValueError:  # an opponent without a kernel, or an option the compiled env does not take
            if compiled:
                raise
    elif compiled:
        raise ValueError(f"no compiled vector env for these settings of {game!r}: it needs a game with one, "
                         "opponents given as agent ids with compiled kernels, control='one_seat', no render_mode")
    sync = gymnasium.vector.SyncVectorEnv([lambda: single_agent_env(game, **kwargs) for _ in range(int(num_envs))])
    return _with_line_up(sync, listed, default)


def register_with_gymnasium(games: Sequence[str], version: int) -> None:
    """Register `tabletop/<game>-v<version>` with Gymnasium for each game (once)."""
    import gymnasium

    for game in games:
        env_id = f"tabletop/{game}-v{version}"
        if env_id not in gymnasium.registry:
            gymnasium.register(env_id, entry_point=functools.partial(single_agent_env, game),
                               vector_entry_point=functools.partial(vector_env, game), kwargs={"opponents": DEFAULT})
