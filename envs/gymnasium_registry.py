"""Gymnasium ids for the single-agent view of every game: `tabletop/<game>-v0`.

    import gymnasium, envs                    # `import envs` registers the ids
    env = gymnasium.make("tabletop/lama-v0")  # the default variant against the default line-up
    env = gymnasium.make("tabletop/lama-v0", opponents=["lama/first"] * 3)
    vec = gymnasium.make_vec("tabletop/lama-v0", num_envs=8)

`gymnasium.make` builds `envs.core.OpponentEnv`: the learner among `opponents`
(agent ids, or agent objects), game options as further keywords. Without `opponents`
(the registered `opponents="default"`, which `env.spec.kwargs` shows) the game's
default line-up sits in the other seats: its spec's strongest baseline
(`GameSpec.default_lineup[0]`) in each; `env.metadata["opponents"]` names the ids
seated and `env.metadata["default_line_up"]` says whether they were the default.

`envs` never imports `agents` (it sits below it): agent ids are resolved by the
function `agents` hands to `set_agent_resolver` when it is imported. Before
`agents` is imported, an id makes this module import the module the game's spec
names for its agents (`GameSpec.agents_module`), which installs that function; if
none does, an id raises a `ValueError` that says to `import agents`.

`gymnasium.make_vec` uses this module's `vector_env`: the game's batched compiled
env (`agents.vector_env`: same-step autoreset, declared in `metadata["autoreset_mode"]`)
where the game has one and every opponent id has a compiled kernel, else a Gymnasium
`SyncVectorEnv` of single-agent envs (each with its own opponents built from the ids;
next-step autoreset); `compiled=True` / `False` asks for one of the two. Either way
`info["action_mask"]` comes batched as int8 `(num_envs, num_actions)`.
Pass ids, not agent objects, to `make_vec`: objects would be shared by every copy.
"""

from __future__ import annotations

import importlib
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


#: The `opponents` value that seats the game's default line-up (what `gymnasium.make(id)` registers).
DEFAULT = "default"


def default_opponents(game: str, num_players: int) -> list[str]:
    """The learner's opponents in the game's default line-up: the spec's strongest baseline
    (`GameSpec.default_lineup[0]`) in each of the other `num_players - 1` seats."""
    import envs

    return [envs.spec(game).default_lineup[0]] * (num_players - 1)


def _line_up(game: str, opponents: Any, num_players: int) -> tuple[list[Any], bool]:
    """`opponents` as a list, and whether it is the default line-up (`DEFAULT` or None)."""
    if opponents is None or (isinstance(opponents, str) and opponents == DEFAULT):
        return default_opponents(game, num_players), True
    if isinstance(opponents, str):
        raise ValueError(f"opponents must be a list of agent ids or agents, or {DEFAULT!r} (the game's default "
                         f"line-up), got the string {opponents!r}")
    return list(opponents), False


def _agent_resolver(game: str) -> Callable[..., Any] | None:
    """The installed agent resolver; if `agents` was not imported yet, the module the game's spec names for its
    agents is imported first (importing it installs the resolver)."""
    if _resolver is None:
        import envs

        name = envs.spec(game).agents_module
        if name:
            importlib.import_module(name)
    return _resolver


def _opponents(game_name: str, engine: Any, listed: list[Any], seed: int | None) -> list[Any]:
    # Each opponent gets its own stream; OpponentEnv re-seeds them from reset(seed=...) anyway.
    rngs = np.random.default_rng(seed).spawn(len(listed))
    out = []
    for spec, rng in zip(listed, rngs):
        if isinstance(spec, str):
            resolver = _agent_resolver(game_name)
            if resolver is None:
                raise ValueError(f"opponent id {spec!r} needs `import agents` (which resolves agent ids) "
                                 "before gymnasium.make; or pass agent objects")
            out.append(resolver(spec, engine, rng, game_name=game_name))
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


def vector_env(game: str, num_envs: int = 1, compiled: bool | None = None, **kwargs: Any):
    """`gymnasium.make_vec`'s entry: `num_envs` tables of `game` (see the module docstring for which kind).

    Raises:
        ValueError: `compiled=True` where the game or an opponent has no compiled kernel (the reason named).
    """
    import gymnasium

    import envs

    if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
        raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
    one_seat = kwargs.get("control", "one_seat") == "one_seat"
    listed, default = _line_up(game, kwargs.get("opponents", DEFAULT), _num_players(game, kwargs)) if one_seat \
        else ([], False)
    kwargs = {**kwargs, "opponents": listed}
    if any(isinstance(o, str) for o in listed):
        _agent_resolver(game)
    simple = (_vector_resolver is not None and envs.spec(game).vector_kernels is not None
              and all(isinstance(o, str) for o in listed) and one_seat and "render_mode" not in kwargs)
    if compiled is not False and simple:
        try:
            return _with_line_up(_vector_resolver(game, int(num_envs), **kwargs), listed, default)
        except ValueError:
            if compiled:
                raise
    elif compiled:
        raise ValueError(f"no compiled vector env for these settings of {game!r}: it needs a game with one, "
                         "opponents given as agent ids with compiled kernels, control='one_seat', no render_mode")
    sync = gymnasium.vector.SyncVectorEnv([lambda: single_agent_env(game, **kwargs) for _ in range(int(num_envs))])
    return _with_line_up(sync, listed, default)


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
                               vector_entry_point=_entry(game, vector_env), kwargs={"opponents": DEFAULT})
