"""The default learner's networks (`Policy`: masked actor and critic MLPs, with an action table or an asymmetric
critic as plug-ins; `ScorerPolicy`: an action scorer), their device and precision (`resolve_device`, `autocast`),
and the one saved-policy format (`save_policy` / `load_policy`: an `agents.learned` student, `critic.pt` beside it).
"""

from __future__ import annotations

import contextlib
import csv
import os
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch
import torch.nn as nn

from agents.learned import action_keys_of, table_logits

MASKED_LOGIT = -1e9  # as agents.learned's MaskedPolicy: exp() of it is exactly 0 next to any legal logit


# --- networks -------------------------------------------------------------------------------------
def _layer(n_in: int, n_out: int, gain: float, generator: torch.Generator) -> nn.Linear:
    """A linear layer with orthogonal weights of gain `gain` and zero bias."""
    layer = nn.Linear(n_in, n_out)
    nn.init.orthogonal_(layer.weight, gain, generator=generator)
    nn.init.zeros_(layer.bias)
    return layer


def _mlp(sizes: Sequence[int], head_gain: float, generator: torch.Generator) -> nn.Sequential:
    """Linear-ReLU-...-Linear: hidden layers with gain sqrt(2), the last with `head_gain`."""
    layers: list[nn.Module] = []
    for a, b in zip(sizes[:-2], sizes[1:-1]):
        layers += [_layer(a, b, np.sqrt(2.0), generator), nn.ReLU()]
    layers.append(_layer(sizes[-2], sizes[-1], head_gain, generator))
    return nn.Sequential(*layers)


class Policy(nn.Module):
    """Separate actor (masked logits) and critic (value) ReLU MLPs over one observation vector, orthogonal init.

    `privileged_dim`: an asymmetric critic's extra input (the env's `privileged_observations()`), appended to the
    observation. `action_keys`: an action table, the encoder's `(action_keys, num_action_keys)`: each action's
    logit also gets a learned `table[key]` (from 0) for the value of its key in the observation.
    """

    def __init__(self, obs_dim: int, num_actions: int, hidden: Sequence[int], generator: torch.Generator,
                 privileged_dim: int = 0, action_keys: tuple[Callable[[np.ndarray], np.ndarray], int] | None = None):
        super().__init__()
        self.obs_dim, self.num_actions, self.hidden = int(obs_dim), int(num_actions), [int(h) for h in hidden]
        self.privileged_dim = int(privileged_dim)
        self.actor = _mlp([self.obs_dim, *self.hidden, self.num_actions], 0.01, generator)
        self.critic = _mlp([self.obs_dim + self.privileged_dim, *self.hidden, 1], 1.0, generator)
        self.action_keys = None if action_keys is None else action_keys[0]
        self.table = None if action_keys is None else nn.Parameter(torch.zeros(int(action_keys[1])))

    def keys(self, obs: np.ndarray) -> np.ndarray | None:
        """The action table's keys of observations `obs` (numpy, `(B, D)`); None without a table."""
        return None if self.action_keys is None else self.action_keys(obs)

    def logits(self, obs: torch.Tensor, mask: torch.Tensor, keys: torch.Tensor | None = None) -> torch.Tensor:
        """Logits `(B, A)` with `MASKED_LOGIT` where the bool `mask` is False (`keys`: the action table's keys of
        `obs`, computed from it where not given)."""
        out = self.actor(obs).float()  # float32 also under a bfloat16 autocast (`precision="bf16"`)
        if self.table is not None:
            if keys is None:
                keys = torch.from_numpy(self.keys(obs.detach().cpu().numpy()))
            out = out + table_logits(self.table, keys, obs.device)
        return out.masked_fill(~mask, MASKED_LOGIT)

    def value(self, obs: torch.Tensor, privileged: torch.Tensor | None = None) -> torch.Tensor:
        """The critic's value `(B,)` (of the observation and, for an asymmetric critic, the privileged rows)."""
        if self.privileged_dim:
            obs = torch.cat([obs, privileged], dim=1)
        return self.critic(obs).squeeze(-1).float()

    @torch.no_grad()
    def act(self, obs: torch.Tensor, mask: torch.Tensor, generator: torch.Generator | None = None,
            greedy: bool = False, keys: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """(actions `(B,)` int64, their log-probabilities): a sample (Gumbel-max) or the most likely legal action."""
        logits = self.logits(obs, mask, keys)
        logp = torch.log_softmax(logits, dim=-1)
        if greedy:
            action = logits.argmax(-1)
        else:
            u = torch.rand(logits.shape, generator=generator, device=logits.device)
            action = (logits - torch.log(-torch.log(u))).argmax(-1)  # u = 0 gives -inf: that action is not drawn
        return action, logp.gather(1, action[:, None]).squeeze(1)


class ScorerPolicy(Policy):
    """An action scorer: one actor MLP scores each action from its features and the context; the critic values the
    context. Observations are `FeatureVectorEnv`'s rows `[context (context_dim), per_action (A x feature_dim)]`."""

    def __init__(self, context_dim: int, feature_dim: int, num_actions: int, hidden: Sequence[int],
                 generator: torch.Generator):
        nn.Module.__init__(self)
        self.context_dim, self.feature_dim = int(context_dim), int(feature_dim)
        self.obs_dim = self.context_dim + int(num_actions) * self.feature_dim
        self.num_actions, self.hidden = int(num_actions), [int(h) for h in hidden]
        self.features: str | None = None  # the feature set's name (`FeatureVectorEnv.features`), saved with it
        self.actor = _mlp([self.feature_dim + self.context_dim, *self.hidden, 1], 0.01, generator)
        self.critic = _mlp([self.context_dim, *self.hidden, 1], 1.0, generator)
        self.action_keys, self.table = None, None  # its features are per action already

    def logits(self, obs: torch.Tensor, mask: torch.Tensor, keys: torch.Tensor | None = None) -> torch.Tensor:
        c = self.context_dim
        per = obs[:, c:].reshape(obs.shape[0], self.num_actions, self.feature_dim)
        ctx = obs[:, None, :c].expand(-1, self.num_actions, -1)
        return self.actor(torch.cat([per, ctx], dim=-1)).squeeze(-1).float().masked_fill(~mask, MASKED_LOGIT)

    def value(self, obs: torch.Tensor, privileged: torch.Tensor | None = None) -> torch.Tensor:
        return self.critic(obs[:, :self.context_dim]).squeeze(-1).float()


def new_policy(venv: Any, hidden: Sequence[int], generator: torch.Generator, privileged: bool = False,
               action_table: bool = False) -> Policy:
    """The policy for `venv`'s observations: an action scorer where it gives `feature_dims` (`FeatureVectorEnv`),
    else an MLP over the flat observation (with `privileged`, its critic also reads `privileged_dim(venv)` more;
    with `action_table`, its actor adds a table looked up by the encoder's `action_keys`)."""
    A = int(venv.single_action_space.n)
    dims = getattr(venv, "feature_dims", None)
    if dims is not None:
        if privileged or action_table:
            raise ValueError(f"{'an asymmetric critic (privileged)' if privileged else 'an action table'} is for an "
                             "MLP policy over the observation, not an action scorer")
        policy = ScorerPolicy(dims[0], dims[1], A, hidden, generator)
        policy.features = venv.features
        return policy
    keys = None
    if action_table:
        keys = action_keys_of(getattr(venv, "encoder", None), type(venv).__name__)
    return Policy(int(venv.single_observation_space.shape[0]), A, hidden, generator,
                  privileged_dim(venv) if privileged else 0, keys)


def privileged_dim(venv: Any) -> int:
    """The width of `venv.privileged_observations()` rows (an asymmetric critic's extra input).

    Raises:
        ValueError: the vector env has no `privileged_observations()` (naming the env).
    """
    fn = getattr(venv, "privileged_observations", None)
    try:
        if fn is not None:
            return int(fn().shape[1])
    except NotImplementedError:
        pass
    raise ValueError(f"{type(venv).__name__} gives no privileged_observations() for an asymmetric critic "
                     "(a game's vector env gives them where its encoder has privileged(state, seat))")


def _shape(policy: Policy, hidden: Sequence[int]) -> tuple:
    """What must match to copy weights: an action scorer's weights are shared over its candidates, so their number
    is free (a scorer saved by a rules-engine agent holds the game's action count)."""
    if isinstance(policy, ScorerPolicy):
        return type(policy), policy.context_dim, policy.feature_dim, [int(h) for h in hidden]
    return type(policy), policy.obs_dim, policy.num_actions, [int(h) for h in hidden]


def start_from(policy: Policy, init: Policy, hidden: Sequence[int]) -> None:
    """Copy `init`'s weights into the fresh `policy` (a table added to a trained MLP starts at 0; a critic that
    reads other inputs starts fresh, with a warning).

    Raises:
        ValueError: `init` is of another kind, size or feature set."""
    if init.table is not None and policy.table is None:
        raise ValueError("init has an action table (its actor adds learned logits looked up by each action's "
                         "key); train it with action_table=True (--action-table)")
    if _shape(init, init.hidden) != _shape(policy, hidden):
        raise ValueError(f"init is a {type(init).__name__} with observation {init.obs_dim}, {init.num_actions} "
                         f"actions and hidden {init.hidden}; this env and hidden need a {type(policy).__name__} "
                         f"with {policy.obs_dim}, {policy.num_actions} and {list(hidden)}")
    if getattr(init, "features", None) != getattr(policy, "features", None):
        raise ValueError(f"init scores actions with feature set {init.features!r}, this env gives "
                         f"{policy.features!r}")
    fresh_table = policy.table is not None and init.table is None
    if getattr(init, "privileged_dim", 0) == getattr(policy, "privileged_dim", 0):
        policy.load_state_dict(init.state_dict(), strict=not fresh_table)
        return
    warnings.warn(f"init's critic reads {init.privileged_dim} privileged inputs, this run's "
                  f"{policy.privileged_dim}: the actor is kept, the critic starts fresh", stacklevel=3)
    policy.actor.load_state_dict(init.actor.state_dict())
    if init.table is not None:
        policy.table.data.copy_(init.table.data)


PRECISIONS = ("fp32", "bf16")


def autocast(device: torch.device, precision: str) -> Any:
    """The context the networks' forward passes run in: none for "fp32", torch's bfloat16 autocast on `device`'s
    type for "bf16" (reusable: entered once per rollout and per minibatch).

    Raises:
        ValueError: `precision` is not one of `PRECISIONS`.
    """
    if precision not in PRECISIONS:
        raise ValueError(f"unknown precision {precision!r}; allowed: {', '.join(PRECISIONS)}")
    if precision == "fp32":
        return contextlib.nullcontext()
    if device.type == "cpu" and bf16_flags() == "":
        warnings.warn("--precision bf16 on a CPU without native bfloat16 (no amx_bf16 or avx512_bf16 in "
                      "/proc/cpuinfo): emulated, it runs several times slower than fp32 (The Game's 2-player run: "
                      "about 900 learner steps/s against 5,400); use --precision fp32", stacklevel=2)
    return torch.autocast(device.type, dtype=torch.bfloat16)


def bf16_flags() -> str | None:
    """The CPU's bfloat16 instruction sets from /proc/cpuinfo ("amx_bf16 avx512_bf16", "" for none), None where
    it cannot be read (not Linux)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            flags = next((line.split(":", 1)[1].split() for line in f if line.startswith("flags")), [])
    except OSError:
        return None
    return " ".join(sorted(f for f in flags if f in ("amx_bf16", "avx512_bf16")))


def resolve_device(device: str | torch.device) -> torch.device:
    """A torch device from "cpu", "cuda", "cuda:N" or "auto" (CUDA where torch sees it, else the CPU)."""
    if isinstance(device, torch.device):
        return device
    name = str(device)
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name != "cpu" and not (name == "cuda" or (name.startswith("cuda:") and name[5:].isdigit())):
        raise ValueError(f"unknown device {device!r}; allowed: cpu, cuda, cuda:N, auto")
    if name.startswith("cuda") and not torch.cuda.is_available():
        raise ValueError(f"device {device!r} asked for, but torch sees no CUDA device (allowed here: cpu, auto)")
    return torch.device(name)


# --- saving: the project's saved-policy format ------------------------------------------------------------------
def to_student(policy: Policy, game: str, options: dict[str, Any]) -> Any:
    """The actor as an `agents.learned` `masked_policy` student of `game` (its value head 0), or a `ScorerPolicy`
    as an `action_scorer` student played by sampling."""
    from agents.learned import Student

    if isinstance(policy, ScorerPolicy):
        student = Student(game, options, "action_scorer", list(policy.hidden), features=policy.features, play="sample")
        student._build(policy.context_dim, policy.feature_dim)
        state = {**{f"score.{k}": v for k, v in policy.actor.state_dict().items()},
                 **{f"value.{k}": v for k, v in policy.critic.state_dict().items()}}
        student.net.load_state_dict({k: v.detach().cpu().clone() for k, v in state.items()})
        student.net.eval()
        return student
    return masked_student([m for m in policy.actor if isinstance(m, nn.Linear)], game, options, table=policy.table)


def masked_student(linears: Sequence[nn.Linear], game: str, options: dict[str, Any], *, table: Any = None,
                   game_obj: Any = None, activation: str = "relu", play: str = "argmax") -> Any:
    """A `masked_policy` student of `game` whose body and logits are the actor's `linears` (the last gives the
    logits), with an action `table` where given; its value head is 0 (a student does not act by it).

    Raises:
        ValueError: the layers do not fit the game's observation and actions."""
    from agents.learned import Student

    student = Student(game, options, "masked_policy", [int(m.out_features) for m in linears[:-1]], game=game_obj,
                      activation=activation, play=play, action_table=0 if table is None else int(table.numel()))
    shape = (int(linears[0].in_features), int(linears[-1].out_features))
    if shape != (student.dims["obs_dim"], student.num_actions):
        raise ValueError(f"the policy has observation {shape[0]} and {shape[1]} actions; {game} with options "
                         f"{options} has {student.dims['obs_dim']} and {student.num_actions}")
    state = {"value.weight": torch.zeros_like(student.net.value.weight),
             "value.bias": torch.zeros_like(student.net.value.bias), **({} if table is None else {"table": table})}
    for name, layer in (*((f"body.{2 * i}", m) for i, m in enumerate(linears[:-1])), ("logits", linears[-1])):
        state[f"{name}.weight"], state[f"{name}.bias"] = layer.weight, layer.bias
    student.net.load_state_dict({k: v.detach().cpu().clone() for k, v in state.items()})
    student.net.eval()
    return student


@torch.no_grad()
def copy_actor(net: dict[str, torch.Tensor], linears: Sequence[nn.Linear]) -> None:
    """Copy a `masked_policy` student's body and logits (its state dict `net`) into the actor's `linears`."""
    for name, layer in (*((f"body.{2 * i}", m) for i, m in enumerate(linears[:-1])), ("logits", linears[-1])):
        layer.weight.copy_(net[f"{name}.weight"])
        layer.bias.copy_(net[f"{name}.bias"])


def save_policy(policy: Policy, folder: str, game: str, options: dict[str, Any],
                provenance: dict[str, Any] | None = None) -> str:
    """Write the policy as a `masked_policy` student (`learned:<folder>` plays it) and the critic as `critic.pt`."""
    from agents.learned import save_student
    from envs.core.files import atomic_path

    save_student(to_student(policy, game, options), folder, provenance=provenance)
    with atomic_path(os.path.join(folder, "critic.pt")) as tmp:
        torch.save({k: v.detach().clone() for k, v in policy.critic.state_dict().items()}, tmp)
    return folder


def load_policy(folder: str, game: str, options: dict[str, Any]) -> tuple[Policy, float | list[float] | None]:
    """A saved run's `Policy` (actor from the student, critic from `critic.pt`, tensors only; fresh with a warning
    where there is none) and its reward scale (the last in its run's `history.csv`, else None)."""
    import envs
    from agents.learned import load_student

    student = load_student(folder, envs.make_game(game, **options))
    net = student.net.state_dict()
    if student.kind == "action_scorer":
        policy = ScorerPolicy(student.dims["context_dim"], student.dims["feature_dim"], student.num_actions,
                              student.hidden, torch.Generator().manual_seed(0))
        policy.features = student.features
        policy.actor.load_state_dict({k[len("score."):]: v for k, v in net.items() if k.startswith("score.")})
    elif student.kind != "masked_policy" or student.activation != "relu":
        raise ValueError(f"{folder} is not a ReLU masked_policy or action_scorer student (this learner's actors); "
                         f"got {student.describe()}")
    else:
        keys = (student.net.action_keys, student.action_table) if student.action_table else None
        policy = Policy(student.dims["obs_dim"], student.num_actions, student.hidden, torch.Generator().manual_seed(0),
                        action_keys=keys)
        copy_actor(net, [m for m in policy.actor if isinstance(m, nn.Linear)])
        if keys is not None:
            policy.table.data.copy_(net["table"])
    critic = os.path.join(folder, "critic.pt")
    if os.path.exists(critic):
        state = torch.load(critic, map_location="cpu", weights_only=True)
        extra = int(state["0.weight"].shape[1]) - int(policy.critic[0].in_features)
        if extra > 0 and isinstance(policy, Policy) and not isinstance(policy, ScorerPolicy):  # an asymmetric critic
            policy.privileged_dim = extra
            policy.critic = _mlp([policy.obs_dim + extra, *policy.hidden, 1], 1.0, torch.Generator().manual_seed(0))
        policy.critic.load_state_dict(state)
    else:
        warnings.warn(f"{folder} has no critic.pt: the critic starts fresh", stacklevel=2)
    scale = None
    # the run's history: beside the policy (this learner's runs), or one folder up (`python -m train`'s `policy/`)
    hist = next((h for h in (os.path.join(folder, "history.csv"),
                             os.path.join(os.path.dirname(os.path.abspath(folder)), "history.csv"))
                 if os.path.exists(h)), None)
    if hist is not None:
        with open(hist, newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        if rows and rows[-1].get("reward_scale"):
            scale = float(rows[-1]["reward_scale"])
    return policy, scale

