"""Simple poker as a PettingZoo AEC environment.

- agents: `player_0` (bets first), `player_1`
- actions: `Discrete(2)`: 0 = pass, 1 = bet (player 0) / call (player 1)
- observation: `Box(0, 1, (n + 4,), float32)`: `card` one-hot (n), `card_value` = card/n, `seat` one-hot (2), `bet_seen`
- action_mask: `Box(0, 1, (2,), int8)`; zeros when not to act
- reward: player 0's net result at the end (−A, +A, ±(A+B) or 0); player 1 the negative

Options: `n` (>= 2), `ante` (> 0), `bet` (>= 0); see `envs.simple_poker.rules`.
Illegal actions raise `IllegalActionError` on `raw_env`; `env()` ends the game
with reward −1 for the offender (PettingZoo's `TerminateIllegalWrapper`).
"""

from __future__ import annotations

from envs.core.aec import GameAECEnv
from envs.simple_poker.encoding import SimplePokerEncoder
from envs.simple_poker.rules import Config, SimplePokerGame


class raw_env(GameAECEnv):  # noqa: N801 (PettingZoo's naming)
    """Strict simple-poker AEC env (options: n, ante, bet, render_mode, max_turns)."""

    metadata = {"name": "simple_poker_v0", "render_modes": ["ansi", "human"], "is_parallelizable": False}
    config_class = Config
    game_class = SimplePokerGame
    encoder_class = SimplePokerEncoder
