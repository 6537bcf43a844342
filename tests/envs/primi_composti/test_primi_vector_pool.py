"""Primi Composti's vector env with batch policies, opponent pools and `set_opponents`: every table still replays
alone in the plain engine, move for move, with the batch policies' Python twins in their seats."""

from __future__ import annotations

import numpy as np
import pytest
from test_primi_vector import (  # the shadow replay of one table in the plain engine (shared contract)
    CASE,
    GREEDY,
    N_CASE,
)
from vector_contract import (
    check_bad_batch_policies,
    check_batch_policy_replay,
    check_pool_draws_per_table,
    check_set_opponents_at_next_episode,
    pick_policy,
)

import agents
from agents.primi_composti.strategies import SeedPlayer
from agents.vector import resolve_opponents
from envs.core.vector import Pool


@pytest.mark.parametrize("opts", [dict(cards_per_player=5), dict(version=2, cards_per_player=6, observation_hints=True,
                                                                 seat0_holds_two=False, reward="result")])
def test_batch_policy_seat_replays_in_the_plain_engine(opts):
    check_batch_policy_replay(CASE, opts, ["pick"], tables=6, steps=8 * opts["cards_per_player"], least=6 * 7)


def test_pool_draws_line_ups_per_table_from_the_episode_key():
    opts = dict(cards_per_player=4, version=2)
    game = CASE.engine(opts)
    check_pool_draws_per_table(CASE, opts, [[GREEDY], ["pick"], ["random"]], steps=60, least=1,
                               python={GREEDY: lambda: SeedPlayer(game, None, "greedy_rand", fast=False)})


def test_n_players_batch_policies_and_pools_replay_in_the_plain_engine():
    """3 and 4 players: batch policies beside kernel opponents (each asked with its own seat's view, the other hands
    hidden), and a Pool of 3-seat line-ups drawn per table."""
    opts = dict(num_players=3, version=2, cards_per_player=4, seat0_holds_two=False)
    game = N_CASE.engine(opts)
    python = {GREEDY: lambda: SeedPlayer(game, None, "greedy_rand", fast=False)}
    check_batch_policy_replay(N_CASE, opts, ["pick", GREEDY], tables=6, steps=24, least=6 * 4, python=python)
    opts4 = dict(num_players=4, cards_per_player=3)
    game4 = N_CASE.engine(opts4)
    check_pool_draws_per_table(N_CASE, opts4, [[GREEDY, "pick", "random"], ["pick"] * 3, ["random"] * 3], steps=40,
                               least=6 * 4, python={GREEDY: lambda: SeedPlayer(game4, None, "greedy_rand", fast=False)})


def test_set_opponents_takes_effect_at_each_tables_next_episode():
    """To a batch policy and back to a kernel opponent (the same compiled kernels) in a weighted pool."""
    venv = agents.vector_env("primi_composti", 6, opponents=[GREEDY], seed=1, cards_per_player=4)
    check_set_opponents_at_next_episode(venv, lambda policy: [policy], steps=40,
                                        back=resolve_opponents("primi_composti", Pool([[GREEDY], ["random"]],
                                                                                      weights=[1, 3])))
    with pytest.raises(ValueError, match="needs 1 opponent"):
        venv.set_opponents(resolve_opponents("primi_composti", [GREEDY, GREEDY]))


def test_truncation_does_not_ask_the_batch_policy():
    calls: list[np.ndarray] = []
    venv = agents.vector_env("primi_composti", 3, opponents=[pick_policy(calls)], seed=0, seat=0, max_turns=5,
                             cards_per_player=6)
    venv.reset()  # seat 0 holds card 2 and moves first: no opponent move in the opening
    assert not calls
    for step in range(3):
        calls.clear()
        _, _, term, trunc, info = venv.step(venv.action_masks().argmax(axis=1))
        # moves 2 and 4 are the batch policy's; after the learner's third card (move 5) the episode is truncated
        assert [len(c) for c in calls] == ([] if step == 2 else [3])
    assert trunc.all() and not term.any() and (info["tabletop_episode"]["l"] == 3).all()


def test_bad_batch_policies_and_pools_are_refused_with_a_name():
    check_bad_batch_policies("primi_composti", {}, CASE.not_kernels, f"allowed: {CASE.allowed}")
