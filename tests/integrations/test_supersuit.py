"""SuperSuit's wrappers that apply to Dict observations run whole episodes in every game.

The other SuperSuit wrappers (`dtype`, `flatten`, `normalize_obs`, `frame_stack`,
`max_observation`, `pad_observations`, `agent_indicator`, ...) accept only Box or
Discrete observations and refuse a `{"observation", "action_mask"}` Dict when
built; `frame_skip_v0` repeats a seat's previous action on its next turns, which a
turn-based card game plays as a stale (often illegal) move. docs/integrations.md
lists both groups.
"""

from __future__ import annotations

import numpy as np
import pytest

import envs

ss = pytest.importorskip("supersuit")

GAMES = envs.available_games()

WRAPPERS = {
    "sticky_actions_v0": lambda e: ss.sticky_actions_v0(e, repeat_action_probability=0.25),
    "delay_observations_v0": lambda e: ss.delay_observations_v0(e, 3),
    "clip_reward_v0": lambda e: ss.clip_reward_v0(e, -0.5, 0.5),
    "reward_lambda_v0": lambda e: ss.reward_lambda_v0(e, lambda r: 2 * r),
    "observation_lambda_v0": lambda e: ss.observation_lambda_v0(e, lambda obs, space: obs, lambda space: space),
    "action_lambda_v1": lambda e: ss.action_lambda_v1(e, lambda action, space: action, lambda space: space),
    "pad_action_space_v0": ss.pad_action_space_v0,
    "nan_noop_v0": lambda e: ss.nan_noop_v0(e, 0),
    "nan_random_v0": ss.nan_random_v0,
    "nan_zeros_v0": ss.nan_zeros_v0,
}


@pytest.mark.parametrize("wrapper", sorted(WRAPPERS))
@pytest.mark.parametrize("game", GAMES)
def test_supersuit_wrapper_runs_whole_episodes(game, wrapper):
    env = WRAPPERS[wrapper](envs.load(game).env())
    for episode in range(3):
        env.reset(seed=episode)
        rng = np.random.default_rng(episode)
        steps = 0
        for agent in env.agent_iter(max_iter=5000):
            obs, reward, term, trunc, _ = env.last()
            assert np.isfinite(reward)
            if term or trunc:
                env.step(None)
                continue
            # the delayed wrapper shows an old mask: act on the seat's own current one
            mask = env.unwrapped.observe(agent)["action_mask"]
            env.step(int(rng.choice(np.flatnonzero(mask))))
            steps += 1
        assert env.agents == [] and steps > 0  # every seat left: the episode ran to its end
