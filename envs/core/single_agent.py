"""A Gymnasium single-agent view of a multi-agent game, for training.

`OpponentEnv` seats one learner among opponent agents (a fresh random seat each
episode), plays the opponents' turns internally, returns only the learner's
observations, and pays the learner the change of its return since its previous
decision — including what the opponents' moves and the game's end brought.
`action_masks()` lets sb3-contrib's MaskablePPO mask illegal actions, also under
`SubprocVecEnv` (it is called through `env_method`).

For cooperative games (The Game) `control="all_seats"` lets the single policy act
for whichever seat is to move: every seat shares the team reward, so crediting
it to the one policy is exact.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import gymnasium
import numpy as np

from envs.core.game import Game, legal_mask

OpponentSource = Sequence[Any] | Callable[[np.random.Generator], Sequence[Any]]


class OpponentEnv(gymnasium.Env):
    """One learner seat against opponent agents, as a `gymnasium.Env`.

    Args:
        game: the rules engine.
        encoder: the game's observation encoder.
        opponents: `num_players - 1` agents (objects with `act(view, mask)`), or a
            callable `rng -> agents` drawn anew each episode (self-play pools).
            Ignored with `control="all_seats"`.
        control: `"one_seat"` (default) or `"all_seats"` (cooperative games only).
        seat: fix the learner's seat instead of drawing it each episode.
        max_turns: truncate an episode after this many engine steps.
        seed: seed of the env's own generator (deals, seats, opponents' choices
            come from streams spawned from it).
    """

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        game: Game,
        encoder: Any,
        opponents: OpponentSource = (),
        *,
        control: str = "one_seat",
        seat: int | None = None,
        max_turns: int | None = None,
        seed: int | None = None,
        render_mode: str | None = None,
    ):
        if control not in ("one_seat", "all_seats"):
            raise ValueError(f"control must be 'one_seat' or 'all_seats', got {control!r}")
        n = game.num_players
        if seat is not None and not 0 <= seat < n:
            raise ValueError(f"seat must be in 0..{n - 1}, got {seat}")
        if control == "one_seat" and not callable(opponents) and len(opponents) != n - 1:
            raise ValueError(f"{n}-player game needs {n - 1} opponents, got {len(opponents)}")
        self.game = game
        self.encoder = encoder
        self.opponents = opponents
        self.control = control
        self.fixed_seat = seat
        self.max_turns = max_turns
        self.render_mode = render_mode
        self.observation_space = encoder.observation_space
        self.action_space = gymnasium.spaces.Discrete(game.num_actions)
        self._rng = np.random.default_rng(seed)
        self._state: Any = None
        self._mask: np.ndarray | None = None

    # --- helpers ----------------------------------------------------------------
    def _is_learner(self, seat: int) -> bool:
        return self.control == "all_seats" or seat == self.learner_seat

    def _advance(self) -> float:
        """Play opponents until the learner is to act or the game ends; return learner reward."""
        game = self.game
        total = 0.0
        while not game.is_terminal(self._state):
            if self.max_turns is not None and self.turns >= self.max_turns:
                break
            seat = game.current_player(self._state)
            if self._is_learner(seat):
                break
            agent = self._seated[seat]
            view = game.view(self._state, seat)
            action = int(agent.act(view, legal_mask(game, self._state)))
            before = game.returns(self._state)[self.learner_seat]
            self._state = game.apply(self._state, action)
            self.turns += 1
            total += game.returns(self._state)[self.learner_seat] - before
        return total

    def _obs(self) -> np.ndarray:
        seat = self.learner_seat if self.control == "one_seat" else self._acting_seat()
        return self.encoder.encode(self.game.view(self._state, seat))

    def _acting_seat(self) -> int:
        if self.game.is_terminal(self._state):
            return self.learner_seat
        return self.game.current_player(self._state)

    # --- gymnasium API -----------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Deal a new game, draw the learner's seat and the opponents, play up to the learner."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        super().reset(seed=seed)
        game = self.game
        n = game.num_players
        self.learner_seat = int(self._rng.integers(n)) if self.fixed_seat is None else self.fixed_seat
        self._seated: list[Any] = [None] * n
        if self.control == "one_seat":
            opps = self.opponents(self._rng) if callable(self.opponents) else self.opponents
            opps = list(opps)
            if len(opps) != n - 1:
                raise ValueError(f"{n}-player game needs {n - 1} opponents, got {len(opps)}")
            others = [s for s in range(n) if s != self.learner_seat]
            for s, agent in zip(others, opps):
                self._seated[s] = agent
        # A deal in which the learner never gets to decide (poker: player 1 passes
        # while the learner sits second) teaches nothing: deal again.
        for _ in range(10_000):
            self._state = game.initial_state(self._rng)
            self.turns = 0
            self._mask = None
            self._advance()
            if not game.is_terminal(self._state):
                break
        else:
            raise RuntimeError("10,000 deals in a row ended before the learner's first decision")
        return self._obs(), self._info()

    def step(self, action: Any):
        """Play the learner's `action`, then the opponents up to its next decision."""
        game = self.game
        before = game.returns(self._state)[self.learner_seat]
        self._state = game.apply(self._state, int(action))
        self.turns += 1
        reward = game.returns(self._state)[self.learner_seat] - before
        reward += self._advance()
        self._mask = None
        terminated = game.is_terminal(self._state)
        truncated = (not terminated) and self.max_turns is not None and self.turns >= self.max_turns
        return self._obs(), float(reward), terminated, truncated, self._info()

    def _info(self) -> dict[str, Any]:
        return {"seat": self.learner_seat}

    def action_masks(self) -> np.ndarray:
        """Boolean mask of the learner's legal actions (MaskablePPO calls this)."""
        if self._mask is None:
            if self.game.is_terminal(self._state):
                self._mask = np.ones(self.game.num_actions, dtype=bool)
            else:
                self._mask = legal_mask(self.game, self._state).astype(bool)
        return self._mask

    def view(self) -> Any:
        """The learner's (or, under `all_seats`, the acting seat's) information set."""
        seat = self.learner_seat if self.control == "one_seat" else self._acting_seat()
        return self.game.view(self._state, seat)

    @property
    def state(self) -> Any:
        """The full engine state (for tools and tests)."""
        return self._state

    def render(self) -> str:
        """Text picture of the state."""
        return self.game.render(self._state)
