"""The Game as the engine layer knows it (`envs.core.spec.GameSpec`): options, engine, encoder, its kind of game and
its deal as chance draws for exports (`TheGameChance`)."""

from __future__ import annotations

from typing import Any

from envs.core.chance import DeckChance
from envs.core.spec import GameSpec
from envs.the_game.encoding import TheGameEncoder
from envs.the_game.rules import HIGHEST, LOWEST, Config, TheGame


class TheGameChance(DeckChance):
    """The Game's shuffle of the cards 2..99 (`TheGame.deal_from`). Cooperative: every seat's return is the
    team's (0 .. 98 + win_bonus); a move places one card or ends a turn (at most 2 · 98 + 1 moves)."""

    utility = "identical"
    players = (1, 10)  # the range OpenSpiel is told; our Config checks the rules' own
    players_option = "num_players"

    def __init__(self, game: Any):
        super().__init__(game, list(range(LOWEST, HIGHEST + 1)))
        self.max_moves = 2 * len(self.cards) + 1
        self.utility_bounds = (0.0, len(self.cards) + game.win_bonus)


SPEC = GameSpec(
    id="the_game",
    title="The Game",
    config_class=Config,
    game_class=TheGame,
    encoder_class=TheGameEncoder,
    env_module="envs.the_game_v0",
    cooperative=True,
    vector=True,
    preset_keys=("rules",),
    reward_options=("win_bonus", "card_reward"),
    fuzz_variants=({"hand_size": 2}, {"min_cards_per_turn": 1}, {"win_bonus": 0.0, "starter": 1},
                   {"num_players": 3, "empty_hand": "ends_game"}),
    chance_model=TheGameChance,
)
