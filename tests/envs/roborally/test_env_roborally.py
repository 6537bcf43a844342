"""RoboRally PettingZoo environments: conformance (AEC and Parallel), masks in whole episodes, truncation."""

from __future__ import annotations

import pickle
import sys
from pathlib import Path

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, parallel_api_test, seed_test
from pettingzoo.utils.conversions import aec_to_parallel

import envs  # noqa: F401  (registers tabletop/roborally-v0)
from envs.core.game import IllegalActionError
from envs.roborally_v0 import env, parallel_env, raw_env, raw_parallel_env

sys.path.append(str(Path(__file__).parents[1]))  # tests/envs (after the installed packages), for the shared helpers
from aec_play import lowest_legal, play, random_legal  # noqa: E402

CONFIGS = [
    dict(board="tiny", num_robots=2, max_turns=8),
    dict(board="race_easy", num_robots=4, max_turns=8),
    dict(board="arena", num_robots=8, max_turns=8),
    dict(board="race_hard", num_robots=2, max_turns=8, action_mode="program"),
    dict(board="random:3", num_robots=4, max_turns=8, reward="progress"),
    dict(board="lasers", num_robots=2, max_turns=8, rules="seed"),
]

# Run again on the oldest supported PettingZoo (.ci/run): these tests exercise the PettingZoo-facing API.
pytestmark = pytest.mark.pettingzoo_api


@pytest.mark.parametrize("opts", CONFIGS)
def test_aec_api(opts):
    api_test(raw_env(**opts), num_cycles=120)
    api_test(env(**opts), num_cycles=120)


@pytest.mark.parametrize("opts", CONFIGS)
def test_parallel_api(opts):
    parallel_api_test(parallel_env(**opts), num_cycles=120)


@pytest.mark.parametrize("opts", [CONFIGS[0], CONFIGS[2]])
def test_seed(opts):
    seed_test(lambda: env(**opts), num_cycles=80)


@pytest.mark.pettingzoo_registry
def test_registry_and_metadata():
    aec = pettingzoo.make("aec", "tabletop/roborally-v0", board="arena", num_robots=4)
    par = pettingzoo.make("parallel", "tabletop/roborally-v0", board="arena", num_robots=4)
    assert aec.metadata["is_parallelizable"] and par.metadata["is_parallelizable"]
    assert par.possible_agents == [f"player_{i}" for i in range(4)]


def _check_mask(mask, num_actions):
    assert mask.dtype == np.int8 and mask.shape == (num_actions,) and mask.sum() >= 1


@pytest.mark.parametrize("opts", [CONFIGS[1], CONFIGS[2], CONFIGS[4],
                                  dict(board="race_medium", num_robots=2, max_turns=40)])
def test_parallel_whole_episodes_with_masks(opts):
    e = parallel_env(**{**opts, "max_turns": 25})
    rng = np.random.default_rng(0)
    ends = set()
    for episode in range(6):
        obs, _ = e.reset(seed=episode)
        agents = list(e.agents)
        while e.agents:
            actions = {}
            for a in e.agents:
                mask = obs[a]["action_mask"]
                _check_mask(mask, e.game.num_actions)
                assert e.observation_space(a)["observation"].contains(obs[a]["observation"])
                actions[a] = int(rng.choice(np.flatnonzero(mask)))
            obs, rew, term, trunc, _ = e.step(actions)
            assert set(term) == set(agents) == set(rew)
        ends.add(e.game.over_reason(e.game_state))
        assert all(term.values()) or all(trunc.values())
        assert all(trunc.values()) == (e.game.over_reason(e.game_state) == "max_turns")
    assert ends <= {"win", "eliminated", "max_turns"}


@pytest.mark.parametrize("opts", [CONFIGS[0], CONFIGS[2], CONFIGS[3]])
def test_aec_whole_episodes_with_masks(opts):
    e = env(**{**opts, "max_turns": 15})
    choose = random_legal(np.random.default_rng(1), lambda _, obs: _check_mask(obs["action_mask"],
                                                                                e.unwrapped.game.num_actions))
    for episode in range(4):
        totals, _ = play(e, choose, seed=episode)
        game = e.unwrapped.game
        final = game.returns(e.unwrapped.game_state)
        assert [round(totals[a], 9) for a in e.possible_agents] == [round(x, 9) for x in final]


def test_max_turns_counts_game_turns_and_truncates():
    e = raw_env(board="tiny", max_turns=2, lives=100)
    _, steps = play(e, lowest_legal, seed=0)
    assert e.game_state.turn == 2 and steps == 2 * e.game.steps_per_turn
    assert all(e.truncations.values()) and not any(e.terminations.values())


def test_aec_converts_to_parallel():
    # PettingZoo's conversion shows every seat the observation taken when the round began, where only the
    # first seat's mask is set (the AEC mask is zero off-turn): read the others' masks from the engine.
    raw = raw_env(board="tiny", max_turns=3)
    par = aec_to_parallel(raw)
    par.reset(seed=0)
    rounds = 0
    while par.agents:
        game, state = raw.game, raw.game_state
        par.step({a: int(np.flatnonzero(game.seat_mask(state, i))[0]) for i, a in enumerate(par.agents)})
        rounds += 1
    assert rounds == 3 * raw.game.rounds and raw.game_state.turn == 3


def test_parallel_illegal_action_changes_nothing():
    e = raw_parallel_env(board="tiny")
    obs, _ = e.reset(seed=0)
    before = e.game_state
    bad = int(np.flatnonzero(obs["player_1"]["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError, match="player_1"):
        e.step({"player_0": int(np.flatnonzero(obs["player_0"]["action_mask"])[0]), "player_1": bad})
    assert e.game_state == before


def test_render_modes_and_pickle():
    e = raw_env(board="tiny", render_mode="ansi", max_turns=7)
    e.reset(seed=0)
    assert "turn 1" in e.render()
    picture = parallel_env(board="tiny", render_mode="rgb_array")
    picture.reset(seed=0)
    frame = picture.render()
    assert frame.dtype == np.uint8 and frame.ndim == 3
    assert pickle.loads(pickle.dumps(e)).game.config.max_turns == 7


def test_view_is_the_information_set():
    e = raw_env(board="arena", num_robots=4)
    e.reset(seed=2)
    v = e.view("player_2")
    assert v.seat == 2 and v.hand == e.game_state.hands[2]
