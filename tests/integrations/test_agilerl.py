"""AgileRL: its documented multi-agent training loop (MADDPG over `AsyncPettingZooVecEnv`, as in its PettingZoo
tutorial) runs unchanged on RoboRally's Parallel env with the mask in `info`, and never plays a masked action.
Runs where AgileRL is installed (its own venv: `.ci/setup-agilerl`, since AgileRL pins pettingzoo<1.27)."""

import numpy as np
import pytest

pytest.importorskip("agilerl")

from agilerl.algorithms.maddpg import MADDPG  # noqa: E402
from agilerl.components.data import MultiAgentTransition  # noqa: E402
from agilerl.components.replay_buffer import ReplayBuffer  # noqa: E402
from agilerl.vector.pz_async_vec_env import AsyncPettingZooVecEnv  # noqa: E402

from envs import roborally_v0  # noqa: E402


def test_agilerl_maddpg_loop_trains_on_roborally_without_an_illegal_action():
    num_envs = 2
    env = AsyncPettingZooVecEnv([lambda: roborally_v0.parallel_env(mask_in="info", max_turns=3)
                                 for _ in range(num_envs)])
    try:
        obs, info = env.reset(seed=0)
        agent = MADDPG(observation_spaces=[env.single_observation_space(a) for a in env.agents],
                       action_spaces=[env.single_action_space(a) for a in env.agents], agent_ids=list(env.agents),
                       device="cpu", batch_size=16, learn_step=8)
        memory = ReplayBuffer(1000, device="cpu")
        refused, restricted, losses = 0, 0, []
        for _ in range(60):
            restricted += sum(int((np.asarray(info[a]["action_mask"]) == 0).any()) for a in env.agents)
            action, raw = agent.get_action(obs=obs, infos=info)
            for a in env.agents:  # the masks were honoured: every chosen action is legal
                mask = np.asarray(info[a]["action_mask"])
                assert all(mask[i, int(np.ravel(action[a])[i])] == 1 for i in range(num_envs))
            next_obs, reward, term, trunc, info = env.step(action)
            refused += sum(int(np.sum(info[a].get("_illegal_action", 0))) for a in env.agents)
            step = MultiAgentTransition(obs=obs, action=raw, reward=reward, next_obs=next_obs, done=term)
            step = step.to_tensordict()
            step.batch_size = [num_envs]
            memory.add(step)
            if len(memory) >= agent.batch_size:
                losses.append(agent.learn(memory.sample(agent.batch_size)))
            obs = next_obs
        assert refused == 0 and restricted > 0 and losses
        assert all(np.isfinite(v).all() for loss in losses for v in loss.values())
    finally:
        env.close()
