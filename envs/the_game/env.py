"""The Game as a PettingZoo AEC environment.

- agents: `player_0 ... player_{n-1}` (cooperative: one team against the deck)
- actions: `Discrete(405)`: `(card − 2)·4 + pile` plays card 2..99 on pile 0..3 (0, 1 ascending; 2, 3 descending);
  392 = end turn; 393 + 3·pile + value sets a pile flag (communication="pile_flags"). With `actions="slot"`:
  `Discrete(4·hand_size + 13)`, `4·slot + pile` plays the slot-th lowest hand card, then end turn and the flags
- observation: `Box(0, 1)`: hand, placed cards, tops, per-pile gaps, draw pile, hand sizes, turn, flags (see
  `envs.the_game.encoding`)
- action_mask: `Box(0, 1, (405,), int8)`; zeros when not to act
- reward: every seat alike: `card_reward` (default 1) per card placed, + `win_bonus` (default 10) when all 98 are placed
- info: `cards_left` (the official score, lower is better), `cards_placed`, `won`

Options (`envs.the_game.rules.Config`): `num_players`, `rules` ("official" |
"berger2024"), `communication` ("none" | "pile_flags"), `min_cards_per_turn`,
`hand_size`, `win_bonus`, `card_reward`, `starter`, `empty_hand` ("skip" | "ends_game"), `actions` ("card" |
"slot"). Illegal actions raise `IllegalActionError` on `raw_env`; `env()` ends the game with reward −1 for the
offender.
Under `rules="berger2024"` every (hand card, pile) pair is in the mask, as in the
seed: a card that does not fit its pile ends the game.

Version history: v0 — first release.
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
