"""tabletop-rl environments: five games from published studies, as PettingZoo envs.

Importing `envs` registers every available game with PettingZoo's registry as
`tabletop/<game>-v0`, so both of these work::

    from envs import simple_poker_v0
    env = simple_poker_v0.env(n=10, ante=1, bet=2)

    import envs, pettingzoo
    env = pettingzoo.make("aec", "tabletop/simple_poker-v0", n=10, ante=1, bet=2)

Gymnasium gets the single-agent view of each game under the same id (after
`import agents`, which resolves opponent ids)::

    env = gymnasium.make("tabletop/lama-v0", opponents=["lama/first"] * 3)

Adding a game = a folder `envs/<game>/`, a module `envs/<game>_v0.py` and its
name in `GAMES` below.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType
from typing import Any

from envs.core import Game, IllegalActionError
from envs.core.aec import turn_based_only
from envs.gymnasium_registry import register_with_gymnasium

#: Every game of the suite, by id. A game is *available* once its module exists.
GAMES = ("lama", "simple_poker", "the_game", "roborally", "primi_composti")
VERSION = 0
_HERE = os.path.dirname(os.path.abspath(__file__))


def available_games() -> tuple[str, ...]:
    """The games whose `envs/<game>_v0.py` module is present in this package."""
    return tuple(g for g in GAMES if os.path.exists(os.path.join(_HERE, f"{g}_v{VERSION}.py")))


def load(game: str) -> ModuleType:
    """The PettingZoo module `envs.<game>_v0` (with `env`, `raw_env`)."""
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; games are: {', '.join(GAMES)}")
    if game not in available_games():
        raise ValueError(f"game {game!r} is not implemented yet; available: {', '.join(available_games())}")
    return importlib.import_module(f"envs.{game}_v{VERSION}")


def make_game(game: str, **options: Any) -> Game:
    """The rules engine of `game` built from options (the env's keyword arguments)."""
    return load(game).raw_env.make_game(**options)


def make_encoder(game: str, engine: Game) -> Any:
    """The observation encoder the env of `game` uses for `engine`."""
    return load(game).raw_env.make_encoder(engine)


def config_class(game: str) -> type:
    """The `Config` dataclass holding `game`'s options (for option parsing)."""
    return load(game).raw_env.config_class


def _register_with_pettingzoo() -> bool:
    """Register every available game as `tabletop/<game>-v0` (AEC; and Parallel where its module has
    `parallel_env`). Runs once, when `envs` is first imported: it imports each game's module, which
    also imports its rules and encoder (about 0.1 s for all games together). PettingZoo before 1.27
    has no registry (`pettingzoo.make`): nothing is registered there and False is returned; the
    modules' `env()` / `raw_env` / `parallel_env()` work on every supported version."""
    import pettingzoo

    if not all(hasattr(pettingzoo, name) for name in ("register", "aec_registry", "parallel_registry")):
        return False
    for g in available_games():
        env_id = f"tabletop/{g}-v{VERSION}"
        module = load(g)
        if env_id not in pettingzoo.aec_registry:
            pettingzoo.register("aec", env_id, entry_point=module.env)
        if env_id not in pettingzoo.parallel_registry:
            # A turn-based game's entry says so and names the AEC -> Parallel conversion.
            entry = module.parallel_env if hasattr(module, "parallel_env") else turn_based_only(env_id)
            pettingzoo.register("parallel", env_id, entry_point=entry)
    return True


#: Whether `pettingzoo.make("aec" | "parallel", "tabletop/<game>-v0")` works (PettingZoo 1.27 and later).
PETTINGZOO_REGISTRY = _register_with_pettingzoo()
# Gymnasium: the single-agent view, `gymnasium.make("tabletop/<game>-v0", opponents=[...])` (see the module).
register_with_gymnasium(available_games(), VERSION)


def __getattr__(name: str) -> ModuleType:
    # `from envs import simple_poker_v0` works without importing every game eagerly.
    for g in GAMES:
        if name == f"{g}_v{VERSION}":
            return load(g)
    raise AttributeError(f"module 'envs' has no attribute {name!r}")


__all__ = ["GAMES", "Game", "IllegalActionError", "available_games", "config_class", "load", "make_encoder", "make_game"]
