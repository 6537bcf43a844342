"""The Game as a PettingZoo AEC environment.

- agents: `player_0 ... player_{n-1}` (cooperative: one team against the deck)
- actions: `Discrete(405)`: `(card − 2)·4 + pile` plays card 2..99 on pile 0..3 (0, 1 ascending; 2, 3 descending);
  392 = end turn; 393 + 3·pile + value sets a pile flag. With `actions="slot"`: `Discrete(4·hand_size + 13)`
- observation: `Box(0, 1)` of `envs.the_game.encoding`; action_mask: `Box(0, 1, (A,), int8)`
- reward: every seat alike: `card_reward` per card placed, + `win_bonus` when all 98 are placed
- info: `cards_left` (the official score, lower is better), `cards_placed`, `won`

Options: `envs.the_game.rules.Config`. Illegal actions raise `IllegalActionError` on `raw_env`; `env()` ends the
game with reward −1 for the offender.
"""

from __future__ import annotations

from envs.core.aec import GameAECEnv
from envs.the_game.encoding import TheGameEncoder
from envs.the_game.rules import Config, TheGame


class raw_env(GameAECEnv):  # noqa: N801 (PettingZoo's naming)
    """Strict The Game AEC env (options: see `Config`, plus render_mode, max_turns).

    `infos` report `TheGame.public_info`: cards left, cards placed, won (the same for every seat).
    """

    metadata = {"name": "the_game_v0", "render_modes": ["ansi", "human"], "is_parallelizable": False}
    config_class = Config
    game_class = TheGame
    encoder_class = TheGameEncoder
