"""PettingZoo's conversions: `turn_based_aec_to_parallel` runs every turn-based game."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import parallel_api_test
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

import envs

GAMES = envs.available_games()

# Run again on the oldest supported PettingZoo (.ci/run): these tests exercise the PettingZoo-facing API.
pytestmark = pytest.mark.pettingzoo_api


@pytest.mark.parametrize("game", GAMES)
def test_turn_based_aec_to_parallel_plays_whole_games(game):
    env = turn_based_aec_to_parallel(envs.load(game).env())
    parallel_api_test(env, num_cycles=200)
    for seed in range(3):
        observations, _ = env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        totals = dict.fromkeys(env.possible_agents, 0.0)
        steps = 0
        while env.agents:
            # every seat sends an action; only the seat whose mask is non-zero is to move
            actions = {}
            for agent in env.agents:
                legal = np.flatnonzero(observations[agent]["action_mask"])
                actions[agent] = int(rng.choice(legal)) if len(legal) else 0
            observations, rewards, terms, truncs, _ = env.step(actions)
            for agent, r in rewards.items():
                totals[agent] += r
            steps += 1
            assert steps < 5000
        raw = env.unwrapped  # every reward reached the seats: they add up to the final returns
        assert raw.game.is_terminal(raw.game_state)
        assert tuple(totals.values()) == pytest.approx(raw.game.returns(raw.game_state))
