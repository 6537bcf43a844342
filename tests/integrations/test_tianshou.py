"""Tianshou 2.x runs every game through its own `PettingZooEnv`, with no adapter.

Optional: skipped only when tianshou is not installed (`pip install .[integrations]`).
"""

from __future__ import annotations

import numpy as np
import pytest

import envs

pytest.importorskip("tianshou")

from tianshou.algorithm.multiagent.marl import MultiAgentPolicy  # noqa: E402
from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm  # noqa: E402
from tianshou.data import Collector  # noqa: E402
from tianshou.env import DummyVectorEnv, PettingZooEnv  # noqa: E402

GAMES = envs.available_games()


@pytest.mark.parametrize("game", GAMES)
def test_tianshou_collects_whole_episodes_with_masked_random_policies(game):
    def make():
        return PettingZooEnv(envs.load(game).env())

    env = make()
    random_policy = MARLRandomDiscreteMaskedOffPolicyAlgorithm.Policy(env.action_space)
    policy = MultiAgentPolicy(dict.fromkeys(env.agents, random_policy))
    collector = Collector(policy, DummyVectorEnv([make, make]))
    collector.reset()
    stats = collector.collect(n_episode=6)
    assert stats.n_collected_episodes == 6 and stats.n_collected_steps >= 6
    returns = np.asarray(stats.returns)
    assert returns.shape == (6, env.env.unwrapped.game.num_players)
    if game in ("simple_poker", "primi_composti"):  # zero-sum: per-seat returns reach Tianshou intact
        assert np.allclose(returns.sum(axis=1), 0)
    if game == "the_game":  # cooperative: every seat gets the team's return
        assert np.allclose(returns, returns[:, :1])
    if game == "lama":  # win reward: one or more winners per game, 1 each
        assert set(np.unique(returns)) <= {0.0, 1.0} and (returns.sum(axis=1) >= 1).all()
