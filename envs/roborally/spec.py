"""RoboRally as the engine layer knows it (`envs.core.spec.GameSpec`): options, engine, encoder, its kind of game
and its deal as chance draws for exports (`RoboRallyChance`)."""

from __future__ import annotations

from typing import Any

from envs.core.chance import ChanceModel, Phase
from envs.core.spec import GameSpec
from envs.roborally.encoding import RoboRallyEncoder
from envs.roborally.rules import Config, RoboRallyGame

BOARDS = ("tiny", "arena", "belts", "crushers", "express", "gears_pushers", "lasers", "pits_edges", "race_medium",
          "race_hard", "repair")


class RoboRallyChance(ChanceModel):
    """RoboRally as a simultaneous-move game: each programming round (one card into one register, or a whole
    program with `action_mode="program"`) is one simultaneous node, whose legal actions per seat are
    `RoboRallyGame.seat_mask` (no seat's choices depend on the others' in a round), applied in seat order by the
    engine. Each turn's deal is a phase over every dealt card (the hands' and the deck's, 84 outcomes a draw):
    the engine's deal of the turn laid out again in the drawn order (the hands in seat order, with the sizes the
    engine dealt, then the deck) — the engine decides which cards and how many, the draws only their order, and
    any fixed layout of a uniform order is a uniform deal. Views hold what a robot knows now: observations only."""

    simultaneous = True
    utility = "general_sum"  # +1 to the winner (none at max_turns); "progress" adds potential shaping
    players = (2, 8)
    players_option = "num_robots"

    def __init__(self, game: Any):
        from envs.roborally.rules import NUM_CARDS

        super().__init__(game)
        self._cards = range(1, NUM_CARDS + 1)
        self.max_outcomes = NUM_CARDS
        turns = game.config.max_turns
        self.max_moves = 100_000 if turns is None else turns * game.rounds  # simultaneous nodes
        self.utility_bounds = (0.0, 1.0) if game.config.reward == "win" else (-1.0, 1.0)

    def _redeal(self, dealt: Any, returns_of: Any) -> Phase:
        cards = [c for h in dealt.hands for c in h] + list(dealt.deck)
        return Phase(cards, self._cards, self._lay_out, "Deal", returns_of=returns_of, args=(dealt,))

    def _lay_out(self, order: list[int], dealt: Any) -> Any:
        """`dealt` with its cards in `order`: the hands in seat order (the sizes dealt), then the deck."""
        hands, pos = [], 0
        for h in dealt.hands:
            hands.append(tuple(sorted(order[pos:pos + len(h)])))
            pos += len(h)
        return dealt._replace(hands=tuple(hands), deck=tuple(order[pos:]))

    def start(self) -> Phase:
        """The first turn's deal."""
        return self._redeal(self._game.deal(0), None)

    def move(self, state: Any, actions: list[int]) -> Any:
        """One programming round: every seat's action, in seat order; chance deals the next turn."""
        g = self._game
        after = state
        for a in actions:
            after = g.apply(after, a)
        if after.turn != state.turn and not g.is_terminal(after):
            return self._redeal(after, after)
        return after


SPEC = GameSpec(
    id="roborally",
    title="RoboRally",
    config_class=Config,
    game_class=RoboRallyGame,
    encoder_class=RoboRallyEncoder,
    env_module="envs.roborally_v0",
    simultaneous=True,
    public_moves=False,
    vector=True,
    preset_keys=("rules",),
    reward_options=("reward",),
    fuzz_variants=tuple([{"num_robots": k} for k in (1, 3, 4, 8)] + [{"lives": 1}, {"double_repair_heals": 2},
                                                                     {"card_classes": False}]
                        + [{"board": b} for b in BOARDS]),
    fuzz_forms=("aec", "parallel"),
    chance_model=RoboRallyChance,
)
