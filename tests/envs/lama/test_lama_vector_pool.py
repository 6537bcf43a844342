"""L.A.M.A.'s vector env with batch policies, opponent pools and `set_opponents`: every table still replays alone in
the plain engine, move for move, with the batch policies' Python twins in their seats."""

from __future__ import annotations

import numpy as np
import pytest
from test_lama_vector import CASE  # the shadow replay of one table in the plain engine (the shared contract)
from vector_contract import (
    check_bad_batch_policies,
    check_batch_policy_replay,
    check_pool_draws_per_table,
    check_set_opponents_at_next_episode,
)

import agents
from envs.core.vector import BatchPolicy


@pytest.mark.parametrize("opts", [dict(reward="dense"), dict(rules="seed2022", num_players=3)])
def test_batch_policy_seats_replay_in_the_plain_engine(opts):
    n = CASE.engine(opts).num_players
    check_batch_policy_replay(CASE, opts, ["pick", "lama/first", "pick"][: n - 1], tables=5, steps=250, least=3)


def test_pool_draws_line_ups_per_table_from_the_episode_key():
    check_pool_draws_per_table(CASE, dict(num_players=3, reward="dense"),
                               [["lama/first"] * 2, ["pick", "random"], ["random", "random"]], steps=400, least=1)


def test_set_opponents_takes_effect_at_each_tables_next_episode():
    venv = agents.vector_env("lama", 6, opponents=["lama/first"], seed=1, num_players=2, target_points=10,
                             reward="dense")
    check_set_opponents_at_next_episode(venv, lambda policy: [policy])


def test_bad_batch_policies_and_pools_are_refused_with_a_name():
    check_bad_batch_policies("lama", dict(num_players=2), CASE.not_kernels, f"allowed: {CASE.allowed}")


def test_batch_policy_of_a_shipped_policy_plays_its_distribution():
    from agents.learned import load_student
    from agents.pretrained import checkpoints

    student = load_student(checkpoints()["lama/ppo-sb3"])
    greedy = agents.vector.batch_policy("lama/ppo-sb3", play="greedy")
    venv = agents.vector_env("lama", 64, opponents=["lama/first"] * 3, seed=0)
    obs, _ = venv.reset()
    mask = venv.action_masks()
    import torch

    with torch.no_grad():
        logits, _ = student.net(torch.from_numpy(obs), torch.from_numpy(mask).float())
    np.testing.assert_array_equal(greedy.fn(obs, mask, np.arange(64), np.random.default_rng(0)),
                                  np.where(mask, logits.numpy(), -np.inf).argmax(axis=1))
    sample = agents.vector.batch_policy("lama/ppo-sb3")  # the saved policy's own way: sampled
    rng = np.random.default_rng(1)
    draws = np.stack([sample.fn(obs[:1].repeat(4000, 0), mask[:1].repeat(4000, 0), np.zeros(4000, np.int64), rng)])
    p = torch.softmax(logits[0].double(), -1).numpy()
    freq = np.bincount(draws.ravel(), minlength=p.size) / draws.size
    assert np.abs(freq - p).max() < 4.5 * np.sqrt(0.25 / draws.size)  # within ~4.5 standard errors everywhere
    assert mask[0][np.flatnonzero(freq)].all()
    venv = agents.vector_env("lama", 8, opponents=[sample, "lama/first", greedy], seed=2)
    venv.reset()
    venv.step(venv.action_masks().argmax(axis=1))
    with pytest.raises(ValueError, match="shipped"):
        agents.vector.batch_policy("lama/nope")


def test_a_step_after_a_batch_policys_error_is_refused_until_reset():
    state = {"fail": True}

    def flaky(obs, mask, rows, rng):
        if state["fail"]:
            raise KeyError("boom")
        return mask.argmax(axis=1)

    venv = agents.vector_env("lama", 4, opponents=[BatchPolicy(flaky, "flaky")], seed=0, seat=1, num_players=2)
    with pytest.raises(KeyError):
        venv.reset()
    with pytest.raises(RuntimeError, match="call reset"):
        venv.step(np.zeros(4, np.int64))
    state["fail"] = False
    venv.reset()
    venv.step(venv.action_masks().argmax(axis=1))
