"""The feature set of a program scorer over `envs.roborally.choice`'s candidate programs.

`FEATURES["roborally_program"]` reads `ProgramChoiceEnv`'s rows as they are (`from_observation`: the observation
is already `[context, per_candidate]`, so `agents.feature_vector_env` and `agents.vector.batch_policy` take it
unchanged); it has no view-only form, because the candidates come from the compiled program table.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.learned import FEATURES
from envs.roborally.choice import CONTEXT_DIM, FEATURE_DIM
from envs.roborally.choice import FEATURES as NAME


class ProgramFeatures:
    """The candidate rows of a `ProgramChoiceEnv` observation, split into (context, per_candidate)."""

    portable_options = ("board", "num_robots", "max_turns")

    def for_game(self, game: Any) -> ProgramFeatures:
        """The same features on any game (they read the env's rows only)."""
        return self

    def from_observation(self, obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(context [C], per_candidate [K, F]) of a `ProgramChoiceEnv` row (K = len(mask))."""
        obs = np.asarray(obs, np.float32).reshape(-1)
        k = len(mask)
        if obs.shape[0] != CONTEXT_DIM + k * FEATURE_DIM:
            raise ValueError(f"a {NAME} row of {k} candidates has {CONTEXT_DIM + k * FEATURE_DIM} values, got "
                             f"{obs.shape[0]} (give ProgramChoiceEnv observations)")
        return obs[:CONTEXT_DIM], obs[CONTEXT_DIM:].reshape(k, FEATURE_DIM)

    def __call__(self, view: Any, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        raise ValueError(f"the {NAME} features read a ProgramChoiceEnv's candidates, not a view: play such a "
                         "policy on a ProgramChoiceEnv (agents.vector.batch_policy)")


FEATURES[NAME] = ProgramFeatures()
