"""A game declared once: `GameSpec` (what every shared tool needs to know of a game) and `Variant`
(a game with its options: the value passed between layers and saved in run configs).

Each game declares its spec in its package (`envs/<game>/__init__.py`, `SPEC`), and the suite
registers the built-in games by one line each in `envs/__init__.py`. The shared tools (the CLIs,
terminal play, fuzzing, leagues, training) read specs and name no game. A new game registers its own
spec explicitly::

    import envs
    envs.register(MY_SPEC)            # or envs.register("mygame", "mypackage.mygame:SPEC"), imported lazily

Option declarations come from the game's `Config` dataclass: the field's type, its default, its
allowed values (a `Literal` annotation), and the help text of the class docstring's `Attributes:`
section, so a help screen generated from them cannot drift from the engine.
"""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from envs.core.options import Option, declared_options, make_config

#: The env forms a game may ask the fuzzer to play (`GameSpec.fuzz_forms`).
FUZZ_FORMS = ("aec", "parallel")


@dataclass(frozen=True)
class GameSpec:
    """Everything the shared tools need to know of one game.

    Attributes:
        id: the game id (`envs.<id>_v0`, agent ids `<id>/<name>`, `tabletop/<id>-v0`).
        title: the game's name for people.
        config_class: the frozen dataclass of its options (validates in `__post_init__`).
        game_class: the rules engine, built as `game_class(config)`.
        encoder_class: the observation encoder, built as `encoder_class(game)`.
        env_module: the PettingZoo module (`env()`, `raw_env`, optionally `parallel_env()`).
        zero_sum: returns sum to zero in every variant.
        cooperative: every seat shares one return (the team's).
        simultaneous: all seats act at once (a native PettingZoo Parallel env, `parallel_env()`).
        public_moves: every seat sees the moves (terminal play announces them; else "moved").
        default_lineup: agent ids by seat for `python -m evaluate GAME` without `--agents`: the
            strongest baseline first, then the next strongest; the last id fills the other seats.
        preset_keys: options that select a rules preset (fuzzing tries every other option under each).
        reward_options: options that change only the returns (never the rules, the views or the legal
            moves): a policy trained under one value plays under any other (`agents.options`).
        fuzz_variants: option sets with open domains that the fuzzer tries beside the defaults.
        fuzz_forms: the env forms the fuzzer plays: "aec" (`raw_env`, replayed on `env()`) and, for a game with a
            native Parallel env, "parallel" (`raw_parallel_env`, replayed on `parallel_env()`).
        move_help: what the move names mean, shown on `?` in terminal play.
        goal: how the game is won, in a sentence or two for a person (shown on `?` in terminal play).
        round_summary: `round_summary(game, before, after, names) -> str | None`, for games played in rounds:
            what a person should be told when the move from state `before` to `after` ended a round (who went
            out, each seat's points); `names[s]` is how to call seat s ("you", "player_1"). None otherwise.
        describe_view: `describe_view(game, view) -> str`, what a seat knows as text for a person
            (terminal play; a move is described by the engine's `action_to_string`).
        write_picture: `write_picture(game, view, path, labels)`, a PNG of what a seat sees, for games with a
            picture; `labels[s]` says who plays seat s ("you", an agent id).
        read_move: "module:function" reading a move a person types in the game's own notation, beyond the listed
            numbers and names (terminal play): `function(game, state, text) -> (action, note) | None`, None where
            `text` is not in that notation; a `ValueError` whose message says why a move so written cannot be played
            now; `note` (or "") tells the person how the move was read.
        move_group: `move_group(name) -> (heading, label) | None`, for games with many moves of one kind: terminal
            play lists the moves of one heading on one line, each by its label (The Game: `play 19 on up0` is
            ("play on up0", "19"), a pile a line); None keeps a move on a line of its own.
        seat_label: `seat_label(seat) -> str`, how a person calls a seat (default `player_<seat>`), used by
            terminal play wherever it names a seat (RoboRally: "robot 1" for seat 0, as on its board).
        examples: runnable `python -m evaluate` argument strings, shown in the game's help.
        league_deals: deals per pair of the leaderboard's league.
        league_members: members of parametric agent families that a default league includes.
        league_skip: registered ids a default league leaves out, each with the reason.
        agents_module: the module whose import registers the game's agents.
        evaluate_module: the module with the game's own evaluation jobs (`add_arguments`, `run`), if any.
        train_presets: the module with the game's training presets (`PRESET`, `DISTILL`, `HOOKS`), if any.
        vector_kernels: the module of the opponents' compiled kernels for the game's batched env
            (`opponent_kernel(agent_id)`, `KERNEL_IDS`); the env module then has `vector_env`.
        compiled_games: "module:function", the game's compiled whole-game runner for tournaments (`evaluate.tournament`
            takes it when every entrant has a deterministic kernel): `function(game, ids, max_turns) -> play`, where
            `ids` are the entrants' agent ids, raising `NoKernelError` for the first entrant without one (or, with
            `options_note`, for options or a move limit it does not play); `play(keys, seatings)` plays
            every deal once per row of `seatings` (an int array (rows, n): the entrant at each seat), deal d being
            the game `initial_state(rng)` starts for the generator that drew `keys[d] = game.deal_key(rng)` (the
            game's engine has that method: what `initial_state` draws before it deals), and returns
            `(returns, winners, turns)`: float (deals, rows, n) returns by seat, bool (deals, rows, n) winners by
            seat, int (deals, rows) moves — game for game what `envs.core.play.play_game` gives with the entrants'
            Python agents, a game cut after `max_turns` moves (None: none) having no winner, as in `play_game`.
            A runner that also takes `policies` (one per entrant: None, or a saved network's seat policy with
            `logits(obs, mask)` and `sample`) seats those networks on its compiled loop, paused where one is to
            move, and its `play` takes `streams` too (uint64 (deals, rows, n): the key of each game's seat's
            sampling stream); `play.kernels` names the numba kernels a first run compiles.
        kernel_variants: option sets under which the game's compiled kernels are warmed before the test suite
            (`.ci/compile_kernels.py` compiles the vector env's kernels, with random and with strategy opponents,
            and the compiled tournament runner under each): one set per distinct compiled kernel (official rules
            compiled apart from the seed's), each seating two players or more. Default: the default options.
        warm_up: `python -m evaluate` argument strings, a game or two each, that compile the kernels of the game's
            players beyond those (search players: `.ci/compile_kernels.py` runs them too).
        exact_values: "module:function" giving exact head-to-head values of agents,
            `function(game, ids, built_agents) -> {id: {id: value}} | None` (leagues print it).
        exploitability: "module:function" giving each agent's exact exploitability (what a best response
            wins against it over the game's value), `function(game, ids, built_agents) -> {id: float | None}
            | None`; the leaderboard sets it beside the ratings, which measure results within the pool only.
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
    default_lineup: tuple[str, ...] = ("random",)
    preset_keys: tuple[str, ...] = ()
    reward_options: tuple[str, ...] = ()
    fuzz_variants: tuple[Mapping[str, Any], ...] = ()
    fuzz_forms: tuple[str, ...] = ("aec",)
    move_help: str = ""
    goal: str = ""
    round_summary: Callable[[Any, Any, Any, list[str]], str | None] | None = None
    describe_view: Callable[[Any, Any], str] | None = None
    write_picture: Callable[..., None] | None = None
    seat_label: Callable[[int], str] | None = None
    read_move: str | None = None
    move_group: Callable[[str], tuple[str, str] | None] | None = None
    examples: tuple[str, ...] = ()
    league_deals: int = 50
    league_members: tuple[str, ...] = ()
    league_skip: Mapping[str, str] = field(default_factory=dict)
    agents_module: str | None = None
    evaluate_module: str | None = None
    train_presets: str | None = None
    vector_kernels: str | None = None
    compiled_games: str | None = None
    kernel_variants: tuple[Mapping[str, Any], ...] = ({},)
    warm_up: tuple[str, ...] = ()
    exact_values: str | None = None
    exploitability: str | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[a-z][a-z0-9_]*", self.id):
            raise ValueError(f"a game id is lower-case letters, digits and '_', got {self.id!r}")
        if not self.default_lineup:
            raise ValueError(f"{self.id}: default_lineup needs at least one agent id")
        if not self.fuzz_forms or not set(self.fuzz_forms) <= set(FUZZ_FORMS):
            raise ValueError(f"{self.id}: fuzz_forms must be some of {list(FUZZ_FORMS)}, got {self.fuzz_forms!r}")
        if not self.kernel_variants:
            raise ValueError(f"{self.id}: kernel_variants needs at least one option set ({{}}: the default options)")
        for line in self.warm_up:
            if line.split(" ", 1)[0] != self.id:
                raise ValueError(f"{self.id}: a warm_up line is `python -m evaluate {self.id} ...`'s arguments, "
                                 f"starting with the game's id; got {line!r}")

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

    def lineup(self, num_players: int) -> list[str]:
        """The default line-up for a table of `num_players` seats."""
        ids = list(self.default_lineup[:num_players])
        return ids + [self.default_lineup[-1]] * (num_players - len(ids))

    def seat_name(self, seat: int) -> str:
        """How a person calls `seat` (`seat_label`, else `player_<seat>`)."""
        return self.seat_label(seat) if self.seat_label is not None else f"player_{seat}"

    def variant(self, **options: Any) -> Variant:
        """This game with `options` (validated now)."""
        return Variant(self.id, dict(options)).checked()

class NoKernelError(ValueError):
    """What a game's compiled whole-game runner (`GameSpec.compiled_games`) cannot play: an entrant without a
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

def register(spec: GameSpec | str, where: str | None = None) -> None:
    """Register a game: `register(SPEC)`, or `register("id", "module:SPEC")` to import it on first use.

    Raises:
        ValueError: an id that is registered already with another spec.
    """
    if isinstance(spec, GameSpec):
        game_id, entry = spec.id, spec
    else:
        if where is None or ":" not in where:
            raise ValueError("register(id, 'module:attribute') names where the spec is")
        game_id, entry = spec, where
    old = _REGISTRY.get(game_id)
    if old is not None and old is not entry and not (isinstance(old, str) and isinstance(entry, GameSpec)):
        raise ValueError(f"game {game_id!r} is registered already")
    _REGISTRY[game_id] = entry

def unregister(game_id: str) -> None:
    """Remove a game (tests that register a throwaway game clean up with this)."""
    _REGISTRY.pop(game_id, None)

def registered() -> tuple[str, ...]:
    """The registered game ids, in registration order."""
    return tuple(_REGISTRY)

def spec(game_id: str) -> GameSpec:
    """The spec of a registered game.

    Raises:
        ValueError: an unknown id, naming the registered ones.
    """
    entry = _REGISTRY.get(game_id)
    if entry is None:
        raise ValueError(f"unknown game {game_id!r}; games are: {', '.join(_REGISTRY)}")
    if isinstance(entry, str):
        module, _, attr = entry.partition(":")
        entry = getattr(importlib.import_module(module), attr)
        if not isinstance(entry, GameSpec) or entry.id != game_id:
            raise TypeError(f"{module}:{attr} is not the GameSpec of {game_id!r}")
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

    def checked(self) -> Variant:
        """This variant, after building its engine once (a bad option raises `ValueError`)."""
        self.make_game()
        return self

    def make_game(self) -> Any:
        """The rules engine of this variant."""
        return self.spec.make_game(**dict(self.options))

    def to_dict(self) -> dict[str, Any]:
        """`{"game": id, "options": {...}}` (JSON values only)."""
        return {"game": self.game, "options": {k: list(v) if isinstance(v, tuple) else v for k, v in self.options.items()}}

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
