"""The one-file PPO (`train.cleanrl_ppo`): masks, GAE across same-step autoresets, the zero-sum sign flip,
learning a masked bandit, and the saved student playing as `learned:`; its runs through `python -m train` (and the
old command, `python -m train.cleanrl_ppo`, read as that)."""

from __future__ import annotations

import csv

import gymnasium
import numpy as np
import pytest
import torch
from gymnasium.vector import AutoresetMode, VectorEnv

from train.cleanrl_ppo import Policy, Rollout, gae, save_policy, train
from train.networks import MASKED_LOGIT
from train.seats import gae_seats

torch.set_num_threads(1)


def main(argv):
    """`python -m train ARGV` with the one-file learner and no evaluation games unless ARGV asks: its exit status."""
    from train.__main__ import main as train_main

    try:
        return train_main(["--learner", "cleanrl", "--eval-games", "0", "--final-eval-games", "0", "--no-progress",
                           *argv])
    except SystemExit as e:
        return e.code


# --- tiny vector envs, written for these tests ------------------------------------------------------------------
class ToyVectorEnv(VectorEnv):
    """Two-decision episodes. Observation `[k, i / N, 1]` at decision k (0, 1) of table i; action a in 0..2
    (action 2 illegal at decision 0, given only as `info["action_mask"]`); the reward of decision k with
    action a is `REWARD(k, a)`. After decision 1 an even table's episode terminates, an odd table's is
    truncated (its last observation `[2, i / N, 1]`); either way the table is dealt anew in the same step."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    @staticmethod
    def reward(k, a):
        """The reward of decision k with action a."""
        return (k + 1) * 10.0 + a

    def __init__(self, n):
        self.num_envs = n
        self.single_observation_space = gymnasium.spaces.Box(-10, 10, (3,), np.float32)
        self.single_action_space = gymnasium.spaces.Discrete(3)
        self.k = np.zeros(n, np.int64)
        self.rows = np.arange(n)

    def _obs(self, k):
        return np.stack([k, self.rows / self.num_envs, np.ones(self.num_envs)], 1).astype(np.float32)

    def _info(self):
        mask = np.ones((self.num_envs, 3), np.int8)
        mask[self.k == 0, 2] = 0
        return {"action_mask": mask}

    def reset(self, *, seed=None, options=None):
        self.k[:] = 0
        return self._obs(self.k), self._info()

    def step(self, actions):
        actions = np.asarray(actions)
        assert not np.any((self.k == 0) & (actions == 2)), "an illegal action was played"
        reward = self.reward(self.k, actions).astype(np.float32)
        ended = self.k == 1
        term = ended & (self.rows % 2 == 0)
        trunc = ended & (self.rows % 2 == 1)
        last = self._obs(self.k + 1)
        self.k = np.where(ended, 0, self.k + 1)  # same-step autoreset
        info = self._info()
        if ended.any():
            final = np.empty(self.num_envs, dtype=object)
            for r in np.flatnonzero(ended):
                final[r] = last[r]
            info.update(final_obs=final, _final_obs=ended.copy())
        return self._obs(self.k), reward, term, trunc, info


class FixedCritic(Policy):
    """A policy whose value is `0.5 + 3 * obs[0]` (known by hand), actions from the actor as usual."""

    def value(self, obs):
        return 0.5 + 3.0 * obs[:, 0]


def _hand_returns(acts, n, T, gamma, lam_is_one, last_k):
    """The returns each decision's GAE must target, from the toy env's definition, table by table."""
    V = lambda k: 0.5 + 3.0 * k  # noqa: E731 - the FixedCritic, as a function of the decision index
    out = np.zeros((T, n))
    for i in range(n):
        k_of = [t % 2 for t in range(T)]  # every table starts at decision 0 and episodes last two decisions
        for t in range(T):
            k = k_of[t]
            r = ToyVectorEnv.reward(k, acts[t, i])
            if k == 1:  # the episode ends with this decision
                tail = 0.0 if i % 2 == 0 else V(2)  # terminated: nothing; truncated: the last observation's value
            elif t + 1 < T:
                tail = (ToyVectorEnv.reward(1, acts[t + 1, i]) + gamma * (0.0 if i % 2 == 0 else V(2))
                        if lam_is_one else V(1))
            else:
                tail = V(last_k[i])  # the rollout stops mid-episode: the value after the last step
            out[t, i] = r + gamma * tail
    return out


@pytest.mark.parametrize("lam", [0.0, 1.0])
def test_gae_bookkeeping_across_same_step_autoresets(lam):
    n, T, gamma = 4, 5, 0.9
    venv = ToyVectorEnv(n)
    gen = torch.Generator().manual_seed(0)
    buf = Rollout(venv, T, zero_sum=False)
    buf.collect(FixedCritic(3, 3, [8], gen), gen)
    adv, ret = buf.advantages(gamma, lam)
    want = _hand_returns(buf.act, n, T, gamma, lam == 1.0, last_k=np.full(n, T % 2))
    np.testing.assert_allclose(ret, want, rtol=1e-5)
    np.testing.assert_allclose(adv, want - (0.5 + 3.0 * buf.obs[:, :, 0]), rtol=1e-5, atol=1e-5)
    assert buf.done.sum() == n * (T // 2) and not buf.mask[buf.obs[:, :, 0] == 0][:, 2].any()


def test_masking_never_selects_an_illegal_action():
    gen = torch.Generator().manual_seed(1)
    policy = Policy(6, 9, [16], gen)
    with torch.no_grad():  # make the illegal actions the most attractive ones before masking
        policy.actor[-1].bias[:] = torch.tensor([40.0, 0, 40, 0, 40, 0, 40, 0, 40])
    rng = np.random.default_rng(2)
    mask = rng.random((5000, 9)) < 0.3
    mask[np.arange(5000), rng.integers(0, 9, 5000)] = True
    mask[:, 1::2] &= rng.random((5000, 4)) < 0.9  # some rows hold only illegal-to-the-bias actions
    mask[~mask.any(1), 0] = True
    obs = torch.from_numpy(rng.normal(size=(5000, 6)).astype(np.float32))
    m = torch.from_numpy(mask)
    for greedy in (False, True):
        action, logp = policy.act(obs, m, gen, greedy=greedy)
        assert mask[np.arange(5000), action.numpy()].all()
        assert torch.isfinite(logp).all()
    logits = policy.logits(obs, m)
    assert (logits[~m] == MASKED_LOGIT).all()


def test_sampling_follows_the_masked_softmax():
    gen = torch.Generator().manual_seed(3)
    policy = Policy(2, 4, [4], gen)
    n = 40000
    obs = torch.zeros((n, 2))
    mask = torch.tensor([[True, False, True, True]]).expand(n, 4)
    with torch.no_grad():
        policy.actor[-1].weight.zero_()
        policy.actor[-1].bias[:] = torch.tensor([0.0, 5.0, 1.0, -1.0])
    action, _ = policy.act(obs, mask, gen)
    counts = np.bincount(action.numpy(), minlength=4)
    p = np.exp([0.0, 0.0, 1.0, -1.0]) * [1, 0, 1, 1]
    p /= p.sum()
    assert counts[1] == 0
    sd = np.sqrt(n * p * (1 - p))
    assert np.all(np.abs(counts - n * p) <= 5 * sd + 1e-9), (counts, n * p)


def test_zero_sum_sign_flip_by_hand():
    # Two tables, two seats. Table 0 alternates seats 0,1,0,1 and its episode ends at t=3;
    # table 1 plays seat 0 twice, then seat 1, and ends at t=2, then seat 0 starts again.
    players = np.array([[0, 0], [1, 0], [0, 1], [1, 0], [0, 1]])  # the seat to move at t = 0..4
    rewards = np.array([[1.0, 2.0], [-3.0, 0.5], [0.25, 4.0], [6.0, -1.0]], np.float32)
    dones = np.array([[0, 0], [0, 0], [0, 1], [1, 0]], bool)
    values = np.array([[0.3, -0.2], [0.1, 0.4], [-0.5, 0.7], [0.2, -0.6]], np.float32)
    last = np.array([0.0, 0.9], np.float32)
    signs = np.where(players[1:] == players[:-1], 1.0, -1.0).astype(np.float32)
    gamma = 0.8
    # lambda = 1: each decision's return is its seat's discounted reward to the episode's end, reading the
    # other seat's rewards with the opposite sign (zero sum), plus the seat-signed value after the rollout.
    _, ret = gae(rewards, values, last, dones, np.zeros_like(values), gamma, 1.0, signs)
    for i in range(2):
        for t in range(4):
            want, disc = 0.0, 1.0
            for u in range(t, 4):
                want += disc * rewards[u, i] * (1 if players[u, i] == players[t, i] else -1)
                disc *= gamma
                if dones[u, i]:
                    break
            else:
                want += disc * last[i] * (1 if players[4, i] == players[t, i] else -1)
            assert ret[t, i] == pytest.approx(want, rel=1e-5), (t, i)
    # lambda = 0: one step: r + gamma * (value of the next position, from the mover's side).
    _, ret0 = gae(rewards, values, last, dones, np.zeros_like(values), gamma, 0.0, signs)
    nxt = np.vstack([values[1:], last[None]])
    want0 = rewards + gamma * np.where(dones, 0.0, np.where(players[1:] == players[:-1], nxt, -nxt))
    np.testing.assert_allclose(ret0, want0, rtol=1e-5)
    # without the signs (one learner seat) the answer differs: the flip is doing the work
    _, plain = gae(rewards, values, last, dones, np.zeros_like(values), gamma, 1.0, None)
    assert not np.allclose(plain, ret)


class TwoSeatToyEnv(ToyVectorEnv):
    """The toy env played by both seats: seat k takes decision k; seat 1's reward is minus seat 0's."""

    control = "all_seats"
    num_players = 2

    def __init__(self, n, complete=True):
        super().__init__(n)
        self.complete = complete

    def _info(self):
        info = super()._info()
        if self.complete:
            info["current_player"] = self.k.copy()
        return info

    def step(self, actions):
        k = self.k.copy()
        obs, reward, term, trunc, info = super().step(actions)
        seat0 = np.where(k == 0, reward, -reward)
        info["rewards"] = np.stack([seat0, -seat0], 1)
        info["final_info"] = {"current_player": np.full(self.num_envs, 0)}  # the last obs [2, ...] is seat 0's turn
        return obs, reward, term, trunc, info


def test_all_seats_path_runs_and_refuses_an_env_without_seats():
    policy, history = train(TwoSeatToyEnv(8), total_steps=64, n_steps=4, minibatch=16, epochs=1, seed=0, log=None)
    assert len(history) == 2 and np.isfinite(history[-1]["v_loss"])
    with pytest.raises(NotImplementedError, match="current_player"):
        train(TwoSeatToyEnv(8, complete=False), total_steps=64, n_steps=4, seed=0, log=None)


class BanditVectorEnv(VectorEnv):
    """One-decision episodes: context c (one-hot of 4), 5 actions, reward PAYOFF[c, a] + N(0, 1) noise;
    the best action overall (4) is illegal in contexts 0 and 1."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}
    PAYOFF = np.array([[0.0, 1.0, 0.2, 0.4, 3.0], [0.9, 0.0, 0.3, 0.1, 3.0],
                       [0.0, 0.5, 1.5, 0.2, 2.5], [0.3, 0.2, 0.0, 0.1, 1.0]])
    MASK = np.array([[1, 1, 1, 1, 0], [1, 1, 1, 1, 0], [1, 1, 1, 1, 1], [1, 1, 1, 1, 1]], bool)

    def __init__(self, n, seed):
        self.num_envs = n
        self.single_observation_space = gymnasium.spaces.Box(0, 1, (4,), np.float32)
        self.single_action_space = gymnasium.spaces.Discrete(5)
        self.rng = np.random.default_rng(seed)
        self.ctx = np.zeros(n, np.int64)

    def _obs(self):
        self.ctx = self.rng.integers(0, 4, self.num_envs)
        return np.eye(4, dtype=np.float32)[self.ctx]

    def action_masks(self):
        return self.MASK[self.ctx]

    def reset(self, *, seed=None, options=None):
        return self._obs(), {}

    def step(self, actions):
        assert self.MASK[self.ctx, actions].all(), "an illegal action was played"
        reward = self.PAYOFF[self.ctx, actions] + self.rng.normal(size=self.num_envs)
        done = np.ones(self.num_envs, bool)
        final = np.empty(self.num_envs, dtype=object)
        return self._obs(), reward.astype(np.float32), done, ~done, {"final_obs": final, "_final_obs": done}


def _expected_payoff(policy):
    with torch.no_grad():
        obs = torch.eye(4)
        p = torch.softmax(policy.logits(obs, torch.from_numpy(BanditVectorEnv.MASK)), -1).numpy()
    return (p * BanditVectorEnv.PAYOFF).sum(1), policy.act(obs, torch.from_numpy(BanditVectorEnv.MASK), greedy=True)[0]


def test_learns_the_best_legal_arm_of_a_masked_bandit():
    best = np.where(BanditVectorEnv.MASK, BanditVectorEnv.PAYOFF, -np.inf)
    gen = torch.Generator().manual_seed(5)
    before, _ = _expected_payoff(Policy(4, 5, [32, 32], gen))
    policy, _ = train(BanditVectorEnv(256, seed=5), total_steps=60_000, n_steps=8, minibatch=512, epochs=4, lr=3e-3,
                      ent_coef=0.0, hidden=(32, 32), seed=5, log=None)
    after, greedy = _expected_payoff(policy)
    # exact expectations (no sampling): every context's best legal arm, and near its payoff when sampled
    assert greedy.tolist() == best.argmax(1).tolist()
    assert np.all(after >= best.max(1) - 0.1), (after, best.max(1))
    assert np.all(after > before + 0.3)


def test_lama_strict_env_student_round_trip(tmp_path):
    import agents
    import envs
    from agents.learned import load_student

    venv = agents.vector_env("lama", 64, opponents=["lama/first"] * 3, seed=3, reward="dense", strict=True,
                             copy=False)  # strict: an illegal action would raise IllegalActionError
    policy, history = train(venv, total_steps=64 * 32 * 2, n_steps=32, minibatch=512, epochs=1, hidden=(16,),
                            seed=0, log=None)
    assert history[-1]["steps"] == 4096
    folder = save_policy(policy, str(tmp_path / "p"), "lama", {"num_players": 4, "rules": "official"})
    game = envs.make_game("lama", num_players=4, rules="official")
    student = load_student(folder, game)
    obs = torch.from_numpy(venv.observe(np.arange(8)))
    mask = torch.ones((8, 9), dtype=torch.bool)
    mask[:, 3] = False
    with torch.no_grad():
        want = torch.softmax(policy.logits(obs, mask), -1)
        got = torch.softmax(student.net(obs, mask.float())[0], -1)
    torch.testing.assert_close(got, want)
    agent = agents.make(f"learned:{folder}", game, np.random.default_rng(0))
    state = game.new_game(11)
    view, legal = game.view(state, game.current_player(state)), game.legal_actions(state)
    m = np.zeros(9, np.int8)
    m[list(legal)] = 1
    assert agent.act(view, m) in legal


def _per_seat_reference(rewards, players, values, last_values, dones, gamma, lam):
    """`gae_seats` written the long way: each (table, seat)'s decisions cut out as a trajectory of its own (the
    rewards up to its next decision summed), plain single-agent GAE over it."""
    T, N, P = rewards.shape
    adv = np.zeros((T, N))
    for i in range(N):
        for p in range(P):
            nxt = {}
            delta = {}
            for t in (t for t in range(T) if players[t, i] == p):
                total, nxt[t], v_next = 0.0, None, last_values[i, p]
                for u in range(t, T):
                    total += rewards[u, i, p]
                    if dones[u, i]:
                        v_next = 0.0
                        break
                    if u + 1 < T and players[u + 1, i] == p:
                        nxt[t], v_next = u + 1, values[u + 1, i]
                        break
                delta[t] = total + gamma * v_next - values[t, i]
            for t in sorted(delta, reverse=True):
                adv[t, i] = delta[t] + (gamma * lam * adv[nxt[t], i] if nxt[t] is not None else 0.0)
    return adv


def test_per_seat_advantages_follow_each_seats_own_trajectory():
    rng = np.random.default_rng(3)
    T, N, P = 40, 5, 3
    rewards = rng.normal(size=(T, N, P)).astype(np.float32)
    players = rng.integers(0, P, size=(T, N))
    values = rng.normal(size=(T, N)).astype(np.float32)
    last = rng.normal(size=(N, P)).astype(np.float32)
    dones = rng.random((T, N)) < 0.15
    adv, ret = gae_seats(rewards, players, values, last, dones, 0.9, 0.8)
    np.testing.assert_allclose(adv, _per_seat_reference(rewards, players, values, last, dones, 0.9, 0.8),
                               rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(ret, adv + values)


def test_per_seat_self_play_runs_where_the_sign_flip_does_not_hold(tmp_path, capsys):
    """More than two seats (Primi Composti at 3 players) or seats with returns of their own (L.A.M.A.): one policy
    in every seat, each seat's decisions their own trajectory (`gae_seats`); an asymmetric critic is refused there
    in one line."""
    for game, opts in (("primi_composti", ["--option", "num_players=3", "--option", "cards_per_player=4"]),
                       ("lama", ["--option", "num_players=3"])):
        out = tmp_path / game
        assert main([game, "--control", "all_seats", *opts, "--n-envs", "8", "--n-steps", "16", "--batch-size", "64",
                     "--n-epochs", "1", "--timesteps", "256", "--out", str(out)]) == 0
        assert (out / "policy" / "policy.json").exists()
        hist = list(csv.DictReader(open(out / "history.csv", encoding="utf-8")))
        assert len(hist) == 2 and all(np.isfinite(float(r["v_loss"])) for r in hist)
    capsys.readouterr()
    assert main(["lama", "--control", "all_seats", "--privileged-critic", "--out", str(tmp_path / "x"),
                 "--timesteps", "10"]) == 2
    err = capsys.readouterr().err.strip()
    assert "an asymmetric critic with per-seat self-play" in err.splitlines()[-1]
    assert not (tmp_path / "x").exists()



def test_same_seed_same_policy_and_callback_stops():
    def weights(seed):
        policy, _ = train(ToyVectorEnv(4), total_steps=32, n_steps=4, minibatch=8, epochs=2, hidden=(8,), seed=seed,
                          log=None)
        return torch.cat([p.detach().flatten() for p in policy.parameters()])

    assert torch.equal(weights(7), weights(7))
    assert not torch.equal(weights(7), weights(8))
    _, history = train(ToyVectorEnv(4), total_steps=1000, n_steps=2, hidden=(8,), seed=0, log=None,
                       callback=lambda entry, policy: False)
    assert len(history) == 1


def test_device_names_and_a_missing_cuda_are_refused_by_name():
    from train.networks import resolve_device

    assert resolve_device("cpu") == torch.device("cpu")
    assert resolve_device("auto").type == ("cuda" if torch.cuda.is_available() else "cpu")
    with pytest.raises(ValueError, match="allowed: cpu, cuda, cuda:N, auto"):
        resolve_device("gpu")
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="sees no CUDA device"):
            resolve_device("cuda")
        with pytest.raises(ValueError, match="sees no CUDA device"):
            train(ToyVectorEnv(4), total_steps=8, n_steps=2, hidden=(8,), seed=0, log=None, device="cuda:0")


def test_max_seconds_stops_after_one_update_and_decays_the_rate_by_time():
    _, history = train(ToyVectorEnv(4), total_steps=10_000, n_steps=2, hidden=(8,), seed=0, log=None,
                       max_seconds=1e-9)
    # a step budget barely begun but a spent time budget: one update, at the rate decayed by time (to 0)
    assert len(history) == 1 and history[0]["lr"] == 0.0
    _, history = train(ToyVectorEnv(4), total_steps=32, n_steps=2, hidden=(8,), seed=0, log=None, max_seconds=1e6)
    assert len(history) == 4 and history[1]["lr"] == pytest.approx(3e-4 * 0.75, rel=1e-4)  # steps further spent
    with pytest.raises(ValueError, match="max_seconds"):
        train(ToyVectorEnv(4), total_steps=8, n_steps=2, hidden=(8,), seed=0, log=None, max_seconds=0)


def test_init_from_a_saved_run_continues_its_weights_and_reward_scale(tmp_path):
    import agents
    from train.cleanrl_ppo import load_policy
    from train.curve import write_history

    options = {"num_players": 4, "rules": "official"}
    venv = agents.vector_env("lama", 8, opponents=["lama/first"] * 3, seed=2, reward="dense", copy=False)
    policy, history = train(venv, total_steps=64, n_steps=8, minibatch=64, hidden=(16,), seed=2, log=None)
    folder = save_policy(policy, str(tmp_path / "run"), "lama", options)
    write_history(history, f"{folder}/history.csv")
    loaded, scale = load_policy(folder, "lama", options)
    assert scale == pytest.approx(history[-1]["reward_scale"])
    for a, b in zip(loaded.state_dict().values(), policy.state_dict().values(), strict=True):
        torch.testing.assert_close(a, b)
    # learning rate 0: an update leaves the weights where `init` put them (a fresh start would not be there)
    same, _ = train(venv, total_steps=64, n_steps=8, minibatch=64, hidden=(16,), seed=9, log=None, lr=0.0,
                    init=loaded)
    for a, b in zip(same.state_dict().values(), policy.state_dict().values(), strict=True):
        torch.testing.assert_close(a, b)
    with pytest.raises(ValueError, match="hidden"):
        train(venv, total_steps=64, n_steps=8, hidden=(32,), seed=9, log=None, init=loaded)


def test_old_flags_run_through_the_frame_with_snapshots_and_continued_runs_chain(tmp_path, capsys):
    """The one-file learner's old flags (shipped policies' recorded commands: `train.reproduce.train_argv`) are
    `python -m train`'s run (updates counted in steps); a run continued from another records it as its first stage,
    the whole chain goes with the saved policy, and each stage's curve goes on where the last one ended."""
    import json
    import os

    from train.reproduce import train_argv

    out = str(tmp_path / "a")
    assert main(train_argv(["lama", "--timesteps", "512", "--n-envs", "16", "--n-steps", "8", "--minibatch", "64",
                            "--epochs", "1", "--hidden", "16", "--out", out, "--save-every", "2", "--no-progress"])
                + ["--final-eval-games", "0"]) == 0
    assert sorted(os.listdir(f"{out}/snapshots")) == ["000000000256", "000000000512"]
    assert os.path.exists(f"{out}/snapshots/000000000256/policy.json")
    with open(f"{out}/curve.csv", encoding="utf-8") as f:  # the run's curve, as every training run draws it
        rows = list(csv.DictReader(f))
    assert [int(r["timesteps"]) for r in rows] == [128, 256, 384, 512] and float(rows[-1]["wall_s"]) > 0
    cfg = json.loads((tmp_path / "a" / "config.json").read_text())
    assert (cfg["batch_size"], cfg["n_epochs"], cfg["save_every"], cfg["control"]) == (64, 1, 256, "one_seat")
    assert main(["lama", "--timesteps", "128", "--init-from", out, "--out", str(tmp_path / "b")]) == 0
    run = json.loads((tmp_path / "b" / "config.json").read_text())
    assert run["init_from"] == f"{out}/policy" and run["net_arch"] == [16]  # continued: its settings, its network
    prov = run["provenance"]  # the run it continued is its first stage; steps and wall time summed over both
    assert [s["steps"] for s in prov["stages"]] == [512, 128] and prov["steps_in_all"] == 640
    assert prov["wall_s_in_all"] == round(prov["stages"][0]["wall_s"] + prov["stages"][1]["wall_s"], 1)
    with open(tmp_path / "b" / "curve.csv", encoding="utf-8") as f:  # steps and time in all: on from stage one's end
        second = list(csv.DictReader(f))
    assert [int(r["timesteps"]) for r in second] == [640]
    assert float(second[0]["wall_s"]) > prov["stages"][0]["wall_s"] - 0.05
    meta_path = tmp_path / "b" / "policy" / "policy.json"
    meta = json.loads(meta_path.read_text())
    meta["provenance"]["picked"] = "the end"  # what a user adds when shipping it stays with that stage
    meta_path.write_text(json.dumps(meta), encoding="utf-8")
    assert main(["lama", "--timesteps", "256", "--init-from", str(tmp_path / "b"), "--out", str(tmp_path / "d")]) == 0
    third = json.loads((tmp_path / "d" / "policy" / "policy.json").read_text())["provenance"]
    assert [s["steps"] for s in third["stages"]] == [512, 128, 256] and third["steps_in_all"] == 896
    assert third["stages"][1]["init_from"] == f"{out}/policy"
    assert third["stages"][2]["init_from"] == str(tmp_path / "b" / "policy")
    assert third["stages"][1]["picked"] == "the end" and "picked" not in third["stages"][0]
    with open(tmp_path / "d" / "curve.csv", encoding="utf-8") as f:
        assert [int(r["timesteps"]) for r in csv.DictReader(f)] == [768, 896]
    capsys.readouterr()
    assert main(["lama", "--timesteps", "64", "--out", str(tmp_path / "c"), "--device", "tpu"]) == 2
    err = capsys.readouterr().err.strip()
    assert "tpu" in err.splitlines()[-1] and "allowed" in err.splitlines()[-1]


def test_old_flags_without_an_equivalent_are_refused_and_the_old_command_names_the_new_one():
    import subprocess
    import sys

    from train.reproduce import train_argv

    with pytest.raises(ValueError, match="--final-seed"):
        train_argv(["lama", "--final-paired", "lama/first", "--final-seed", "3", "--out", "x"])
    old = subprocess.run([sys.executable, "-m", "train.cleanrl_ppo", "lama"], capture_output=True, text=True)
    assert old.returncode == 2 and old.stderr.strip().splitlines() == [
        "python -m train.cleanrl_ppo: the command is python -m train GAME (python -m train GAME --help)"]
    assert train_argv(["lama", "--league", "2", "--n-envs", "4", "--n-steps", "8", "--also", "num_players=3",
                       "--final-paired", "lama/first"]) == [
        "lama", "--learner", "cleanrl", "--league-every", "128", "--n-envs", "4", "--n-steps", "8",
        "--also", "num_players=3", "--eval-baselines", "lama/first", "--control", "one_seat", "--eval-games", "0",
        "--final-eval-games", "500"]


def test_init_from_carries_the_reward_scale_only_for_the_same_reward(tmp_path):
    small = ["--n-envs", "16", "--n-steps", "8", "--batch-size", "64", "--n-epochs", "1"]

    def scales(run):
        with open(f"{run}/history.csv", encoding="utf-8") as f:
            return [float(r["reward_scale"]) for r in csv.DictReader(f)]

    a = str(tmp_path / "a")
    assert main(["lama", "--timesteps", "256", "--hidden", "16", *small, "--out", a]) == 0
    assert main(["lama", "--timesteps", "128", "--init-from", a, "--out", str(tmp_path / "b")]) == 0
    assert scales(tmp_path / "b") == [scales(a)[-1]]  # one update, at the scale carried over
    with pytest.warns(UserWarning, match=r"reward scale is not carried over \(its reward options: reward='dense' "
                                         r"then, 'win' now\)"):
        assert main(["lama", "--timesteps", "128", "--init-from", a, "--option", "reward=win",
                     "--out", str(tmp_path / "c")]) == 0
    assert scales(tmp_path / "c")[0] != scales(a)[-1]  # measured from its own first rollout


def test_critic_warmup_keeps_the_actor_and_trains_the_critic():
    gen = torch.Generator().manual_seed(3)
    start = Policy(4, 5, [8], gen)
    policy, history = train(BanditVectorEnv(32, seed=3), total_steps=256, n_steps=4, minibatch=64, hidden=(8,), seed=3,
                            log=None, init=start, critic_warmup=256)
    for a, b in zip(policy.actor.state_dict().values(), start.actor.state_dict().values(), strict=True):
        torch.testing.assert_close(a, b)
    assert any(not torch.equal(a, b) for a, b in zip(policy.critic.state_dict().values(),
                                                      start.critic.state_dict().values(), strict=True))
    after, _ = train(BanditVectorEnv(32, seed=3), total_steps=256, n_steps=4, minibatch=64, hidden=(8,), seed=3,
                     log=None, init=start, critic_warmup=128)  # past the warm-up the actor learns
    assert any(not torch.equal(a, b) for a, b in zip(after.actor.state_dict().values(),
                                                     start.actor.state_dict().values(), strict=True))


def test_all_seats_in_a_cooperative_game_is_one_team_without_sign_flips():
    import agents
    from train.seats import cooperative

    team = agents.vector_env("the_game", 8, opponents=[], seed=4, num_players=2, control="all_seats", copy=False)
    duel = agents.vector_env("primi_composti", 8, opponents=[], seed=4, control="all_seats", copy=False)
    assert cooperative(team) and not cooperative(duel)
    buf = Rollout(team, 16, zero_sum=False)
    gen = torch.Generator().manual_seed(0)
    buf.collect(Policy(team.single_observation_space.shape[0], team.single_action_space.n, [8], gen), gen)
    assert buf.signs() is None and (buf.rew > 0).any()  # the team's reward (cards placed), never negated
    _, history = train(team, total_steps=256, n_steps=16, minibatch=64, hidden=(8,), seed=0, log=None)
    assert history[-1]["steps"] == 256
    three = agents.vector_env("the_game", 4, opponents=[], seed=4, num_players=3, control="all_seats", copy=False)
    train(three, total_steps=64, n_steps=16, minibatch=64, hidden=(8,), seed=0, log=None)  # not refused: 3 seats


def test_evaluation_points_baseline_lines_and_a_final_paired_comparison(tmp_path, capsys):
    import json

    import envs
    from agents.learned import load_learned_agent
    from train.curve import Evaluator, eval_rngs

    out = str(tmp_path / "e")
    assert main(["lama", "--timesteps", "256", "--n-envs", "8", "--n-steps", "8", "--batch-size", "64", "--n-epochs",
                 "1", "--hidden", "16", "--eval-every", "128", "--eval-games", "6", "--eval-baselines", "lama/first",
                 "--final-eval-games", "2", "--out", out]) == 0
    with open(f"{out}/history.csv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert [bool(r["eval_win_rate"]) for r in rows] == [False, True, False, True]
    run = json.load(open(f"{out}/config.json", encoding="utf-8"))
    options = {"num_players": 4, "rules": "official", "reward": "dense"}
    ev = Evaluator("lama", options, ["lama/first"] * 3, 6, 0)
    assert run["eval_baseline_levels"]["lama/first"] == ev.measure_agent("lama/first")  # the same games again
    # the last point measured the policy the run saved: played from its folder on the same games, the same figures
    saved = load_learned_agent(f"{out}/policy", envs.make_game("lama", **options), eval_rngs(ev.seq, 1)[1])
    assert ev.measure_agent(saved) == {k: float(rows[-1][k]) for k in ("eval_win_rate", "eval_mean_score")}
    paired = json.load(open(f"{out}/eval.json", encoding="utf-8"))["paired"]
    assert [(p["a"], p["b"], p["deals"]) for p in paired] == [(f"learned:{out}/policy", "lama/first", 2)]
    assert "paired: A = learned:" in capsys.readouterr().out


@pytest.mark.parametrize("game, kwargs", [
    ("lama", {"opponents": ["lama/first", "random", "lama/second"]}),
    ("the_game", {"opponents": [], "num_players": 1}),
    ("the_game", {"opponents": ["the_game/bestplays", "random"], "num_players": 3}),
    ("the_game", {"opponents": [], "num_players": 3, "control": "all_seats", "actions": "slot"}),
])
def test_privileged_rows_are_the_encoders_hidden_state(game, kwargs):
    """`privileged_observations()` (compiled) is the encoder's `privileged` of each table's position from the seat
    of its observation, at every decision of random play, across autoresets (L.A.M.A.: the other hands and the
    draw pile; The Game: the teammates' hands and the next cards of the deck)."""
    import agents

    venv = agents.vector_env(game, 16, seed=5, **kwargs)
    obs, _ = venv.reset()
    rng = np.random.default_rng(5)
    for _ in range(120):
        rows = venv.privileged_observations()
        assert rows.shape == (16, venv.encoder.privileged_size()) and rows.dtype == np.float32
        seats = venv._seats()
        for r in range(16):
            np.testing.assert_array_equal(venv.observe([r], [seats[r]])[0], obs[r])  # the seat the row is for
            np.testing.assert_array_equal(rows[r], venv.encoder.privileged(venv.state(r), int(seats[r])))
        mask = venv.action_masks()
        obs, *_ = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in mask]))
    assert rows.sum() > 0


def test_privileged_critic_reads_the_hidden_rows_and_saves_the_actor_alone(tmp_path, capsys):
    import json

    import agents
    from train.cleanrl_ppo import load_policy

    venv = agents.vector_env("lama", 8, opponents=["lama/first"] * 3, seed=2, copy=False)
    policy, _ = train(venv, total_steps=64, n_steps=8, minibatch=64, hidden=(16,), seed=2, log=None,
                      privileged_critic=True)
    width = venv.encoder.privileged_size()
    assert policy.privileged_dim == width and policy.critic[0].in_features == policy.obs_dim + width
    assert policy.actor[0].in_features == policy.obs_dim
    # the value changes with the hidden rows alone (the observation held fixed)
    obs = torch.zeros(2, policy.obs_dim)
    hidden = torch.stack([torch.zeros(width), torch.ones(width)])
    values = policy.value(obs, hidden)
    assert values[0] != values[1]
    options = {"num_players": 4, "rules": "official"}
    folder = save_policy(policy, str(tmp_path / "run"), "lama", options)
    loaded, _ = load_policy(folder, "lama", options)  # the critic's width is read from critic.pt
    assert loaded.privileged_dim == width
    torch.testing.assert_close(loaded.value(obs, hidden), values)
    # a run without it, from that one: the actor is kept, the critic starts fresh (a warning says so)
    with pytest.warns(UserWarning, match="the actor is kept, the critic starts fresh"):
        plain, _ = train(venv, total_steps=64, n_steps=8, minibatch=64, hidden=(16,), seed=3, log=None, lr=0.0,
                         init=loaded)
    assert plain.privileged_dim == 0
    for a, b in zip(plain.actor.state_dict().values(), policy.actor.state_dict().values(), strict=True):
        torch.testing.assert_close(a, b)
    # the CLI records it; a vector env without privileged rows is refused in one line
    out = tmp_path / "cli"
    assert main(["lama", "--privileged-critic", "--timesteps", "128", "--n-envs", "16", "--n-steps", "8",
                 "--batch-size", "64", "--hidden", "16", "--out", str(out)]) == 0
    assert json.loads((out / "config.json").read_text())["privileged_critic"] is True
    capsys.readouterr()
    assert main(["primi_composti", "--privileged-critic", "--timesteps", "128", "--n-envs", "16", "--n-steps", "8",
                 "--out", str(tmp_path / "p")]) == 2
    err = capsys.readouterr().err.strip()
    assert "privileged_observations" in err.splitlines()[-1], err


def test_action_table_learns_saves_plays_and_continues_a_plain_run(tmp_path, capsys):
    import json

    import agents
    import envs
    from agents.learned import load_student
    from train.cleanrl_ppo import load_policy

    options = {"num_players": 1, "rules": "official"}
    venv = agents.vector_env("the_game", 16, opponents=[], seed=4, copy=False, **options)
    plain, _ = train(venv, total_steps=256, n_steps=16, minibatch=128, hidden=(16,), seed=4, log=None)
    assert plain.table is None
    # a table added to a trained MLP starts at 0: with learning rate 0 the run leaves the plain policy's play as it was
    kept, _ = train(venv, total_steps=256, n_steps=16, minibatch=128, hidden=(16,), seed=5, log=None, lr=0.0,
                    init=plain, action_table=True)
    assert kept.table is not None and kept.table.numel() == venv.encoder.num_action_keys
    assert not kept.table.detach().any()
    obs, info = venv.reset(seed=8)
    x, mask = torch.from_numpy(np.asarray(obs, np.float32)), torch.from_numpy(np.asarray(info["action_mask"], bool))
    torch.testing.assert_close(kept.logits(x, mask), plain.logits(x, mask))
    # learning moves the table; the logits are the MLP's plus the table's entry at each action's key
    table, _ = train(venv, total_steps=512, n_steps=16, minibatch=128, hidden=(16,), seed=6, log=None, lr=1e-2,
                     init=kept, action_table=True)
    assert table.table.detach().abs().max() > 0
    keys = torch.from_numpy(venv.encoder.action_keys(obs)).long()
    entries = torch.cat([table.table, torch.zeros(1)])[keys]
    with torch.no_grad():
        torch.testing.assert_close(table.logits(x, mask), (table.actor(x) + entries).masked_fill(~mask, MASKED_LOGIT))
    # saved as a masked_policy student with the table: it plays with the same logits, and loads back for training
    folder = save_policy(table, str(tmp_path / "run"), "the_game", options)
    meta = json.loads((tmp_path / "run" / "policy.json").read_text())
    assert meta["architecture"]["action_table"] == venv.encoder.num_action_keys
    student = load_student(folder, envs.make_game("the_game", **options))
    with torch.no_grad():
        logits, _ = student.net(x, mask.float())
        torch.testing.assert_close(logits, table.logits(x, mask))
    loaded, _ = load_policy(folder, "the_game", options)
    torch.testing.assert_close(loaded.table, table.table)
    with pytest.raises(ValueError, match="action table"):  # a run without one cannot continue it
        train(venv, total_steps=256, n_steps=16, hidden=(16,), seed=7, log=None, init=loaded)
    # the CLI: implied by --init-from a table policy and recorded; refused in one line for a game without keys
    out = tmp_path / "cli"
    assert main(["the_game", "--option", "num_players=1", "--init-from", folder, "--timesteps", "128",
                 "--n-envs", "8", "--n-steps", "16", "--batch-size", "64", "--out", str(out)]) == 0
    assert json.loads((out / "config.json").read_text())["action_table"] is True
    capsys.readouterr()
    from train.__main__ import main as train_main  # SB3's MlpPolicy has no place for the table: one line

    with pytest.raises(SystemExit) as stop:
        train_main(["the_game", "--option", "num_players=1", "--init-from", folder, "--timesteps", "10",
                    "--learner", "sb3"])
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip()
    assert "action table" in err and "--learner cleanrl" in err and len(err.splitlines()) == 1, err
    assert main(["lama", "--action-table", "--timesteps", "128", "--n-envs", "16", "--n-steps", "8",
                 "--out", str(tmp_path / "l")]) == 2
    err = capsys.readouterr().err.strip()
    assert "observations give no action keys" in err.splitlines()[-1], err


def test_bf16_precision_learns_the_bandit_keeps_float32_and_is_refused_by_name(tmp_path, capsys):
    import json

    best = np.where(BanditVectorEnv.MASK, BanditVectorEnv.PAYOFF, -np.inf)
    kwargs = dict(total_steps=60_000, n_steps=8, minibatch=512, epochs=4, lr=3e-3, ent_coef=0.0, hidden=(32, 32),
                  seed=5, log=None)
    policy, _ = train(BanditVectorEnv(256, seed=5), precision="bf16", **kwargs)
    after, greedy = _expected_payoff(policy)
    assert greedy.tolist() == best.argmax(1).tolist()
    assert np.all(after >= best.max(1) - 0.1), (after, best.max(1))
    # the weights (and so the saved policy) stay float32, and the run differs from float32's: the autocast is on
    assert {p.dtype for p in policy.parameters()} == {torch.float32}
    fp32, _ = train(BanditVectorEnv(256, seed=5), total_steps=4096, n_steps=8, minibatch=512, epochs=4, lr=3e-3,
                    hidden=(32, 32), seed=5, log=None)
    bf16, _ = train(BanditVectorEnv(256, seed=5), total_steps=4096, n_steps=8, minibatch=512, epochs=4, lr=3e-3,
                    hidden=(32, 32), seed=5, log=None, precision="bf16")
    assert not torch.equal(fp32.actor[0].weight, bf16.actor[0].weight)
    with torch.autocast("cpu", dtype=torch.bfloat16):  # outputs are float32 also inside the autocast
        obs, mask = torch.zeros(3, 4), torch.ones(3, 5, dtype=torch.bool)
        assert bf16.logits(obs, mask).dtype == torch.float32 and bf16.value(obs).dtype == torch.float32
    with pytest.raises(ValueError, match="allowed: fp32, bf16"):
        train(ToyVectorEnv(4), total_steps=8, n_steps=2, hidden=(8,), seed=0, log=None, precision="fp16")
    args = ["lama", "--timesteps", "128", "--n-envs", "16", "--n-steps", "8", "--batch-size", "64", "--hidden", "16"]
    assert main([*args, "--precision", "bf16", "--out", str(tmp_path / "a")]) == 0
    assert json.loads((tmp_path / "a" / "config.json").read_text())["precision"] == "bf16"
    capsys.readouterr()
    assert main([*args, "--precision", "half", "--out", str(tmp_path / "b")]) == 2
    err = capsys.readouterr().err.strip()
    assert "half" in err.splitlines()[-1] and "bf16" in err.splitlines()[-1]


def test_the_committed_checkpoint_loads_and_continues(tmp_path):
    """`train/checkpoints/*`: runs kept in the repository so that a later session continues them (`--init-from`);
    each loads with its critic and reward scale and continues for one short update."""
    import json
    import os

    from train.cleanrl_ppo import load_policy
    from train.run import trained_env_options

    root = os.path.join(os.path.dirname(__file__), "..", "..", "train", "checkpoints")
    folders = sorted(os.path.join(root, d) for d in os.listdir(root)
                     if os.path.isfile(os.path.join(root, d, "policy.json")))  # a reproduce chain: the test below
    assert folders
    for folder in folders:
        # the one-file learner's run.json, or the frame's config.json (a `python -m train` run's policy folder)
        kept = "run.json" if os.path.exists(os.path.join(folder, "run.json")) else "config.json"
        with open(os.path.join(folder, kept), encoding="utf-8") as f:
            run = json.load(f)
        with open(os.path.join(folder, "policy.json"), encoding="utf-8") as f:
            game = json.load(f)["game"]
        options = trained_env_options(folder)
        policy, scale = load_policy(folder, game, {k: v for k, v in options.items() if k != "reward"})
        assert scale is not None and scale > 0 and (policy.table is not None) == bool(run.get("action_table"))
        out = tmp_path / os.path.basename(folder)
        args = [game, "--init-from", folder, "--timesteps", "64", "--n-envs", "8", "--n-steps", "8",
                "--batch-size", "64", "--n-epochs", "1", "--out", str(out)]
        for k, v in options.items():
            args += ["--option", f"{k}={v}"]
        args += ["--control", run.get("control") or "one_seat"]  # the old command's default
        assert main(args) == 0
        assert json.loads((out / "config.json").read_text())["init_from"] == folder


def test_a_committed_reproduce_chain_goes_on_where_it_stopped():
    """`train/checkpoints/reproduce-<id>`: a `python -m train reproduce <id>` chain stopped mid-way and kept in the
    repository; the same command with `--out` there keeps its finished stages and resumes the stopped one from its
    checkpoint (a tensors-only file) before running the rest."""
    import os

    import torch

    from agents.pretrained import checkpoints
    from train import reproduce

    root = os.path.join(os.path.dirname(__file__), "..", "..", "train", "checkpoints")
    chains = sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d, "stage-1")))
    assert chains
    for name in chains:
        agent = next(a for a in checkpoints() if "reproduce-" + a.replace("/", "-") == name)
        folder = os.path.join(root, name)
        stages = reproduce.plan(agent, 1.0, folder)
        outs = [argv[argv.index("--out") + 1] for argv in stages]
        done = [os.path.isdir(os.path.join(o, "policy")) and not os.path.isfile(os.path.join(o, "checkpoint.json"))
                for o in outs]
        calls: list[list[str]] = []
        assert reproduce.main([agent, "--out", folder], train_main=calls.append) == 0
        assert len(calls) <= len(outs)
        todo = [o for o, d in zip(outs, done) if not d]
        assert [c[c.index("--out") + 1] if "--out" in c else c[1] for c in calls] == todo
        if todo and os.path.isfile(os.path.join(todo[0], "checkpoint.json")):
            assert calls[0][:2] == ["--resume", todo[0]]
            saved = [f for f in os.listdir(todo[0]) if f.startswith("checkpoint-") and f.endswith(".pt")]
            assert len(saved) == 1
            torch.load(os.path.join(todo[0], saved[0]), weights_only=True)  # data only: never code


def test_earlier_stages_of_a_folder_without_provenance_or_policy(tmp_path):
    import json

    from train.run import chained, earlier_stages

    assert earlier_stages(str(tmp_path)) == []  # no policy.json: nothing to record
    (tmp_path / "policy.json").write_text(json.dumps({"game": "lama", "architecture": {}, "provenance": {}}),
                                          encoding="utf-8")
    assert earlier_stages(str(tmp_path)) == []
    (tmp_path / "policy.json").write_text("[1, 2]", encoding="utf-8")  # malformed: one clear line, as load_policy's
    with pytest.raises(ValueError, match="policy.json"):
        earlier_stages(str(tmp_path))
    own = {"steps": 5, "wall_s": 1.0}
    assert chained(own, []) is own  # a first stage stays as it was


def test_a_reward_scale_that_is_no_finite_number_is_refused():
    import train.cleanrl_ppo as learner

    with pytest.raises(ValueError, match="reward_scale must be a finite number"):
        learner.PPO(BanditVectorEnv(8, seed=0), total_steps=64, n_steps=4, hidden=(8,), reward_scale=float("nan"))


@pytest.mark.parametrize("flags, warned", [("", True), ("avx512_bf16", False), ("amx_bf16 avx512_bf16", False),
                                           (None, False)])
def test_bf16_on_a_cpu_without_native_bfloat16_warns(monkeypatch, flags, warned):
    """Emulated bfloat16 runs several times slower than fp32: bf16 on such a CPU says so (and says nothing where the
    CPU has it, where /proc/cpuinfo cannot be read, or for fp32)."""
    import warnings

    import train.networks as networks

    monkeypatch.setattr(networks, "bf16_flags", lambda: flags)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        networks.autocast(torch.device("cpu"), "bf16")
        networks.autocast(torch.device("cpu"), "fp32")
    said = [str(w.message) for w in seen if "native bfloat16" in str(w.message)]
    assert len(said) == int(warned)
    assert not said or "--precision fp32" in said[0]
