"""The Game's vector env with batch-policy teammates, teammate pools and `set_opponents`: every table still replays
alone in the plain engine, move for move, with the batch policies' Python twins (which encode their own seat's view)
in their seats."""

from __future__ import annotations

import numpy as np
import pytest
from test_the_game_vector import CASE  # the shadow replay of one table in the plain engine (the shared contract)
from vector_contract import (
    check_bad_batch_policies,
    check_batch_policy_replay,
    check_pool_draws_per_table,
    check_set_opponents_at_next_episode,
)

import agents
from envs.the_game.rules import Config, TheGame

BEST = "the_game/bestplays"


@pytest.mark.parametrize("opts,line,max_turns", [
    (dict(num_players=3), ["pick", BEST], None),
    (dict(num_players=4, actions="slot", empty_hand="ends_game", starter=2), ["pick", "random", "pick"], None),
    (dict(num_players=2, hand_size=4, min_cards_per_turn=1, actions="slot"), ["pick"], 7),
])
def test_batch_policy_teammates_replay_in_the_plain_engine(opts, line, max_turns):
    check_batch_policy_replay(CASE, opts, line, tables=6, steps=150, least=6,
                              **({} if max_turns is None else dict(max_turns=max_turns)))


def test_pool_draws_line_ups_per_table_from_the_episode_key():
    check_pool_draws_per_table(CASE, dict(num_players=3, actions="slot"), [[BEST, BEST], ["pick", "random"],
                                                                           ["random", "random"]], steps=250, least=20)


def test_set_opponents_takes_effect_at_each_tables_next_episode():
    venv = agents.vector_env("the_game", 6, opponents=[BEST], seed=1, num_players=2, actions="slot")
    check_set_opponents_at_next_episode(venv, lambda policy: [policy])


def test_bad_batch_policies_are_refused_naming_the_policy_table_and_seat():
    check_bad_batch_policies("the_game", dict(num_players=2), CASE.not_kernels, f"allowed: {CASE.allowed}")


def test_batch_policy_of_a_saved_policy_plays_as_a_teammate(tmp_path):
    """`agents.vector.batch_policy` of a saved masked policy (the one saved-policy format) seated as a teammate: the
    table replays against the same policy as a plain-engine agent. (The shipped The Game students are action
    scorers, which `batch_policy` refuses by name.)"""
    import torch

    from agents.learned import LearnedAgent, Student, load_student, save_student

    opts = dict(num_players=3)
    game = TheGame(Config(**opts))
    torch.manual_seed(0)
    folder = save_student(Student("the_game", opts, "masked_policy", [16]), str(tmp_path / "policy"))
    greedy = agents.vector.batch_policy(folder, play="greedy", name="saved")
    venv = agents.vector_env("the_game", 4, opponents=[greedy, BEST], seed=7, **opts)
    student = load_student(folder)

    def lineup(shared):
        return [LearnedAgent(student, np.random.default_rng(0)), CASE.twin(game, BEST, shared)]

    assert CASE.replay(venv, game, 7, lineup, 120, np.random.default_rng(2)) >= 4
    with pytest.raises(ValueError, match="masked_policy"):  # Primi's student reads views only
        agents.vector.batch_policy("primi_composti/learned")
