"""PettingZoo conformance and behaviour of the L.A.M.A. environment."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from envs.core.game import IllegalActionError
from envs.lama import DRAW, QUIT
from envs.lama_v0 import env, raw_env

sys.path.append(str(Path(__file__).parents[1]))  # tests/envs (after the installed packages), for the shared helpers
from aec_play import play, random_legal  # noqa: E402

CONFIGS = [
    dict(num_players=2),
    dict(num_players=4),
    dict(num_players=6, rules="official", empty_deck="reshuffle"),
    dict(num_players=3, rules="seed2022"),
    dict(num_players=8, rules="seed2022"),
    dict(num_players=4, rules="seed2022", reward="dense"),
]

# Run again on the oldest supported PettingZoo (.ci/run): these tests exercise the PettingZoo-facing API.
pytestmark = pytest.mark.pettingzoo_api


@pytest.mark.parametrize("opts", CONFIGS)
def test_api_raw_and_wrapped(opts):
    api_test(raw_env(**opts), num_cycles=300)
    api_test(env(**opts), num_cycles=300)


@pytest.mark.parametrize("opts", [CONFIGS[1], CONFIGS[4]])
def test_seed(opts):
    seed_test(lambda: env(**opts), num_cycles=200)
    seed_test(lambda: raw_env(**opts), num_cycles=200)


def play_random(e, seed: int) -> list[float]:
    """Random legal play of one episode (each observation inside its space): every seat's summed rewards."""
    def in_space(agent, obs):
        assert e.observation_space(agent)["observation"].contains(obs["observation"])

    totals, _ = play(e, random_legal(np.random.default_rng(seed), in_space), seed=seed)
    return [totals[a] for a in e.possible_agents]


def test_win_reward_counts_every_winner():
    e = raw_env(num_players=4, rules="seed2022")
    for seed in range(5):
        rewards = play_random(e, seed)
        winners = set(e.game.winners(e.game_state))
        assert rewards == [1.0 if i in winners else 0.0 for i in range(4)]


def test_dense_reward_sums_to_minus_points():
    e = raw_env(num_players=3, rules="official", reward="dense")
    rewards = play_random(e, 3)
    assert rewards == [-float(t) for t in e.game_state.totals]


def test_ansi_render():
    e = raw_env(num_players=3, render_mode="ansi")
    e.reset(seed=1)
    text = e.render()
    assert "player_2" in text and "round 1" in text


def test_raw_env_refuses_illegal_action():
    e = raw_env(num_players=4)
    e.reset(seed=0)
    mask = e.action_mask()
    bad = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(IllegalActionError):
        e.step(bad)
    assert mask[DRAW] == 1 and mask[QUIT] == 1


def test_wrapped_env_punishes_illegal_action():
    e = env(num_players=4)
    e.reset(seed=0)
    mask = e.last()[0]["action_mask"]
    e.step(int(np.flatnonzero(mask == 0)[0]))
    assert e.rewards["player_0"] == -1.0 and all(e.terminations.values())


def test_bad_option_names_allowed_keys():
    with pytest.raises(ValueError, match="allowed options"):
        raw_env(players=4)
    with pytest.raises(ValueError, match="2..6"):
        raw_env(num_players=7)


@pytest.mark.pettingzoo_registry
def test_pettingzoo_registry():
    import pettingzoo

    import envs  # noqa: F401  (registers tabletop/* ids)

    e = pettingzoo.make("aec", "tabletop/lama-v0", num_players=5, rules="seed2022")
    e.reset(seed=0)
    assert len(e.possible_agents) == 5
