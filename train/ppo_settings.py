"""`Settings`: the default learner's (`train.cleanrl_ppo.PPO`) keywords, with `TrainConfig`'s defaults."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np
import torch

from train.config import TrainConfig
from train.networks import Policy

#: The learner's defaults: `TrainConfig`'s (the one place they are written), by field name.
_D = TrainConfig.defaults()


@dataclasses.dataclass(frozen=True, kw_only=True)
class Settings:
    """The learner's settings (`train`'s keywords, CleanRL's names), checked once; each default is `TrainConfig`'s
    field of the same meaning. `lr` decays linearly to 0 (`anneal_lr`) by the further spent of the steps and
    `max_seconds`; `vf_clip` None: none; `reward_scale` None: measured on the first rollout; `init`: a `Policy`
    to start from; `seed`: weights, sampling and minibatch order (the env has its own).

    Raises:
        ValueError: a count below 1, a `max_seconds` not above 0, a `reward_scale` that is no finite number > 0.
    """

    total_steps: int
    n_steps: int = _D["n_steps"]
    minibatch: int = _D["batch_size"]
    epochs: int = _D["n_epochs"]
    lr: float = _D["learning_rate"]
    ent_coef: float = _D["ent_coef"]
    gamma: float = _D["gamma"]
    gae_lambda: float = _D["gae_lambda"]
    clip: float = _D["clip_range"]
    hidden: Sequence[int] = tuple(_D["net_arch"])
    seed: int = 0
    vf_coef: float = 0.5
    vf_clip: float | None = _D["vf_clip"]
    max_grad_norm: float = 0.5
    reward_scale: float | None = None
    anneal_lr: bool = True
    device: str | torch.device = _D["device"]
    max_seconds: float | None = None
    init: Policy | None = None
    critic_warmup: int = 0
    privileged_critic: bool = False
    action_table: bool = False
    precision: str = _D["precision"]

    def __post_init__(self) -> None:
        for name in ("total_steps", "n_steps", "minibatch", "epochs"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
                raise ValueError(f"{name} must be an integer >= 1, got {v!r}")
        if self.max_seconds is not None and not self.max_seconds > 0:
            raise ValueError(f"max_seconds must be > 0 or None, got {self.max_seconds!r}")
        if self.reward_scale is not None and not (np.isfinite(float(self.reward_scale)) and self.reward_scale > 0):
            raise ValueError(f"reward_scale must be a finite number > 0 or None, got {self.reward_scale!r}")

