"""L.A.M.A.'s move limit (`LamaGame.max_game_length`): the seed's reshuffle lets players who never fold go on for
ever, so every env form truncates an episode at the same move unless told another `max_turns`, and tournaments cut
the game there (`tests/evaluate/test_tournament_engines.py`)."""

from __future__ import annotations

import numpy as np
import pytest

import agents
import envs
from envs.core.single_agent import OpponentEnv

# Run again on the oldest supported PettingZoo (.ci/run): these tests exercise the PettingZoo-facing API.
pytestmark = pytest.mark.pettingzoo_api


def test_every_env_form_takes_the_games_move_limit_by_default():
    game = envs.make_game("lama", rules="seed2022")
    limit = game.max_game_length
    assert limit is not None and limit >= 1000
    assert envs.lama_v0.raw_env(rules="seed2022").max_turns == limit
    assert envs.lama_v0.raw_env(rules="seed2022", max_turns=40).max_turns == 40
    opponents = [agents.make("lama/first", game, np.random.default_rng(i)) for i in range(3)]
    assert OpponentEnv(game, envs.make_encoder("lama", game), opponents).max_turns == limit
    assert OpponentEnv(game, envs.make_encoder("lama", game), opponents, max_turns=7).max_turns == 7
    assert agents.vector_env("lama", 2, opponents=["lama/first"] * 3, rules="seed2022")._max_turns == limit
    assert agents.vector_env("lama", 2, opponents=["lama/first"] * 3, max_turns=30)._max_turns == 30
    # a game whose every game ends has no limit of its own
    assert envs.simple_poker_v0.raw_env().max_turns is None


def test_the_vector_env_truncates_an_episode_at_the_limit():
    """A limit inside the game (12 moves of any seat) ends the learner's episode as a truncation."""
    venv = agents.vector_env("lama", 1, opponents=["lama/first"] * 3, seed=3, max_turns=12, seat=0)
    venv.reset(seed=3)
    truncated = terminated = False
    steps = 0
    while not (truncated or terminated):
        _, _, term, trunc, _ = venv.step(venv.action_masks().argmax(axis=1))
        terminated, truncated = bool(term[0]), bool(trunc[0])
        steps += 1
    assert truncated and not terminated and steps <= 12
