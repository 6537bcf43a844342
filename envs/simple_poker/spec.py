"""Simple poker as the engine layer knows it (`envs.core.spec.GameSpec`): options, engine, encoder, its kind of game and
its deal as chance draws for exports (`SimplePokerChance`)."""

from __future__ import annotations

from typing import Any

from envs.core.chance import ChanceModel
from envs.core.spec import GameSpec
from envs.simple_poker.encoding import SimplePokerEncoder
from envs.simple_poker.rules import Config, SimplePokerGame, State


class SimplePokerChance(ChanceModel):
    """Simple poker's deal as chance draws: seat 0's card, then seat 1's, each uniform over 1..n
    (cards are dealt independently, equal cards possible)."""

    perfect_recall = True  # a view holds the seat's card and every action so far
    utility = "zero_sum"
    terminal_rewards = True  # the returns are 0 until the hand ends

    def __init__(self, game: Any):
        super().__init__(game)
        self.n = game.n
        self.max_outcomes = game.n
        self.max_moves = 2
        self.utility_bounds = (-(game.ante + game.bet), game.ante + game.bet)

    def outcomes(self, drawn: list[int]) -> list[tuple[int, float]] | None:
        """The next draw's outcomes and probabilities, or None once the deal is complete."""
        if len(drawn) == 2:
            return None
        return [(c, 1.0 / self.n) for c in range(self.n)]

    def deal(self, drawn: list[int]) -> State:
        """The engine's start from the draws (outcome c is card c + 1)."""
        return State((drawn[0] + 1, drawn[1] + 1))

    def outcome_string(self, index: int, outcome: int) -> str:
        """`Deal:P<seat>=<card>`."""
        return f"Deal:P{index}={outcome + 1}"


SPEC = GameSpec(
    id="simple_poker",
    title="Simple poker",
    config_class=Config,
    game_class=SimplePokerGame,
    encoder_class=SimplePokerEncoder,
    env_module="envs.simple_poker_v0",
    zero_sum=True,
    vector=True,
    fuzz_variants=({"n": 2}, {"n": 10, "ante": 1.0, "bet": 1.0}, {"n": 13, "ante": 2.0, "bet": 5.0}),
    chance_model=SimplePokerChance,
)
