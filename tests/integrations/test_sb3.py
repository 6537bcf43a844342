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
    model = MaskablePPO("MlpPolicy", env, seed=0, device="cpu", n_steps=64, batch_size=32, n_epochs=1,
                        policy_kwargs={"net_arch": [16]})
    model.learn(128)
    assert model.num_timesteps >= 128
    obs, _ = env.reset(seed=1)
    action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
    assert env.action_masks()[int(action)]  # the trained policy respects the mask


@pytest.mark.parametrize("game_name", envs.available_games())
def test_model_predict_output_steps_every_env_unchanged(game_name):
    """What SB3's `model.predict` returns for one observation (a 0-d integer array) is an action as it stands in
    `OpponentEnv`, `raw_env` and `env()` (PettingZoo's SB3 tutorial steps the AEC env with it), no `int(...)`."""
    from sb3_contrib import MaskablePPO

    small = {"board": "tiny", "num_robots": 2} if game_name == "roborally" else {}
    game = envs.make_game(game_name, **small)
    opponents = [agents.make("random", game, r) for r in np.random.default_rng(0).spawn(game.num_players - 1)]
    env = OpponentEnv(game, envs.make_encoder(game_name, game), opponents, seed=0, max_turns=200)
    model = MaskablePPO("MlpPolicy", env, seed=0, device="cpu", n_steps=64, batch_size=32,
                        policy_kwargs={"net_arch": [16]})
    obs, _ = env.reset(seed=1)
    for _ in range(5):
        action, _ = model.predict(obs, action_masks=env.action_masks())
        assert isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind == "i"
        obs, _, term, trunc, info = env.step(action)
        assert "illegal_action" not in info
        if term or trunc:
            obs, _ = env.reset()
    mod = envs.load(game_name)
    for aec in (mod.raw_env(**small), mod.env(**small)):
        aec.reset(seed=2)
        for _ in range(5):
            obs, _, term, trunc, _ = aec.last()
            if term or trunc:
                break
            action, _ = model.predict(obs["observation"], action_masks=obs["action_mask"].astype(bool))
            turns = aec.unwrapped.num_turns
            aec.step(action)
            assert aec.unwrapped.num_turns == turns + 1
            assert not any("illegal_action" in i for i in aec.infos.values())
