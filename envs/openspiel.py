"""OpenSpiel export: our rules engines as OpenSpiel Python games (optional extra `openspiel`).

`import envs.openspiel` registers `tabletop_<game>` for every game with a chance model; parameters are the game's
`Config` fields (`players` for the player count; an option left to the preset is "preset" or -1). Chance nodes,
moves, returns, strings and tensors come from the engine, its `ChanceModel` and the seat's view; `policy_table`
reads an OpenSpiel policy into the table `agents.openspiel.PolicyTableAgent` plays. Described in
docs/integrations.md ("OpenSpiel").
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from typing import Any, ClassVar

import numpy as np

try:
    import pyspiel
except ImportError as e:  # pragma: no cover - depends on the extra
    raise ImportError("envs.openspiel needs OpenSpiel: pip install 'tabletop-rl[openspiel]' (open-spiel)") from e

import envs
from envs.core.chance import Phase
from envs.core.game import info_state_string

PREFIX = "tabletop_"
#: The value of a string parameter that leaves the option to the game's preset (a `Config` default of None).
PRESET = "preset"
#: The value of an integer parameter (booleans too: 0 false, 1 true) that leaves the option to its default of None.
UNSET = -1


def _chance_model(game_id: str) -> type:
    """The game's chance model (`GameSpec.chance_model`).

    Raises:
        ValueError: a game its spec does not export (no chance model).
    """
    model = envs.spec(game_id).chance_model
    if model is None:
        raise ValueError(f"{game_id!r} is not exported to OpenSpiel: its spec declares no chance_model")
    return model


_UTILITY = {"zero_sum": pyspiel.GameType.Utility.ZERO_SUM, "identical": pyspiel.GameType.Utility.IDENTICAL,
            "general_sum": pyspiel.GameType.Utility.GENERAL_SUM}


#: OpenSpiel's name for the player-count parameter (`pyspiel.load_game("kuhn_poker(players=3)")`).
PLAYERS = "players"


def _parameters(game_id: str) -> tuple[dict[str, Any], dict[str, str]]:
    """The game's `Config` fields as OpenSpiel parameters (int, float, bool or str only) with their defaults, and
    the sentinel kind of each option whose default is None: a string option gets `PRESET`, an integer or boolean
    one `UNSET` (booleans then take 0 / 1), both meaning "left to the preset". The player count is OpenSpiel's
    `players`."""
    spec, unset = {}, {}
    rename = {_chance_model(game_id).players_option: PLAYERS}
    for f in dataclasses.fields(envs.config_class(game_id)):
        if not f.init:
            continue
        name = rename.get(f.name, f.name)
        if isinstance(f.default, (bool, int, float, str)):
            spec[name] = f.default
        elif f.default is None:
            kind = "str" if "Literal['" in str(f.type) else "int"
            spec[name] = PRESET if kind == "str" else UNSET
            unset[name] = "bool" if str(f.type).startswith("bool") else kind
    return spec, unset


def _options(game_id: str, params: dict[str, Any], unset: dict[str, str]) -> dict[str, Any]:
    """OpenSpiel parameters as our options: the sentinels dropped (the preset decides), 0 / 1 as booleans,
    `players` as the game's own player-count option."""
    players_option = _chance_model(game_id).players_option
    out = {}
    for key, value in params.items():
        kind = unset.get(key)
        option = players_option if key == PLAYERS and players_option else key
        if kind is None:
            out[option] = value
        elif value != (PRESET if kind == "str" else UNSET):
            if kind == "bool" and value not in (0, 1):
                raise ValueError(f"{key} must be 0 (false), 1 (true) or {UNSET} (the preset's), got {value!r}")
            out[option] = bool(value) if kind == "bool" else value
    return out


def _engine(game_id: str, options: dict[str, Any]) -> Any:
    """Our engine for `options`; a bad player count is told by OpenSpiel's name for it, `players`."""
    players_option = _chance_model(game_id).players_option
    try:
        return envs.make_game(game_id, **options)
    except ValueError as e:
        if players_option and str(e).startswith(f"{players_option} "):
            raise ValueError(PLAYERS + str(e)[len(players_option):]) from None
        raise


def options_of(game: Any) -> dict[str, Any]:
    """Our options (the env's keyword arguments) of an exported OpenSpiel game: its parameters less the sentinels,
    `players` under the game's own name for it."""
    game_id = game.get_type().short_name[len(PREFIX):]
    return _options(game_id, game.get_parameters(), _parameters(game_id)[1])


def _game_type(game_id: str) -> Any:
    """The OpenSpiel game type of `game_id`."""
    chance_cls = _chance_model(game_id)
    defaults, _ = _parameters(game_id)
    probe = envs.make_game(game_id)
    low_n, high_n = chance_cls.players or (probe.num_players, probe.num_players)
    return pyspiel.GameType(
        short_name=PREFIX + game_id,
        long_name=f"tabletop-rl {game_id}",
        dynamics=(pyspiel.GameType.Dynamics.SIMULTANEOUS if chance_cls.simultaneous
                  else pyspiel.GameType.Dynamics.SEQUENTIAL),
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=_UTILITY[chance_cls.utility],
        reward_model=(pyspiel.GameType.RewardModel.TERMINAL if chance_cls.terminal_rewards
                      else pyspiel.GameType.RewardModel.REWARDS),
        # a game whose player count is an option is registered for the engine's range, checked by its Config
        max_num_players=high_n,
        min_num_players=low_n,
        provides_information_state_string=chance_cls.perfect_recall or chance_cls.history_info_state,
        provides_information_state_tensor=chance_cls.perfect_recall,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=defaults,
    )


class ExportedGame(pyspiel.Game):
    """An engine of ours as an OpenSpiel game (see the module docstring). One subclass per game, each defined in
    this module by name (`SimplePokerGame`, ...), so that games pickle (pickle finds a class by its name)."""

    #: The game's id (`envs.<id>_v0`); set by each subclass.
    game_id: ClassVar[str] = ""

    def __init__(self, params: dict[str, Any] | None = None):
        game_id = self.game_id
        chance_cls = _chance_model(game_id)
        defaults, unset = _parameters(game_id)
        params = {**defaults, **(params or {})}
        # ValueError on a bad option, from our Config (or from `_options` for a 0/1 option)
        self.engine = _engine(game_id, _options(game_id, params, unset))
        self.encoder = envs.make_encoder(game_id, self.engine)
        self.chance = chance_cls(self.engine)
        low, high = self.chance.utility_bounds
        info = pyspiel.GameInfo(
            num_distinct_actions=self.engine.num_actions,
            max_chance_outcomes=self.chance.max_outcomes,
            num_players=self.engine.num_players,
            min_utility=float(low),
            max_utility=float(high),
            utility_sum=0.0 if chance_cls.utility == "zero_sum" else None,
            max_game_length=self.chance.max_moves,
        )
        super().__init__(GAME_TYPES[game_id], info, params)

    def new_initial_state(self) -> ExportedState:
        """The state before the deal."""
        return ExportedState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> ViewObserver:
        """Strings and tensors of a seat's view; for a history game's information state (perfect recall asked),
        the seat's history string."""
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        history = self.chance.history_info_state and iig_obs_type is not None and iig_obs_type.perfect_recall
        return ViewObserver(self, history=history)


class _Shared:
    """A value the clones of a state share (OpenSpiel clones with deepcopy): our engine states are immutable."""

    __slots__ = ("value",)

    def __init__(self, value: Any):
        self.value = value

    def __deepcopy__(self, memo: dict) -> _Shared:
        return self


class ExportedState(pyspiel.State):
    """An OpenSpiel state: the engine's state, and while chance acts, the phase and its draws so far."""

    def __init__(self, game: Any):
        super().__init__(game)
        self._chance = game.chance
        n = game.engine.num_players
        self._phase: Any = game.chance.start()
        self.drawn: list[int] = []  # the draws of the current (or last) chance phase
        self.engine_state: Any = getattr(self._phase, "returns_of", None)
        self._pending: Any = None  # (state, action) of the move a phase is deciding
        self._base = [0.0] * n  # the returns before the last move: rewards() are the change since
        # each seat's own record (history games); not `history`, which is pyspiel's `State.history()`
        self._seat_history: list[list[str]] | None = (
            [[] for _ in range(n)] if game.chance.history_info_state else None)

    @property
    def _engine(self) -> Any:
        return self._chance._game

    @property
    def engine_state(self) -> Any:
        """The engine's state (while chance acts, the one whose returns hold; None before the first deal)."""
        return self._state.value

    @engine_state.setter
    def engine_state(self, value: Any) -> None:
        self._state = _Shared(value)

    @property
    def _pending(self) -> Any:
        return self._move_pending.value

    @_pending.setter
    def _pending(self, value: Any) -> None:
        self._move_pending = _Shared(value)

    def current_player(self) -> int:
        """Chance while a phase runs, the engine's seat to act (all seats at once, simultaneous), or terminal."""
        if self._phase is not None:
            return pyspiel.PlayerId.CHANCE
        if self._engine.is_terminal(self.engine_state):
            return pyspiel.PlayerId.TERMINAL
        if self._chance.simultaneous:
            return pyspiel.PlayerId.SIMULTANEOUS
        return int(self._engine.current_player(self.engine_state))

    def _legal_actions(self, player: int) -> list[int]:
        if self._chance.simultaneous:
            return [int(a) for a in np.flatnonzero(self._engine.seat_mask(self.engine_state, player))]
        return [int(a) for a in self._engine.legal_actions(self.engine_state)]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The next draw's outcomes with their probabilities."""
        return self._phase.outcomes(self.drawn)

    def _apply_action(self, action: int) -> None:
        if self._phase is None:
            self._move(int(action))
            return
        self.drawn.append(int(action))
        if self._phase.outcomes(self.drawn) is not None:
            return
        phase, self._phase = self._phase, None
        self.engine_state = phase.deal(self.drawn)
        if self._seat_history is not None:
            if self._pending is not None:
                self._record(self._pending[0], self._pending[1], self.engine_state)
            if phase.label == "Deal":
                self._record(None, None, self.engine_state)
        self._pending = None

    def _apply_actions(self, actions: list[int]) -> None:
        self._move([int(a) for a in actions])

    def _move(self, action: Any) -> None:
        self._base = self.returns()
        before = self.engine_state
        result = self._chance.move(before, action)
        if isinstance(result, Phase):
            self._phase, self.drawn, self._pending = result, [], (before, action)
            self.engine_state = result.returns_of
        else:
            self.engine_state = result
            if self._seat_history is not None:
                self._record(before, action, result)

    def _record(self, before: Any, action: Any, after: Any) -> None:
        for seat, token in enumerate(self._chance.tokens(before, action, after)):
            self._seat_history[seat].append(token)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            if self._phase is None:
                return f"chance outcome {action}"
            return self._phase.outcome_string(len(self.drawn), action)
        state = self.engine_state
        if self._chance.simultaneous and player >= 0:  # the round's sub-step of `player`, whose hand it names
            state = state._replace(step=state.step - state.step % self._engine.num_players + player)
        return self._engine.action_to_string(state, int(action))

    def is_terminal(self) -> bool:
        """The engine's game is over."""
        return self._phase is None and self._engine.is_terminal(self.engine_state)

    def returns(self) -> list[float]:
        """The engine's returns (zero before the deal)."""
        if self.engine_state is None:
            return [0.0] * self._engine.num_players
        return [float(r) for r in self._engine.returns(self.engine_state)]

    def rewards(self) -> list[float]:
        """What the returns changed by since before the last move (the chance after it included: OpenSpiel sums
        the rewards it reads at decision nodes and at the end, and they add up to `returns()`)."""
        return [a - b for a, b in zip(self.returns(), self._base)]

    def view(self, player: int) -> Any:
        """`player`'s view (None while a deal is drawn)."""
        state = self.engine_state if self._phase is None else getattr(self._phase, "view_of", None)
        return None if state is None else self._engine.view(state, player)

    def history_string(self, player: int) -> str:
        """The seat's own history (history games): its information-state string."""
        return " | ".join([f"p{player}", *self._seat_history[player]])

    def __str__(self) -> str:
        if self._phase is not None:
            return f"{self._phase.label if isinstance(self._phase, Phase) else 'dealing'} {self.drawn}"
        return self._engine.render(self.engine_state)


class ViewObserver:
    """OpenSpiel's observer interface over our views: `repr(view)` and the env's encoding of it (with `history`,
    the seat's history string for the information state of a history game)."""

    def __init__(self, game: Any, history: bool = False):
        self._encoder = game.encoder
        self._history = history
        self.tensor = np.zeros(int(np.prod(game.encoder.observation_space.shape)), np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: ExportedState, player: int) -> None:
        """The tensor of `player`'s view of `state` (zeros before the deal)."""
        view = state.view(player)
        if view is None:
            self.tensor.fill(0)
        else:
            self.tensor[:] = np.asarray(self._encoder.encode(view), dtype=np.float32).ravel()

    def string_from(self, state: ExportedState, player: int) -> str:
        """`repr` of `player`'s view of `state`, or its history string."""
        if self._history:
            return state.history_string(player)
        return info_state_string(state.view(player), player)


def policy_table(policy: Any, states: Any = None) -> dict[str, np.ndarray]:
    """An OpenSpiel policy as `{information-state string: action probabilities}` (the table
    `agents.openspiel.PolicyTableAgent` plays). A `TabularPolicy` (CFR's `average_policy()`, any
    `.to_tabular()`) is read as it is; any other `open_spiel.python.policy.Policy` (MCCFR's `AveragePolicy`,
    a callable policy) is first made tabular by OpenSpiel's own `to_tabular(states)`: over `states` (a list of
    `pyspiel.State`) if given, else over every information state of the game (small games only)."""
    if not (hasattr(policy, "state_lookup") and hasattr(policy, "action_probability_array")):
        if not callable(getattr(policy, "to_tabular", None)):
            raise ValueError(f"policy_table needs an OpenSpiel policy (a TabularPolicy, or a policy.Policy with "
                             f"to_tabular), got {type(policy).__name__}")
        policy = policy.to_tabular(states=states)
    return {key: np.array(policy.action_probability_array[i], dtype=float) for key, i in policy.state_lookup.items()}


def tabular_policy(game: Any, action_probs: Any) -> Any:
    """An OpenSpiel `TabularPolicy` of `game` that plays `action_probs(view, mask) -> probabilities` (an agent of
    ours with exact probabilities, e.g. `agents.make("simple_poker/nash", ...).action_probs`) at every
    information state, found by walking the whole game tree (small games only)."""
    from open_spiel.python import policy as os_policy

    table = os_policy.TabularPolicy(game)
    for state in decision_states(game):
        player = state.current_player()
        mask = np.zeros(game.num_distinct_actions(), dtype=np.int8)
        mask[state.legal_actions()] = 1
        probs = np.asarray(action_probs(state.view(player), mask), dtype=float)
        table.policy_for_key(state.information_state_string(player))[:] = probs
    return table


def decision_states(game: Any) -> Iterator[Any]:
    """Every state of an OpenSpiel `game` where a player is to move, depth first over the whole tree (every chance
    outcome expanded: small games only)."""
    stack = [game.new_initial_state()]
    while stack:
        state = stack.pop()
        if state.is_terminal():
            continue
        if state.is_chance_node():
            stack.extend(state.child(a) for a, _ in state.chance_outcomes())
            continue
        yield state
        stack.extend(state.child(a) for a in state.legal_actions())


def load(name: str) -> Any:
    """`pyspiel.load_game(name)`; a `tabletop_` name that is not exported raises a one-line `ValueError`
    naming the exported ones."""
    short = name.split("(", 1)[0]
    if short.startswith(PREFIX) and short not in REGISTERED:
        raise ValueError(f"no OpenSpiel game {short!r}; exported: {', '.join(sorted(REGISTERED))}")
    if short in REGISTERED:  # a preset-filled boolean option given as True / False: its 1 / 0
        for key, kind in _parameters(short[len(PREFIX):])[1].items():
            if kind == "bool":
                name = re.sub(rf"([(,]\s*{key}\s*=\s*)(true|false)\b",
                              lambda m: m.group(1) + ("1" if m.group(2).lower() == "true" else "0"), name,
                              flags=re.IGNORECASE)
    return pyspiel.load_game(name)


def _exported_class(game_id: str) -> type[ExportedGame]:
    """The OpenSpiel game class of `game_id`, defined in this module under its own name (`SimplePokerGame` for
    `simple_poker`), so that its games and states pickle."""
    name = "".join(w.capitalize() for w in game_id.split("_")) + "Game"
    cls = globals().get(name)
    if not (isinstance(cls, type) and issubclass(cls, ExportedGame) and cls.game_id == game_id):
        doc = f"{envs.spec(game_id).title} as an OpenSpiel game (`{PREFIX}{game_id}`)."
        cls = type(name, (ExportedGame,), {"__doc__": doc, "__module__": __name__, "__qualname__": name,
                                           "game_id": game_id})
        globals()[name] = cls
    GAME_CLASSES[game_id] = cls
    return cls


def _register() -> dict[str, type]:
    """Register with OpenSpiel every registered game whose spec declares a chance model."""
    out = {}
    known = set(pyspiel.registered_names())
    for game_id in envs.available_games():
        if envs.spec(game_id).chance_model is None:
            continue
        cls = _exported_class(game_id)
        game_type = GAME_TYPES[game_id] = _game_type(game_id)
        if game_type.short_name not in known:
            pyspiel.register_game(game_type, cls)
        out[game_type.short_name] = cls
    return out


#: The OpenSpiel game class of each exported game (filled by `_register`).
GAME_CLASSES: dict[str, type[ExportedGame]] = {}
#: The OpenSpiel game type of each exported game (filled by `_register`).
GAME_TYPES: dict[str, Any] = {}
#: The registered OpenSpiel names and their game classes.
REGISTERED = _register()
