"""`TrainConfig`: everything that defines a PPO (or fine-tuning) run, with the one set of defaults: `RunConfig`
plus PPO's own fields (distillation's is `train.distill.DistillConfig`); `Settings`: the default learner's keywords
(`train.cleanrl_ppo.PPO`, CleanRL's names), whose defaults are `TrainConfig`'s."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from agents.learned import check_activation
from train.run import RunConfig, setting

if TYPE_CHECKING:
    import torch

    from train.networks import Policy

#: The learners of method ppo (`TrainConfig.learner`).
LEARNERS = ("auto", "cleanrl", "sb3")
#: The most parallel tables one run may ask for.
MAX_ENVS = 8192

#: The most learner steps one run may plan (far beyond any preset; catches a typo such as 10**11).
MAX_TIMESTEPS = 10**10


@dataclass(kw_only=True)
class TrainConfig(RunConfig):
    """Everything that defines a PPO run (saved as `config.json`): the only defaults; a game's preset overrides some
    and the command line both. `checkpoint_every` 0: every tenth of the run."""

    method: ClassVar[str] = "ppo"
    opponents: list[str] = field(default_factory=lambda: ["random"])
    self_play: bool = False
    baselines: list[str] = field(default_factory=list)
    #: Agents measured once in the learner's place against its evaluation opponents, drawn as lines on the curve.
    eval_baselines: list[str] = field(default_factory=list)
    control: str = setting("one_seat", choices=("one_seat", "all_seats"),
                           help="all_seats: one policy in every seat (self-play: sign-flipped advantages in a "
                                "two-player zero-sum game, per-seat trajectories otherwise, one team in The Game)")
    timesteps: int = setting(50_000, help="learner steps (default: the game's preset)", high=MAX_TIMESTEPS)
    n_envs: int = setting(4, help=f"parallel tables per update, 1..{MAX_ENVS} (default: preset)", high=MAX_ENVS)
    learner: str = setting("auto", choices=LEARNERS,
                           help="cleanrl: the one-file PPO on the game's compiled vector env (train.cleanrl_ppo); "
                                "sb3: sb3-contrib's MaskablePPO on the same env (self-play pools run there; Python "
                                "tables where the game has no compiled vector env); auto (default): sb3 with "
                                "--self-play or without a compiled vector env, else cleanrl")
    n_steps: int = setting(256, help="steps per table per rollout (default: the preset's)", high=65536)
    batch_size: int = setting(256, help="samples per gradient step, the minibatch (default: the preset's)", high=10**7)
    n_epochs: int = setting(4, help="passes over each rollout (default: the preset's)", high=1000)
    learning_rate: float = setting(3e-4, help="Adam step size (default: the preset's)")
    net_arch: list[int] = field(default_factory=lambda: [64, 64])
    ent_coef: float = setting(0.01, help="entropy bonus (default: the preset's)")
    gamma: float = setting(0.99, help="discount (default: the preset's)")
    gae_lambda: float = setting(0.95, help="GAE lambda (cleanrl; default 0.95)")
    clip_range: float = setting(0.2, help="the surrogate's clip range (default 0.2)")
    vf_clip: float = setting(0.2, help="cleanrl: value clip range in scaled return units (default 0.2; 0: none)")
    precision: str = setting("fp32", choices=("fp32", "bf16"),
                             help="cleanrl: bf16 runs the networks' forward passes in bfloat16 autocast (weights, "
                                  "losses and the saved policy stay float32; faster where the CPU has AMX or "
                                  "AVX512-BF16, slower elsewhere)")
    action_table: bool = setting(False, help="cleanrl: the actor also adds a learned logit per value of each "
                                            "action's key (the game encoder's action_keys)")
    privileged_critic: bool = setting(False, help="cleanrl: an asymmetric critic that also reads what a position "
                                                 "hides (the vector env's privileged_observations())")
    max_minutes: float = setting(0.0, help="cleanrl: a budget of learning minutes, compilation not counted (0: none)")
    threads: int = setting(1, help="torch threads (default 1)", high=256)
    device: str = setting("cpu", help="cleanrl: where the networks learn: cpu (default), cuda, cuda:N or auto")
    eval_every: int = setting(10_000, help="steps between learning-curve points")
    snapshot_every: int = 10_000
    pool_size: int = 50
    meta_solver: str = "uniform"
    meta_games: int = 200
    checkpoint_every: int = setting(0, help="steps between checkpoints (default: a tenth of the run)")
    activation: str = "tanh"
    init_from: str = ""
    critic_warmup: int = setting(0, help="with --init-from: steps that train the value network alone before the policy "
                                      "learns", low=0, high=MAX_TIMESTEPS, metavar="STEPS")
    #: More table groups under option changes ("KEY=VALUE [KEY=VALUE]" each, as many tables again): one policy
    #: learns several variants at once (cleanrl; `--also`).
    also: list[str] = field(default_factory=list)
    features: str | None = setting(None, help="cleanrl: learn an action scorer over this feature set "
                                              "(agents.learned; e.g. roborally) instead of an MLP over the observation "
                                              "(distill: the student's feature set)")
    save_every: int = setting(0, help="cleanrl: also save the policy every this many learner steps, as "
                                      "OUT/snapshots/<steps>/ (to pick a checkpoint on validation games); 0: none",
                              low=0, high=MAX_TIMESTEPS, metavar="STEPS")
    reward_scale: float = setting(0.0, help="cleanrl: multiply rewards by this (0, the default: 1 / the standard "
                                            "deviation of the first rollout's discounted returns)")
    league_every: int = setting(0, help="cleanrl: learner steps between frozen snapshots of the learner joining a "
                                      "league of opponents (half the tables' draws the --opponents line-up, half a "
                                      "member: a snapshot or a --baselines agent); 0: no league",
                                low=0, high=MAX_TIMESTEPS, metavar="STEPS")
    league_size: int = setting(8, help="cleanrl, with --league-every: the newest snapshots kept (default 8; 0: none, "
                                      "a fixed mix of the line-up and --baselines)", low=0, high=1000)

    def resolved_learner(self) -> str:
        """The learner that runs: `learner`, with "auto" read as sb3 where the run keeps a self-play pool (and no
        league) or the game has no compiled vector env (SB3 then plays Python tables), else cleanrl."""
        from agents.vector import has_vector_env

        if self.learner != "auto":
            return self.learner
        return "sb3" if (self.self_play and not self.league_every) or not has_vector_env(self.game) else "cleanrl"

    def _check_features(self) -> None:
        """`features` must be one of the game's own feature sets (or one registered from outside the suite)."""
        from agents.learned import feature_owner, feature_sets_of

        ours = feature_sets_of(self.game)
        try:
            owner = feature_owner(self.features)
        except ValueError:
            owner = ""
        if self.features not in ours and owner is not None:
            raise ValueError(f"features must be one of {ours} for {self.game}, got {self.features!r}" if ours else
                             f"{self.game} has no feature set (an action scorer's inputs): drop --features, got "
                             f"{self.features!r}")

    def __post_init__(self) -> None:
        super().__post_init__()
        # the `setting` fields' types, ranges and choices are checked by `RunConfig.check_settings`
        self.check_counts({"snapshot_every": 1, "pool_size": 1, "meta_games": 1})
        check_activation(self.activation)
        if not self.learning_rate > 0:
            raise ValueError(f"learning_rate must be a number > 0, got {self.learning_rate!r}")
        for name in ("gamma", "gae_lambda"):
            if not 0 <= getattr(self, name) <= 1:
                raise ValueError(f"{name} must be a number in [0, 1], got {getattr(self, name)!r}")
        if self.league_every and self.learner == "sb3":
            raise ValueError("league_every is the cleanrl learner's league (--learner sb3 keeps a self-play pool: "
                             "--self-play)")
        if self.features is not None:
            self._check_features()
        if self.meta_solver not in ("uniform", "nash"):
            raise ValueError(f"meta_solver must be 'uniform' or 'nash', got {self.meta_solver!r}")



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

