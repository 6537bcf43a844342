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


@pytest.mark.slow
def test_tianshou_dqn_on_opponent_env_reaches_the_best_response_value():
    """Tianshou's DQN learns simple poker's best response to a fixed opponent
    through `OpponentEnv` (the single-agent view pays the learner for the
    opponent's game-ending call, which Tianshou's multi-agent policy would credit
    to the opponent's transition)."""
    import dataclasses

    import torch
    from tianshou.algorithm import DQN
    from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
    from tianshou.algorithm.optim import AdamOptimizerFactory
    from tianshou.data import VectorReplayBuffer
    from tianshou.utils.net.common import Net
    from tianshou.utils.torch_utils import policy_within_training_step

    import agents
    from agents.simple_poker.strategies import best_response_value, expected_payoff
    from envs.core import OpponentEnv

    torch.manual_seed(0)
    np.random.seed(0)  # Tianshou's epsilon-greedy draws from NumPy's global generator
    game = envs.make_game("simple_poker", n=3, ante=1.0, bet=2.0)
    encoder = envs.make_encoder("simple_poker", game)
    opponent = "simple_poker/threshold?t=2"  # player 2 calls with cards 2 and 3

    def make(i):
        return lambda: OpponentEnv(game, encoder, [agents.make(opponent, game, np.random.default_rng(i))], seat=0,
                                   seed=i)

    train_envs = DummyVectorEnv([make(i) for i in range(4)])
    net = Net(state_shape=encoder.observation_space.shape, action_shape=game.num_actions, hidden_sizes=[32])
    policy = DiscreteQLearningPolicy(model=net, action_space=train_envs.action_space[0], eps_training=0.2)
    algorithm = DQN(policy=policy, optim=AdamOptimizerFactory(lr=1e-2), gamma=1.0)
    buffer = VectorReplayBuffer(2000, 4)
    collector = Collector(algorithm, train_envs, buffer, exploration_noise=True)
    call = np.asarray(agents.make(opponent, game, np.random.default_rng(0)).strategy.call)
    best = best_response_value(game.n, 1.0, 2.0, p2_call=call)

    def greedy_value():
        """Player 1's exact expected net with the network's greedy action for each card."""
        bets = []
        for card in range(1, game.n + 1):
            state = dataclasses.replace(game.initial_state(np.random.default_rng(0)), cards=(card, 1), history=())
            with torch.no_grad():
                q = net(torch.as_tensor(encoder.encode(game.view(state, 0))[None]))[0]
            bets.append(float(q.argmax()))
        return expected_payoff(game.n, 1.0, 2.0, np.array(bets), call)

    assert greedy_value() < best - 0.1  # the fresh network does not play the best response
    collector.reset()
    for _ in range(30):
        collector.collect(n_step=64)
        with policy_within_training_step(policy):
            for _ in range(8):
                algorithm.update(buffer=buffer, sample_size=64)

    assert greedy_value() == pytest.approx(best, abs=1e-9)
