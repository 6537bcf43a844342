"""sb3-contrib's MaskablePPO learns through `OpponentEnv` in every game (a short run)."""

from __future__ import annotations

import numpy as np
import pytest

import agents
import envs
from envs.core.single_agent import OpponentEnv


@pytest.mark.parametrize("game_name", envs.available_games())
def test_maskable_ppo_runs_on_opponent_env(game_name):
    from sb3_contrib import MaskablePPO

    game = envs.make_game(game_name)
    opponents = [agents.make("random", game, r) for r in np.random.default_rng(0).spawn(game.num_players - 1)]
    env = OpponentEnv(game, envs.make_encoder(game_name, game), opponents, seed=0)
    model = MaskablePPO("MlpPolicy", env, seed=0, device="cpu", n_steps=64, batch_size=32, n_epochs=1, policy_kwargs={"net_arch": [16]})
    model.learn(128)
    assert model.num_timesteps >= 128
    obs, _ = env.reset(seed=1)
    action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
    assert env.action_masks()[int(action)]  # the trained policy respects the mask
