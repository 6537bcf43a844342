"""RoboRally as PettingZoo environments: AEC (`raw_env`, `env()`) and Parallel (`parallel_env()`).

- agents: `player_0` .. `player_{N-1}` (robot i starts on start square i + 1); all stay until the game ends,
  eliminated robots included (they only play NOOP).
- actions: register mode `Discrete(11)` = hand slots 0..8 (cards ascending), NOOP 9, POWER_DOWN 10
  (`Discrete(10)` without power down); program mode `Discrete(30242)` (see `envs.roborally.rules`).
- observation: `Box` (see `envs.roborally.encoding`); action_mask: `Box(0, 1, (num_actions,), int8)`.
- reward: change of the returns: +1 to the winner, plus potential-based shaping with `reward="progress"`.
- end: termination when a robot claims the last flag or every robot is eliminated; truncation after `max_turns`.

AEC: a turn's rounds of sub-steps are hidden commits (nothing moves before the last seat of the last round), so the
AEC env converts to Parallel; a Parallel `step` is one round. Options: `envs.roborally.rules.Config`, `render_mode`
("ansi", "human", "rgb_array") and `mask_in`. `env()` and `parallel_env()` end the game with reward −1 for an
illegal action's offender; `raw_env` and `raw_parallel_env` raise `IllegalActionError`.
"""

from __future__ import annotations

from typing import Any

from envs.core.aec import GameAECEnv, check_max_turns
from envs.core.parallel import GameParallelEnv
from envs.roborally.encoding import RoboRallyEncoder
from envs.roborally.rules import Config, RoboRallyGame

METADATA = {"name": "roborally_v0", "render_modes": ["ansi", "human", "rgb_array"], "is_parallelizable": True}


def game_turn_limit(options: dict[str, Any]) -> dict[str, Any]:
    """The options with PettingZoo's `max_cycles` mapped onto the game's `max_turns` (game turns)."""
    if "max_cycles" not in options:
        return options
    rest = {k: v for k, v in options.items() if k != "max_cycles"}
    limit = check_max_turns(options.get("max_turns"), options["max_cycles"])
    if limit is not None:
        rest["max_turns"] = limit
    return rest


class _RoboRallyEnv:
    """What the AEC and the Parallel env share: the game's classes and the `rgb_array` picture."""

    metadata = METADATA
    config_class = Config
    game_class = RoboRallyGame
    encoder_class = RoboRallyEncoder

    def render(self) -> Any:
        """`ansi`/`human`: text; `rgb_array`: the board with robots and the last register's shots."""
        if self.render_mode != "rgb_array":
            return super().render()
        from envs.roborally import render

        state = self._state
        shots = state.frames[-1].shots if state.frames else ()
        return render.rgb_array(self.game.board, state.robots, shots)


class raw_env(_RoboRallyEnv, GameAECEnv):  # noqa: N801 (PettingZoo's naming)
    """Strict RoboRally AEC env (game options including `max_turns` in game turns, plus render_mode)."""

    def __init__(self, render_mode: str | None = None, mask_in: str = "both", **options: Any):
        # `max_turns` (or PettingZoo's `max_cycles`) is a game option here (game turns), not the AEC base's
        # count of steps.
        game_options = game_turn_limit(options)
        super().__init__(render_mode=render_mode, max_turns=None, mask_in=mask_in,
                         **{k: v for k, v in game_options.items() if k != "max_turns"})
        if "max_turns" in game_options:
            self.game = self.make_game(**game_options)
            self.encoder = self.make_encoder(self.game)
            self._bind()
        # pickles rebuild the same game
        self._ezpickle_kwargs = {"render_mode": render_mode, "mask_in": mask_in, **options}

    def step(self, action: Any) -> None:
        """Play `action` for `agent_selection`; a game stopped at `max_turns` shows as truncation."""
        super().step(action)
        state = self._state
        if self.game.is_terminal(state) and self.game.truncated(state) and any(self.terminations.values()):
            self.truncations = dict.fromkeys(self.agents, True)
            self.terminations = dict.fromkeys(self.agents, False)


class RoboRallyParallelEnv(_RoboRallyEnv, GameParallelEnv):
    """RoboRally Parallel env: one step = one programming round of every robot."""

    def __init__(self, render_mode: str | None = None, mask_in: str = "both", illegal_reward: float | None = None,
                 **options: Any):
        super().__init__(render_mode=render_mode, mask_in=mask_in, illegal_reward=illegal_reward,
                         **game_turn_limit(options))

