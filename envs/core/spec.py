"""A game as the engine layer knows it: `GameSpec` (its options, engine, encoder, env module, kind of game and
chance model) and `Variant` (a game with its options: the value passed between layers and saved in run configs).

Each game declares its spec in `envs/<game>/spec.py` (`SPEC`), registered by `envs.register`; the layers above find
their own parts of a game in their own packages, or beside the spec of a game from outside the suite (`home`). A spec
names no module of a layer above. Option declarations come from the game's `Config` dataclass (type, default,
`Literal` values and the `Attributes:` help text), so a help screen cannot drift from the engine.
"""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from envs.core.options import Option, declared_options, make_config

#: The env forms a game may ask the fuzzer to play (`GameSpec.fuzz_forms`).
FUZZ_FORMS = ("aec", "parallel")


@dataclass(frozen=True)
class GameSpec:
    """What the engine layer knows of one game.

    Attributes:
        id: the game id (`envs.<id>_v0`, agent ids `<id>/<name>`, `tabletop/<id>-v0`).
        title: the game's name for people.
        config_class: the frozen dataclass of its options (validates in `__post_init__`).
        game_class: the rules engine, built as `game_class(config)`.
        encoder_class: the observation encoder, built as `encoder_class(game)`.
        env_module: the PettingZoo module (`env()`, `raw_env`, optionally `parallel_env()` and `vector_env()`).
        zero_sum: returns sum to zero in every variant.
        cooperative: every seat shares one return (the team's).
        simultaneous: all seats act at once (a native PettingZoo Parallel env, `parallel_env()`).
        public_moves: every seat sees the moves (terminal play announces them; else "moved").
        vector: the env module has `vector_env(num_envs, opponents=<kernels>, ...)`, the compiled batched env.
        preset_keys: options that select a rules preset (fuzzing tries every other option under each).
        reward_options: options that change only the returns (never the rules, the views or the legal
            moves): a policy trained under one value plays under any other.
        fuzz_variants: option sets with open domains that the fuzzer tries beside the defaults.
        fuzz_forms: the env forms the fuzzer plays: "aec" (`raw_env`, replayed on `env()`) and, for a game with a
            native Parallel env, "parallel" (`raw_parallel_env`, replayed on `parallel_env()`).
        kernel_variants: option sets under which the game's compiled kernels are warmed before the test suite
            (the vector env's kernels and the compiled tournament runner under each): one set per distinct
            compiled kernel (official rules compiled apart from the seed's), each seating two players or more.
            Default: the default options.
        chance_model: the game's deal as explicit chance draws for exports to libraries with chance nodes
            (`envs.core.chance.ChanceModel`, built as `chance_model(engine)`; `envs.openspiel` exports every
            game that has one); None: not exported.
        metadata: anything else a game-specific tool reads.
    """

    id: str
    title: str
    config_class: type
    game_class: type
    encoder_class: type
    env_module: str
    zero_sum: bool = False
    cooperative: bool = False
    simultaneous: bool = False
    public_moves: bool = True
    vector: bool = False
    preset_keys: tuple[str, ...] = ()
    reward_options: tuple[str, ...] = ()
    fuzz_variants: tuple[Mapping[str, Any], ...] = ()
    fuzz_forms: tuple[str, ...] = ("aec",)
    kernel_variants: tuple[Mapping[str, Any], ...] = ({},)
    chance_model: type | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[a-z][a-z0-9_]*", self.id):
            raise ValueError(f"a game id is lower-case letters, digits and '_', got {self.id!r}")
        if not self.fuzz_forms or not set(self.fuzz_forms) <= set(FUZZ_FORMS):
            raise ValueError(f"{self.id}: fuzz_forms must be some of {list(FUZZ_FORMS)}, got {self.fuzz_forms!r}")
        if not self.kernel_variants:
            raise ValueError(f"{self.id}: kernel_variants needs at least one option set ({{}}: the default options)")

    def make_game(self, **options: Any) -> Any:
        """The rules engine for these options (a bad option raises `ValueError` naming the allowed ones)."""
        return self.game_class(make_config(self.config_class, options))

    def make_encoder(self, game: Any) -> Any:
        """The observation encoder of `game`."""
        return self.encoder_class(game)

    def options(self) -> list[Option]:
        """The game's option declarations (name, type, default, allowed values, help)."""
        return declared_options(self.config_class)

    def options_help(self) -> list[str]:
        """The help block of the game's options, a line each (the CLIs' `GAME --help`)."""
        return [f"{self.title} options (--option KEY=VALUE):"] + [f"  {o.describe()}" for o in self.options()]


class NoKernelError(ValueError):
    """What a game's compiled whole-game runner (its agents' `compiled_games`) cannot play: an entrant without a
    deterministic compiled kernel (`agent_id` names it; the message also names the agents that have one), or,
    with `options_note` and no agent, game options its kernels do not play."""

    def __init__(self, agent_id: str | None, allowed: tuple[str, ...] | list[str] = (), options_note: str = "") -> None:
        if agent_id is None:
            super().__init__(f"the compiled engine plays {options_note} only")
        else:
            super().__init__(f"agent {agent_id!r} has no deterministic compiled kernel for the compiled engine; "
                             f"agents with one: {', '.join(allowed)}")
        self.agent_id = agent_id

    @classmethod
    def move_limit(cls) -> NoKernelError:
        """For a runner whose compiled loop plays every game to its end and cannot cut one at a move limit."""
        return cls(None, options_note="games without a move limit (drop --max-turns)")


#: id -> a spec, or the "module:attribute" where it is (imported on first use).
_REGISTRY: dict[str, GameSpec | str] = {}
#: id -> the package the game's spec was registered from (`home`).
_HOMES: dict[str, str] = {}


def entry_point(where: str) -> Any:
    """The object a `"module:attribute"` string names (a registered spec, an agent factory, a game part's hook),
    its module imported on first use.

    Raises:
        ValueError: `where` is not of that form.
    """
    module, _, attr = where.strip().partition(":")
    if not module or not attr:
        raise ValueError(f"an entry point is named 'module:attribute', got {where!r}")
    return getattr(importlib.import_module(module), attr)


def register(spec: GameSpec | str, where: str | None = None, *, home: str | None = None) -> None:
    """Register a game: `register(SPEC)`, or `register("id", "package.spec:SPEC")` to import it on first use.
    `home` is the package holding the game's parts of the layers above (`home(game_id)`): by default the package
    of the module `where` names; none for a spec given as an object.

    Raises:
        ValueError: an id that is registered already with another spec.
    """
    if isinstance(spec, GameSpec):
        game_id, entry = spec.id, spec
    else:
        if where is None or ":" not in where:
            raise ValueError("register(id, 'module:attribute') names where the spec is")
        game_id, entry = spec, where
        home = home or where.partition(":")[0].rpartition(".")[0] or None
    old = _REGISTRY.get(game_id)
    if old is not None and old is not entry and not (isinstance(old, str) and isinstance(entry, GameSpec)):
        raise ValueError(f"game {game_id!r} is registered already")
    _REGISTRY[game_id] = entry
    if home:
        _HOMES[game_id] = home


def unregister(game_id: str) -> None:
    """Remove a game (tests that register a throwaway game clean up with this)."""
    _REGISTRY.pop(game_id, None)
    _HOMES.pop(game_id, None)


def registered() -> tuple[str, ...]:
    """The registered game ids, in registration order."""
    return tuple(_REGISTRY)


def home(game_id: str) -> str | None:
    """The package the game's spec was registered from (`envs.<id>` for the suite's games), or None. A layer above
    finds its own part of a game from outside the suite in that package."""
    return _HOMES.get(game_id)


def spec(game_id: str) -> GameSpec:
    """The spec of a registered game.

    Raises:
        ValueError: an unknown id, naming the registered ones.
    """
    entry = _REGISTRY.get(game_id)
    if entry is None:
        raise ValueError(f"unknown game {game_id!r}; games are: {', '.join(_REGISTRY)}")
    if isinstance(entry, str):
        where, entry = entry, entry_point(entry)
        if not isinstance(entry, GameSpec) or entry.id != game_id:
            raise TypeError(f"{where} is not the GameSpec of {game_id!r}")
        _REGISTRY[game_id] = entry
    return entry


@dataclass(frozen=True)
class Variant:
    """A game with its options: `Variant("lama", {"rules": "seed2022"})`. Round-trips through JSON
    (`to_json` / `from_json`); `make_game()` builds its engine."""

    game: str
    options: Mapping[str, Any] = field(default_factory=dict)

    @property
    def spec(self) -> GameSpec:
        """The game's spec."""
        return spec(self.game)

    def make_game(self) -> Any:
        """The rules engine of this variant."""
        return self.spec.make_game(**dict(self.options))

    def to_dict(self) -> dict[str, Any]:
        """`{"game": id, "options": {...}}` (JSON values only)."""
        return {
            "game": self.game,
            "options": {k: list(v) if isinstance(v, tuple) else v for k, v in self.options.items()},
        }

    def to_json(self) -> str:
        """The variant as a JSON string."""
        return json.dumps(self.to_dict(), sort_keys=True)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Variant:
        """The inverse of `to_dict` (lists become the tuples the `Config` fields hold)."""
        if not isinstance(d, Mapping) or "game" not in d:
            raise ValueError(f"a variant is {{'game': id, 'options': {{...}}}}, got {d!r}")
        opts = {k: tuple(v) if isinstance(v, list) else v for k, v in dict(d.get("options") or {}).items()}
        return cls(str(d["game"]), opts)

    @classmethod
    def from_json(cls, text: str) -> Variant:
        """The inverse of `to_json`."""
        return cls.from_dict(json.loads(text))

    def label(self) -> str:
        """`lama(rules=seed2022)`, for titles and logs."""
        inner = ", ".join(f"{k}={v}" for k, v in sorted(self.options.items()))
        return f"{self.game}({inner})" if inner else self.game

    @classmethod
    def of(cls, engine: Any) -> Variant:
        """The variant an engine was built from: its registered game and the fewest options that build its
        `config` (none that another implies, such as a rules preset's fields; `Variant.of(v.make_game())` builds
        the same engine as `v`).

        Raises:
            ValueError: the engine is not of a registered game (or has no `config`).
        """
        game_spec = spec_of(engine)
        config = engine.config

        def build(opts: dict[str, Any]) -> Any:
            try:
                return make_config(game_spec.config_class, opts)
            except ValueError:
                return None

        options: dict[str, Any] = {}
        for o in game_spec.options():  # name each option the config built so far does not already hold
            built = build(options)
            if built is None or getattr(built, o.name) != getattr(config, o.name):
                options[o.name] = getattr(config, o.name)
        for name in list(options):  # then drop the ones another option implies (a rules preset's fields)
            fewer = {k: v for k, v in options.items() if k != name}
            if build(fewer) == config:
                options = fewer
        return cls(game_spec.id, options)


def resolve(game: str | Variant, options: Mapping[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
    """`(game id, options)` of a game named by its id or given as a `Variant`; `options` update a variant's own
    (as `gymnasium.make`'s keyword arguments update a registered spec's). Every layer that takes a game takes
    either.

    Raises:
        TypeError: `game` is neither.
    """
    if isinstance(game, Variant):
        return game.game, {**dict(game.options), **dict(options or {})}
    if isinstance(game, str):
        return game, dict(options or {})
    raise TypeError(f"a game is its id (str) or an envs.Variant, got {type(game).__name__}")


def spec_of(engine: Any) -> GameSpec:
    """The spec of the registered game whose engine class built `engine` (the engine knows its game).

    Raises:
        ValueError: no registered game builds engines of this class.
    """
    for game_id in registered():
        found = spec(game_id)
        if isinstance(engine, found.game_class):
            return found
    raise ValueError(f"{type(engine).__name__} is not the engine of a registered game ({', '.join(registered())})")
