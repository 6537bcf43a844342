"""PPO in one file (CleanRL's style, plain torch) on a batched Gymnasium vector env with same-step autoreset and
action masks (`agents.vector_env(...)`); `train.vector_ppo` is its frame (run folder, checkpoints, resume, progress,
evaluation: `python -m train GAME`), `train(venv, total_steps=..., **settings)` its loop alone.

`Policy` is `train.networks`'; `Rollout` the buffers; `gae` the advantages (self-play's are `train.seats`');
`PPO.update` a rollout and its update; the opponents live in the vector env (docs/training.md, "A custom PyTorch
loop"). Rewards are scaled once, after the first rollout, to discounted returns of standard deviation 1 (the
critic's explained variance stayed at 0 over 1M L.A.M.A. steps unscaled, and reached 0.6 scaled).
"""

from __future__ import annotations

import dataclasses
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
import torch.nn as nn

from train.checkpoint import learner_state, load_learner_state
from train.config import Settings
from train.networks import Policy, autocast, load_policy, new_policy, resolve_device, save_policy, start_from
from train.seats import check_all_seats, check_venv, gae_seats, masks, seat_rewards, self_play_mode, truncated_values

__all__ = ["PPO", "Policy", "Rollout", "Settings", "gae", "load_policy", "save_policy", "train"]


# --- rollouts ------------------------------------------------------------------------------------------------
class Rollout:
    """The rollout buffers of `n_steps` x N decisions (numpy `(T, N, ...)`, shared with torch), allocated once, and
    the loop that fills them (`collect`): rewards, ends, a truncated episode's bootstrap value, seats to move."""

    def __init__(self, venv: Any, n_steps: int, zero_sum: bool | str, privileged: int = 0, keys: bool = False):
        T, n = int(n_steps), int(venv.num_envs)
        D, A = int(venv.single_observation_space.shape[0]), int(venv.single_action_space.n)
        # zero_sum: True / "flip" two-seat sign flips, "seats" per-seat trajectories, False / "one" one learner
        mode = ("flip" if zero_sum else "one") if isinstance(zero_sum, bool) else zero_sum
        self.mode, self.seats = mode, mode == "seats"
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
        self.act, self.done = np.zeros((T, n), np.int64), np.zeros((T, n), np.bool_)
        self.logp, self.val, self.rew, self.boot = (np.zeros((T, n), np.float32) for _ in range(4))
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
            check_all_seats(venv, self.info, mode)
            self.next_player[:] = self.info["current_player"]

    def collect(self, policy: Policy, generator: torch.Generator,
                device: torch.device | None = None) -> tuple[list[float], list[int]]:
        """Play `n_steps` decisions at every table (the networks on `device`, the buffers on the host); returns the
        (returns, lengths) of the episodes that ended."""
        venv, rows = self.venv, np.arange(self.n)
        device = device or torch.device("cpu")
        ep_returns: list[float] = []
        ep_lengths: list[int] = []
        policy.eval()
        self.player[0] = self.next_player
        privileged = self.next_priv is not None
        for t in range(self.T):
            self._act(t, policy, generator, device)
            self.next_obs, reward, term, trunc, info = venv.step(self.act[t])
            self.info = info
            if privileged:
                self.next_priv = venv.privileged_observations()
            self.done[t] = np.logical_or(term, trunc)
            if self.zero_sum:
                seat_reward = seat_rewards(venv, info)
                self.rew[t] = seat_reward[rows, self.player[t]]
                if self.seats:
                    self.rew_all[t] = seat_reward
                self.player[t + 1] = info["current_player"]
            else:
                self.rew[t] = reward
            self.boot[t] = 0.0
            cut = np.flatnonzero(np.logical_and(trunc, np.logical_not(term)))
            if cut.size:  # a truncated episode is valued from its last observation, not the new deal
                self.boot[t, cut] = self._final_values(t, cut, policy, device)
            if "_tabletop_episode" in info:
                ended = np.flatnonzero(info["_tabletop_episode"])
                ep_returns += np.asarray(info["tabletop_episode"]["r"])[ended].tolist()
                ep_lengths += np.asarray(info["tabletop_episode"]["l"])[ended].tolist()
        self.next_player[:] = self.player[self.T]
        with torch.no_grad():
            last = torch.from_numpy(np.asarray(self.next_obs, np.float32)).to(device)
            priv = torch.from_numpy(self.next_priv).to(device) if privileged else None
            value = policy.value(last, priv) if privileged else policy.value(last)
            self.last_values = value.cpu().numpy()
            if self.seats:  # every seat's value of the last position, from its own view
                for p in range(self.last_seat_values.shape[1]):
                    seen = np.asarray(venv.observe(rows, np.full(self.n, p, np.int64)), np.float32)
                    self.last_seat_values[:, p] = policy.value(torch.from_numpy(seen).to(device)).cpu().numpy()
        return ep_returns, ep_lengths

    def _act(self, t: int, policy: Policy, generator: torch.Generator, device: torch.device) -> None:
        """Record decision t's observation, mask (and privileged rows, action keys); sample its action and value."""
        self.obs[t] = self.next_obs
        self.mask[t] = masks(self.venv, self.info)
        privileged = self.next_priv is not None
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

    def _final_values(self, t: int, cut: np.ndarray, policy: Policy, device: torch.device) -> np.ndarray:
        """The critic's value of the last observation of each episode step t truncated (tables `cut`), for the seat
        of step t (`train.seats.truncated_values`)."""
        if self.next_priv is not None:
            raise NotImplementedError("an asymmetric critic cannot value a truncated episode's last observation (the "
                                      "env gives no privileged rows of it): run without truncation (max_turns)")
        final = np.stack([np.asarray(x, np.float32) for x in self.info["final_obs"][cut]])
        with torch.no_grad():
            v = policy.value(torch.from_numpy(final).to(device)).cpu().numpy()
        return truncated_values(v, self.info, cut, self.player[t], self.mode)

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


# --- advantages ----------------------------------------------------------------------------------------------
def gae(rewards: np.ndarray, values: np.ndarray, last_values: np.ndarray, dones: np.ndarray, bootstrap: np.ndarray,
        gamma: float, lam: float, signs: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Generalised advantage estimates and returns (float32 `(T, N)`) of a rollout with same-step autoreset: nothing
    flows back across `dones[t]`; `bootstrap[t]` values a truncated episode's last observation; `signs[t]` is -1
    where the next decision is the other seat's of a two-player zero-sum game (None: all +1)."""
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


# --- the update and the loop ----------------------------------------------------------------------------------
class PPO:
    """One PPO run on `venv` (`Settings`, or its fields as keywords), an update at a time (`update()`); `state()` /
    `load_state()` stop and resume it to the bit."""

    def __init__(self, venv: Any, settings: Settings | None = None, **given: Any):
        s = self.settings = Settings(**given) if settings is None else dataclasses.replace(settings, **given)
        check_venv(venv)
        self.venv, self.T = venv, int(s.n_steps)
        self.batch = self.T * int(venv.num_envs)
        self.minibatch = min(int(s.minibatch), self.batch)
        self.updates = -(-int(s.total_steps) // self.batch)
        self.max_seconds = s.max_seconds
        self.dev = resolve_device(s.device)
        self.forward = autocast(self.dev, s.precision)
        gen = torch.Generator().manual_seed(int(s.seed))
        self.rng = np.random.default_rng(int(s.seed))
        self.reward_scale = None if s.reward_scale is None else float(s.reward_scale)
        policy = new_policy(venv, s.hidden, gen, s.privileged_critic, s.action_table)
        if s.init is not None:
            start_from(policy, s.init, s.hidden)
        self.policy = policy.to(self.dev)
        # sampling draws on the device, from a generator of its own
        self.gen = gen if self.dev.type == "cpu" else torch.Generator(device=self.dev).manual_seed(int(s.seed))
        self.optimizer = torch.optim.Adam(self.policy.parameters(), lr=s.lr, eps=1e-5)
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
        if not self.settings.anneal_lr:
            return
        spent = self.update_index / self.updates
        if self.max_seconds is not None:
            spent = max(spent, self.wall() / self.max_seconds)
        for g in self.optimizer.param_groups:
            g["lr"] = self.settings.lr * max(0.0, 1.0 - spent)

    def update(self) -> dict[str, Any]:
        """Collect one rollout and learn from it; returns the update's history entry (see `train`)."""
        self._set_lr()
        self.update_index += 1
        t_collect = time.perf_counter()
        buf = self.buf
        with self.forward:
            ep_returns, ep_lengths = buf.collect(self.policy, self.gen, self.dev)
        if self.reward_scale is None:  # once: the discounted returns-to-go of the first rollout (values 0, lambda 1)
            self.reward_scale = 1.0 / max(float(buf.returns_to_go(self.settings.gamma).std()), 1e-8)
            if not np.isfinite(self.reward_scale):
                raise ValueError("the first rollout's returns are not finite numbers (a NaN or infinite reward): no "
                                 "reward scale can be measured")
        buf.scale(self.reward_scale)
        adv_buf, ret_buf = buf.advantages(self.settings.gamma, self.settings.gae_lambda)
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
        b_val, b_priv = torch.from_numpy(buf.val).view(batch).to(dev), buf.priv_t.view(batch, buf.priv.shape[2]).to(dev)
        b_keys = buf.keys_t.view(batch, buf.keys.shape[2]).to(dev)
        stats: list[tuple[torch.Tensor, ...]] = []  # (pg_loss, v_loss, entropy, approx_kl, clipfrac) a minibatch
        clip = self.settings.clip
        for _ in range(self.settings.epochs):
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
                if self.settings.vf_clip is not None:
                    v_clipped = b_val[idx] + (value - b_val[idx]).clamp(-self.settings.vf_clip, self.settings.vf_clip)
                    v_err = torch.max(v_err, (v_clipped - b_ret[idx]) ** 2)
                v_loss = 0.5 * v_err.mean()
                # an update that starts inside the warm-up trains the critic alone (so at least `critic_warmup` steps)
                loss = (self.settings.vf_coef * v_loss if self.steps - self.batch < self.settings.critic_warmup
                        else pg_loss - self.settings.ent_coef * entropy + self.settings.vf_coef * v_loss)
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                nn.utils.clip_grad_norm_(self.actor_params, self.settings.max_grad_norm)
                nn.utils.clip_grad_norm_(policy.critic.parameters(), self.settings.max_grad_norm)
                self.optimizer.step()
                with torch.no_grad():  # kept as tensors: one transfer per update, not five per minibatch
                    stats.append((pg_loss.detach(), v_loss.detach(), entropy.detach(),
                                  ((ratio - 1) - log_ratio).mean(), ((ratio - 1).abs() > clip).float().mean()))
        means = torch.stack([torch.stack(v).mean() for v in zip(*stats)]).cpu().tolist()
        return {k: float(v) for k, v in zip(("pg_loss", "v_loss", "entropy", "approx_kl", "clipfrac"), means)}

    state = learner_state  # everything the run is after its last update (`train.checkpoint`)
    load_state = load_learner_state  # `state()`'s output put back into a run built alike


def train(venv: Any, *, total_steps: int, log_every: int = 1,
          callback: Callable[[dict[str, Any], Policy], bool | None] | None = None,
          log: Callable[[str], None] | None = print, **settings: Any) -> tuple[Policy, list[dict[str, Any]]]:
    """Train a PPO policy on `venv` (a same-step autoreset `VectorEnv`, `Discrete` actions, flat observations) for
    about `total_steps` learner steps; returns (the `Policy`, one history dict per update). A line every `log_every`
    updates goes to `log`; `callback(entry, policy)` returning False stops; `settings`: `Settings`' fields."""
    run = PPO(venv, Settings(total_steps=total_steps, **settings))
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


if __name__ == "__main__":  # the module's old command: the frame runs this learner
    print("python -m train.cleanrl_ppo: the command is python -m train GAME (python -m train GAME --help)",
          file=sys.stderr)
    sys.exit(2)
