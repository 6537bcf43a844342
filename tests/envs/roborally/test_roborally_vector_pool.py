"""RoboRally's vector env with batch policies, opponent pools and `set_opponents`: every table still replays alone in
the plain engine, sub-step for sub-step, with the batch policies' Python twins in their seats."""

from __future__ import annotations

import numpy as np
import pytest
from test_roborally_vector import CASE  # the shadow replay of one table in the plain engine (the shared contract)
from vector_contract import (
    check_bad_batch_policies,
    check_batch_policy_replay,
    check_pool_draws_per_table,
    check_set_opponents_at_next_episode,
)

import agents
from agents.vector import resolve_opponents
from envs.core.vector import BatchPolicy, Pool


@pytest.mark.parametrize("n,opts", [
    (2, dict(rules="seed", reward="progress", max_turns=12)),
    (3, dict(num_robots=3, reward="progress", max_turns=8)),  # classic: the power round
    (4, dict(board="race_medium", num_robots=4, max_turns=6)),
])
def test_batch_policy_seats_replay_in_the_plain_engine(n, opts):
    """The kernels play a forced sub-step themselves: the batch policy is asked only where it has a choice (its
    twin is asked at forced sub-steps too, where it can only answer the one legal action)."""
    check_batch_policy_replay(CASE, opts, ["pick", "roborally/greedy", "pick"][: n - 1], tables=5, steps=250,
                              least=10, choice_only=True)


def test_pool_draws_line_ups_per_table_from_the_episode_key():
    check_pool_draws_per_table(CASE, dict(num_robots=3, rules="seed", reward="progress", max_turns=6),
                               [["roborally/greedy"] * 2, ["pick", "random"], ["random", "random"]], steps=300,
                               least=20)


def test_set_opponents_takes_effect_at_each_tables_next_episode():
    """To a batch policy, then back to a kernel line-up (a pool): the batch policy plays out the episodes it sits
    in, then is asked no more."""
    venv = agents.vector_env("roborally", 6, opponents=["roborally/greedy"], seed=1, rules="seed", reward="progress",
                             max_turns=5)
    check_set_opponents_at_next_episode(venv, lambda policy: [policy],
                                        back=resolve_opponents("roborally", Pool([["roborally/greedy"], ["random"]])))


def test_a_learned_policy_snapshot_is_an_opponent():
    """An SB3 policy (as a self-play snapshot) seated through `agents.batch_policy`: its observations and masks fit
    the learner's, and its greedy moves are the ones it makes on each table's own observation alone."""
    from sb3_contrib import MaskablePPO

    from agents.vector import batch_policy
    from envs.core import to_sb3

    opts = dict(rules="seed", reward="progress", max_turns=6)
    venv = to_sb3(agents.vector_env("roborally", 4, opponents=["random"], seed=0, **opts))
    model = MaskablePPO("MlpPolicy", venv, n_steps=8, batch_size=32, n_epochs=1, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [16]})
    snap = batch_policy(model.policy, play="greedy", name="snapshot")
    seen: list[tuple] = []

    def fn(obs, mask, rows, rng):
        acts = snap.fn(obs, mask, rows, rng)
        seen.append((obs.copy(), mask.copy(), acts))
        return acts

    env = agents.vector_env("roborally", 4, opponents=[BatchPolicy(fn, "snapshot")], seed=1, **opts)
    env.reset()
    rng = np.random.default_rng(0)
    episodes = 0
    for _ in range(60):
        masks = env.action_masks()
        _, _, term, trunc, _ = env.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        episodes += int((term | trunc).sum())
    assert episodes >= 4 and len(seen) > 20
    for obs, mask, acts in seen[:10]:
        for i in range(len(acts)):
            assert snap.fn(obs[i:i + 1], mask[i:i + 1], np.zeros(1, np.int64), rng)[0] == acts[i]


def test_bad_batch_policies_and_pools_are_refused_with_a_name():
    check_bad_batch_policies("roborally", dict(rules="seed", max_turns=5), CASE.not_kernels,
                             f"allowed: {CASE.allowed}")
    with pytest.raises(ValueError, match="needs 2 opponents"):
        agents.vector_env("roborally", 3, opponents=Pool([["random", "random"], ["random"]]), num_robots=3)
