"""L.A.M.A.'s vector env against the plain engine: every table replays alone, action for action, from its deal seed."""

from __future__ import annotations

import numpy as np
import pytest

import agents
from agents.lama.strategies import DEFAULT, TUNED, FirstStrategy, SecondStrategy, ThirdStrategy
from envs.core.game import IllegalActionError
from envs.core.vector import RANDOM, episode_seeds, next_random
from envs.lama.encoding import LamaEncoder
from envs.lama.rules import NUM_ACTIONS, Config, LamaGame


class RandomMirror:
    """The kernel's random seat (`envs.lama.fast.random_legal`) in Python: the k-th legal action, k = draw mod
    count, from the table's SplitMix64 stream (shared by the table's random seats)."""

    def __init__(self, shared: dict):
        self.shared = shared

    def act(self, view, mask):
        legal = np.flatnonzero(mask).tolist()
        self.shared["rng"], z = next_random(self.shared["rng"])
        return legal[z % len(legal)]


class Shadow:
    """One table replayed in the plain engine (`LamaGame` + `LamaEncoder`), as `OpponentEnv` plays it."""

    def __init__(self, game, seed, table, make_opponents):
        self.game = game
        self.enc = LamaEncoder(game)
        self.seed = seed
        self.table = table
        self.make_opponents = make_opponents
        self.episode = 0

    def start(self, deal_seed, seat):
        n = self.game.num_players
        # the deal seed and seat follow from (seed, table, episode); a redeal takes the next index, same seat
        drawn = episode_seeds(self.seed, self.table, self.episode, n)[1]
        first = self.episode  # the episode index the table's line-up is drawn at (`pick_line_up`)
        while True:
            d, _, stream = episode_seeds(self.seed, self.table, self.episode, n)
            self.episode += 1
            if d == deal_seed:
                break
            assert self.episode < 10_000
        assert seat == (drawn if not self.fixed_seat else 1)
        self.seat = seat
        self.shared = {"rng": stream, "table": self.table, "episode": first}
        opps = self.make_opponents(self.shared)
        self.seated = [None] * n
        for k, agent in enumerate(opps):
            self.seated[(seat + k + 1) % n] = agent
        self.state = self.game.new_game(deal_seed)
        self.carry = self._advance()
        assert not self.state.game_over

    def _ret(self):
        return self.game.returns(self.state)[self.seat]

    def _advance(self):
        before = self._ret()
        g = self.game
        while not self.state.game_over and self.state.current != self.seat:
            cur = self.state.current
            view = g.view(self.state, cur)
            self.state = g.apply(self.state, self.seated[cur].act(view, g.legal_mask(self.state)))
        return self._ret() - before

    def obs(self):
        return self.enc.encode(self.game.view(self.state, self.seat))

    def mask(self):
        return self.game.legal_mask(self.state)

    def step(self, a):
        before = self._ret()
        self.state = self.game.apply(self.state, int(a))
        reward = self._ret() - before + self.carry
        self.carry = 0.0
        reward += self._advance()
        return reward, self.state.game_over


def _replay(venv, game, seed, make_opponents, steps, rng, fixed_seat=False):
    """Step `venv` with random legal actions and check every table against its shadow; returns episodes seen."""
    n_envs = venv.num_envs
    obs, info = venv.reset(seed=seed)
    shadows = [Shadow(game, seed, i, make_opponents) for i in range(n_envs)]
    for i, sh in enumerate(shadows):
        sh.fixed_seat = fixed_seat
        sh.start(int(info["deal_seed"][i]), int(info["seat"][i]))
    returns = np.zeros(n_envs)
    lengths = np.zeros(n_envs, np.int64)
    episodes = 0
    for _ in range(steps):
        masks = venv.action_masks()
        assert masks.dtype == np.bool_ and masks.any(axis=1).all()
        assert np.array_equal(info["action_mask"], masks.astype(np.int8))
        for i, sh in enumerate(shadows):
            np.testing.assert_array_equal(obs[i], sh.obs())
            np.testing.assert_array_equal(info["action_mask"][i], sh.mask())
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rew, term, trunc, info = venv.step(acts)
        assert not trunc.any()
        for i, sh in enumerate(shadows):
            r, over = sh.step(acts[i])
            assert np.float32(r) == rew[i], (i, r, rew[i])
            assert over == term[i]
            returns[i] += np.float32(r)
            lengths[i] += 1
            if over:
                episodes += 1
                assert info["_final_obs"][i] and info["_episode"][i]
                np.testing.assert_array_equal(info["final_obs"][i], sh.obs())
                assert info["final_info"]["deal_seed"][i] == sh.state.seed
                assert info["final_info"]["seat"][i] == sh.seat
                assert info["episode"]["l"][i] == lengths[i]
                assert info["episode"]["r"][i] == pytest.approx(returns[i], abs=1e-4)
                returns[i] = 0.0
                lengths[i] = 0
                sh.start(int(info["deal_seed"][i]), int(info["seat"][i]))
            else:
                assert "final_obs" not in info or info["final_obs"][i] is None
    return episodes


@pytest.mark.parametrize("opts", [dict(num_players=4, reward="dense"), dict(rules="seed2022", num_players=3),
                                  dict(num_players=2, empty_deck="reshuffle", target_points=15),
                                  dict(rules="seed2022", num_players=2, target_points=12, reward="dense")])
def test_random_opponents_replay_in_the_plain_engine(opts):
    game = LamaGame(Config(**opts))
    n = game.num_players
    venv = agents.vector_env("lama", 3, opponents=["random"] * (n - 1), seed=11, **opts)
    episodes = _replay(venv, game, 11, lambda shared: [RandomMirror(shared) for _ in range(n - 1)], 400,
                       np.random.default_rng(0))
    assert episodes >= 30


@pytest.mark.parametrize("ids,opts", [
    (["lama/first"] * 3, dict(reward="dense")),
    (["lama/second", "lama/third", "lama/third-default"], dict(rules="seed2022")),
    (["lama/third", "random", "lama/first", "lama/second", "lama/third?a=1&b=2&c=3&d=0.5", "lama/first"],
     dict(rules="seed2022", num_players=7, reward="dense")),
])
def test_kernel_opponents_move_as_the_python_agents(ids, opts):
    game = LamaGame(Config(**opts))
    python = {"lama/first": FirstStrategy, "lama/second": SecondStrategy,
              "lama/third": lambda: ThirdStrategy(params=TUNED), "lama/third-default": lambda: ThirdStrategy(params=DEFAULT),
              "lama/third?a=1&b=2&c=3&d=0.5": lambda: ThirdStrategy(params=(1, 2, 3, 0.5))}

    def make(shared):
        return [RandomMirror(shared) if i == "random" else python[i]() for i in ids]

    venv = agents.vector_env("lama", 4, opponents=ids, seed=3, **opts)
    assert _replay(venv, game, 3, make, 300, np.random.default_rng(1)) >= 5


def test_fixed_seat():
    venv = agents.vector_env("lama", 3, opponents=["lama/first"] * 2, seed=2, seat=1, num_players=3)
    game = LamaGame(Config(num_players=3))
    _, info = venv.reset()
    assert (info["seat"] == 1).all()
    _replay(venv, game, 2, lambda shared: [FirstStrategy(), FirstStrategy()], 100, np.random.default_rng(2),
            fixed_seat=True)


def _lowest_legal(masks):
    return masks.argmax(axis=1)


def test_tables_do_not_depend_on_num_envs():
    small = agents.vector_env("lama", 2, opponents=["random", "lama/first", "random"], seed=9)
    big = agents.vector_env("lama", 7, opponents=["random", "lama/first", "random"], seed=9)
    o1, i1 = small.reset()
    o2, i2 = big.reset()
    assert np.array_equal(i1["deal_seed"], i2["deal_seed"][:2])
    for _ in range(300):
        np.testing.assert_array_equal(o1, o2[:2])
        a2 = _lowest_legal(big.action_masks())
        a2[2:] = 8  # the other tables do something else entirely
        o1, r1, t1, _, i1 = small.step(a2[:2])
        o2, r2, t2, _, i2 = big.step(a2)
        np.testing.assert_array_equal(r1, r2[:2])
        np.testing.assert_array_equal(t1, t2[:2])
        np.testing.assert_array_equal(i1["deal_seed"], i2["deal_seed"][:2])
    other = agents.vector_env("lama", 2, opponents=["random", "lama/first", "random"], seed=10)
    assert not np.array_equal(other.reset()[1]["deal_seed"], i1["deal_seed"])


def test_reset_with_seed_restarts_and_without_continues():
    venv = agents.vector_env("lama", 3, opponents=["lama/first"] * 3, seed=4)
    _, a = venv.reset()
    _, b = venv.reset()
    _, c = venv.reset(seed=4)
    assert np.array_equal(a["deal_seed"], c["deal_seed"]) and not np.array_equal(a["deal_seed"], b["deal_seed"])
    assert a["deal_seed"][0] == episode_seeds(4, 0, 0, 4)[0]


def _twins(**kw):
    return [agents.vector_env("lama", 4, opponents=["lama/first"] * 3, seed=1, **kw) for _ in range(2)]


def test_illegal_action_ends_only_that_tables_episode():
    env, twin = _twins(illegal_reward=-3.0)
    env.reset()
    twin.reset()
    others = [0, 2, 3]
    for step in range(60):
        acts = _lowest_legal(env.action_masks())
        twin_acts = acts.copy()
        twin_acts[1] = _lowest_legal(twin.action_masks())[1]
        if step in (10, 30):
            acts[1] = np.flatnonzero(~env.action_masks()[1])[0]
        elif step == 40:
            acts[1] = [NUM_ACTIONS, -1, 99][step % 3]
        o, r, t, _, info = env.step(acts)
        o2, r2, t2, _, _ = twin.step(twin_acts)
        if step in (10, 30, 40):
            assert r[1] == -3.0 and t[1] and info["illegal_action"][1] == acts[1] and info["_illegal_action"][1]
            assert not info["_illegal_action"][others].any()
        np.testing.assert_array_equal(o[others], o2[others])
        np.testing.assert_array_equal(r[others], r2[others])
        np.testing.assert_array_equal(t[others], t2[others])
    # a non-integer action array: every table's action is refused
    o, r, t, _, info = env.step(_lowest_legal(env.action_masks()).astype(np.float64))
    assert t.all() and (r == -3.0).all() and (info["illegal_action"] == -1).all()


def test_strict_raises_naming_table_seat_and_legal_actions_and_changes_nothing():
    env, twin = _twins(strict=True)
    _, info = env.reset()
    twin.reset()
    acts = _lowest_legal(env.action_masks())
    bad = acts.copy()
    bad[3] = np.flatnonzero(~env.action_masks()[3])[0]
    with pytest.raises(IllegalActionError) as e:
        env.step(bad)
    assert "table 3" in str(e.value) and e.value.seat == info["seat"][3]
    assert list(e.value.legal) == np.flatnonzero(env.action_masks()[3]).tolist()
    o, r, *_ = env.step(acts)
    o2, r2, *_ = twin.step(acts)
    np.testing.assert_array_equal(o, o2)
    np.testing.assert_array_equal(r, r2)


def test_bad_arguments():
    env = agents.vector_env("lama", 4, opponents=["lama/first"] * 3, seed=0)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(np.zeros(4, np.int64))
    env.reset()
    with pytest.raises(ValueError, match=r"shape \(4,\)"):
        env.step(np.zeros(3, np.int64))
    for bad in (0, -1, 2.5):
        with pytest.raises(ValueError, match="num_envs"):
            agents.vector_env("lama", bad, opponents=["lama/first"] * 3)
    with pytest.raises(ValueError, match="allowed: random, lama/first"):
        agents.vector_env("lama", 2, opponents=["lama/first", "lama/pimc", "random"])
    with pytest.raises(ValueError, match="needs 3 opponents"):
        agents.vector_env("lama", 2, opponents=["lama/first"] * 2)
    with pytest.raises(ValueError, match="allowed options"):
        agents.vector_env("lama", 2, opponents=["lama/first"] * 3, colour="red")
    with pytest.raises(ValueError, match="games are: lama"):
        agents.vector_env("chess", 2, opponents=["random"])
    with pytest.raises(ValueError, match="seat"):
        agents.vector_env("lama", 2, opponents=["lama/first"] * 3, seat=4)
    with pytest.raises(ValueError, match="control"):
        agents.vector_env("lama", 2, opponents=["lama/first"] * 3, control="all_seats")
    with pytest.raises(ValueError, match="tables"):
        agents.vector_env("lama", 10**12, opponents=["lama/first"] * 3)


def test_gymnasium_contract_and_copy_flag():
    from gymnasium.vector import AutoresetMode

    env = agents.vector_env("lama", 5, opponents=[RANDOM.name] * 3, seed=0, copy=False)
    assert env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert env.single_action_space.n == NUM_ACTIONS and env.action_space.shape == (5,)
    assert env.observation_space.shape == (5, *env.single_observation_space.shape)
    obs, info = env.reset()
    assert obs.dtype == np.float32 and env.observation_space.contains(obs)
    assert info["action_mask"].dtype == np.int8
    acts = np.array([env.single_action_space.sample(mask=info["action_mask"][i]) for i in range(5)])
    obs2, *_ = env.step(acts)
    assert obs2 is obs  # copy=False hands out the env's own buffer
    fresh = agents.vector_env("lama", 5, opponents=["random"] * 3, seed=0)
    o1, _ = fresh.reset()
    o2, *_ = fresh.step(_lowest_legal(fresh.action_masks()))
    assert o1 is not o2 and not np.shares_memory(o1, o2)


def test_maskable_ppo_learns_on_to_sb3():
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecEnv

    from envs.core import to_sb3

    params = []
    for stacked in (True, False):
        venv = to_sb3(agents.vector_env("lama", 16, opponents=["lama/first"] * 3, seed=0, reward="dense"),
                      stacked_masks=stacked)
        assert isinstance(venv, VecEnv)
        model = MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=128, n_epochs=1, seed=0, device="cpu")
        model.learn(2_000)
        assert len(model.ep_info_buffer) > 0
        masks = model.rollout_buffer.action_masks.reshape(-1, NUM_ACTIONS)
        assert masks.shape[0] == 32 * 16 and masks.any(axis=1).all() and not masks.all(axis=1).any()
        params.append(torch.nn.utils.parameters_to_vector(model.policy.parameters()).detach().clone())
    # the one-array answer to env_method("action_masks") trains exactly as the N-row answer
    assert torch.equal(params[0], params[1])
