"""The one PettingZoo Parallel adapter: binds a round-based `Game` + `Encoder` to `ParallelEnv`.

For games whose moves come in rounds in which every seat moves once and no seat's legal moves depend on the others'
in the round: such a game declares `simultaneous_rounds = True` and `seat_mask(state, seat)`. One `step(actions)`
plays a round through `Game.apply`, in the order the game asks. Optional on the game: `truncated(state)` (stopped at
a cap: shown as truncation, not termination).
"""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium.utils import EzPickle
from pettingzoo import ParallelEnv

from envs.core.actions import action_id
from envs.core.aec import GameAECEnv, check_mask_in, global_state, render_text, spaces_of
from envs.core.game import Game, IllegalActionError


class GameParallelEnv(ParallelEnv, EzPickle):
    """A strict PettingZoo Parallel environment over a round-based rules engine.

    Subclasses set `metadata`, `config_class`, `game_class` and `encoder_class`; every keyword argument except
    `render_mode`, `mask_in` and `illegal_reward` is a game option. Observations, masks and `mask_in` are the AEC env's;
    rewards are the change of `Game.returns`; agents leave together when the game ends. An action that is not an action
    id or outside the space raises `IllegalActionError` naming the seat; so does a masked one when `illegal_reward` is
    None (the default), before anything changes; otherwise (`parallel_env()`) the round is not played, each offender
    gets `illegal_reward`, every agent leaves and `infos[offender]["illegal_action"]` is the refused action.
    """

    metadata: ClassVar[dict[str, Any]] = {"name": "game_parallel_v0", "render_modes": ["ansi", "human"],
                                          "is_parallelizable": True}
    config_class: ClassVar[type | None] = None
    game_class: ClassVar[Any] = None
    encoder_class: ClassVar[Any] = None

    # The game and encoder are built exactly as the AEC adapter builds them (from the same class attributes).
    make_game = classmethod(GameAECEnv.make_game.__func__)
    make_encoder = classmethod(GameAECEnv.make_encoder.__func__)

    def __init__(self, render_mode: str | None = None, mask_in: str = "both", illegal_reward: float | None = None,
                 **options: Any):
        EzPickle.__init__(self, render_mode=render_mode, mask_in=mask_in, illegal_reward=illegal_reward, **options)
        self.mask_in = check_mask_in(mask_in)
        if illegal_reward is not None and (
            isinstance(illegal_reward, bool) or not isinstance(illegal_reward, (int, float))
        ):
            raise ValueError(f"illegal_reward must be a number or None (strict), got {illegal_reward!r}")
        self.illegal_reward = None if illegal_reward is None else float(illegal_reward)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        self.render_mode = render_mode
        self.game: Game = self.make_game(**options)
        if not getattr(self.game, "simultaneous_rounds", False) or not hasattr(self.game, "seat_mask"):
            raise ValueError(f"{type(self.game).__name__} does not declare simultaneous_rounds and seat_mask: "
                             "its moves are not rounds of independent moves; use the AEC env")
        self.encoder = self.make_encoder(self.game)
        n = self.game.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agents: list[str] = []
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        space, self.state_space = spaces_of(self.game, self.encoder, self.mask_in)
        action_space = gymnasium.spaces.Discrete(self.game.num_actions)
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces = dict.fromkeys(self.possible_agents, action_space)
        self._truncated = getattr(self.game, "truncated", None)
        self._rng = np.random.default_rng()
        self._state: Any = None
        self.num_rounds = 0

    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        """The observation space of `agent` (the same object for every seat)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        """The action space of `agent` (the same object for every seat)."""
        return self.action_spaces[agent]

    def _observe_all(self, live: bool = True) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        """Every seat's observation and info (masks all zeros once the game is over)."""
        game, state = self.game, self._state
        obs: dict[str, Any] = {}
        infos: dict[str, dict[str, Any]] = {}
        for seat, a in enumerate(self.possible_agents):
            view = self.encoder.encode(game.view(state, seat))
            mask = game.seat_mask(state, seat) if live else np.zeros(game.num_actions, dtype=np.int8)
            obs[a] = view if self.mask_in == "info" else {"observation": view, "action_mask": mask}
            infos[a] = {} if self.mask_in == "obs" else {"action_mask": np.array(mask, dtype=np.int8)}
        return obs, infos

    def reset(self, seed: int | None = None, options: dict | None = None):
        """Deal a new game; a given `seed` replaces the generator. Returns (observations, infos)."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self._state = self.game.initial_state(self._rng)
        self.agents = list(self.possible_agents)
        self._returns = tuple(map(float, self.game.returns(self._state)))
        self.num_rounds = 0
        return self._observe_all()

    def step(self, actions: dict[str, Any]):
        """Play one round: every live agent's action, applied in the order the game asks for them."""
        if not self.agents:
            raise ValueError("step() called on a finished episode; call reset()")
        missing = [a for a in self.agents if a not in actions]
        if missing:
            raise ValueError(f"step() needs an action for every live agent; missing {missing}")
        game = self.game
        state = self._state
        n = game.num_players
        refused: dict[str, int] = {}
        ids: dict[str, int] = {}
        for a in self.agents:  # check the whole round first: nothing changes on a bad action
            seat = self._seat[a]
            act = action_id(actions[a], seat, game.num_actions)
            ids[a] = act
            if not game.seat_mask(state, seat)[act]:
                if self.illegal_reward is None:
                    raise IllegalActionError(act, seat, "not legal in this round")
                refused[a] = act
        if refused:
            return self._end_on_illegal(refused)
        for _ in range(n):
            if game.is_terminal(state):
                break
            seat = game.current_player(state)
            state = game.apply(state, ids[self.possible_agents[seat]])
        self._state = state
        self.num_rounds += 1
        new_returns = tuple(map(float, game.returns(state)))
        rewards = {a: new_returns[i] - self._returns[i] for i, a in enumerate(self.possible_agents)}
        self._returns = new_returns
        done = game.is_terminal(state)
        cut = done and self._truncated is not None and bool(self._truncated(state))
        terminations = dict.fromkeys(self.agents, done and not cut)
        truncations = dict.fromkeys(self.agents, cut)
        obs, infos = self._observe_all(live=not done)
        if done:
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return obs, rewards, terminations, truncations, infos

    def _end_on_illegal(self, refused: dict[str, int]):
        """The round is refused: the game ends, each offender gets `illegal_reward` (as PettingZoo's
        `TerminateIllegalWrapper` does in an AEC game: everyone terminated and truncated)."""
        rewards = {a: (self.illegal_reward if a in refused else 0.0) for a in self.possible_agents}
        terminations = dict.fromkeys(self.agents, True)
        truncations = dict.fromkeys(self.agents, True)
        obs, infos = self._observe_all(live=False)
        for a, act in refused.items():
            infos[a]["illegal_action"] = act
        self.agents = []
        return obs, rewards, terminations, truncations, infos

    def state(self) -> np.ndarray:
        """PettingZoo's global state: every seat's encoded view, seat after seat, in one float array
        (`state_space`); for centralised critics, never for a seat's own decisions."""
        if self._state is None:
            raise RuntimeError(f"{type(self).__name__}: call reset() before state()")
        return global_state(self.game, self.encoder, self._state)

    def view(self, agent: str) -> Any:
        """`agent`'s information set (the typed view agents act on)."""
        return self.game.view(self._state, self._seat[agent])

    @property
    def game_state(self) -> Any:
        """The full engine state (the whole truth: for tools, not for agents)."""
        return self._state

    def render(self) -> Any:
        """Text picture of the state (`ansi` returns it, `human` prints it)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi'.")
            return None
        return render_text(self.game, self._state, self.render_mode)

    def close(self) -> None:
        """Nothing to release."""
