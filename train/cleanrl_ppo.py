"""A CleanRL-style PPO in one file: the recipe for writing your own training loop on a batched vector env.

`python -m train` trains SB3's MaskablePPO; this module is the second learner,
written out in plain torch so that every step of PPO can be read, changed and
timed. It runs on any Gymnasium `VectorEnv` with same-step autoreset and action
masks (`agents.vector_env(...)`), for example::

    import agents
    from train.cleanrl_ppo import train
    venv = agents.vector_env("lama", 1024, opponents=["lama/first"] * 3, seed=0, reward="dense", copy=False)
    policy, history = train(venv, total_steps=2_000_000, n_steps=64, minibatch=8192, epochs=2, lr=3e-4,
                            ent_coef=0.01, gamma=0.995, gae_lambda=0.95, clip=0.2, hidden=(128, 128), seed=1)

    python -m train.cleanrl_ppo lama --timesteps 2000000 --out runs/lama-cleanrl
    python -m evaluate lama --agents learned:runs/lama-cleanrl,lama/first*3 --games 2000 --seed 7

What it does, in the order of the code:

- **Networks.** Separate actor and critic MLPs (ReLU), orthogonal init: gain
  sqrt(2) for hidden layers, 0.01 for the policy head (a near-uniform first
  policy), 1.0 for the value head; biases 0.
- **Masks inside the graph.** A bool mask `(B, A)` turns illegal logits into
  -1e9 with one `masked_fill`, in the rollout and in the update (the masks are
  stored with the samples); sampling is Gumbel-max on the masked logits, so an
  illegal action is never drawn and no Python runs per table. The entropy is
  that of the masked distribution (legal actions only).
- **Rollout buffers** are numpy arrays allocated once, `(n_steps, N, ...)`,
  wrapped once with `torch.from_numpy` (no copies between numpy and torch).
- **Same-step autoreset.** When a table's episode ends in `step`, the observation
  returned is already the next episode's first one; the step is marked done, so
  GAE never bootstraps across it. A terminated episode's next value is 0; a
  truncated one bootstraps from the critic's value of `info["final_obs"]`.
- **GAE** (gamma, lambda) in numpy, backwards over the rollout (`gae`), on
  rewards scaled once, after the first rollout, so that its discounted returns
  have standard deviation 1 (L.A.M.A.'s dense returns are tens of points; the
  critic, clipped to a gradient norm of 0.5, learns them far more slowly:
  measured, explained variance stayed at 0 over 1M steps unscaled and reached
  0.6 scaled).
- **Update.** Clipped surrogate; value clipping (the new value may not move the
  loss more than `vf_clip` away from the rollout's value, as PPO2 did); entropy
  bonus; advantages normalised per minibatch; gradient norm clipped per
  network (the critic's large gradients on point-valued returns would otherwise
  shrink the actor's step through one shared norm); Adam with eps 1e-5; the
  learning rate decays linearly to 0 over the run.
- **Two-seat zero-sum self-play** (`control="all_seats"`: one policy plays every
  seat). The critic values a position for the seat to move; when the next
  decision of a table is the other seat's, its value and advantage enter with
  the opposite sign (`gae`'s `signs`). The vector env must give
  `info["current_player"]` (the seat to move at each returned observation),
  `info["rewards"]` (`(N, 2)`, each seat's reward of the step) and, for
  truncated episodes, `info["final_info"]["current_player"]`; a vector env
  without them is refused with a `NotImplementedError` naming what is missing.
  (Primi Composti's vector env offers it; the path is also tested on a synthetic
  two-player env.) In a cooperative game (The Game, `GameSpec.cooperative`)
  `all_seats` is one team policy instead: every seat's step earns the team's
  reward and the critic values the team's return, so nothing is flipped.
- **Per-seat self-play** (`all_seats` with more than two seats, or seats with
  returns of their own: Primi Composti at 3-6 players, L.A.M.A., RoboRally):
  each seat's decisions are a trajectory of their own (`gae_seats`): the reward
  of a decision is what its seat receives up to its next decision
  (`info["rewards"]`, the other seats' moves included), its next value the
  critic's at that decision, the discount once per own decision; at a
  rollout's end each seat is valued from its own view of the last position
  (`venv.observe(rows, seats)`); a truncated episode is valued 0 for every seat
  (the game's turn cap is its end). Not with an asymmetric critic.

- **An asymmetric critic** (`--privileged-critic`): the critic also reads what the position hides from the
  learner (`venv.privileged_observations()`: in L.A.M.A. the other seats' hands and the draw pile, in The Game
  the teammates' hands and the deck's next cards), the actor only its observation, so the saved policy plays
  from what a seat sees. Stored with the samples, as the masks. A truncated episode is refused (its last
  position's hidden rows are gone with the autoreset).

- **An action table** (`--action-table`): where the game's encoder gives each action a key in the observation
  (`encoder.action_keys`; The Game: a card's gap on the pile and its backwards-trick partner), the actor adds
  `table[key]`, a learned logit per key value, to the MLP's. Keys are computed once per collected step and
  stored with the samples; saved in the `masked_policy` student (`"action_table"`).

- **Action scorers** (`--features NAME`, or `--init-from` an `action_scorer` student such as
  `roborally/learned`): the env is wrapped in `agents.feature_vector_env`, whose observations are each table's
  context and per-action features (computed from the encoder's observation); the actor is one MLP that scores
  every action from its features and the context, the critic an MLP over the context (`ScorerPolicy`). Saved as
  an `action_scorer` student of that feature set (critic as its value head), played by sampling.

Saving: the actor is exactly the shape of `agents.learned`'s `masked_policy`
student (ReLU MLP over the game's encoder observation, one logit per action), so
`save_policy` writes the one saved-policy format (`policy.json` + `weights.pt`,
loaded as data) and `learned:<folder>` plays it in `python -m evaluate`. The
student's value head is unused by the agent and saved as zeros (this learner's
critic is a separate network; it is kept next to it as `critic.pt`, a plain
state_dict).
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import functools
import json
import os
import re
import signal
import sys
import time
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

    def __init__(self, venv: Any, *, total_steps: int, n_steps: int = 64, minibatch: int = 8192, epochs: int = 2,
                 lr: float = 3e-4, ent_coef: float = 0.01, gamma: float = 0.995, gae_lambda: float = 0.95,
                 clip: float = 0.2, hidden: Sequence[int] = (128, 128), seed: int = 0, vf_coef: float = 0.5,
                 vf_clip: float | None = 0.2, max_grad_norm: float = 0.5,
                 reward_scale: float | None = None,
                 anneal_lr: bool = True, device: str | torch.device = "cpu", max_seconds: float | None = None,
                 init: Policy | None = None, critic_warmup: int = 0, privileged_critic: bool = False,
                 action_table: bool = False, precision: str = "fp32"):
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
        **settings: `PPO`'s settings:
            n_steps (steps per table per rollout), minibatch (samples per gradient step), epochs (passes over
            each rollout), lr (Adam's learning rate at the start, decayed linearly to 0 with `anneal_lr`),
            ent_coef, gamma, gae_lambda, clip (the surrogate's clip range), hidden (actor and critic sizes),
            seed (the weights, the sampling and the minibatch order; the env has its own seed), vf_coef,
            vf_clip (value clipping range in scaled return units; None: none), max_grad_norm (per network);
            reward_scale: rewards are multiplied by this before learning (the history's episode returns are
            not); None: fixed after the first rollout to 1 / the standard deviation of its discounted returns,
            so that the critic's targets are of order 1 whatever the game's points.
            device ("cpu", "cuda", "cuda:N", "auto"): where the networks live and learn (the env and buffers stay
            on the host; the initial weights are drawn on the CPU; sampling draws on the device). max_seconds: a
            wall-clock budget (the learning rate decays by whichever budget is further spent). init: start from
            this policy's weights (`load_policy`). critic_warmup: learner steps at the start in which only the
            critic learns. privileged_critic: an asymmetric critic that also reads
            `venv.privileged_observations()`; the saved policy is the actor alone. action_table: the actor adds a
            learned logit per value of each action's key (the encoder's `action_keys`). precision: "fp32", or
            "bf16": the forward passes under torch's bfloat16 autocast (weights, optimiser, losses and the saved
            policy stay float32; faster where the CPU multiplies bfloat16 natively:
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


def start_policy(folder: str, game: str, options: dict[str, Any], name: str) -> tuple[Policy, float | None]:
    """The policy saved in `folder` to start a run from (`load_policy`) and its reward scale where the run it
    comes from says and played the same reward options (else None, with a warning: this run measures its own)."""
    import warnings

    policy, scale = load_policy(folder, game, rules_of(options))
    trained = trained_env_options(folder)
    changed = {k: (trained.get(k), options.get(k)) for k in ENV_ONLY
               if trained is not None and trained.get(k) != options.get(k)}
    if scale is not None and (trained is None or changed):
        why = ", ".join(f"{k}={a!r} then, {b!r} now" for k, (a, b) in changed.items()) or "not recorded"
        warnings.warn(f"{name}'s reward scale is not carried over (its reward options: {why}); this run measures "
                      "its own from the first rollout", stacklevel=2)
        scale = None
    return policy, scale


def trained_env_options(folder: str) -> dict[str, Any] | None:
    """The env options a saved run of this learner trained with (`run.json`, else the policy's provenance), or None
    where the folder does not say (a student distilled elsewhere)."""
    for name in ("run.json", "policy.json"):
        path = os.path.join(folder, name)
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8") as f:
            d = json.load(f)
        prov = d.get("provenance", d) if name == "policy.json" else d
        if isinstance(prov, dict) and isinstance(prov.get("env_options"), dict):
            return prov["env_options"]
    return None


#: Keys of a provenance that describe a chain of runs rather than one run.
_CHAIN_KEYS = ("stages", "steps_in_all", "wall_s_in_all")


def earlier_stages(folder: str) -> list[dict[str, Any]]:
    """The runs a policy folder's weights came from, oldest first: its provenance's `stages` where it has them (a
    policy continued before; what its provenance says beyond them, such as how it was picked, goes with the last),
    else its provenance as one stage; [] where the folder records none."""
    from agents.learned import read_meta

    prov = read_meta(folder).get("provenance") if os.path.exists(os.path.join(folder, "policy.json")) else None
    if not isinstance(prov, dict) or not prov:
        return []
    stages = prov.get("stages")
    if isinstance(stages, list) and stages and all(isinstance(s, dict) for s in stages):
        return [*(dict(s) for s in stages[:-1]), {**_one_run(prov), **stages[-1]}]
    return [_one_run(prov)]


def _one_run(prov: dict[str, Any]) -> dict[str, Any]:
    """A provenance without the keys that describe a chain of runs."""
    return {k: v for k, v in prov.items() if k not in _CHAIN_KEYS}


def chained(own: dict[str, Any], earlier: list[dict[str, Any]]) -> dict[str, Any]:
    """A run's provenance with the runs it continued: `stages` (theirs, then this run's own), and `steps_in_all` /
    `wall_s_in_all` summed over them. Without earlier stages, `own` as it is."""
    if not earlier:
        return own
    stages = [*earlier, _one_run(own)]
    return {**own, "steps_in_all": sum(int(s.get("steps") or 0) for s in stages),
            "wall_s_in_all": round(sum(float(s.get("wall_s") or 0.0) for s in stages), 1), "stages": stages}


def write_history(history: list[dict[str, Any]], path: str) -> None:
    """The history as CSV, one row per update."""
    if not history:
        return
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(dict.fromkeys(k for h in history for k in h)))
        w.writeheader()
        w.writerows(history)


def write_run_curve(history: list[dict[str, Any]], out: str, title: str, points: int = 400,
                    references: dict[str, Any] | None = None) -> None:
    """`curve.csv` and `curve.png` in `out` as every training run draws them (`train.curve.write_curve`): the
    training return against learner steps, smoothed with its band, the evaluation points (`Evaluator`: win rate
    and mean score, with `references`' levels as lines) and wall-clock minutes on a second axis; at most `points`
    updates (evenly spaced, the last one and every evaluated one kept)."""
    from train.curve import WALL, write_curve

    if not history:
        return
    step = max(1, -(-len(history) // points))
    keep = [h for i, h in enumerate(history) if i % step == 0 or i == len(history) - 1 or EVAL_KEYS[0] in h]
    write_curve([{"timesteps": float(h["steps"]), "mean_return": float(h["mean_return"]), WALL: float(h["wall_s"]),
                  **{k: float(h[k]) for k in EVAL_KEYS if k in h}} for h in keep], out, title, references=references)


# --- evaluation games: the curve's win rate, the baselines' levels, the final paired comparison ---------------------
#: The history's columns of an evaluation point (`train.curve.evaluate_policy_agent`'s).
EVAL_KEYS = ("eval_win_rate", "eval_mean_score")
_EVAL_STREAM = 0xE7A1  # the spawn key of the evaluation games' stream (not the vector env's tables')


class Evaluator:
    """The learner's evaluation games (`--eval-every`), as the SB3 runs play them (`train.curve.evaluate_policy_agent`:
    seats drawn at random, a game cut at `EVAL_MAX_TURNS` has no winner): the policy, exported as the student it is
    saved as and played its way (argmax, or a sample for an action scorer), in Python against the run's opponents.
    Every point plays the same games (deals, seats, the opponents' generators: one stream of the run's seed), so
    the points differ by the policy alone; `baselines` are measured once on those games, as reference lines.

    Args:
        game: the game id; options: the game's options (the run's first variant).
        opponents: the opponents' agent ids (each seat draws one of them, as the SB3 runs do).
        games: evaluation games a point.
        seed: the run's seed.
        baselines: agent ids measured in the learner's place.
    """

    def __init__(self, game: str, options: dict[str, Any], opponents: Sequence[str], games: int, seed: int,
                 baselines: Sequence[str] = ()):
        import envs
        from train.curve import baseline_levels

        self.game_name, self.options, self.games = game, dict(options), int(games)
        self.game = envs.make_game(game, **self.options)
        self.opponent_ids = list(dict.fromkeys(opponents))
        self.seq = np.random.SeedSequence(int(seed), spawn_key=(_EVAL_STREAM,))  # the evaluation games' stream
        self.levels = baseline_levels(self.game, game, list(baselines), self.opponent_ids, self.games, self.seq)

    def measure_agent(self, agent: Any) -> dict[str, float]:
        """Win rate and mean score of `agent` (an agent or an agent id) on the evaluation games."""
        from train.curve import measure_on

        return measure_on(self.game, self.game_name, agent, self.opponent_ids, self.games, self.seq)

    def measure(self, policy: Policy, rules: dict[str, Any]) -> dict[str, float]:
        """The policy's win rate and mean score on the evaluation games."""
        from agents.learned import LearnedAgent
        from train.curve import eval_rngs

        student = to_student(policy, self.game_name, rules)
        rng = eval_rngs(self.seq, len(self.opponent_ids))[1]
        return self.measure_agent(LearnedAgent(student, rng, sample=student.play == "sample", name="learner"))

    def references(self) -> dict[str, list[tuple[float, str]]]:
        """The curve's lines: an equal share where the learner holds one seat of n, and each baseline's level."""
        from envs.core.spec import spec
        from train.curve import references_for

        refs = references_for(self.game, spec(self.game_name), "one_seat", self.levels)
        return {k: v for k, v in refs.items() if k in EVAL_KEYS}


def final_paired(folder: str, game: str, options: dict[str, Any], against: Sequence[str], baselines: Sequence[str],
                 games: int, seed: int) -> list[Any]:
    """`evaluate.paired.run_paired` of the saved policy (`learned:<folder>`) against each of `baselines` in its
    seat, against the run's opponents, on `games` deals of `seed` (a stream the run never trained or evaluated on)."""
    from evaluate.paired import format_paired, run_paired

    out = []
    for b in baselines:
        res = run_paired(game, f"learned:{folder}", b, list(against), games=games, seed=seed, options=options)
        print(format_paired(res), flush=True)
        out.append(res)
    return out


# --- a league of opponents ------------------------------------------------------------------------------------------
class League:
    """The opponents of a league run (`--league`): the target line-up, baseline members and frozen snapshots of the
    learner, installed in every table group (`--also` variant) as a `Pool` that each table draws from at its next
    reset, never mid-episode.

    Half of the draws seat the target line-up (`--opponents`), the other half one member, uniformly (a baseline or a
    snapshot), in every opponent seat; with no member yet, every draw seats the target. A snapshot plays by
    sampling, as the learner does, through `agents.vector.batch_policy` (one forward over the tables where it is to move),
    bound to each group's game (RoboRally's features read the group's board). The `size` newest snapshots are kept.

    Args:
        game: the game id.
        groups: (vector env, its game options) per table group; each env takes `set_opponents`.
        target: the target line-up for a number of players (agent ids).
        baselines: member agent ids (each with a kernel in the game's vector env).
        size: the snapshots kept (0: none; the league is then a fixed mix of the target and the baselines).
    """

    def __init__(self, game: str, groups: list[tuple[Any, dict[str, Any]]], target: Callable[[int], list[str]],
                 baselines: Sequence[str], size: int):
        import envs

        self.game, self.groups, self.target = game, list(groups), target
        self.baselines, self.size = list(baselines), int(size)
        self.engines = [envs.make_game(game, **opts) for _, opts in self.groups]
        self.snapshots: list[list[Any]] = []  # one BatchPolicy per group for each snapshot, oldest first
        self.students: dict[int, Any] = {}  # snapshot number -> its student
        self.weights: dict[int, dict[str, Any]] = {}  # snapshot number -> the learner's weights then
        self.added = 0
        self.install()

    def add(self, policy: Policy, rules: dict[str, Any]) -> None:
        """Freeze `policy` (its present weights) as the newest snapshot and seat the new pool."""

        if self.size == 0:
            return
        self.added += 1
        self.weights[self.added] = {k: v.detach().cpu().clone() for k, v in policy.state_dict().items()}
        self.students[self.added] = to_student(policy, self.game, rules)
        self.snapshots.append(self._seatable(self.added))
        del self.snapshots[:-self.size]
        self.install()
        held = set(self._held())
        for k in [k for k in self.students if k not in held]:  # neither in the pool nor seated at a table
            del self.students[k], self.weights[k]

    def _held(self) -> list[int]:
        """The snapshots the pool or a slot of a group's env holds."""
        from envs.core.vector_state import batch_registry

        seated = {_snapshot_number(p) for venv, _ in self.groups for reg in batch_registry(venv) for p in reg}
        seated.discard(None)
        return sorted(seated | {_snapshot_number(snap[0]) for snap in self.snapshots})

    def _seatable(self, number: int) -> list[Any]:
        """Snapshot `number` as one batch policy per group (named `snapshot <number>`)."""
        from agents.vector import batch_policy

        student, name = self.students[number], f"snapshot {number}"
        return [batch_policy(student, game=g, play="sample", name=name) for g in self.engines]

    def state(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """The league as a checkpoint keeps it: (numbers: the snapshots added, those in the pool, the snapshot in
        each slot of each group's envs; tensors: the weights of every snapshot a pool or a slot holds)."""
        from envs.core.vector_state import batch_registry

        # a slot holds a snapshot (its number), a policy of the line-up (its name: the env seats it anew) or none
        slots = [[[p if p is None else _snapshot_number(p) or p.name for p in reg] for reg in batch_registry(venv)]
                 for venv, _ in self.groups]
        pool = [_snapshot_number(snap[0]) for snap in self.snapshots]
        return {"added": self.added, "pool": pool, "slots": slots}, {str(k): self.weights[k] for k in self._held()}

    def restore(self, numbers: dict[str, Any], tensors: dict[str, Any], template: Policy, rules: dict[str, Any]) -> None:
        """Put `state()`'s output back into a league built alike (`template`: a policy of the learner's shape),
        before its envs' tables are restored: the same snapshots in the pool and in the same slots of every env
        (a table's seat code names its slot)."""
        import copy

        from envs.core.vector_state import batch_registry, set_batch_registry

        for key, weights in tensors.items():
            policy = copy.deepcopy(template)
            policy.load_state_dict(weights)
            self.weights[int(key)] = weights
            self.students[int(key)] = to_student(policy, self.game, rules)
        self.added = int(numbers["added"])
        seatable = {k: self._seatable(k) for k in self.students}
        self.snapshots = [seatable[k] for k in numbers["pool"]]
        regs = []
        for g, ((venv, _), group) in enumerate(zip(self.groups, numbers["slots"])):
            present = {p.name: p for reg in batch_registry(venv) for p in reg if p is not None}
            regs.append([[None if k is None else present[k] if isinstance(k, str) else seatable[k][g] for k in reg]
                         for reg in group])
        for (venv, _), group in zip(self.groups, regs):
            set_batch_registry(venv, group)
        self.install()  # the pool's members keep their slots; the slots' other policies come back next
        for (venv, _), group in zip(self.groups, regs):
            set_batch_registry(venv, group)

    def install(self) -> None:
        """Give every group its pool (`set_opponents`: each table seats it at its next reset)."""
        from agents.vector import resolve_opponents
        from envs.core.vector import Pool

        for i, ((venv, opts), engine) in enumerate(zip(self.groups, self.engines)):
            seats = engine.num_players - 1
            members = [[b] * seats for b in self.baselines] + [[snap[i]] * seats for snap in self.snapshots]
            pool = Pool([self.target(engine.num_players), *members], [max(len(members), 1), *[1.0] * len(members)])
            venv.set_opponents(resolve_opponents(self.game, pool, opts))

    def describe(self) -> dict[str, Any]:
        """The league's settings and state, for the run's provenance."""
        return {"baselines": self.baselines, "size": self.size, "snapshots_added": self.added}


def _saved_game(folder: str) -> str | None:
    """The game of the policy saved in `folder` (its `policy.json`), None where there is none or it names none."""
    try:
        with open(os.path.join(folder, "policy.json"), encoding="utf-8") as f:
            game = json.load(f).get("game")
    except (OSError, ValueError, AttributeError):
        return None
    return game if isinstance(game, str) else None


def _snapshot_number(policy: Any) -> int | None:
    """The number of a league snapshot's batch policy (named `snapshot <number>`), else None."""
    name = getattr(policy, "name", "")
    return int(name.split()[-1]) if isinstance(name, str) and name.startswith("snapshot ") else None


# --- command line ---------------------------------------------------------------------------------------------------
def variant_options(game: str, options: dict[str, Any], also: Sequence[str]) -> list[dict[str, Any]]:
    """The options of each table group: `options`, then each `also` change ("KEY=VALUE [KEY=VALUE]", spaces or
    ";" between) on top of them."""
    import envs
    from envs.core.options import parse_options

    return [dict(options)] + [{**options, **parse_options(envs.config_class(game), re.split(r"[;\s]+", a.strip()))}
                              for a in also]


def variant_envs(game: str, variants: list[dict[str, Any]], n_envs: int, line_up: Callable[[int], list[str]],
                 seed: int, control: str, features: str | None) -> list[Any]:
    """One compiled vector env of `n_envs` tables per variant, each with its own line-up (`line_up(seats)`: a
    variant's seats may differ), the first seeded by `seed` and variant i by `variant_seed(seed, i)`; an action
    scorer's inputs as observations with `features`."""
    import agents
    import envs

    out = []
    for i, opts in enumerate(variants):
        v = agents.vector_env(game, n_envs, opponents=line_up(envs.make_game(game, **opts).num_players),
                              seed=seed if i == 0 else variant_seed(seed, i), control=control, copy=False, **opts)
        out.append(agents.feature_vector_env(v, features) if features else v)
    return out


def variant_seed(seed: int, i: int) -> int:
    """The vector env seed of the run's `--also` variant i >= 1: hashed from (seed, i), child i of the run's seed."""
    from train.seeds import child

    return int(child(np.random.SeedSequence(int(seed)), i).generate_state(1, np.uint64)[0] >> np.uint64(1))


#: Environment options that are not rules: left out of the saved student's options (it plays any reward setting).
ENV_ONLY = ("reward",)


def rules_of(options: dict[str, Any]) -> dict[str, Any]:
    """The game options a saved policy records: `options` without the reward settings (`ENV_ONLY`)."""
    return {k: v for k, v in options.items() if k not in ENV_ONLY}


def build_parser() -> argparse.ArgumentParser:
    """`python -m train.cleanrl_ppo GAME --timesteps N --out DIR` (defaults: the game's `python -m train` preset)."""
    from evaluate.cli import Parser, nonnegative_float, positive_int

    p = Parser(prog="python -m train.cleanrl_ppo",
               description="CleanRL-style PPO (one readable torch file) on a game's batched compiled vector env; "
                           "defaults come from the game's `python -m train` preset.")
    p.add_argument("game", help="a game with a compiled vector env (e.g. lama)")
    p.add_argument("--timesteps", type=positive_int(10**11), default=None, help="learner steps (default: the preset's)")
    p.add_argument("--out", type=str, required=True, help="folder for the policy (policy.json, weights.pt), "
                   "critic.pt, history.csv, curve.csv/curve.png and run.json; one that holds another game's policy "
                   "is refused")
    p.add_argument("--overwrite", action="store_true", help="write over another game's policy in --out")
    p.add_argument("--opponents", type=str, default=None, help="comma-separated opponent ids, NAME*K repeats "
                   "(default: the preset's)")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="game option, repeatable")
    p.add_argument("--control", choices=["one_seat", "all_seats"], default="one_seat",
                   help="all_seats: one policy in every seat (self-play: sign-flipped advantages in a two-player zero-sum "
                        "game, per-seat trajectories otherwise, one team in The Game)")
    p.add_argument("--n-envs", type=positive_int(8192), default=None, help="tables (default: the preset's)")
    p.add_argument("--n-steps", type=positive_int(4096), default=None, help="steps per table per rollout")
    p.add_argument("--minibatch", type=positive_int(), default=None, help="samples per gradient step")
    p.add_argument("--epochs", type=positive_int(100), default=None, help="passes over each rollout")
    p.add_argument("--lr", type=nonnegative_float, default=None, help="Adam learning rate (decays linearly to 0)")
    p.add_argument("--ent-coef", type=nonnegative_float, default=None, help="entropy bonus")
    p.add_argument("--gamma", type=nonnegative_float, default=None, help="discount")
    p.add_argument("--gae-lambda", type=nonnegative_float, default=0.95, help="GAE lambda (default 0.95)")
    p.add_argument("--clip", type=nonnegative_float, default=0.2, help="surrogate clip range (default 0.2)")
    p.add_argument("--vf-clip", type=nonnegative_float, default=0.2, help="value clip range in scaled return units "
                   "(default 0.2; 0: none)")
    p.add_argument("--reward-scale", type=nonnegative_float, default=None, help="multiply rewards by this "
                   "(default: 1 / the std of the first rollout's discounted returns)")
    p.add_argument("--hidden", type=str, default=None, help="hidden sizes, e.g. 128,128 (default: the preset's)")
    p.add_argument("--seed", type=positive_int(low=0), default=0, help="seed of the weights, sampling and tables")
    p.add_argument("--threads", type=positive_int(64), default=1, help="torch threads (default 1)")
    p.add_argument("--device", type=str, default="cpu", help="where the networks learn: cpu (default), cuda, "
                   "cuda:N or auto; the env stays on the CPU")
    p.add_argument("--precision", choices=PRECISIONS, default="fp32", help="bf16: the networks' forward passes in "
                   "bfloat16 autocast (weights, losses and the saved policy stay float32); faster on CPUs with "
                   "AMX or AVX512-BF16, slower elsewhere (default fp32)")
    p.add_argument("--max-minutes", type=nonnegative_float, default=None, help="wall-clock budget: stop after "
                   "the update that ends past it (the learning rate decays by the budget further spent)")
    p.add_argument("--init-from", type=str, default=None, metavar="FOLDER|ID", help="start from a saved run of this "
                   "learner (its actor, critic.pt and reward scale; its hidden sizes) or a shipped ReLU policy "
                   "(e.g. lama/learned: a fresh critic; see --critic-warmup); the provenance records its runs as earlier stages")
    p.add_argument("--privileged-critic", action="store_true", help="an asymmetric critic: it also reads what each "
                   "position hides from the learner (the vector env's privileged_observations(), e.g. the other "
                   "hands); the actor, and so the saved policy, reads only its observation")
    p.add_argument("--action-table", action="store_true", help="the actor also adds a learned logit per value of "
                   "each action's key in the observation (the game encoder's action_keys, num_action_keys numbers); "
                   "implied by an --init-from policy that has one, added at 0 to one that has not")
    p.add_argument("--critic-warmup", type=positive_int(low=0), default=0, metavar="STEPS", help="with --init-from: "
                   "learner steps at the start that train the critic alone (default 0)")
    p.add_argument("--features", type=str, default=None, metavar="NAME", help="learn an action scorer over this "
                   "feature set (agents.learned; e.g. roborally) instead of an MLP over the observation (default: "
                   "the --init-from policy's)")
    p.add_argument("--also", action="append", default=[], metavar="'KEY=VALUE [KEY=VALUE]'", help="more tables (as "
                   "many again) under these option changes, stepped with the rest (e.g. 'board=race_medium "
                   "num_robots=4'; ';' also separates): one policy learns several variants at once; needs spaces of "
                   "one size (an action scorer's features); repeatable")
    p.add_argument("--save-every", type=positive_int(), default=None, metavar="UPDATES", help="also save the "
                   "policy every this many updates, as OUT/snapshots/<steps>/ (and history.csv so far)")
    p.add_argument("--league", type=positive_int(), default=None, metavar="UPDATES", help="a league: every this "
                   "many updates a frozen snapshot of the learner joins the opponents; each table draws its "
                   "opponents at its next reset: half of the time the --opponents line-up, else a league member "
                   "(--league-baselines and snapshots, uniformly), each filling every opponent seat")
    p.add_argument("--league-baselines", type=str, default=None, metavar="IDS", help="with --league: more league "
                   "members, comma-separated agent ids with kernels (e.g. random,roborally/random)")
    p.add_argument("--league-size", type=positive_int(1000, low=0), default=8, metavar="K", help="with --league: the "
                   "snapshots kept, the oldest dropped first (default 8; 0: none, a fixed mix of the --opponents "
                   "line-up, half of the draws, and the --league-baselines)")
    p.add_argument("--eval-every", type=positive_int(), default=None, metavar="UPDATES", help="play evaluation games "
                   "every this many updates (and at the end): the policy's win rate and mean score on the curve, "
                   "the same games each time (the run's first variant, against its opponents, in Python)")
    p.add_argument("--eval-games", type=positive_int(), default=200, metavar="N", help="evaluation games a point "
                   "(default 200)")
    p.add_argument("--eval-baselines", type=str, default=None, metavar="IDS", help="with --eval-every: agents measured "
                   "once on the same games in the policy's place, drawn as lines (e.g. lama/first,lama/learned)")
    p.add_argument("--final-paired", type=str, default=None, metavar="IDS", help="after training, the saved policy "
                   "against each of these agents in its seat, paired on the same deals (evaluate's --paired), "
                   "written to OUT/eval.json")
    p.add_argument("--final-games", type=positive_int(), default=500, metavar="N", help="deals of --final-paired "
                   "(default 500; each played in every seat by both agents)")
    p.add_argument("--final-seed", type=positive_int(low=0), default=None, metavar="S", help="seed of --final-paired's "
                   "deals (default 1,000,000 + --seed: deals never used to train or to evaluate)")
    return p


def main(argv: list[str] | None = None) -> int:
    """The command line; usage errors are one line and exit status 2."""
    from evaluate.cli import fail

    argv = sys.argv[1:] if argv is None else argv
    args = build_parser().parse_args(argv)
    prog = "python -m train.cleanrl_ppo"
    try:
        run = _configure(args)
    except (ValueError, NotImplementedError) as e:
        return fail(str(e), prog, 2)
    torch.set_num_threads(args.threads)
    try:
        os.makedirs(args.out, exist_ok=True)
    except OSError as e:
        return fail(f"cannot make --out {args.out!r} ({e.strerror})", prog, 2)
    return _learn_and_save(args, argv, run, prog)


def _configure(args: argparse.Namespace) -> Any:
    """What the command line's run is made of (`types.SimpleNamespace`: the preset, options, opponents, device,
    network, start, vector envs, league, evaluator and settings), every flag checked before any work.

    Raises:
        ValueError, NotImplementedError: one line saying what is wrong.
    """
    import types

    import agents
    import envs
    from envs.core.options import parse_options
    from evaluate.cli import check_outputs
    from train.presets import preset

    check_outputs(args)
    held = _saved_game(args.out)
    if held is not None and held != args.game and not args.overwrite:
        raise ValueError(f"--out {args.out!r} holds a saved {held} policy, not {args.game}; give another folder, "
                         "or --overwrite")
    if args.game not in envs.available_games():
        raise ValueError(f"unknown game {args.game!r}; allowed: {', '.join(envs.available_games())}")
    run = types.SimpleNamespace(pre=preset(args.game), init=None, init_scale=None, earlier=[])
    pre = run.pre
    run.options = {**pre.get("options", {}), **parse_options(envs.config_class(args.game), args.option)}
    run.opponents = (agents.expand_agent_ids(args.opponents) if args.opponents
                     else list(pre.get("opponents", ["random"])))
    run.device = resolve_device(args.device)
    if args.max_minutes is not None and args.max_minutes <= 0:
        raise ValueError(f"--max-minutes must be > 0, got {args.max_minutes:g}")
    run.hidden = [int(h) for h in args.hidden.split(",")] if args.hidden else list(pre.get("net_arch", [128, 128]))
    if not run.hidden or min(run.hidden) < 1:
        raise ValueError(f"--hidden must be positive sizes such as 128,128, got {args.hidden!r}")
    run.game = envs.make_game(args.game, **run.options)
    if (args.league_baselines or args.league_size != 8) and not args.league:
        raise ValueError("--league-baselines and --league-size apply with --league UPDATES")
    if args.eval_baselines and not args.eval_every:
        raise ValueError("--eval-baselines applies with --eval-every UPDATES")
    if (args.final_seed is not None or args.final_games != 500) and not args.final_paired:
        raise ValueError("--final-games and --final-seed apply with --final-paired IDS")
    if args.critic_warmup and not args.init_from:
        raise ValueError("--critic-warmup applies with --init-from (a fresh policy has nothing to keep)")
    if args.init_from:
        _start_from_flag(args, run)
    run.variants = variant_options(args.game, run.options, args.also)
    try:
        _build_envs(args, run)
    except ValueError as e:
        if args.control == "all_seats" and "all_seats" in str(e):  # the env's own refusal of the control
            raise NotImplementedError(f"{args.game}'s vector env has no control='all_seats' ({e}); this learner "
                                      f"needs one that gives {', '.join(ALL_SEATS_KEYS)}") from None
        raise
    run.settings = {
        "total_steps": args.timesteps or pre.get("timesteps", 1_000_000),
        "n_steps": args.n_steps or pre.get("n_steps", 64),
        "minibatch": args.minibatch or pre.get("batch_size", 8192),
        "epochs": args.epochs or pre.get("n_epochs", 2),
        "lr": args.lr if args.lr is not None else pre.get("learning_rate", 3e-4),
        "ent_coef": args.ent_coef if args.ent_coef is not None else pre.get("ent_coef", 0.01),
        "gamma": args.gamma if args.gamma is not None else pre.get("gamma", 0.99),
        "gae_lambda": args.gae_lambda, "clip": args.clip, "vf_clip": args.vf_clip or None,
        "reward_scale": args.reward_scale or run.init_scale,
        "hidden": run.hidden, "seed": args.seed,
    }
    return run


def _start_from_flag(args: argparse.Namespace, run: Any) -> None:
    """`--init-from`: the start policy, its reward scale (where its reward options are this run's), its earlier
    stages, and what it implies (its feature set, its action table, its hidden sizes), into `run` and `args`."""
    from agents.pretrained import checkpoints

    shipped = checkpoints()
    if not os.path.isdir(args.init_from) and args.init_from not in shipped:
        raise ValueError(f"--init-from {args.init_from!r} is neither a folder nor a shipped policy; shipped "
                         f"for {args.game}: {', '.join(k for k in sorted(shipped) if k.startswith(args.game + '/'))}")
    folder = shipped.get(args.init_from, args.init_from)
    run.earlier = earlier_stages(folder)  # read now: the folder may be replaced while this run learns
    init, run.init_scale = start_policy(folder, args.game, run.options, args.init_from)
    if args.features and args.features != getattr(init, "features", None):
        raise ValueError(f"--features {args.features} differs from {args.init_from}'s "
                         f"{getattr(init, 'features', None) or 'observation MLP'}")
    args.features = getattr(init, "features", None)
    args.action_table = args.action_table or init.table is not None
    if args.hidden and run.hidden != init.hidden:
        raise ValueError(f"--hidden {args.hidden} differs from {args.init_from}'s {init.hidden}")
    run.hidden = list(init.hidden)
    run.init = init


def _build_envs(args: argparse.Namespace, run: Any) -> None:
    """The vector envs of every variant (each with its own line-up: a variant's seats may differ), the league,
    the final comparison's agents and the evaluator, into `run`; what the envs cannot do is refused now."""
    import agents
    from train.ppo import seat_line_up

    run.line_up = line_up = functools.partial(seat_line_up, list(run.opponents), control=args.control)
    run.venvs = variant_envs(args.game, run.variants, args.n_envs or run.pre.get("n_envs", 1024), line_up, args.seed,
                             args.control, args.features)
    run.venv = venv = run.venvs[0] if len(run.venvs) == 1 else agents.MultiVectorEnv(run.venvs)
    run.opponents = line_up(run.game.num_players)
    run.league = None
    if args.league:
        if args.control == "all_seats" or run.game.num_players == 1:
            raise ValueError("--league needs opponent seats: a game of two or more players, control one_seat")
        run.league = League(args.game, list(zip(run.venvs, run.variants)), line_up,
                            agents.expand_agent_ids(args.league_baselines) if args.league_baselines else [],
                            args.league_size)
    if (args.eval_every or args.final_paired) and args.control == "all_seats":
        raise ValueError("--eval-every and --final-paired measure one seat against the opponents: control one_seat")
    run.final_ids = agents.expand_agent_ids(args.final_paired) if args.final_paired else []
    for agent_id in run.final_ids:
        agents.make(agent_id, run.game, rng=np.random.default_rng(0), game_name=args.game)  # a bad id fails now
    if args.privileged_critic and any(self_play_mode(v) == "seats" for v in run.venvs):
        raise ValueError("--privileged-critic with per-seat self-play (more than two seats, or seats with "
                         "their own returns) is not supported")
    if args.privileged_critic:
        privileged_dim(venv)  # a vector env without privileged rows fails now, in one line
    if args.action_table:
        if args.features:
            raise ValueError("--action-table is for an MLP over the observation, not an action scorer (--features)")
        if args.also:
            raise ValueError("--action-table learns on one variant (drop --also)")
        action_keys_of(getattr(venv, "encoder", None), args.game)  # a game without action keys fails now
    run.evaluator = None
    if args.eval_every:
        run.evaluator = Evaluator(args.game, run.options, run.opponents, args.eval_games, args.seed,
                                  agents.expand_agent_ids(args.eval_baselines) if args.eval_baselines else [])


def _run_title(args: argparse.Namespace, run: Any) -> str:
    """The curve's title: the game, its variant (and how many more), the opponents, the league."""
    from envs.core.spec import Variant
    from envs.core.spec import spec as game_spec
    from train.curve import lineup_label

    against = (" (one policy in every seat)" if args.control == "all_seats" else
               " against " + lineup_label(run.opponents) if run.opponents else "")
    more = f" and {len(args.also)} more variant{'s' * (len(args.also) > 1)} ({'; '.join(args.also)})" if args.also else ""
    title = f"{game_spec(args.game).title}, {Variant(args.game, run.options).label()}{more}: one-file PPO{against}"
    if run.league is not None:
        title += f", a league ({', '.join([*run.league.baselines, 'snapshots'])})"
    return title


def _say_run(args: argparse.Namespace, run: Any, prog: str) -> None:
    """The run's first lines: its variants, tables, opponents, device, league and evaluation levels."""
    from train.curve import lineup_label

    venv, game, opponents, league, evaluator = run.venv, run.game, run.opponents, run.league, run.evaluator
    if args.also:
        print(f"{prog}: {len(run.variants)} variants of {venv.num_envs // len(run.variants)} tables each: "
              + "; ".join(str(v) for v in run.variants), flush=True)
    seated = ', '.join(opponents) or ('(none)' if game.num_players == 1 else '(self-play)')
    print(f"{prog} {args.game}: {venv.num_envs} compiled tables, opponents {seated}, options {run.options}, "
          f"networks on {run.device}", flush=True)
    if league is not None:
        print(f"{prog}: a league: a snapshot every {args.league} updates (the {league.size} newest kept); half of the "
              f"draws {lineup_label(opponents)}, half one of {', '.join([*league.baselines, 'the snapshots'])}",
              flush=True)
    if evaluator is not None and evaluator.levels:
        print(f"{prog}: evaluation games ({args.eval_games} a point): "
              + ", ".join(f"{b} wins {v['eval_win_rate']:.3f}" for b, v in evaluator.levels.items()), flush=True)


def _learn_and_save(args: argparse.Namespace, argv: list[str], run: Any, prog: str) -> int:
    """Train (`train`, with the league, evaluation points and snapshots as the callback, stopped cleanly by SIGTERM
    or Ctrl-C), then write the policy, history, curve, run.json and the final comparison; returns the exit status."""
    from evaluate.cli import fail
    from evaluate.jsonio import write_json
    from train.report import git_commit
    from train.run import StopSignals

    _say_run(args, run, prog)
    league, evaluator = run.league, run.evaluator
    started = time.time()
    commit = git_commit()  # the code this run started from (the checkout may move on while it runs)
    rules = rules_of(run.options)

    def provenance(steps: int) -> dict[str, Any]:
        return chained({"method": "train.cleanrl_ppo", "command": "python -m train.cleanrl_ppo " + " ".join(argv),
                        "commit": commit, "steps": steps, "wall_s": round(time.time() - started, 1),
                        "device": str(run.device), "also": args.also, "init_from": args.init_from,
                        "critic_warmup": args.critic_warmup, "privileged_critic": args.privileged_critic,
                        "action_table": args.action_table, "precision": args.precision, "opponents": run.opponents,
                        "env_options": run.options, "settings": run.settings,
                        **({"league": {"every": args.league, **league.describe()}} if league is not None else {})},
                       run.earlier)

    title = _run_title(args, run)
    references = evaluator.references() if evaluator is not None else None
    seen: list[dict[str, Any]] = []

    def snapshot(entry: dict[str, Any], policy: Policy) -> None:
        seen.append(entry)
        if league is not None and entry["update"] % args.league == 0:
            league.add(policy, rules)
        if evaluator is not None and entry["update"] % args.eval_every == 0:
            entry.update(evaluator.measure(policy, rules))
            print(f"evaluation at {entry['steps']:,} steps: wins {entry['eval_win_rate']:.3f}, mean score "
                  f"{entry['eval_mean_score']:.3f} ({args.eval_games} games)", flush=True)
        if args.save_every and entry["update"] % args.save_every == 0:
            folder = os.path.join(args.out, "snapshots", f"{entry['steps']:012d}")
            os.makedirs(folder, exist_ok=True)
            save_policy(policy, folder, args.game, rules, provenance(entry["steps"]))
            write_history(seen, os.path.join(args.out, "history.csv"))
            write_run_curve(seen, args.out, title, references=references)

    with StopSignals() as stop:  # SIGTERM or Ctrl-C: the update under way ends, then the run saves what it has

        def watched(entry: dict[str, Any], policy: Policy) -> bool:
            snapshot(entry, policy)
            return stop.signum is None

        policy, history = train(run.venv, log_every=10, callback=watched, device=run.device, init=run.init,
                                critic_warmup=args.critic_warmup, privileged_critic=args.privileged_critic,
                                action_table=args.action_table, precision=args.precision,
                                max_seconds=None if args.max_minutes is None else 60.0 * args.max_minutes,
                                **run.settings)
    if evaluator is not None and history and EVAL_KEYS[0] not in history[-1]:
        history[-1].update(evaluator.measure(policy, rules))  # the policy the run saves, measured
    save_policy(policy, args.out, args.game, rules, provenance(history[-1]["steps"] if history else 0))
    write_history(history, os.path.join(args.out, "history.csv"))
    write_run_curve(history, args.out, title, references=references)
    run_info = provenance(history[-1]["steps"] if history else 0)
    if evaluator is not None:
        run_info["evaluation"] = {"every": args.eval_every, "games": args.eval_games, "baselines": evaluator.levels,
                                  "last": {k: history[-1][k] for k in EVAL_KEYS if history and k in history[-1]}}
    if stop.signum is not None:
        run_info["stopped"] = f"by {signal.Signals(stop.signum).name} after {run_info['steps']:,} steps"
    write_json(os.path.join(args.out, "run.json"), run_info)
    print(f"saved: {args.out} (learned:{args.out} plays it)", flush=True)
    if stop.signum is not None:
        return fail(f"stopped by {signal.Signals(stop.signum).name} after {run_info['steps']:,} steps; the policy so "
                    f"far is saved in {args.out} (continue it with --init-from {args.out})", prog, 128 + stop.signum)
    if run.final_ids:
        seed = args.final_seed if args.final_seed is not None else 1_000_000 + args.seed
        results = final_paired(args.out, args.game, run.options, run.opponents, run.final_ids, args.final_games, seed)
        write_json(os.path.join(args.out, "eval.json"), {"paired": [r.to_dict() for r in results]})
    return 0


if __name__ == "__main__":
    sys.exit(main())
