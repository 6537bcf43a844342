"""L.A.M.A. declared for the shared tools (`envs.core.spec.GameSpec`)."""

from __future__ import annotations

from typing import Any

from envs.core.spec import GameSpec
from envs.lama.encoding import LamaEncoder
from envs.lama.rules import Config, LamaGame


def _cards(counts: tuple[int, ...]) -> str:
    names = [("llama" if v == 0 else str(v)) for v in (*range(1, len(counts)), 0) for _ in range(counts[v])]
    return " ".join(names) or "-"


def describe_view(game: Any, view: Any) -> str:
    """What the seat of `view` may know, as text for a person (only the view's contents)."""
    me = view.seat
    top = "llama" if view.top == 0 else str(view.top)
    lines = [f"round {view.round + 1}: top of the discard pile {top}, draw pile {view.draw_size} cards"]
    for s in range(len(view.hand_sizes)):
        who = "you" if s == me else f"player_{s}"
        state = "in the round" if view.active[s] else "out of the round"
        lines.append(f"  {who:>8}: {view.hand_sizes[s]} cards, {state}, total {view.totals[s]}")
    lines.append(f"  your hand: {_cards(view.hand)}")
    return "\n".join(lines)


SPEC = GameSpec(
    id="lama",
    title="L.A.M.A.",
    config_class=Config,
    game_class=LamaGame,
    encoder_class=LamaEncoder,
    env_module="envs.lama_v0",
    default_lineup=("lama/first", "lama/third"),
    preset_keys=("rules",),
    reward_options=("reward",),
    fuzz_variants=({"target_points": 10},),
    move_help=(
        "play V / play llama: lay that card on the discard pile (same value as the top card or the next one; "
        "a llama follows a 6, a 1 follows a llama); draw: take a card from the draw pile; quit: leave the "
        "round and score the cards you hold."
    ),
    describe_view=describe_view,
    examples=(
        "lama --agents lama/first,lama/third*3 --games 2000",
        "lama --option rules=seed2022 --agents lama/third-retuned,lama/first*3 --games 2000",
    ),
    league_deals=50,
    league_skip={"lama/pimc": "a search: seconds a game", "lama/pimc-retuned": "a search: seconds a game"},
    agents_module="agents.lama",
    evaluate_module="evaluate.lama.reproduce",
    train_presets="train.presets.lama",
    vector_kernels="agents.lama.fast",
)
