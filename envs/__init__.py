"""tabletop-rl environments: five games from published studies, as PettingZoo envs.

Each game declares what the engine layer knows of it in a `GameSpec` (`envs/<game>/spec.py`), registered below, one
line each. Importing `envs` also registers every game with PettingZoo as `tabletop/<game>-v0` (no game module is
imported until an env is made: README.md shows both ways to make one) and with Gymnasium (`envs.gymnasium_registry`).

A game from outside the suite: `envs.register("mygame", "package.spec:SPEC")`, or `TABLETOP_RL_GAMES=package.spec:SPEC`
for the command lines; that package is the game's `home` (docs/architecture.md, "Add a game").
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType
from typing import Any

from envs.core.game import Game, IllegalActionError
from envs.core.spec import GameSpec, Variant, home, register, registered, resolve, spec, spec_of, unregister
from envs.gymnasium_registry import register_with_gymnasium

# The built-in games, one line each: the spec is imported when a tool first asks for it.
register("lama", "envs.lama.spec:SPEC")
register("simple_poker", "envs.simple_poker.spec:SPEC")
register("the_game", "envs.the_game.spec:SPEC")
register("roborally", "envs.roborally.spec:SPEC")
register("primi_composti", "envs.primi_composti.spec:SPEC")

#: The built-in games, by id.
GAMES = registered()
VERSION = 0


def available_games() -> tuple[str, ...]:
    """The registered games (the built-in ones first)."""
    return registered()


def load(game: str) -> ModuleType:
    """The PettingZoo module of `game` (`env()`, `raw_env`, and `parallel_env()` where it has one)."""
    return importlib.import_module(spec(game).env_module)


def make_game(game: str | Variant, **options: Any) -> Game:
    """The rules engine of `game` (an id, or a `Variant` whose options `options` update) built from options
    (the env's keyword arguments)."""
    game_id, options = resolve(game, options)
    return spec(game_id).make_game(**options)


def make_encoder(game: str, engine: Game) -> Any:
    """The observation encoder the env of `game` uses for `engine`."""
    return spec(game).make_encoder(engine)


def config_class(game: str) -> type:
    """The `Config` dataclass holding `game`'s options (for option parsing)."""
    return spec(game).config_class


def _aec_env(game: str, **kwargs: Any) -> Any:
    return load(game).env(**kwargs)


def _parallel_env(game: str, **kwargs: Any) -> Any:
    if spec(game).simultaneous:
        return load(game).parallel_env(**kwargs)
    from envs.core.aec import turn_based_only

    return turn_based_only(f"tabletop/{game}-v{VERSION}")(**kwargs)


def _pettingzoo_has_registry() -> bool:
    try:
        import pettingzoo
    except ImportError:  # the engines and agents work without it
        return False
    # PettingZoo before 1.27 has no registry; the modules' env() / raw_env work on every version
    return all(hasattr(pettingzoo, name) for name in ("register", "aec_registry", "parallel_registry"))


#: Whether `pettingzoo.make("aec" | "parallel", "tabletop/<game>-v0")` works (PettingZoo 1.27 and later).
PETTINGZOO_REGISTRY = _pettingzoo_has_registry()


def register_with_pettingzoo(game: str) -> None:
    """Register `game` as `tabletop/<game>-v0` (AEC, and Parallel: the env's own where the game is
    simultaneous, else an entry that names the AEC -> Parallel conversion). Nothing is imported
    until an env is made. Without PettingZoo's registry, does nothing."""
    if not PETTINGZOO_REGISTRY:
        return
    import functools

    import pettingzoo

    env_id = f"tabletop/{game}-v{VERSION}"
    if env_id not in pettingzoo.aec_registry:
        pettingzoo.register("aec", env_id, entry_point=functools.partial(_aec_env, game))
    if env_id not in pettingzoo.parallel_registry:
        pettingzoo.register("parallel", env_id, entry_point=functools.partial(_parallel_env, game))


def register_from(where: str) -> GameSpec:
    """Import the spec at `"module:attribute"` and register it (and with PettingZoo and Gymnasium), the module's
    package as its `home`.

    Raises:
        ValueError: `where` is not of that form, or does not name a `GameSpec`.
    """
    module, _, attr = where.strip().partition(":")
    if not module or not attr:
        raise ValueError(f"a game spec is named 'module:attribute', got {where!r}")
    found = getattr(importlib.import_module(module), attr, None)
    if not isinstance(found, GameSpec):
        raise ValueError(f"{where!r} is not a GameSpec")
    register(found, home=module.rpartition(".")[0] or None)
    register_with_pettingzoo(found.id)
    register_with_gymnasium([found.id], VERSION)
    return found


for _game in GAMES:
    register_with_pettingzoo(_game)
# Gymnasium: the single-agent view, `gymnasium.make("tabletop/<game>-v0", opponents=[...])` (see the module).
register_with_gymnasium(GAMES, VERSION)
# Games from outside the package, named by the user (explicit: nothing is found by scanning).
for _where in filter(None, os.environ.get("TABLETOP_RL_GAMES", "").split(",")):
    register_from(_where)


def __getattr__(name: str) -> ModuleType:
    # `from envs import simple_poker_v0` works without importing every game eagerly.
    for g in registered():
        if name == f"{g}_v{VERSION}":
            return load(g)
    raise AttributeError(f"module 'envs' has no attribute {name!r}")


__all__ = [
    "GAMES", "Game", "GameSpec", "IllegalActionError", "Variant", "available_games", "config_class", "home", "load",
    "make_encoder", "make_game", "register", "register_from", "register_with_pettingzoo", "registered", "resolve",
    "spec", "spec_of", "unregister",
]
