"""Gymnasium's own vector wrappers around the compiled vector env of every game, as a Gymnasium user writes them:
`RecordEpisodeStatistics`, `NormalizeReward`, `DictInfoToList`, and truncation (Gymnasium 1.x has no vector
`TimeLimit`; the env's own `max_turns` truncates). The env keeps its episode statistics under `tabletop_episode`,
so the wrapper's `episode` is free."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.wrappers.vector import DictInfoToList, NormalizeReward, RecordEpisodeStatistics

import agents  # noqa: F401  (resolves the default line-up's agent ids)
import envs
from envs.core.vector import CompiledVectorEnv

GAMES = envs.available_games()
#: the games with a turn cap, `max_turns` (a hand of simple poker is at most three moves: it has none)
CAPPED = [g for g in GAMES if g != "simple_poker"]


def _make(game, **options):
    venv = gymnasium.make_vec(f"tabletop/{game}-v0", num_envs=4, **options)
    assert isinstance(venv, CompiledVectorEnv)  # the compiled env, not a SyncVectorEnv fallback
    return venv


def _legal(mask, rng):
    """One legal action a table, drawn uniformly (`mask` (N, A), bool or int8)."""
    mask = np.asarray(mask, bool)
    return np.array([rng.choice(np.flatnonzero(row)) for row in mask])


def _play(env, steps, seed=0):
    """Yield each step's outputs of `env` (dict info), legal random actions, `steps` steps."""
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    for _ in range(steps):
        out = env.step(_legal(info["action_mask"], rng))
        info = out[4]
        yield out


@pytest.mark.parametrize("game", GAMES)
def test_record_episode_statistics_agrees_with_the_envs_own(game):
    env = RecordEpisodeStatistics(_make(game))
    ended = 0
    for _, _, term, trunc, info in _play(env, 150):
        done = term | trunc
        assert ("_episode" in info) == bool(done.any()) == ("_tabletop_episode" in info)
        if done.any():
            assert (info["_episode"] == done).all() and (info["_tabletop_episode"] == done).all()
            ours, theirs = info["tabletop_episode"], info["episode"]
            np.testing.assert_allclose(theirs["r"][done], ours["r"][done], atol=1e-5)
            assert (theirs["l"][done] == ours["l"][done]).all() and (theirs["t"][done] >= 0).all()
            ended += int(done.sum())
    assert ended >= 4 and env.episode_count == ended and len(env.return_queue) == min(ended, 100)


@pytest.mark.parametrize("game", GAMES)
def test_normalize_reward_scales_the_rewards_and_leaves_the_statistics_raw(game):
    # a random learner against the default line-up is paid 0 by the "win" reward of these two in 100 steps
    dense = {"lama": {"reward": "dense"}, "roborally": {"reward": "progress"}}.get(game, {})
    raw_env = _make(game, **dense)
    env = NormalizeReward(RecordEpisodeStatistics(_make(game, **dense)), gamma=0.99)
    raw_steps = _play(raw_env, 100)
    scaled_any = False
    for (_, rew, term, trunc, info), (_, raw, raw_term, raw_trunc, raw_info) in zip(_play(env, 100), raw_steps):
        assert (term == raw_term).all() and (trunc == raw_trunc).all()  # same seed, same actions: same play
        np.testing.assert_allclose(rew, raw / np.sqrt(env.return_rms.var + env.epsilon), rtol=1e-6, atol=1e-9)
        scaled_any |= bool(np.any(raw != 0) and not np.allclose(rew, raw))
        if "_episode" in info:
            done = info["_episode"]
            # inside NormalizeReward the wrapper sums the raw rewards: what the env reports as its own
            np.testing.assert_allclose(info["episode"]["r"][done], raw_info["tabletop_episode"]["r"][done], atol=1e-5)
    assert scaled_any


@pytest.mark.parametrize("game", GAMES)
def test_dict_info_to_list_gives_one_dict_a_table(game):
    env = DictInfoToList(RecordEpisodeStatistics(_make(game)))
    rng = np.random.default_rng(0)
    obs, infos = env.reset(seed=0)
    assert isinstance(infos, list) and len(infos) == 4 and all(i["action_mask"].dtype == np.int8 for i in infos)
    ended = 0
    for _ in range(150):
        obs, _, term, trunc, infos = env.step(_legal(np.stack([i["action_mask"] for i in infos]), rng))
        assert len(infos) == 4
        masks = env.unwrapped.action_masks()
        for i, info in enumerate(infos):
            assert (info["action_mask"].astype(bool) == masks[i]).all()
            if term[i] or trunc[i]:
                assert info["final_obs"].shape == obs[i].shape
                assert set(info["episode"]) == {"r", "l", "t"} and set(info["tabletop_episode"]) == {"r", "l"}
                assert info["episode"]["l"] == info["tabletop_episode"]["l"] >= 1
                assert info["final_info"]["deal_seed"] >= 0
                ended += 1
            else:
                assert "final_obs" not in info and "episode" not in info and "tabletop_episode" not in info
    assert ended >= 4


@pytest.mark.parametrize("game", CAPPED)
def test_truncation_at_max_turns_is_recorded_by_the_wrapper(game):
    assert not hasattr(gymnasium.wrappers.vector, "TimeLimit")  # if Gymnasium adds one, test it here
    env = DictInfoToList(RecordEpisodeStatistics(_make(game, max_turns=2)))
    rng = np.random.default_rng(1)
    obs, infos = env.reset(seed=1)
    cut = 0
    for _ in range(60):
        obs, _, term, trunc, infos = env.step(_legal(np.stack([i["action_mask"] for i in infos]), rng))
        assert not (term & trunc).any()
        for i in np.flatnonzero(trunc):
            assert 1 <= infos[i]["episode"]["l"] == infos[i]["tabletop_episode"]["l"]
            assert infos[i]["final_obs"].shape == obs[i].shape
            cut += 1
    assert cut > 0
