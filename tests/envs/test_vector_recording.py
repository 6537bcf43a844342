"""`record(row)` of a vector env: one table's episode, frame by frame, that replays alone in `OpponentEnv` from its
deal seed and seat (`reset(options=...)`), move for move with deterministic opponents."""

from __future__ import annotations

import numpy as np
import pytest

import agents
from envs.gymnasium_registry import single_agent_env

CASES = [("lama", ["lama/first"] * 3, {}), ("roborally", ["roborally/greedy"], {"rules": "seed"}),
         ("simple_poker", ["simple_poker/nash"], {}), ("the_game", ["the_game/bestplays"], {"num_players": 2}),
         ("primi_composti", ["primi_composti/greedy_asc"], {})]


def _play_until_recorded(venv, rec, rng, limit=5000):
    for _ in range(limit):
        if rec.finished:
            return
        masks = venv.action_masks()
        venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
    raise AssertionError("the recorded episode never ended")


@pytest.mark.parametrize("game,opponents,options", CASES)
def test_a_recorded_episode_replays_alone_in_the_opponent_env(game, opponents, options):
    venv = agents.vector_env(game, 4, opponents=opponents, seed=11, **options)
    venv.reset()
    rec = venv.record(2)
    assert rec.started and rec.frames == [venv.render(2)]
    _play_until_recorded(venv, rec, np.random.default_rng(0))
    assert len(rec.frames) == len(rec.actions) == len(rec.rewards) == rec.length
    assert sum(rec.rewards) == pytest.approx(rec.episode_return, abs=1e-4)
    env = single_agent_env(game, opponents, seed=0, **options)
    env.reset(options={"deal_seed": rec.deal_seed, "seat": rec.seat})
    assert env.learner_seat == rec.seat
    total, end = 0.0, False
    for k, a in enumerate(rec.actions):
        assert not end
        _, r, term, trunc, _ = env.step(a)
        assert r == pytest.approx(rec.rewards[k], abs=1e-4)  # float32 in the vector env
        total, end = total + r, term or trunc
    assert end and total == pytest.approx(rec.episode_return, abs=1e-4)
    assert f"episode over: return {rec.episode_return:g} in {rec.length} decisions" in str(rec)


def test_recording_waits_for_the_next_episode_and_bad_rows_are_refused():
    venv = agents.vector_env("lama", 3, opponents=["lama/first"] * 3, seed=2)
    venv.reset()
    rng = np.random.default_rng(1)
    venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in venv.action_masks()]))
    rec = venv.record(0)
    assert venv.recording(0) is rec and not rec.started and "waiting for its next episode" in str(rec)
    for _ in range(500):
        _, _, term, trunc, info = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in venv.action_masks()]))
        if term[0] or trunc[0]:
            break
    assert rec.started and not rec.finished and rec.deal_seed == int(info["deal_seed"][0])
    assert rec.seat == int(info["seat"][0]) and rec.frames == [venv.render(0)] and rec.actions == []
    with pytest.raises(ValueError, match=r"row must be an integer in 0\.\.2, got 3"):
        venv.record(3)
    with pytest.raises(KeyError, match=r"table 1 is not recorded \(recorded: \[0\]\)"):
        venv.recording(1)


def test_opponent_env_replay_options_are_checked():
    env = single_agent_env("lama", ["lama/first"] * 3, seed=0)
    with pytest.raises(ValueError, match=r"reset options \['deal'\] are not supported; allowed: 'deal_seed', 'seat'"):
        env.reset(options={"deal": 3})
    with pytest.raises(ValueError, match="'seat' needs 'deal_seed'"):
        env.reset(options={"seat": 1})
    with pytest.raises(ValueError, match=r"'seat' must be an integer in 0\.\.3, got 4"):
        env.reset(options={"deal_seed": 3, "seat": 4})
    with pytest.raises(ValueError, match="'deal_seed' must be an integer >= 0, got -1"):
        env.reset(options={"deal_seed": -1})
    env.reset(options={"deal_seed": 3, "seat": 1})
    assert env.learner_seat == 1 and env.game_state.seed == 3
