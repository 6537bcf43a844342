"""The Game as a PettingZoo env: API conformance, seeding, infos, observation fields."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pettingzoo
import pytest

import envs  # noqa: F401  (registers tabletop/the_game-v0)
from envs import the_game_v0
from envs.core.game import IllegalActionError
from envs.the_game.rules import END_TURN, play_action

sys.path.append(str(Path(__file__).parents[1]))  # tests/envs (after the installed packages), for the shared helpers
from aec_play import conformance  # noqa: E402

CONFIGS = [
    dict(num_players=1),
    dict(num_players=2),
    dict(num_players=3, communication="pile_flags"),
    dict(num_players=4, min_cards_per_turn=3),
    dict(num_players=5, communication="pile_flags"),
    dict(num_players=1, rules="berger2024"),
    dict(num_players=4, rules="berger2024"),
    dict(num_players=7, rules="berger2024"),
]

# Run again on the oldest supported PettingZoo (.ci/run): these tests exercise the PettingZoo-facing API.
pytestmark = pytest.mark.pettingzoo_api


@pytest.mark.parametrize("options", CONFIGS, ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()))
def test_api_and_seed(options):
    conformance(the_game_v0, options, cycles=60, seed_cycles=60, seed_raw=True)


@pytest.mark.pettingzoo_registry
def test_pettingzoo_make_and_render():
    env = pettingzoo.make("aec", "tabletop/the_game-v0", num_players=3, rules="official", render_mode="ansi")
    env.reset(seed=1)
    assert env.possible_agents == ["player_0", "player_1", "player_2"]
    assert "up0" in env.render()


@pytest.mark.parametrize("options", [dict(num_players=3), dict(num_players=2, rules="berger2024"),
                                     dict(num_players=2, communication="pile_flags")])
def test_infos_report_cards_left_and_rewards_are_shared(options):
    env = the_game_v0.raw_env(**options)
    env.reset(seed=7)
    rng = np.random.default_rng(7)
    assert all(env.infos[a]["cards_left"] == 98 for a in env.agents)
    total = dict.fromkeys(env.possible_agents, 0.0)
    for _agent in env.agent_iter(max_iter=2000):
        obs, _, term, trunc, info = env.last()
        for a in env.agents:
            total[a] += env.rewards[a]
        if term or trunc:
            env.step(None)
            continue
        placed = env.game_state.placed
        assert info["cards_left"] == 98 - placed and info["cards_placed"] == placed
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
    final = env.game_state
    assert final.over
    # every seat got the same team reward: one per card placed (+ the bonus on a win)
    expect = final.placed + (env.game.win_bonus if final.won else 0.0)
    assert all(v == pytest.approx(expect) for v in total.values())


def test_observation_fields_show_own_hand_and_placed_cards():
    env = the_game_v0.raw_env(num_players=2)
    env.reset(seed=3)
    lay = env.encoder.layout
    s = env.game_state
    obs = env.observe("player_1")["observation"]
    f = lay.split(obs)
    assert sorted(np.flatnonzero(f["hand"]) + 2) == sorted(s.hands[1])
    assert f["placed"].sum() == 0 and f["tops"].tolist() == pytest.approx([0.01, 0.01, 1.0, 1.0])
    assert f["to_act"].tolist() == [0.0, 1.0]  # player_0 (offset 1 from player_1) is to act
    c = min(s.hands[0])
    env.step(play_action(c, 0))
    f = lay.split(env.observe("player_1")["observation"])
    assert np.flatnonzero(f["placed"]).tolist() == [c - 2]
    assert f["tops"][0] == pytest.approx(c / 100)
    assert env.observation_space("player_1")["observation"].contains(env.observe("player_1")["observation"])


def test_raw_env_refuses_end_turn_before_the_minimum():
    env = the_game_v0.raw_env(num_players=2)
    env.reset(seed=0)
    before = env.game_state
    with pytest.raises(IllegalActionError, match="player_0"):
        env.step(END_TURN)
    assert env.game_state == before


def test_unknown_option_is_refused():
    with pytest.raises(ValueError, match="allowed options"):
        the_game_v0.raw_env(players=3)
