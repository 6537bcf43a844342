"""Primi Composti as a PettingZoo AEC environment.

- agents: `player_0` .. `player_{N-1}`; `player_0` holds card 2 and starts (seed's deal)
- actions: `Discrete(M)`: action c−2 plays card c (M = N·cards_per_player); with `steal_choice="player"`
  `Discrete(M·K)`: (c−2)·K + k, k = 0 no operation, k ≥ 1 operand pair k−1
- observation: `Box(0, 1)` of `envs.primi_composti.encoding`; action_mask: `Box(0, 1, (A,), int8)`
- reward: change of the zero-sum score (own − mean of others), plus the zero-sum result at the end (`reward`)

Options: `envs.primi_composti.rules.Config`. Illegal actions raise `IllegalActionError` on `raw_env`; `env()` ends
the game with reward −1 for the offender (PettingZoo's `TerminateIllegalWrapper`).
"""

from __future__ import annotations

from envs.core.aec import GameAECEnv
from envs.primi_composti.encoding import PrimiCompostiEncoder
from envs.primi_composti.rules import Config, PrimiCompostiGame


class raw_env(GameAECEnv):  # noqa: N801 (PettingZoo's naming)
    """Strict Primi Composti AEC env (game options plus render_mode, max_turns)."""

    metadata = {"name": "primi_composti_v0", "render_modes": ["ansi", "human"], "is_parallelizable": False}
    config_class = Config
    game_class = PrimiCompostiGame
    encoder_class = PrimiCompostiEncoder
