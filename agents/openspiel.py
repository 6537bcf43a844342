"""An OpenSpiel policy as one of our agents: `PolicyTableAgent` plays a `{information-state string: probabilities}`
table (`envs.openspiel.policy_table` of CFR's average policy, for instance) from our views, so it sits in our
tournaments like any agent."""

from __future__ import annotations

from typing import Any

import numpy as np


class PolicyTableAgent:
    """Plays the table's probabilities at the information state of its view (the key is
    `envs.openspiel.info_state_string(view, seat)`); a view the table lacks raises `KeyError` naming it.

    Args:
        table: information-state string -> probabilities over the game's actions.
        rng: the agent's generator (its every draw).
    """

    def __init__(self, table: dict[str, np.ndarray], rng: np.random.Generator, name: str = "openspiel"):
        self.table = table
        self.rng = rng
        self.name = name

    def action_probs(self, view: Any, action_mask: np.ndarray) -> np.ndarray:
        """The table's probabilities at `view`, restricted to the mask and renormalised."""
        from envs.openspiel import info_state_string

        key = info_state_string(view, view.seat)
        try:
            probs = np.asarray(self.table[key], dtype=float) * (np.asarray(action_mask) > 0)
        except KeyError:
            raise KeyError(f"the OpenSpiel policy has no entry for the information state {key!r}") from None
        total = probs.sum()
        return probs / total if total > 0 else (np.asarray(action_mask) > 0) / max(1, int(np.sum(action_mask > 0)))

    def act(self, view: Any, action_mask: np.ndarray) -> int:
        """An action drawn from `action_probs`."""
        p = self.action_probs(view, action_mask)
        return int(self.rng.choice(len(p), p=p))
