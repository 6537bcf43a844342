"""Per-game training presets: `train/presets/<game>.py` (`<home>.presets` for a game from outside the suite)
defines `PRESET` (`TrainConfig` fields that differ from the defaults), optionally `DISTILL` and `HOOKS`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agents.games import Parts
from train.config import TrainConfig

#: Where each game's presets are: `train.presets.<game>`, or `<home>.presets` for a game from outside the suite.
PRESETS = Parts("train.presets", "presets", lambda game, **values: None)


@dataclass(frozen=True)
class GameHooks:
    """A game's additions to training: `metrics(game, learner) -> {name: value}` on every curve point (an
    "exploitability" also picks the shipped self-play mixture), `match_value(game, a, b)` a's exact mean result
    against b (the meta-Nash), `opponent_kernel(game, agent)` a frozen policy's exact compiled twin."""

    metrics: Callable[[Any, Any], dict[str, float]] | None = None
    match_value: Callable[[Any, Any, Any], float] | None = None
    opponent_kernel: Callable[[Any, Any], Any] | None = None


def preset(game: str) -> dict[str, Any]:
    """The game's preset (empty for a game without one).

    Raises:
        ValueError: a preset key that is not a `TrainConfig` field (the allowed ones are listed).
    """
    mod = PRESETS.module(game)
    if mod is None:
        return {}
    values = dict(mod.PRESET)
    TrainConfig.check_keys(values, f"preset {PRESETS.module_of(game)}")
    return values


def hooks(game: str) -> GameHooks:
    """The game's hooks (none for a game without them)."""
    mod = PRESETS.module(game)
    return GameHooks() if mod is None else getattr(mod, "HOOKS", GameHooks())
