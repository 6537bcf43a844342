"""PPO in one file (CleanRL's style, plain torch) on a batched Gymnasium vector env: what `python -m train GAME`
runs (`train.vector_ppo` is its frame: run folder, checkpoints, resume, progress, evaluation). It runs on any
`VectorEnv` with same-step autoreset and action masks (`agents.vector_env(...)`)::

    import agents
    from train.cleanrl_ppo import train
    venv = agents.vector_env("lama", 1024, opponents=["lama/first"] * 3, seed=0, reward="dense", copy=False)
    policy, history = train(venv, total_steps=2_000_000, n_steps=64, minibatch=8192, epochs=2, seed=1)

In the order of the code:

- **Networks** (`Policy`): separate actor and critic ReLU MLPs, orthogonal init (gain sqrt(2), 0.01 for the policy
  head, 1 for the value head). Illegal logits are -1e9 (one `masked_fill`, in the rollout and the update);
  sampling is Gumbel-max, so an illegal action is never drawn. Plug-ins: an **action table** (the encoder's
  `action_keys`: a learned logit per key value, added to the MLP's), an **asymmetric critic** (it also reads
  `venv.privileged_observations()`, what a position hides; the saved policy is the actor alone), an **action
  scorer** (`ScorerPolicy`, over `agents.feature_vector_env`'s per-action features).
- **GAE** (`gae`) backwards over the rollout; a done step never bootstraps across the autoreset, a truncated one
  from the critic's value of `info["final_obs"]`. Self-play (`control="all_seats"`): sign-flipped values in a
  two-player zero-sum game (`signs`), each seat's own trajectory otherwise (`gae_seats`), one team policy in a
  cooperative game (`self_play_mode`).
- **Rollout** buffers are numpy arrays allocated once and shared with torch; rewards are scaled once, after the
  first rollout, so that its discounted returns have standard deviation 1 (measured: the critic's explained
  variance stayed at 0 over 1M L.A.M.A. steps unscaled and reached 0.6 scaled).
- **Update** (`PPO._learn`): clipped surrogate, clipped value loss, entropy bonus, advantages normalised per
  minibatch, the gradient norm clipped per network, Adam (eps 1e-5), the learning rate decayed linearly to 0;
  `precision="bf16"` runs the forward passes under bfloat16 autocast.
- **Opponents** live in the vector env (kernels, batch policies, a `Pool` drawn per episode: `train.pool.League`
  is the league plug-in); this loop sees one learner seat or every seat.

Saving (`save_policy`): the actor in the one saved-policy format (`agents.learned`'s `masked_policy` or
`action_scorer` student: `learned:<folder>` plays it), the critic beside it as `critic.pt`.
"""

from __future__ import annotations

import contextlib
import csv
import dataclasses
import os
import runpy
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch
import torch.nn as nn

from agents.learned import action_keys_of, table_logits
from train.config import TrainConfig

#: The learner's defaults: `TrainConfig`'s (the one place they are written), by field name.
_D = {f.name: f.default if f.default is not dataclasses.MISSING else tuple(f.default_factory())  # type: ignore[misc]
      for f in dataclasses.fields(TrainConfig) if f.default is not dataclasses.MISSING or f.name == "net_arch"}

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
    """Separate actor (masked logits) and critic (value) MLPs over one observation vector.

    Args:
        obs_dim: the observation's length.
        num_actions: A.
        hidden: hidden layer sizes, the same for both networks.
        generator: the torch generator of the initial weights.
        privileged_dim: an asymmetric critic's extra input (the env's `privileged_observations()`, what the
            position hides from the learner), appended to the observation; 0: the critic sees what the actor sees.
        action_keys: an action table (`--action-table`): the encoder's `(action_keys, num_action_keys)`; each
            action's logit also gets `table[key]`, a learned entry (from 0) per value of the action's key in the
            observation (what the key means is the encoder's docstring's), shared by all actions: what the MLP
            would learn per action, learned once. None: the MLP alone.
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
    """An action scorer (`agents.learned`'s `action_scorer`): one shared actor MLP scores each action from its own
    features and the context; the critic values the context. Observations are `FeatureVectorEnv`'s rows:
    `[context (C), per_action (A x F)]`.

    Args:
        context_dim, feature_dim: C and F (`FeatureVectorEnv.feature_dims`).
        num_actions: A.
        hidden: hidden layer sizes, the same for both networks.
        generator: the torch generator of the initial weights.
    """

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


# --- advantages ---------------------------------------------------------------------------------------
def gae(rewards: np.ndarray, values: np.ndarray, last_values: np.ndarray, dones: np.ndarray, bootstrap: np.ndarray,
        gamma: float, lam: float, signs: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Generalised advantage estimates and returns of a rollout `(T, N)` with same-step autoreset.

    Args:
        rewards: `rewards[t]`, the reward of the decision at step t (to the seat that took it).
        values: the critic's value of the observation each decision was taken at.
        last_values: `(N,)`, the value of the observation after the last step.
        dones: the episode ended with step t (terminated or truncated); the next
            observation is then a new episode's, and nothing flows back across it.
        bootstrap: the value of the ended episode's last observation where it was
            truncated (0 where it terminated or did not end), from the seat of step t.
        gamma, lam: discount and GAE lambda.
        signs: +1 where a table's next decision is by the same seat as step t's,
            -1 where it is by the other seat of a two-player zero-sum game (its
            value is minus ours); None: all +1 (one learner seat).

    Returns:
        (advantages, returns = advantages + values), float32 `(T, N)`.
    """
    T = rewards.shape[0]
    adv = np.zeros(rewards.shape, np.float32)
    next_adv = np.zeros(rewards.shape[1], np.float32)
    next_value = last_values.astype(np.float32)
    for t in range(T - 1, -1, -1):
        s = 1.0 if signs is None else signs[t]
        carry = np.where(dones[t], 0.0, s)  # 0 across an episode's end, -1 across a change of seat
        v_next = np.where(dones[t], bootstrap[t], s * next_value)
        delta = rewards[t] + gamma * v_next - values[t]
        next_adv = (delta + gamma * lam * carry * next_adv).astype(np.float32)
        adv[t] = next_adv
        next_value = values[t]
    return adv, adv + values


def gae_seats(rewards: np.ndarray, players: np.ndarray, values: np.ndarray, last_values: np.ndarray,
              dones: np.ndarray, gamma: float, lam: float) -> tuple[np.ndarray, np.ndarray]:
    """Per-seat GAE of an `all_seats` rollout `(T, N)` in which every seat has its own return (more than two seats,
    or a game whose returns do not sum to zero): each seat's decisions form their own trajectory.

    The reward of seat p's decision at step t is everything seat p receives from that step up to its next decision
    in the same episode (the other seats' moves included), and its next value the critic's value at that decision;
    an episode's end closes every seat's trajectory (a truncated one is valued 0: the turn cap is the game's end).
    The discount applies once per own decision.

    Args:
        rewards: `(T, N, P)`, every seat's reward of each step (`info["rewards"]`).
        players: `(T, N)`, the seat that decided at each step.
        values: `(T, N)`, the critic's value of each decision, for its seat.
        last_values: `(N, P)`, each seat's value of the position after the last step, from its own view.
        dones: `(T, N)`, the episode ended with step t.
        gamma, lam: discount and GAE lambda.

    Returns:
        (advantages, returns = advantages + values), float32 `(T, N)`.
    """
    T, N, P = rewards.shape
    rows = np.arange(N)
    adv = np.zeros((T, N), np.float32)
    next_value = last_values.astype(np.float32).copy()
    next_adv = np.zeros((N, P), np.float32)
    acc = np.zeros((N, P), np.float32)  # each seat's rewards from the step being looked at to its next decision
    for t in range(T - 1, -1, -1):
        d = dones[t]
        next_value[d] = 0.0
        next_adv[d] = 0.0
        acc[d] = 0.0
        acc += rewards[t]
        p = players[t]
        delta = acc[rows, p] + gamma * next_value[rows, p] - values[t]
        a = (delta + gamma * lam * next_adv[rows, p]).astype(np.float32)
        adv[t] = a
        next_value[rows, p] = values[t]
        next_adv[rows, p] = a
        acc[rows, p] = 0.0
    return adv, adv + values


# --- the vector env's side ------------------------------------------------------------------------------
def _masks(venv: Any, info: dict[str, Any]) -> np.ndarray:
    """The learner's legal actions, bool `(N, A)`: `action_masks()`, else `info["action_mask"]`, else all legal."""
    if hasattr(venv, "action_masks"):
        return venv.action_masks()
    if "action_mask" in info:
        return np.asarray(info["action_mask"]).astype(bool)
    return np.ones((venv.num_envs, venv.single_action_space.n), bool)


def cooperative(venv: Any) -> bool:
    """Whether `venv`'s game is cooperative (its `GameSpec` says so; every seat shares the team's return): then
    `control="all_seats"` is one team policy with the team's reward at every step, and no sign flips."""
    return bool(_spec_says(venv, "cooperative"))


def _spec_says(venv: Any, flag: str) -> bool | None:
    """Whether the `GameSpec` of `venv`'s game sets `flag` (`cooperative`, `zero_sum`); None for a vector env of no
    registered game (a user's own: its word is taken)."""
    from envs.core.spec import registered, spec

    game = getattr(venv, "game", None)
    specs = [spec(g) for g in registered() if game is not None and isinstance(game, spec(g).game_class)]
    return bool(getattr(specs[0], flag)) if specs else None


ALL_SEATS_KEYS = ('info["current_player"] (N,)', 'info["rewards"] (N, 2)',
                  'info["final_info"]["current_player"] for truncated tables')


def self_play_mode(venv: Any) -> str:
    """How `train` plays `venv`: "one" (one seat, or one team policy in a cooperative game), "flip" (`all_seats` in a
    two-player zero-sum game: sign-flipped advantages) or "seats" (`all_seats` with more seats, or seats with returns
    of their own: per-seat advantages, `gae_seats`). A vector env of no registered game is taken at its word: two
    seats are zero-sum."""
    if getattr(venv, "control", "one_seat") != "all_seats" or cooperative(venv):
        return "one"
    if getattr(venv, "num_players", None) == 2 and _spec_says(venv, "zero_sum") is not False:
        return "flip"
    return "seats"


def _check_all_seats(venv: Any, info: dict[str, Any], mode: str = "flip") -> None:
    """Raise NotImplementedError naming what an `all_seats` vector env lacks for self-play (`info`: its reset's)."""
    missing = [] if "current_player" in info else [ALL_SEATS_KEYS[0] + " from reset and step"]
    players = getattr(venv, "num_players", None)
    if mode == "flip" and players != 2:
        missing.append(f"num_players == 2 (got {players!r}; the sign flip is for two-player zero-sum games)")
    if mode == "seats" and not callable(getattr(venv, "observe", None)):
        missing.append("observe(rows, seats) (each seat's value at a rollout's end)")
    if missing:
        raise NotImplementedError(f"control='all_seats' self-play needs a vector env that gives {', '.join(missing)}; "
                                  f"{type(venv).__name__} does not")


class Rollout:
    """The rollout buffers of `n_steps` x N decisions, allocated once, and the loop that fills them.

    Numpy arrays `(T, N, ...)`; `obs_t`, `mask_t`, `act_t`, `logp_t` are torch
    tensors sharing their memory. After `collect`: `rew[t]` the reward of
    decision t (to its seat), `done[t]` the episode ended with it, `boot[t]` the
    critic's value of a truncated episode's last observation (0 elsewhere),
    `last_values` the value after the last step, `player` the seat to move at
    each observation (`all_seats`).
    """

    def __init__(self, venv: Any, n_steps: int, zero_sum: bool | str, privileged: int = 0, keys: bool = False):
        T, n = int(n_steps), int(venv.num_envs)
        D, A = int(venv.single_observation_space.shape[0]), int(venv.single_action_space.n)
        # zero_sum: True / "flip" two-seat sign flips, "seats" per-seat trajectories, False / "one" one learner
        mode = ("flip" if zero_sum else "one") if isinstance(zero_sum, bool) else zero_sum
        self.seats = mode == "seats"
        self.venv, self.T, self.n, self.zero_sum = venv, T, n, mode in ("flip", "seats")
        if self.seats and privileged:
            raise NotImplementedError("an asymmetric critic with per-seat self-play (more than two seats, or seats "
                                      "with their own returns) is not supported: drop --privileged-critic")
        self.obs = np.zeros((T, n, D), np.float32)
        self.priv = np.zeros((T, n, privileged), np.float32)  # an asymmetric critic's rows (width 0: none)
        self.priv_t = torch.from_numpy(self.priv)
        self.mask = np.zeros((T, n, A), np.bool_)
        # an action table's keys of each observation (`Policy.keys`), computed once as the samples are collected
        self.keys = np.zeros((T, n, A) if keys else (T, n, 0), np.int16)
        self.keys_t = torch.from_numpy(self.keys)
        self.act = np.zeros((T, n), np.int64)
        self.logp = np.zeros((T, n), np.float32)
        self.val = np.zeros((T, n), np.float32)
        self.rew = np.zeros((T, n), np.float32)
        self.done = np.zeros((T, n), np.bool_)
        self.boot = np.zeros((T, n), np.float32)
        self.player = np.zeros((T + 1, n), np.int64)
        self.last_values = np.zeros(n, np.float32)
        P = int(getattr(venv, "num_players", 1)) if self.seats else 0
        self.rew_all = np.zeros((T, n, P), np.float32)  # per-seat self-play: every seat's reward of each step
        self.last_seat_values = np.zeros((n, P), np.float32)
        self.obs_t, self.mask_t, self.act_t, self.logp_t = (
            torch.from_numpy(b) for b in (self.obs, self.mask, self.act, self.logp))
        self.next_obs, self.info = venv.reset()
        self.next_priv = venv.privileged_observations() if privileged else None
        self.next_player = np.zeros(n, np.int64)  # the seat to move at `next_obs` (all_seats)
        if self.zero_sum:
            _check_all_seats(venv, self.info, mode)
            self.next_player[:] = self.info["current_player"]

    def collect(self, policy: Policy, generator: torch.Generator,
                device: torch.device | None = None) -> tuple[list[float], list[int]]:
        """Play `n_steps` decisions at every table; returns the (returns, lengths) of the episodes that ended.

        With a `device` other than the CPU, each step's observations and masks go to it and the actions,
        log-probabilities and values come back: the buffers stay numpy arrays in host memory."""
        venv, rows = self.venv, np.arange(self.n)
        device = device or torch.device("cpu")
        ep_returns: list[float] = []
        ep_lengths: list[int] = []
        policy.eval()
        self.player[0] = self.next_player
        privileged = self.next_priv is not None
        for t in range(self.T):
            self.obs[t] = self.next_obs
            self.mask[t] = _masks(venv, self.info)
            if privileged:
                self.priv[t] = self.next_priv
            keys = None
            if self.keys.shape[2]:
                self.keys[t] = policy.keys(self.obs[t])
                keys = self.keys_t[t].to(device)
            with torch.no_grad():
                obs, mask = self.obs_t[t].to(device), self.mask_t[t].to(device)
                action, logp = policy.act(obs, mask, generator, keys=keys)
                value = policy.value(obs, self.priv_t[t].to(device)) if privileged else policy.value(obs)
                self.val[t] = value.cpu().numpy()
            self.act[t] = action.cpu().numpy()
            self.logp[t] = logp.cpu().numpy()
            self.next_obs, reward, term, trunc, info = venv.step(self.act[t])
            self.info = info
            if privileged:
                self.next_priv = venv.privileged_observations()
            self.done[t] = np.logical_or(term, trunc)
            if self.zero_sum:
                if "rewards" not in info or "current_player" not in info:
                    raise NotImplementedError(f"control='all_seats' self-play needs {ALL_SEATS_KEYS[0]} and "
                                              f"{ALL_SEATS_KEYS[1]} from every step; {type(venv).__name__} gave "
                                              f"{', '.join(k for k in ('rewards', 'current_player') if k not in info)} "
                                              "no value")
                seat_rewards = np.asarray(info["rewards"], np.float32)
                self.rew[t] = seat_rewards[rows, self.player[t]]
                if self.seats:
                    self.rew_all[t] = seat_rewards
                self.player[t + 1] = info["current_player"]
            else:
                self.rew[t] = reward
            self.boot[t] = 0.0
            cut = np.flatnonzero(np.logical_and(trunc, np.logical_not(term)))
            if cut.size:  # a truncated episode is valued from its last observation, not the new deal
                if privileged:
                    raise NotImplementedError("an asymmetric critic cannot value a truncated episode's last "
                                              "observation (the env gives no privileged rows of it): run without "
                                              "truncation (max_turns)")
                final = np.stack([np.asarray(x, np.float32) for x in info["final_obs"][cut]])
                with torch.no_grad():
                    v = policy.value(torch.from_numpy(final).to(device)).cpu().numpy()
                if self.seats:
                    v[:] = 0.0  # per-seat self-play values every seat's truncated episode at 0 (`gae_seats`)
                elif self.zero_sum:
                    fin = info.get("final_info", {})
                    if "current_player" not in fin:
                        raise NotImplementedError(f"control='all_seats' self-play needs {ALL_SEATS_KEYS[2]}")
                    v = np.where(np.asarray(fin["current_player"])[cut] == self.player[t, cut], v, -v)
                self.boot[t, cut] = v
            if "_tabletop_episode" in info:
                ended = np.flatnonzero(info["_tabletop_episode"])
                ep_returns += np.asarray(info["tabletop_episode"]["r"])[ended].tolist()
                ep_lengths += np.asarray(info["tabletop_episode"]["l"])[ended].tolist()
        self.next_player[:] = self.player[self.T]
        with torch.no_grad():
            last = torch.from_numpy(np.asarray(self.next_obs, np.float32)).to(device)
            value = policy.value(last, torch.from_numpy(self.next_priv).to(device)) if privileged else policy.value(last)
            self.last_values = value.cpu().numpy()
            if self.seats:  # every seat's value of the last position, from its own view
                for p in range(self.last_seat_values.shape[1]):
                    seen = np.asarray(venv.observe(rows, np.full(self.n, p, np.int64)), np.float32)
                    self.last_seat_values[:, p] = policy.value(torch.from_numpy(seen).to(device)).cpu().numpy()
        return ep_returns, ep_lengths

    def signs(self) -> np.ndarray | None:
        """`all_seats`: +1 where a table's next decision is by the same seat, -1 where by the other; else None."""
        if not self.zero_sum:
            return None
        return np.where(self.player[1:] == self.player[:-1], 1.0, -1.0).astype(np.float32)

    def advantages(self, gamma: float, lam: float) -> tuple[np.ndarray, np.ndarray]:
        """`gae` of the collected rollout (`gae_seats` in per-seat self-play): (advantages, returns)."""
        if self.seats:
            return gae_seats(self.rew_all, self.player[:-1], self.val, self.last_seat_values, self.done, gamma, lam)
        return gae(self.rew, self.val, self.last_values, self.done, self.boot, gamma, lam, self.signs())

    def returns_to_go(self, gamma: float) -> np.ndarray:
        """The discounted returns-to-go of the collected rewards (values 0, lambda 1): what the reward scale reads."""
        if self.seats:
            zeros = np.zeros((self.n, self.rew_all.shape[2]), np.float32)
            return gae_seats(self.rew_all, self.player[:-1], np.zeros_like(self.val), zeros, self.done, gamma, 1.0)[0]
        zeros = np.zeros_like(self.val)
        return gae(self.rew, zeros, zeros[0], self.done, zeros, gamma, 1.0, self.signs())[0]

    def scale(self, k: float | np.ndarray) -> None:
        """Multiply the collected rewards by `k` (one number, or one per table)."""
        k = np.asarray(k, np.float32)
        self.rew *= k
        self.rew_all *= k[..., None]



# --- training ------------------------------------------------------------------------------------------------
class PPO:
    """One PPO run on `venv`, an update at a time: `update()` collects a rollout of `n_steps` x N decisions and
    learns from it; `state()` is everything the run is (weights, optimiser, generators, the step count, the reward
    scale and every table's game), `load_state()` puts it back into a run built alike, so that a run stopped after
    an update and resumed goes on exactly as it would have. `train()` runs one to its end; the arguments are
    `train`'s (see there)."""

    def __init__(self, venv: Any, *, total_steps: int, n_steps: int = _D["n_steps"], minibatch: int = _D["batch_size"],
                 epochs: int = _D["n_epochs"], lr: float = _D["learning_rate"], ent_coef: float = _D["ent_coef"],
                 gamma: float = _D["gamma"], gae_lambda: float = _D["gae_lambda"], clip: float = _D["clip_range"],
                 hidden: Sequence[int] = _D["net_arch"], seed: int = 0, vf_coef: float = 0.5,
                 vf_clip: float | None = _D["vf_clip"], max_grad_norm: float = 0.5, reward_scale: float | None = None,
                 anneal_lr: bool = True, device: str | torch.device = _D["device"], max_seconds: float | None = None,
                 init: Policy | None = None, critic_warmup: int = 0, privileged_critic: bool = False,
                 action_table: bool = False, precision: str = _D["precision"]):
        _check_venv(venv)
        for name, v in (("total_steps", total_steps), ("n_steps", n_steps), ("minibatch", minibatch),
                        ("epochs", epochs)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
                raise ValueError(f"{name} must be an integer >= 1, got {v!r}")
        if max_seconds is not None and not max_seconds > 0:
            raise ValueError(f"max_seconds must be > 0 or None, got {max_seconds!r}")
        self.venv, self.T = venv, int(n_steps)
        self.batch = self.T * int(venv.num_envs)
        self.minibatch = min(int(minibatch), self.batch)
        self.updates = -(-int(total_steps) // self.batch)
        self.epochs, self.lr, self.ent_coef, self.gamma, self.gae_lambda = int(epochs), lr, ent_coef, gamma, gae_lambda
        self.clip, self.vf_coef, self.vf_clip, self.max_grad_norm = clip, vf_coef, vf_clip, max_grad_norm
        self.anneal_lr, self.max_seconds, self.critic_warmup = anneal_lr, max_seconds, critic_warmup
        self.dev = resolve_device(device)
        self.forward = autocast(self.dev, precision)
        gen = torch.Generator().manual_seed(int(seed))
        self.rng = np.random.default_rng(int(seed))
        self.reward_scale = None if reward_scale is None else float(reward_scale)
        if self.reward_scale is not None and not (np.isfinite(self.reward_scale) and self.reward_scale > 0):
            raise ValueError(f"reward_scale must be a finite number > 0 or None, got {reward_scale!r}")
        policy = new_policy(venv, hidden, gen, privileged_critic, action_table)
        if init is not None:
            _start_from(policy, init, hidden)
        self.policy = policy.to(self.dev)
        # sampling draws on the device, from a generator of its own
        self.gen = gen if self.dev.type == "cpu" else torch.Generator(device=self.dev).manual_seed(int(seed))
        self.optimizer = torch.optim.Adam(self.policy.parameters(), lr=lr, eps=1e-5)
        self.actor_params = [*self.policy.actor.parameters(),
                             *([self.policy.table] if self.policy.table is not None else [])]
        self.buf = Rollout(venv, self.T, self_play_mode(venv), getattr(self.policy, "privileged_dim", 0),
                           keys=self.policy.table is not None)
        self.steps, self.update_index, self.wall_before = 0, 0, 0.0
        self.start = time.perf_counter()

    @property
    def done(self) -> bool:
        """Whether the planned updates are all made."""
        return self.update_index >= self.updates

    def wall(self) -> float:
        """Seconds of learning in all (this process's and a resumed run's before)."""
        return self.wall_before + time.perf_counter() - self.start

    def _set_lr(self) -> None:
        if not self.anneal_lr:
            return
        spent = self.update_index / self.updates
        if self.max_seconds is not None:
            spent = max(spent, self.wall() / self.max_seconds)
        for g in self.optimizer.param_groups:
            g["lr"] = self.lr * max(0.0, 1.0 - spent)

    def update(self) -> dict[str, Any]:
        """Collect one rollout and learn from it; returns the update's history entry (see `train`)."""
        self._set_lr()
        self.update_index += 1
        t_collect = time.perf_counter()
        buf = self.buf
        with self.forward:
            ep_returns, ep_lengths = buf.collect(self.policy, self.gen, self.dev)
        if self.reward_scale is None:  # once: the discounted returns-to-go of the first rollout (values 0, lambda 1)
            self.reward_scale = 1.0 / max(float(buf.returns_to_go(self.gamma).std()), 1e-8)
            if not np.isfinite(self.reward_scale):
                raise ValueError("the first rollout's returns are not finite numbers (a NaN or infinite reward): no "
                                 "reward scale can be measured")
        buf.scale(self.reward_scale)
        adv_buf, ret_buf = buf.advantages(self.gamma, self.gae_lambda)
        self.steps += self.batch
        collect_s = time.perf_counter() - t_collect
        t_learn = time.perf_counter()
        means = self._learn(adv_buf, ret_buf)
        var = float(np.var(ret_buf))
        wall = self.wall()
        return {
            "update": self.update_index, "steps": self.steps, "wall_s": wall, "steps_per_s": self.steps / wall,
            "collect_s": collect_s, "learn_s": time.perf_counter() - t_learn,
            "episodes": len(ep_returns), "mean_return": float(np.mean(ep_returns)) if ep_returns else float("nan"),
            "mean_length": float(np.mean(ep_lengths)) if ep_lengths else float("nan"),
            **means,
            "explained_variance": float("nan") if var == 0 else 1.0 - float(np.var(ret_buf - buf.val)) / var,
            "lr": self.optimizer.param_groups[0]["lr"], "reward_scale": self.reward_scale,
        }

    def _learn(self, adv_buf: np.ndarray, ret_buf: np.ndarray) -> dict[str, float]:
        """`epochs` passes of shuffled minibatches over the rollout: clipped surrogate, clipped value loss, entropy
        bonus, a gradient norm limit per network; returns the losses' means."""
        buf, dev, batch, policy = self.buf, self.dev, self.batch, self.policy
        D, A = buf.obs.shape[2], buf.mask.shape[2]
        policy.train()
        b_obs, b_mask = buf.obs_t.view(batch, D).to(dev), buf.mask_t.view(batch, A).to(dev)
        b_act, b_logp = buf.act_t.view(batch).to(dev), buf.logp_t.view(batch).to(dev)
        b_adv, b_ret = torch.from_numpy(adv_buf).view(batch).to(dev), torch.from_numpy(ret_buf).view(batch).to(dev)
        b_val = torch.from_numpy(buf.val).view(batch).to(dev)
        b_priv = buf.priv_t.view(batch, buf.priv.shape[2]).to(dev)
        b_keys = buf.keys_t.view(batch, buf.keys.shape[2]).to(dev)
        stats: dict[str, list[torch.Tensor]] = {k: [] for k in ("pg_loss", "v_loss", "entropy", "approx_kl",
                                                                 "clipfrac")}
        clip = self.clip
        for _ in range(self.epochs):
            order = torch.from_numpy(self.rng.permutation(batch)).to(dev)
            for lo in range(0, batch, self.minibatch):
                idx = order[lo:lo + self.minibatch]
                obs = b_obs[idx]
                with self.forward:
                    logits = policy.logits(obs, b_mask[idx], b_keys[idx] if b_keys.shape[1] else None)
                    value = policy.value(obs, b_priv[idx]) if b_priv.shape[1] else policy.value(obs)
                logp_all = torch.log_softmax(logits, dim=-1)
                new_logp = logp_all.gather(1, b_act[idx][:, None]).squeeze(1)
                # softmax, not logp_all.exp(): exp of the masked actions' log-probabilities (about -1e9) takes torch's
                # slow path on a CPU (measured 17 ms against 1.1 ms for a 4,096 x 405 minibatch: ~10% of an update)
                entropy = -(torch.softmax(logits, dim=-1) * logp_all).sum(-1).mean()
                log_ratio = new_logp - b_logp[idx]
                ratio = log_ratio.exp()
                adv = b_adv[idx]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                pg_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - clip, 1 + clip)).mean()
                v_err = (value - b_ret[idx]) ** 2
                if self.vf_clip is not None:
                    v_clipped = b_val[idx] + (value - b_val[idx]).clamp(-self.vf_clip, self.vf_clip)
                    v_err = torch.max(v_err, (v_clipped - b_ret[idx]) ** 2)
                v_loss = 0.5 * v_err.mean()
                # an update that starts inside the warm-up trains the critic alone (so at least `critic_warmup` steps)
                loss = (self.vf_coef * v_loss if self.steps - self.batch < self.critic_warmup
                        else pg_loss - self.ent_coef * entropy + self.vf_coef * v_loss)
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                nn.utils.clip_grad_norm_(self.actor_params, self.max_grad_norm)
                nn.utils.clip_grad_norm_(policy.critic.parameters(), self.max_grad_norm)
                self.optimizer.step()
                with torch.no_grad():  # kept as tensors: one transfer per update, not five per minibatch
                    stats["pg_loss"].append(pg_loss.detach())
                    stats["v_loss"].append(v_loss.detach())
                    stats["entropy"].append(entropy.detach())
                    stats["approx_kl"].append(((ratio - 1) - log_ratio).mean())
                    stats["clipfrac"].append(((ratio - 1).abs() > clip).float().mean())
        return {k: float(v) for k, v in zip(stats, torch.stack([torch.stack(v).mean() for v in stats.values()])
                                            .cpu().tolist())}

    def state(self) -> dict[str, Any]:
        """Everything the run is after its last update: `{"numbers": JSON-able, "tensors": tensors,
        "arrays": numpy arrays}` (weights and optimiser; generators; every table's game, `envs.core.vector_state`)."""
        from envs.core.vector_state import vector_state

        buf = self.buf
        arrays = {f"venv/{k}": v for k, v in vector_state(self.venv).items()}
        arrays.update({"rollout/next_obs": np.array(buf.next_obs, np.float32), "rollout/next_player": buf.next_player.copy(),
                       "rollout/mask": np.asarray(_masks(self.venv, buf.info), np.bool_)})
        numbers = {"steps": self.steps, "update": self.update_index, "wall_s": self.wall(),
                   "reward_scale": self.reward_scale, "rng": self.rng.bit_generator.state}
        tensors = {"policy": self.policy.state_dict(), "optimizer": self.optimizer.state_dict(),
                   "generator": self.gen.get_state()}
        return {"numbers": numbers, "tensors": tensors, "arrays": arrays}

    def load_state(self, state: dict[str, Any]) -> None:
        """Put `state()`'s output back (into a run built with the same env, settings and seed).

        Raises:
            ValueError: one line, if it does not fit this run."""
        from envs.core.vector_state import load_vector_state

        numbers, tensors, arrays = state["numbers"], state["tensors"], state["arrays"]
        steps, update = numbers.get("steps"), numbers.get("update")
        if (not isinstance(update, int) or isinstance(update, bool) or not 0 <= update <= self.updates
                or steps != update * self.batch):
            raise ValueError(f"the checkpoint says {steps!r} steps in {update!r} updates; this run makes "
                             f"{self.batch:,} steps an update, {self.updates:,} updates in all")
        try:
            self.policy.load_state_dict(tensors["policy"])
            self.optimizer.load_state_dict(tensors["optimizer"])
            self.gen.set_state(tensors["generator"])
            self.rng.bit_generator.state = numbers["rng"]
            load_vector_state(self.venv, {k[5:]: v for k, v in arrays.items() if k.startswith("venv/")})
        except (KeyError, TypeError, RuntimeError) as e:
            raise ValueError(f"the checkpoint does not fit this run ({type(e).__name__}: {str(e)[:200]})") from None
        buf = self.buf
        buf.next_obs = np.array(arrays["rollout/next_obs"], np.float32)
        buf.next_player[:] = arrays["rollout/next_player"]
        buf.info = {"action_mask": np.asarray(arrays["rollout/mask"])}
        if buf.next_priv is not None:
            buf.next_priv = self.venv.privileged_observations()
        self.steps, self.update_index = int(numbers["steps"]), int(numbers["update"])
        self.wall_before, self.start = float(numbers["wall_s"]), time.perf_counter()
        self.reward_scale = None if numbers["reward_scale"] is None else float(numbers["reward_scale"])


def _check_venv(venv: Any) -> None:
    """Raise ValueError unless `venv` is a vector env this learner runs on: Discrete actions, flat observations,
    same-step autoreset."""
    obs_space, act_space = venv.single_observation_space, venv.single_action_space
    if getattr(act_space, "n", None) is None:
        raise ValueError(f"the vector env's action space must be Discrete, got {act_space}")
    if len(obs_space.shape) != 1:
        raise ValueError(f"the vector env's observations must be flat vectors, got shape {obs_space.shape}")
    mode = venv.metadata.get("autoreset_mode")
    if getattr(mode, "value", mode) != "SameStep":
        raise ValueError(f"this learner needs same-step autoreset (a finished table's next obs is the new episode), "
                         f"got autoreset_mode={mode!r}")


def _start_from(policy: Policy, init: Policy, hidden: Sequence[int]) -> None:
    """Copy `init`'s weights into the fresh `policy` (a table added to a trained MLP starts at 0; a critic that
    reads other inputs starts fresh, with a warning).

    Raises:
        ValueError: `init` is of another kind, size or feature set."""
    if init.table is not None and policy.table is None:
        raise ValueError("init has an action table (its actor adds learned logits looked up by each action's "
                         "key); train it with action_table=True (--action-table)")
    if (type(init), init.obs_dim, init.num_actions, init.hidden) != (type(policy), policy.obs_dim, policy.num_actions,
                                                                      [int(h) for h in hidden]):
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
    import warnings

    warnings.warn(f"init's critic reads {init.privileged_dim} privileged inputs, this run's "
                  f"{policy.privileged_dim}: the actor is kept, the critic starts fresh", stacklevel=3)
    policy.actor.load_state_dict(init.actor.state_dict())
    if init.table is not None:
        policy.table.data.copy_(init.table.data)


def train(venv: Any, *, total_steps: int, log_every: int = 1,
          callback: Callable[[dict[str, Any], Policy], bool | None] | None = None,
          log: Callable[[str], None] | None = print, **settings: Any) -> tuple[Policy, list[dict[str, Any]]]:
    """Train a PPO policy on `venv` for about `total_steps` learner steps (whole rollouts of `n_steps` x N).

    Args:
        venv: a Gymnasium `VectorEnv`, same-step autoreset, `Discrete` actions, a flat observation;
            `venv.control == "all_seats"` selects self-play (see the module docstring): sign flips in a
            two-player zero-sum game, per-seat trajectories with more seats or seats of their own returns, one
            team policy in a cooperative game (The Game).
        total_steps: learner decisions to collect (rounded up to whole rollouts).
        log_every: print a line every this many updates (0: never).
        callback: `callback(entry, policy)` after every update, with the history entry; returning
            False stops training.
        log: where the progress lines go.
        **settings: `PPO`'s settings (defaults: `TrainConfig`'s fields of those names): n_steps (steps per table a
            rollout), minibatch, epochs, lr (decayed linearly to 0 with `anneal_lr`, by whichever of the steps and
            `max_seconds` budgets is further spent), ent_coef, gamma, gae_lambda, clip, hidden, seed (weights,
            sampling, minibatch order; the env has its own), vf_coef, vf_clip (in scaled return units; None: none),
            max_grad_norm (per network), reward_scale (None: 1 / the std of the first rollout's discounted returns),
            device ("cpu", "cuda", "cuda:N", "auto": the networks; env and buffers stay on the host), init (a
            `Policy` to start from, `load_policy`), critic_warmup (first steps that train the critic alone),
            privileged_critic, action_table, precision ("fp32", "bf16": forward passes under bfloat16 autocast;
            `benchmarks/bench_precision.py`).

    Returns:
        (the trained `Policy`, the history: one dict per update: steps, wall seconds, steps/s,
        the mean return and count of the episodes that ended, losses, entropy, approximate KL,
        clip fraction, explained variance, learning rate).
    """
    run = PPO(venv, total_steps=total_steps, **settings)
    history: list[dict[str, Any]] = []
    while not run.done:
        entry = run.update()
        history.append(entry)
        if log is not None and log_every and (entry["update"] % log_every == 0 or run.done):
            log(progress_line(entry, run.updates))
        if callback is not None and callback(entry, run.policy) is False:
            break
        if run.max_seconds is not None and entry["wall_s"] >= run.max_seconds:
            if log is not None:
                log(f"stopped after {entry['wall_s']:,.0f} s (max_seconds={run.max_seconds:g}) at {run.steps:,} steps")
            break
    run.policy.eval()
    return run.policy.cpu(), history


def progress_line(entry: dict[str, Any], updates: int) -> str:
    """One update's line of figures, as the learner prints it."""
    return (f"update {entry['update']}/{updates}  steps {entry['steps']:,}  {entry['steps_per_s']:,.0f} steps/s  "
            f"return {entry['mean_return']:.2f} ({entry['episodes']} ep)  entropy {entry['entropy']:.3f}  "
            f"kl {entry['approx_kl']:.4f}  clipfrac {entry['clipfrac']:.3f}  ev {entry['explained_variance']:.2f}")



def variant_sizes(venv: Any) -> list[int]:
    """The tables of each variant: a `MultiVectorEnv`'s `sizes`, else one variant of all tables."""
    sizes = getattr(venv, "sizes", None)
    if isinstance(sizes, (list, tuple)) and sum(sizes) == int(venv.num_envs):
        return [int(k) for k in sizes]
    return [int(venv.num_envs)]


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
    return torch.autocast(device.type, dtype=torch.bfloat16)


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
    """The actor as an `agents.learned` `masked_policy` student of `game` (options: the game's rules only); a
    `ScorerPolicy` as an `action_scorer` student (actor -> `score`, critic -> `value`), played by sampling.

    The masked policy's MLP is `body` (Linear-ReLU-...-Linear), ReLU, `logits`: the
    actor's layers one for one. Its value head is not used to act and is set to 0.
    """
    from agents.learned import Student

    if isinstance(policy, ScorerPolicy):
        student = Student(game, options, "action_scorer", list(policy.hidden), features=policy.features, play="sample")
        student._build(policy.context_dim, policy.feature_dim)
        state = {**{f"score.{k}": v for k, v in policy.actor.state_dict().items()},
                 **{f"value.{k}": v for k, v in policy.critic.state_dict().items()}}
        student.net.load_state_dict({k: v.detach().cpu().clone() for k, v in state.items()})
        student.net.eval()
        return student
    table = 0 if policy.table is None else int(policy.table.numel())
    student = Student(game, options, "masked_policy", list(policy.hidden), action_table=table)
    if student.dims["obs_dim"] != policy.obs_dim or student.num_actions != policy.num_actions:
        raise ValueError(f"the policy has observation {policy.obs_dim} and {policy.num_actions} actions; {game} with "
                         f"options {options} has {student.dims['obs_dim']} and {student.num_actions}")
    linears = [m for m in policy.actor if isinstance(m, nn.Linear)]
    state = {}
    for i, layer in enumerate(linears[:-1]):
        state[f"body.{2 * i}.weight"], state[f"body.{2 * i}.bias"] = layer.weight, layer.bias
    state["logits.weight"], state["logits.bias"] = linears[-1].weight, linears[-1].bias
    state["value.weight"] = torch.zeros_like(student.net.value.weight)
    state["value.bias"] = torch.zeros_like(student.net.value.bias)
    if policy.table is not None:
        state["table"] = policy.table
    student.net.load_state_dict({k: v.detach().cpu().clone() for k, v in state.items()})
    student.net.eval()
    return student


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
    """A saved run's `Policy` (actor from the student, critic from `critic.pt`) and its reward scale (a list:
    one per variant).

    Only tensors are read (`weights_only`). The reward scale is the last one in the folder's
    `history.csv` (None where there is none); a folder without `critic.pt` (a snapshot) gets a fresh
    critic: a warning says so.
    """
    import warnings

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
        linears = [m for m in policy.actor if isinstance(m, nn.Linear)]
        with torch.no_grad():
            if keys is not None:
                policy.table.copy_(net["table"])
            for i, layer in enumerate(linears[:-1]):
                layer.weight.copy_(net[f"body.{2 * i}.weight"])
                layer.bias.copy_(net[f"body.{2 * i}.bias"])
            linears[-1].weight.copy_(net["logits.weight"])
            linears[-1].bias.copy_(net["logits.bias"])
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


if __name__ == "__main__":  # python -m train.cleanrl_ppo: python -m train, its old flags read as train's (train.legacy)
    sys.exit(runpy.run_module("train.legacy", run_name="__main__"))
