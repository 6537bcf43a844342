"""L.A.M.A. as a PettingZoo AEC environment.

- agents: `player_0` … `player_{n-1}` (player_0 starts the first round)
- actions: `Discrete(9)`: 0 = play a llama, 1–6 = play that number, 7 = draw, 8 = quit (fold) the round
- observation: `Box(float32)` of `envs.lama.encoding.LamaEncoder`; action_mask: `Box(0, 1, (9,), int8)`
- reward: `reward="win"`: +1 for each seat tied at the fewest points at the game's end; `reward="dense"`: −points at
  each round end (+ a returned chip)

Options: `envs.lama.rules.Config`. Illegal actions raise `IllegalActionError` on `raw_env`; `env()` ends the game
with reward −1 for the offender (PettingZoo's `TerminateIllegalWrapper`).
"""

from __future__ import annotations

from envs.core.aec import GameAECEnv
from envs.lama.encoding import LamaEncoder
from envs.lama.rules import Config, LamaGame


class raw_env(GameAECEnv):  # noqa: N801 (PettingZoo's naming)
    """Strict L.A.M.A. AEC env (game options of `Config`, plus render_mode, max_turns)."""

    metadata = {"name": "lama_v0", "render_modes": ["ansi", "human"], "is_parallelizable": False}
    config_class = Config
    game_class = LamaGame
    encoder_class = LamaEncoder
