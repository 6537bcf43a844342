"""RoboRally's vector env against the plain engine: every table replays alone, sub-step for sub-step, from its
deal seed (`RoboRallyGame.deal`), as `OpponentEnv` plays it."""

from __future__ import annotations

import numpy as np
import pytest

import agents
from agents.roborally.strategies import GreedyProgram
from envs.core.game import IllegalActionError
from envs.core.vector import RANDOM, episode_seeds, next_random
from envs.roborally.encoding import RoboRallyEncoder
from envs.roborally.fast import FastEngine, deal_seeded
from envs.roborally.rules import Config, RoboRallyGame


class RandomMirror:
    """The kernel's random seat in Python: the k-th legal action, k = draw mod count, from the table's SplitMix64
    stream (shared by the table's random seats)."""

    def __init__(self, shared: dict):
        self.shared = shared

    def act(self, view, mask):
        legal = np.flatnonzero(mask).tolist()
        if len(legal) == 1:
            return legal[0]  # a forced action draws nothing
        self.shared["rng"], z = next_random(self.shared["rng"])
        return legal[z % len(legal)]


class Shadow:
    """One table replayed in the plain engine (`RoboRallyGame` + `RoboRallyEncoder`), as `OpponentEnv` plays it
    (the same reward arithmetic)."""

    def __init__(self, game, seed, table, make_opponents, fixed_seat=None):
        self.game = game
        self.enc = RoboRallyEncoder(game)
        self.seed = seed
        self.table = table
        self.make_opponents = make_opponents
        self.fixed_seat = fixed_seat
        self.episode = 0

    def start(self, deal_seed, seat):
        n = self.game.num_players
        d, drawn, stream = episode_seeds(self.seed, self.table, self.episode, n)
        self.episode += 1
        assert d == deal_seed  # RoboRally never deals again: the learner programs in the first turn
        assert seat == (drawn if self.fixed_seat is None else self.fixed_seat)
        self.seat = seat
        self.shared = {"rng": stream}
        opps = self.make_opponents(self.shared)
        self.seated = [None] * n
        for k, agent in enumerate(opps):
            self.seated[(seat + k + 1) % n] = agent
        self.state = self.game.deal(deal_seed)
        self.carry = self._advance()
        assert not self.game.is_terminal(self.state)

    def _ret(self):
        return self.game.returns(self.state)[self.seat]

    def _advance(self):
        before = self._ret()
        g = self.game
        while not g.is_terminal(self.state) and g.current_player(self.state) != self.seat:
            cur = g.current_player(self.state)
            self.state = g.apply(self.state, self.seated[cur].act(g.view(self.state, cur), g.legal_mask(self.state)))
        return self._ret() - before

    def obs(self):
        return self.enc.encode(self.game.view(self.state, self.seat))

    def step(self, a):
        before = self._ret()
        self.state = self.game.apply(self.state, int(a))
        reward = self._ret() - before + self.carry
        self.carry = 0.0
        reward += self._advance()
        return reward, self.game.is_terminal(self.state)


def _replay(venv, game, seed, make_opponents, steps, rng, fixed_seat=None):
    """Step `venv` with random legal actions and check every table against its shadow; returns episodes seen."""
    n_envs = venv.num_envs
    obs, info = venv.reset(seed=seed)
    shadows = [Shadow(game, seed, i, make_opponents, fixed_seat) for i in range(n_envs)]
    for i, sh in enumerate(shadows):
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
            np.testing.assert_array_equal(info["action_mask"][i], game.legal_mask(sh.state))
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rew, term, trunc, info = venv.step(acts)
        for i, sh in enumerate(shadows):
            r, over = sh.step(acts[i])
            assert np.float32(r) == rew[i], (i, r, rew[i])
            assert over == (term[i] or trunc[i])
            assert trunc[i] == (over and game.truncated(sh.state))
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


def test_the_compiled_deal_is_the_plain_engines():
    game = RoboRallyGame(Config(num_robots=4))
    fe = FastEngine(game)
    for seed in (0, 1, 2**40 + 3, 2**63 - 5):
        state = game.deal(seed)
        fs = fe.pack(game.deal(seed))
        hands = np.zeros((4, 9), np.int32)
        sizes = np.zeros(4, np.int64)
        deal_seeded(fs.robots, fs.registers, fs.deck, fs.meta, hands, sizes, np.uint64(seed))
        assert [tuple(h[:k]) for h, k in zip(hands.tolist(), sizes)] == list(state.hands)
        assert tuple(fs.deck[:fs.meta[2]]) == state.deck


@pytest.mark.parametrize("opts", [
    dict(rules="seed", reward="progress", max_turns=12),
    dict(reward="win", max_turns=8),  # classic: the power round
    dict(board="race_medium", num_robots=3, rules="seed", reward="progress", max_turns=6),
    dict(board="tiny", lives=1, reward="progress", crushers=True, max_turns=None),
])
def test_random_opponents_replay_in_the_plain_engine(opts):
    game = RoboRallyGame(Config(**opts))
    n = game.num_players
    venv = agents.vector_env("roborally", 3, opponents=["random"] * (n - 1), seed=11, **opts)
    episodes = _replay(venv, game, 11, lambda shared: [RandomMirror(shared) for _ in range(n - 1)], 250,
                       np.random.default_rng(0))
    assert episodes >= 3


def test_greedy_opponents_replay_move_for_move():
    opts = dict(rules="seed", reward="progress", max_turns=15)
    game = RoboRallyGame(Config(**opts))
    venv = agents.vector_env("roborally", 3, opponents=["roborally/greedy"], seed=5, **opts)
    episodes = _replay(venv, game, 5, lambda shared: [GreedyProgram(game, np.random.default_rng(0))], 250,
                       np.random.default_rng(1))
    assert episodes >= 5
