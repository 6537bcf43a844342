"""The one PettingZoo AEC adapter: binds any `Game` + `Encoder` to `AECEnv`.

All bookkeeping lives here, written once: agent names, cached spaces, rewards as
the change of `Game.returns`, `_cumulative_rewards`, dead steps, terminations,
truncation at `max_turns`, seeding and rendering. A game's `env.py` only
subclasses `GameAECEnv` and says how to build its game and encoder.
"""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from envs.core.actions import NOT_AN_ACTION, action_id, as_action
from envs.core.game import Game, IllegalActionError, check_move_limit, default_max_turns, legal_mask
from envs.core.options import make_config


class UnknownAgentError(ValueError, KeyError):
    """An agent name that is not one of the env's `possible_agents` (the message
    names them). A `KeyError` too, for code that looks agents up in dicts."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


# What reset() and step() change: kept by copies and pickles (the rest is rebuilt
# from the constructor arguments).
_EPISODE_STATE = (
    "_rng", "_state", "agents", "rewards", "_cumulative_rewards", "terminations", "truncations", "infos",
    "_returns", "num_turns", "_mask_cache", "agent_selection", "_skip_agent_selection",
)

#: Where an env puts each seat's action mask: in the observation Dict, in `infos[agent]`, or both.
MASK_PLACES = ("obs", "info", "both")


def check_mask_in(mask_in: Any) -> str:
    """Validate the `mask_in` option (raises `ValueError` naming the allowed values)."""
    if not isinstance(mask_in, str) or mask_in not in MASK_PLACES:
        raise ValueError(f"mask_in must be one of {', '.join(map(repr, MASK_PLACES))}, got {mask_in!r}")
    return mask_in


def check_max_turns(max_turns: Any, max_cycles: Any, name: str = "max_turns") -> Any:
    """`max_turns`, or `max_cycles` (PettingZoo's name for the same limit, as `pettingzoo.make` and its
    `max_cycles_test` pass it) when only that is given; both given and different raises `ValueError`."""
    if max_cycles is None:
        return max_turns
    if isinstance(max_cycles, bool) or not isinstance(max_cycles, (int, np.integer)) or max_cycles < 1:
        raise ValueError(f"max_cycles must be a positive integer or None, got {max_cycles!r}")
    if max_turns is not None and max_turns != max_cycles:
        raise ValueError(f"max_cycles={max_cycles!r} and {name}={max_turns!r} name the same limit; give one of them")
    return max_cycles


class GameAECEnv(AECEnv, EzPickle):
    """A strict PettingZoo AEC environment over a rules engine.

    Subclasses set `metadata`, `config_class`, `game_class` and `encoder_class`; every keyword argument except
    `render_mode`, `max_turns` (PettingZoo's `max_cycles` too; default: the game's `max_game_length`, if any) and
    `mask_in` is a game option.

    Observations are `{"observation": Box, "action_mask": Box(0, 1, (N,), int8)}` (all zeros for a seat not to act);
    the same mask is in `infos[agent]["action_mask"]`; `mask_in="obs"` / `"info"` keeps it in one place only. An
    illegal action, or one that is not an integer action id (`envs.core.actions`), raises `IllegalActionError` (the
    module's `env()` has PettingZoo's illegal-move handling). `view(agent)` is the seat's information set, `state()`
    every seat's encoded view, `game_state` the engine state. Stepping before `reset()` raises `RuntimeError`; an
    unknown agent `UnknownAgentError`. `copy.deepcopy` and `pickle` keep the episode (same deal, same generator state).
    """

    metadata: ClassVar[dict[str, Any]] = {
        "name": "game_v0",
        "render_modes": ["ansi", "human"],
        "is_parallelizable": False,
    }
    #: The game's option dataclass, rules engine and observation encoder.
    config_class: ClassVar[type | None] = None
    game_class: ClassVar[Any] = None
    encoder_class: ClassVar[Any] = None

    @classmethod
    def make_game(cls, **options: Any) -> Game:
        """Build the rules engine from game options (validated by its Config)."""
        if cls.game_class is None or cls.config_class is None:
            raise NotImplementedError(f"{cls.__name__} sets neither game_class/config_class nor make_game")
        return cls.game_class(make_config(cls.config_class, options))

    @classmethod
    def make_encoder(cls, game: Game) -> Any:
        """Build the observation encoder of `game`."""
        if cls.encoder_class is None:
            raise NotImplementedError(f"{cls.__name__} sets neither encoder_class nor make_encoder")
        return cls.encoder_class(game)

    def __init__(self, render_mode: str | None = None, max_turns: int | None = None, mask_in: str = "both",
                 max_cycles: int | None = None, **options: Any):
        EzPickle.__init__(self, render_mode=render_mode, max_turns=max_turns, mask_in=mask_in, max_cycles=max_cycles,
                          **options)
        super().__init__()
        self.mask_in = check_mask_in(mask_in)
        max_turns = check_max_turns(max_turns, max_cycles)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        check_move_limit(max_turns)
        self.render_mode = render_mode
        self.game: Game = self.make_game(**options)
        self.max_turns = default_max_turns(self.game, None if max_turns is None else int(max_turns))
        self.encoder = self.make_encoder(self.game)
        n = self.game.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agents = list(self.possible_agents)
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        self._bind()
        self._rng = np.random.default_rng()
        self._state: Any = None

    def _bind(self) -> None:
        """Spaces and hot-path bindings of `self.game` and `self.encoder` (again after a subclass rebuilds them)."""
        # One cached space object per kind, shared by every seat.
        space, self.state_space = spaces_of(self.game, self.encoder, self.mask_in)
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces = dict.fromkeys(self.possible_agents, gymnasium.spaces.Discrete(self.game.num_actions))
        self._zero_mask = np.zeros(self.game.num_actions, dtype=np.int8)
        self._mask_in_obs = self.mask_in != "info"
        self._mask_in_info = self.mask_in != "obs"
        # Optional `game.public_info(state) -> dict`: what every seat may know about
        # the game as a whole (The Game's cards left), copied into each seat's info.
        self._public_info = getattr(self.game, "public_info", None)
        # Bound once: the hot path calls these every step.
        own_mask = getattr(self.game, "legal_mask", None)
        self._legal_mask = own_mask if own_mask is not None else (lambda state: legal_mask(self.game, state))
        self._view = self.game.view
        self._encode = self.encoder.encode
        self._num_actions = self.game.num_actions

    # --- copies ---------------------------------------------------------------
    def __getstate__(self) -> dict[str, Any]:
        """The constructor arguments (EzPickle) plus the episode in progress."""
        d = EzPickle.__getstate__(self)
        d["episode"] = {k: self.__dict__[k] for k in _EPISODE_STATE if k in self.__dict__}
        return d

    def __setstate__(self, d: dict[str, Any]) -> None:
        """Rebuild from the constructor arguments, then restore the episode."""
        EzPickle.__setstate__(self, d)
        self.__dict__.update(d.get("episode", {}))

    # --- misuse -----------------------------------------------------------------
    def _seat_of(self, agent: Any) -> int:
        try:
            return self._seat[agent]
        except (KeyError, TypeError):
            raise UnknownAgentError(
                f"unknown agent {agent!r}; the agents are {', '.join(self.possible_agents)}"
            ) from None

    def _not_playing(self) -> RuntimeError:
        """The error for a call that needs an episode in progress."""
        if self._state is None:
            return RuntimeError(f"{type(self).__name__}: call reset() before step(), last(), observe() or render()")
        return RuntimeError(
            f"{type(self).__name__}: the episode is over (every agent has left); call reset() to start a new one"
        )

    # --- spaces -----------------------------------------------------------
    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        """The observation space of `agent` (the same object for every seat)."""
        return self._space_of(self.observation_spaces, agent)

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        """The action space of `agent` (the same object for every seat)."""
        return self._space_of(self.action_spaces, agent)

    def _space_of(self, spaces: dict, agent: str) -> gymnasium.spaces.Space:
        """`spaces[agent]`; an unknown agent raises `_seat_of`'s `UnknownAgentError`."""
        try:
            return spaces[agent]
        except (KeyError, TypeError):
            self._seat_of(agent)
            raise

    # --- episode ------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a new game; a given `seed` replaces the generator (Gymnasium semantics)."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self._state = self.game.initial_state(self._rng)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self._returns = tuple(map(float, self.game.returns(self._state)))
        self.num_turns = 0
        self._mask_cache: np.ndarray | None = None
        self.agent_selection = self.possible_agents[self.game.current_player(self._state)]
        self._report_infos()

    def step(self, action: Any) -> None:
        """Play `action` for `agent_selection` (raises `IllegalActionError` if illegal
        or not an integer; `RuntimeError` before `reset()` or after the episode)."""
        try:
            agent = self.agent_selection
            dead = self.terminations[agent] or self.truncations[agent]
        except (AttributeError, KeyError):
            raise self._not_playing() from None
        if dead:
            self._was_dead_step(action)
            return
        seat = self._seat[agent]
        n = self._num_actions
        a = action if type(action) is int and 0 <= action < n else action_id(action, seat, n)
        game = self.game
        state = game.apply(self._state, a)  # raises before anything changes
        self._state = state
        self._mask_cache = None
        self.num_turns += 1
        new_returns = tuple(map(float, game.returns(state)))
        agents = self.agents
        rewards = dict(zip(agents, [n - o for n, o in zip(new_returns, self._returns)]))
        self.rewards = rewards
        self._returns = new_returns
        if game.is_terminal(state):
            self.terminations = dict.fromkeys(agents, True)
            self.agent_selection = self.possible_agents[(seat + 1) % len(self.possible_agents)]
        else:
            if self.max_turns is not None and self.num_turns >= self.max_turns:
                self.truncations = dict.fromkeys(agents, True)
            self.agent_selection = self.possible_agents[game.current_player(state)]
        cumulative = self._cumulative_rewards
        cumulative[agent] = 0.0  # the actor's reward restarts at its own move
        for ag, r in rewards.items():
            cumulative[ag] += r
        self._report_infos()
        if self.render_mode == "human":
            self.render()

    def _report_infos(self) -> None:
        """Fresh `infos`: the game's public information and, unless `mask_in="obs"`, each seat's int8 mask."""
        public = self._public_info(self._state) if self._public_info is not None else {}
        if not self._mask_in_info:
            self.infos = {a: dict(public) for a in self.agents}
            return
        zero = self._zero_mask
        infos = {a: {**public, "action_mask": zero.copy()} for a in self.agents}
        actor = self.agent_selection
        if actor in infos and not (self.terminations[actor] or self.truncations[actor]):
            infos[actor]["action_mask"] = self._current_mask().copy()
        self.infos = infos

    def _current_mask(self) -> np.ndarray:
        """The int8 mask of the seat to act (computed once a step)."""
        if self._mask_cache is None:
            self._mask_cache = self._legal_mask(self._state)
        return self._mask_cache

    # --- observations -------------------------------------------------------------
    def observe(self, agent: str) -> dict[str, np.ndarray] | np.ndarray:
        """`agent`'s observation: its encoded view and its action mask (all zeros
        unless `agent` is to act; also for a seat that has already left); with
        `mask_in="info"` the encoded view alone."""
        try:
            seat = self._seat[agent]
        except (KeyError, TypeError):
            seat = self._seat_of(agent)  # raises the clear error
        if self._state is None:
            raise self._not_playing()
        obs = self._encode(self._view(self._state, seat))
        if not self._mask_in_obs:
            return obs
        return {"observation": obs, "action_mask": self._mask_of(agent)}

    def _mask_of(self, agent: str) -> np.ndarray:
        if agent == self.agent_selection and not (
            self.terminations.get(agent, True) or self.truncations.get(agent, True)
        ):
            return self._current_mask().copy()
        return self._zero_mask.copy()

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """PettingZoo's `last()`: `agent_selection`'s observation, cumulative
        reward, termination, truncation and info (`RuntimeError` once every agent
        has left: call `reset()`)."""
        self._check_playing()
        return super().last(observe)

    def _check_playing(self) -> None:
        try:
            if self.agent_selection in self._cumulative_rewards:
                return
        except AttributeError:
            pass
        raise self._not_playing()

    def action_mask(self, agent: str | None = None) -> np.ndarray:
        """The int8 legal-action mask of `agent` (default: the agent to act)."""
        agent = agent or self.agent_selection
        self._seat_of(agent)
        if self._state is None:
            raise self._not_playing()
        return self._mask_of(agent)

    def view(self, agent: str) -> Any:
        """`agent`'s information set (the typed view agents act on)."""
        seat = self._seat_of(agent)
        if self._state is None:
            raise self._not_playing()
        return self.game.view(self._state, seat)

    @property
    def game_state(self) -> Any:
        """The full engine state (the whole truth: for tools, not for agents)."""
        return self._state

    def state(self) -> np.ndarray:
        """PettingZoo's global state: every seat's encoded view, seat after seat, in one float
        array (`state_space`); for centralised critics, never for a seat's own decisions."""
        if self._state is None:
            raise self._not_playing()
        return global_state(self.game, self.encoder, self._state)

    def render(self) -> str | None:
        """Text picture of the state (`ansi` returns it, `human` prints it)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi'.")
            return None
        if self._state is None:
            raise self._not_playing()
        return render_text(self.game, self._state, self.render_mode)

    def close(self) -> None:
        """Nothing to release."""


# Episode data that PettingZoo's wrappers never change: they read it from the
# raw env through `BaseWrapper.__getattr__`, about 19 forwarded look-ups a step
# (3 wrapper levels), which cost more than our whole engine step. These
# properties read it from the raw env in one hop; behaviour is unchanged.
_EPISODE_DATA = ("agent_selection", "agents", "rewards", "_cumulative_rewards", "terminations", "truncations", "infos",
                 "num_agents", "possible_agents")
_NEEDS_RESET = {"rewards", "terminations", "truncations", "infos", "agent_selection", "num_agents", "agents"}


def _direct(name: str, order_enforcing: bool) -> property:
    if order_enforcing and name in _NEEDS_RESET:

        def get(self: Any) -> Any:
            if not self._has_reset:
                raise AttributeError(f"{name} cannot be accessed before reset")
            return getattr(self._raw, name)

    else:

        def get(self: Any) -> Any:
            return getattr(self._raw, name)

    return property(get, doc=f"`{name}` of the raw env (read directly, not through `__getattr__`).")


def _with_direct_reads(base: type, order_enforcing: bool = False) -> type:
    attrs: dict[str, Any] = {name: _direct(name, order_enforcing) for name in _EPISODE_DATA}

    def init(self: Any, env: AECEnv, *args: Any, **kwargs: Any) -> None:
        object.__setattr__(self, "_raw", env.unwrapped)
        base.__init__(self, env, *args, **kwargs)

    def last(self: Any, observe: bool = True) -> Any:
        self._raw._check_playing()
        return base.last(self, observe)

    attrs["__init__"] = init
    attrs["last"] = last
    attrs["__doc__"] = f"PettingZoo's `{base.__name__}`, reading episode data straight from the raw env."
    return type(base.__name__, (base,), attrs)


_TerminateIllegalBase = _with_direct_reads(wrappers.TerminateIllegalWrapper)


class TerminateIllegalWrapper(_TerminateIllegalBase):
    """PettingZoo's `TerminateIllegalWrapper` (an illegal move ends the game, the offender gets
    `illegal_reward`); the offender's info also says so (`infos[agent]["illegal_action"]`, the
    action) and every info mask turns to zeros, as nobody is to act any more."""

    def step(self, action: Any) -> None:
        raw = self._raw
        agent = raw.agent_selection
        ended_before = self._terminated
        super().step(action)
        if self._terminated and not ended_before:
            for info in raw.infos.values():
                if "action_mask" in info:
                    info["action_mask"] = raw._zero_mask.copy()
            if agent in raw.infos:
                raw.infos[agent]["illegal_action"] = int(action)
_AssertOutOfBoundsBase = _with_direct_reads(wrappers.AssertOutOfBoundsWrapper)


class AssertOutOfBoundsWrapper(_AssertOutOfBoundsBase):
    """PettingZoo's `AssertOutOfBoundsWrapper`; an in-range action id (`envs.core.actions.as_action`: an int,
    a NumPy integer, a 0-d integer array) goes on as an int and skips `Discrete.contains` (a tenth of a step's
    cost), a live seat's action that is not an action id (a bool, a float) raises `IllegalActionError` as in
    `raw_env`, anything else gets the original check."""

    def step(self, action: Any) -> None:
        raw = self._raw
        try:
            agent = raw.agent_selection
            live = not (raw.terminations[agent] or raw.truncations[agent])
        except (AttributeError, KeyError):
            raise raw._not_playing() from None
        a = as_action(action)
        if a is not None:
            if live and 0 <= a < raw.game.num_actions:
                wrappers.BaseWrapper.step(self, a)
                return
        elif live and action is not None:
            raise IllegalActionError(action, raw._seat[agent], NOT_AN_ACTION.format(type(action).__name__))
        super().step(action)


OrderEnforcingWrapper = _with_direct_reads(wrappers.OrderEnforcingWrapper, order_enforcing=True)


def standard_wrappers(raw: AECEnv, illegal_reward: float = -1.0) -> AECEnv:
    """PettingZoo's classic wrapper stack: an illegal move ends the game with
    `illegal_reward` for the offender, out-of-space actions assert, call order is
    enforced. (Subclasses of PettingZoo's own wrappers that skip attribute
    forwarding on the hot path; see `_EPISODE_DATA`.)"""
    env = TerminateIllegalWrapper(raw, illegal_reward=illegal_reward)
    env = AssertOutOfBoundsWrapper(env)
    env = OrderEnforcingWrapper(env)
    return env


def make_env_fn(raw_cls: type[GameAECEnv]):
    """The module-level `env(**kwargs)` of a game: `raw_env` under the standard wrappers."""

    def env(**kwargs: Any) -> AECEnv:
        return standard_wrappers(raw_cls(**kwargs))

    env.__doc__ = (
        f"`{raw_cls.__module__}.raw_env` wrapped in PettingZoo's standard wrappers.\n\n{raw_cls.__doc__ or ''}"
    )
    return env


def turn_based_only(env_id: str):
    """A PettingZoo `parallel` registry entry point for a turn-based game: it
    refuses with a `ValueError` that points to the AEC env and PettingZoo's
    `turn_based_aec_to_parallel` conversion."""

    def parallel_env(**kwargs: Any) -> Any:
        raise ValueError(
            f"{env_id} is turn-based: it has an AEC env, no native Parallel one. Use "
            f"pettingzoo.utils.conversions.turn_based_aec_to_parallel(pettingzoo.make('aec', '{env_id}', ...))"
        )

    parallel_env.__doc__ = f"Refuses: {env_id} is turn-based (see `turn_based_only`)."
    return parallel_env


def spaces_of(game: Game, encoder: Any, mask_in: str) -> tuple[gymnasium.spaces.Space, gymnasium.spaces.Box]:
    """A seat's observation space under `mask_in`, and the global state's space (every seat's
    observation space end to end, as float32)."""
    box = encoder.observation_space
    if mask_in == "info":
        obs_space: gymnasium.spaces.Space = box
    else:
        obs_space = gymnasium.spaces.Dict(
            {"observation": box, "action_mask": gymnasium.spaces.Box(0, 1, (game.num_actions,), dtype=np.int8)}
        )
    n = game.num_players
    low = np.tile(np.asarray(box.low, dtype=np.float32).ravel(), n)
    high = np.tile(np.asarray(box.high, dtype=np.float32).ravel(), n)
    return obs_space, gymnasium.spaces.Box(low, high, dtype=np.float32)


def global_state(game: Game, encoder: Any, state: Any) -> np.ndarray:
    """Every seat's encoded view of `state`, seat 0 first, as one float32 vector (PettingZoo's `state()`).
    Together the views hold everything any seat knows; what no seat knows (the deck's order) stays out."""
    return np.concatenate(
        [
            np.asarray(encoder.encode(game.view(state, seat)), dtype=np.float32).ravel()
            for seat in range(game.num_players)
        ]
    )


def render_text(game: Game, state: Any, render_mode: str) -> str | None:
    """The game's text picture of `state`: returned for `ansi`, printed for `human`."""
    text = game.render(state)
    if render_mode == "human":
        print(text)
        return None
    return text
