"""Simple poker declared for the shared tools (`envs.core.spec.GameSpec`)."""

from __future__ import annotations

from typing import Any

from envs.core.spec import GameSpec
from envs.simple_poker.encoding import SimplePokerEncoder
from envs.simple_poker.rules import Config, SimplePokerGame


def describe_view(game: Any, view: Any) -> str:
    """What the seat of `view` may know, as text for a person (only the view's contents)."""
    words = [("pass", "bet"), ("pass", "call")]
    hist = ", ".join(f"player_{i} {words[i][a]}" for i, a in enumerate(view.history)) or "nothing yet"
    return f"your card: {view.card} (cards 1..{game.n}); so far: {hist}"


SPEC = GameSpec(
    id="simple_poker",
    title="Simple poker",
    config_class=Config,
    game_class=SimplePokerGame,
    encoder_class=SimplePokerEncoder,
    env_module="envs.simple_poker_v0",
    zero_sum=True,
    default_lineup=("simple_poker/nash", "simple_poker/threshold?t=2"),
    fuzz_variants=({"n": 2}, {"n": 10, "ante": 1.0, "bet": 1.0}, {"n": 13, "ante": 2.0, "bet": 5.0}),
    goal=("win chips: each player antes and gets one card; the higher card takes the pot at a showdown, and a "
          "player who folds to a bet loses the ante. Your return is your net chips."),
    move_help=(
        "pass: check (first player) or fold (second player); bet: put the bet in (first player) "
        "or call it (second player). The higher card wins a showdown."
    ),
    describe_view=describe_view,
    examples=(
        "simple_poker --option n=10 --agents simple_poker/nash,simple_poker/threshold?t=2 --games 4000",
        "simple_poker --option n=10 --exact --agents simple_poker/nash,simple_poker/threshold?t=2,random",
    ),
    league_deals=20000,
    league_members=("simple_poker/threshold?t=1", "simple_poker/threshold?t=2", "simple_poker/threshold?t=3"),
    agents_module="agents.simple_poker",
    evaluate_module="evaluate.simple_poker.exact",
    train_presets="train.presets.simple_poker",
    exact_values="agents.simple_poker.strategies:exact_head_to_head",
    exploitability="agents.simple_poker.strategies:exploitability_of_agents",
    vector_kernels="agents.simple_poker.strategies",
)
