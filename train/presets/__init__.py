"""Per-game training presets and hooks, each game's in its own module of this package.

A game's module (`train/presets/<game>.py`; for a game from outside the suite, `<home>.presets` beside its spec,
`envs.home`) defines `PRESET`, a dict of
`TrainConfig` fields that differ from the defaults, optionally `DISTILL` (the
distillation preset) and `HOOKS`, a `GameHooks` with the game's own
learning-curve metric and exact match value.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from agents.games import Parts
from train.config import check_keys

#: Where each game's presets are: `train.presets.<game>`, or `<home>.presets` for a game from outside the suite.
PRESETS = Parts("train.presets", "presets", lambda game, **values: None)


def preset_module(game: str) -> ModuleType | None:
    """The game's preset module (imported only when that game is trained), or None without one."""
    return PRESETS.module(game)


@dataclass(frozen=True)
class GameHooks:
    """A game's additions to training.

    Attributes:
        metrics: `metrics(game, learner) -> {name: value}`, added to every
            learning-curve point (an `"exploitability"` entry also selects the
            shipped self-play mixture).
        match_value: `match_value(game, a, b) -> float`, agent a's exact mean
            result against b, for the self-play meta-solver (else simulated).
        opponent_kernel: `opponent_kernel(game, agent) -> OpponentKernel`, a frozen
            policy as the vector env's compiled opponent playing exactly its
            distribution (a self-play snapshot then costs no Python call per turn);
            else snapshots play as batch policies.
    """

    metrics: Callable[[Any, Any], dict[str, float]] | None = None
    match_value: Callable[[Any, Any, Any], float] | None = None
    opponent_kernel: Callable[[Any, Any], Any] | None = None


def preset(game: str) -> dict[str, Any]:
    """The game's preset (empty for a game without one).

    Raises:
        ValueError: a preset key that is not a `TrainConfig` field (the allowed ones are listed).
    """
    mod = preset_module(game)
    if mod is None:
        return {}
    values = dict(mod.PRESET)
    check_keys(values, f"preset {PRESETS.module_of(game)}")
    return values


def hooks(game: str) -> GameHooks:
    """The game's hooks (none for a game without them)."""
    mod = preset_module(game)
    return GameHooks() if mod is None else getattr(mod, "HOOKS", GameHooks())
