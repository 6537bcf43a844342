"""A Gymnasium single-agent view of a multi-agent game, for training.

`OpponentEnv` seats one learner among opponent agents, plays the opponents' turns internally and pays the learner
the change of its return since its previous decision. Its illegal actions, seeding and rewards are described in
docs/integrations.md ("Gymnasium and Stable-Baselines3: `OpponentEnv`").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import gymnasium
import numpy as np

from envs.core.actions import action_id
from envs.core.game import Game, IllegalActionError, default_max_turns, legal_mask
from envs.core.play import play_out, reseed_agent, reset_agent

OpponentSource = Sequence[Any] | Callable[[np.random.Generator], Sequence[Any]]


class OpponentEnv(gymnasium.Env):
    """One learner seat against opponent agents, as a `gymnasium.Env`.

    Args:
        game: the rules engine.
        encoder: the game's observation encoder.
        opponents: `num_players - 1` agents (objects with `act(view, mask)`; `reset()` called each episode), or a
            callable `rng -> agents` drawn anew each episode (self-play pools). Ignored with `control="all_seats"`.
        control: `"one_seat"` (default) or `"all_seats"` (cooperative games only: the policy acts for whoever is to
            move, every seat sharing the team reward).
        seat: fix the learner's seat instead of drawing it each episode.
        max_turns: truncate an episode after this many engine steps (default: the game's `max_game_length`, if any).
        seed: seed of the env's own generator (deals, seats, opponents' choices).
        strict: raise `IllegalActionError` on an action the rules refuse instead of ending the episode.
        illegal_reward: the learner's reward for a refused action (non-strict).

    An episode's rewards sum to the learner's final return minus its return at the deal (the first step carries what
    the opponents' moves before its first decision brought).
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
        strict: bool = False,
        illegal_reward: float = -1.0,
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
        self.max_turns = default_max_turns(game, max_turns)
        self.render_mode = render_mode
        self.observation_space = encoder.observation_space
        self.action_space = gymnasium.spaces.Discrete(game.num_actions)
        self.strict = strict
        self.illegal_reward = float(illegal_reward)
        self._rng = np.random.default_rng(seed)
        self._reseed_opponents = seed is not None
        self._state: Any = None
        self._mask: np.ndarray | None = None
        self._carry = 0.0
        self._over = True

    # --- helpers ----------------------------------------------------------------
    def _is_learner(self, seat: int) -> bool:
        return self.control == "all_seats" or seat == self.learner_seat

    def _advance(self) -> float:
        """Play opponents until the learner is to act, the game ends or `max_turns`
        is reached; return the change of the learner's return."""
        game = self.game
        before = game.returns(self._state)[self.learner_seat]
        budget = None if self.max_turns is None else self.max_turns - self.turns
        self._state, moves = play_out(game, self._seated, self._state, budget, until=self._is_learner)
        self.turns += moves
        return game.returns(self._state)[self.learner_seat] - before

    def _obs(self) -> np.ndarray:
        return self.encoder.encode(self.view())

    def _acting_seat(self) -> int:
        """The learner's seat, or under `all_seats` the seat to move (the learner's once the game is over)."""
        if self.control == "one_seat" or self.game.is_terminal(self._state):
            return self.learner_seat
        return self.game.current_player(self._state)

    # --- gymnasium API -----------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Deal a new game, draw the learner's seat and the opponents, play up to the learner.

        `options={"deal_seed": s, "seat": k}` plays deal `Game.deal(s)` with the learner at seat k instead (both
        keys, or `deal_seed` alone with the seat drawn as usual): the episode a vector env's table reports by its
        `info["deal_seed"]` and `info["seat"]` (or a `Recording`) replays here, move for move where the opponents
        are deterministic.
        """
        replay = dict(options or {})
        unknown = sorted(set(replay) - {"deal_seed", "seat"})
        if unknown:
            raise ValueError(f"reset options {unknown} are not supported; allowed: 'deal_seed', 'seat'")
        if "seat" in replay and "deal_seed" not in replay:
            raise ValueError("reset option 'seat' needs 'deal_seed' (the deal to replay)")
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            self._reseed_opponents = True
        super().reset(seed=seed)
        game = self.game
        n = game.num_players
        self.learner_seat = int(self._rng.integers(n)) if self.fixed_seat is None else self.fixed_seat
        if "seat" in replay:
            k = replay["seat"]
            if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 0 <= k < n:
                raise ValueError(f"reset option 'seat' must be an integer in 0..{n - 1}, got {k!r}")
            self.learner_seat = int(k)
        self._seated: list[Any] = [None] * n
        if self.control == "one_seat":
            if callable(self.opponents):
                opps = list(self.opponents(self._rng))
            else:
                opps = list(self.opponents)
                if self._reseed_opponents:
                    # Spawned children: the env's own stream (deals, seats) is not advanced.
                    for agent, child in zip(opps, self._rng.spawn(len(opps))):
                        reseed_agent(agent, child)
            if len(opps) != n - 1:
                raise ValueError(f"{n}-player game needs {n - 1} opponents, got {len(opps)}")
            others = [s for s in range(n) if s != self.learner_seat]
            for s, agent in zip(others, opps):
                self._seated[s] = agent
                reset_agent(agent)
        self._reseed_opponents = False
        # A deal in which the learner never gets to decide (poker: player 1 passes
        # while the learner sits second) teaches nothing: deal again.
        for _ in range(10_000):
            self._state = game.initial_state(self._rng) if "deal_seed" not in replay else game.deal(
                _deal_seed(replay["deal_seed"]))
            self.turns = 0
            self._mask = None
            # Paid with the learner's first step (Gymnasium's reset returns no reward).
            self._carry = self._advance()
            if not game.is_terminal(self._state):
                break
            if "deal_seed" in replay:
                raise ValueError(f"deal {replay['deal_seed']} ends before seat {self.learner_seat}'s first decision")
        else:
            raise RuntimeError("10,000 deals in a row ended before the learner's first decision")
        self._over = False
        return self._obs(), self._info()

    def step(self, action: Any):
        """Play the learner's `action`, then the opponents up to its next decision (a refused action ends the
        episode with `illegal_reward`, or raises under `strict`)."""
        if self._over:
            raise RuntimeError("OpponentEnv: the episode is over (or was never started); call reset()")
        game = self.game
        a = action_id(action, self._acting_seat(), game.num_actions)
        before = game.returns(self._state)[self.learner_seat]
        try:
            self._state = game.apply(self._state, a)
        except IllegalActionError:
            if self.strict:
                raise
            # The state is unchanged (apply raises first); the episode ends here.
            self._over = True
            return self._obs(), self.illegal_reward, True, False, {**self._info(), "illegal_action": a}
        self.turns += 1
        reward = game.returns(self._state)[self.learner_seat] - before + self._carry
        self._carry = 0.0
        reward += self._advance()
        self._mask = None
        terminated = game.is_terminal(self._state)
        truncated = (not terminated) and self.max_turns is not None and self.turns >= self.max_turns
        self._over = terminated or truncated
        return self._obs(), float(reward), terminated, truncated, self._info()

    def _info(self) -> dict[str, Any]:
        # int8, as `Discrete.sample(mask=...)` requires (action_masks() is bool, as MaskablePPO wants).
        return {"seat": self.learner_seat, "action_mask": self.action_masks().astype(np.int8)}

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
        return self.game.view(self._state, self._acting_seat())

    @property
    def game_state(self) -> Any:
        """The full engine state (for tools and tests)."""
        return self._state

    def render(self) -> str:
        """Text picture of the state."""
        return self.game.render(self._state)


def _deal_seed(seed: Any) -> int:
    """A deal seed from a reset option (an integer >= 0, as `info["deal_seed"]` reports them)."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"reset option 'deal_seed' must be an integer >= 0, got {seed!r}")
    return int(seed)
