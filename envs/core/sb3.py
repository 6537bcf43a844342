"""`to_sb3(venv)`: a batched compiled environment as a Stable-Baselines3 `VecEnv` (MaskablePPO-ready).

`step_wait` returns `(obs, rewards, dones, infos)` with `dones = terminated | truncated` and one info dict per table
(a finished table's holds `terminal_observation`, `TimeLimit.truncated` and `episode`); finished tables reset in the
same call; the arrays are fresh every step (SB3 keeps the previous observation). `env_method("action_masks")`
answers with one element, the whole `(N, A)` bool array (which MaskablePPO reshapes; N rows cost ~0.6 ms a step to
stack at N = 1,024); `stacked_masks=False` answers with N rows, as a `DummyVecEnv` would.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv


class SB3VecEnv(VecEnv):
    """A `gymnasium.vector.VectorEnv` with same-step autoreset (a `CompiledVectorEnv`) as an SB3 `VecEnv`.

    Args:
        venv: the vector env.
        stacked_masks: answer `env_method("action_masks")` with `[masks]` (one
            `(N, A)` array; fast) rather than N rows (see the module docstring).
    """

    def __init__(self, venv: Any, stacked_masks: bool = True):
        mode = venv.metadata.get("autoreset_mode")
        if getattr(mode, "value", mode) != "SameStep":
            raise ValueError(f"to_sb3 needs a vector env with same-step autoreset, got autoreset_mode={mode!r}")
        self.venv = venv
        self.stacked_masks = bool(stacked_masks)
        self._actions: np.ndarray | None = None
        super().__init__(venv.num_envs, venv.single_observation_space, venv.single_action_space)

    def reset(self) -> np.ndarray:
        """Deal every table (with the seed given to `seed()`, if any) and return the observations."""
        seeds = [s for s in self._seeds if s is not None]
        obs, _ = self.venv.reset(seed=seeds[0] if seeds else None)
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return np.array(obs, copy=True) if not getattr(self.venv, "copy", False) else obs

    def step_async(self, actions: np.ndarray) -> None:
        """Keep the actions for `step_wait`."""
        self._actions = actions

    def step_wait(self):
        """One step of every table: `(obs, rewards, dones, infos)` as SB3 expects."""
        obs, rew, term, trunc, info = self.venv.step(self._actions)
        if not getattr(self.venv, "copy", False):
            obs, rew, term, trunc = obs.copy(), rew.copy(), term.copy(), trunc.copy()
        dones = term | trunc
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if "final_obs" in info:
            final = info["final_obs"]
            ep = info["tabletop_episode"]
            for i in np.flatnonzero(dones).tolist():
                infos[i] = {
                    "terminal_observation": final[i],
                    "TimeLimit.truncated": bool(trunc[i] and not term[i]),
                    "episode": {"r": float(ep["r"][i]), "l": int(ep["l"][i])},
                }
        return obs, rew, dones, infos

    def close(self) -> None:
        """Close the vector env."""
        self.venv.close()

    # --- attributes and methods: one vector env behind every index --------------------------------
    def has_attr(self, attr_name: str) -> bool:
        """Whether the vector env has `attr_name` (MaskablePPO checks `action_masks`)."""
        return hasattr(self.venv, attr_name)

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        """`[getattr(venv, attr_name)]` once per index."""
        value = getattr(self.venv, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        """Set `attr_name` on the vector env (shared by every table)."""
        setattr(self.venv, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices: Any = None, **method_kwargs) -> list[Any]:
        """Call a method of the vector env; `action_masks` answers per table (see the module docstring)."""
        if method_name == "action_masks":
            masks = self.venv.action_masks()
            if indices is None:
                return [masks] if self.stacked_masks else list(masks)
            return [masks[i] for i in self._get_indices(indices)]
        result = getattr(self.venv, method_name)(*method_args, **method_kwargs)
        return [result for _ in self._get_indices(indices)]

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        """No table is wrapped."""
        return [False for _ in self._get_indices(indices)]

    def _get_indices(self, indices: Any) -> Sequence[int]:
        if indices is None:
            return range(self.num_envs)
        if isinstance(indices, (int, np.integer)):
            return [int(indices)]
        return list(indices)


def to_sb3(venv: Any, stacked_masks: bool = True) -> SB3VecEnv:
    """`venv` (a same-step-autoreset Gymnasium vector env, e.g. `agents.vector_env(...)`) as an SB3 `VecEnv`."""
    return SB3VecEnv(venv, stacked_masks=stacked_masks)


__all__ = ["SB3VecEnv", "to_sb3"]
