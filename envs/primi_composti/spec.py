"""Primi Composti as the engine layer knows it (`envs.core.spec.GameSpec`): options, engine, encoder, its kind of
game and its deal as chance draws for exports (`PrimiCompostiChance`)."""

from __future__ import annotations

from typing import Any

from envs.core.chance import DeckChance
from envs.core.spec import GameSpec
from envs.primi_composti.encoding import PrimiCompostiEncoder
from envs.primi_composti.rules import Config, PrimiCompostiGame


class PrimiCompostiChance(DeckChance):
    """Primi Composti's shuffle (`PrimiCompostiGame.deal_from`). Zero-sum: a seat's return is its x minus the
    others' mean, with x = score (at most the cards' total value) plus 1 for a win; one card a move."""

    utility = "zero_sum"
    players = (1, 10)  # the range OpenSpiel is told; our Config checks the rules' own
    players_option = "num_players"

    def __init__(self, game: Any):
        super().__init__(game, list(game.cards))
        self.max_moves = game.num_cards
        bound = float(game.total_value + 1)
        self.utility_bounds = (-bound, bound)


SPEC = GameSpec(
    id="primi_composti",
    title="Primi Composti",
    config_class=Config,
    game_class=PrimiCompostiGame,
    encoder_class=PrimiCompostiEncoder,
    env_module="envs.primi_composti_v0",
    zero_sum=True,
    vector=True,
    preset_keys=("version",),
    reward_options=("reward",),
    fuzz_variants=({"cards_per_player": 3}, {"cards_per_player": 6, "num_players": 3}),
    kernel_variants=({}, {"version": 2, "steal_choice": "player"}),  # the official options' kernels are their own
    chance_model=PrimiCompostiChance,
)
