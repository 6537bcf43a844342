"""The Teacher protocol: per-action values that label a student's decisions.

A teacher is a strong non-learned decision maker (an exact solver, a rollout or a PIMC search); distillation
(`python -m train distill GAME`) fits a student to its values at the decisions the student met (DAgger: Ross,
Gordon and Bagnell).
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Teacher(Protocol):
    """A strong non-learned decision maker whose per-action values label a student's decisions."""

    def action_values(self, view: Any, action_mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """float64 [num_actions]: the value of each legal action for the acting seat (higher is better, any scale
        consistent within one call), NaN where the mask is 0. Acts from the VIEW only (hidden-information games
        sample states with game.sample_state; Primi Composti's solver may use the full position the view gives)."""
        ...


@runtime_checkable
class SearchTeacher(Teacher, Protocol):
    """A teacher whose search estimates differ from the values it acts by (e.g. a gated rollout search)."""

    def action_estimates(self, view: Any, action_mask: np.ndarray,
                         rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """(`action_values`, the search's estimates before its decision rule), from one search, both in the
        `action_values` contract. Distillation with `label_values="search"` fits the student to the estimates."""
        ...


def check_values(values: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
    """`values` as float64, checked against the teacher contract: one entry per action,
    finite on every legal action and NaN elsewhere.

    Raises:
        ValueError: naming the first offending action.
    """
    v = np.asarray(values, dtype=np.float64)
    mask = np.asarray(action_mask).astype(bool)
    if v.shape != mask.shape:
        raise ValueError(f"teacher values have shape {v.shape}, the mask {mask.shape}")
    bad_legal = np.flatnonzero(mask & ~np.isfinite(v))
    if bad_legal.size:
        raise ValueError(f"teacher gave no finite value for legal action {int(bad_legal[0])}")
    bad_illegal = np.flatnonzero(~mask & ~np.isnan(v))
    if bad_illegal.size:
        raise ValueError(f"teacher gave a value for illegal action {int(bad_illegal[0])} (must be NaN)")
    return v


def best_action(values: np.ndarray, action_mask: np.ndarray) -> int:
    """The legal action of highest value (lowest id among ties): a teacher's `act`."""
    v = np.where(np.asarray(action_mask).astype(bool), np.nan_to_num(values, nan=-np.inf), -np.inf)
    return int(np.argmax(v))


def gated_values(samples: np.ndarray, gate: float, below: float) -> tuple[np.ndarray, np.ndarray]:
    """(gated values, means) of paired rollouts `samples` (rollouts, candidates; higher is better; the baseline's
    column first): a candidate whose paired gain over the baseline is not above `gate` standard errors is set
    `below` under the baseline's mean where it is not below it already, so the argmax is the gated choice."""
    means = samples.mean(axis=0)
    diff = samples[:, 1:] - samples[:, :1]
    se = diff.std(axis=0, ddof=1) / np.sqrt(len(samples))
    significant = diff.mean(axis=0) > gate * se
    v = means.copy()
    v[1:][~significant & (v[1:] >= v[0])] = v[0] - below
    return v, means


class TeacherAgent:
    """Mixin making a teacher an agent: `act` plays the argmax of `action_values`.

    The subclass sets `self.rng` (the generator its sampling uses) and defines `action_values` or, a search
    teacher, `action_estimates`."""

    rng: np.random.Generator

    def action_values(self, view: Any, action_mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Per-action values (see `Teacher`): a `SearchTeacher`'s are the first of its `action_estimates`."""
        return self.action_estimates(view, action_mask, rng)[0]

    def act(self, view: Any, action_mask: np.ndarray) -> int:
        """The teacher's best legal action."""
        return best_action(self.action_values(view, action_mask, self.rng), action_mask)
