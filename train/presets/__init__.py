"""Per-game training presets and hooks, found through the `PRESETS` dict.

A game's module (`train/presets/<game>.py`) defines `PRESET`, a dict of
`TrainConfig` fields that differ from the defaults, and optionally `HOOKS`, a
`GameHooks` with the game's own learning-curve metric and exact match value.
Adding a game's preset = its module and one line in `PRESETS`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from train.config import check_keys

#: game id -> its preset module (imported only when that game is trained).
PRESETS: dict[str, str] = {
    "lama": "train.presets.lama",
    "primi_composti": "train.presets.primi_composti",
    "roborally": "train.presets.roborally",
    "simple_poker": "train.presets.simple_poker",
    "the_game": "train.presets.the_game",
}


@dataclass(frozen=True)
class GameHooks:
    """A game's additions to training.

    Attributes:
        metrics: `metrics(game, learner) -> {name: value}`, added to every
            learning-curve point (an `"exploitability"` entry also selects the
            shipped self-play mixture).
        match_value: `match_value(game, a, b) -> float`, agent a's exact mean
            result against b, for the self-play meta-solver (else simulated).
    """

    metrics: Callable[[Any, Any], dict[str, float]] | None = None
    match_value: Callable[[Any, Any, Any], float] | None = None


def preset(game: str) -> dict[str, Any]:
    """The game's preset (empty for a game without one).

    Raises:
        ValueError: a preset key that is not a `TrainConfig` field (the allowed ones are listed).
    """
    if game not in PRESETS:
        return {}
    values = dict(importlib.import_module(PRESETS[game]).PRESET)
    check_keys(values, f"preset {PRESETS[game]}")
    return values


def hooks(game: str) -> GameHooks:
    """The game's hooks (none for a game without them)."""
    if game not in PRESETS:
        return GameHooks()
    return getattr(importlib.import_module(PRESETS[game]), "HOOKS", GameHooks())
