"""The shared vector-env base: per-table seeds, the SB3 adapter, truncation (shown on L.A.M.A.'s vector env)."""

from __future__ import annotations

import numba
import numpy as np
import pytest

import agents
from envs.core import kernels, to_sb3
from envs.core.shuffle import shuffled
from envs.core.vector import episode_seeds, nb_episode_seeds, nb_mix64, next_random, np_mix64, np_table_keys, table_key


@numba.njit
def _episode_seeds(key, episode, n):
    return nb_episode_seeds(key, episode, n)


def test_compiled_streams_equal_their_python_mirrors():
    for seed in (0, 1, 2**63 + 5, 2**64 - 1):
        keys = np_table_keys(seed, np.arange(50))
        assert keys.tolist() == [table_key(seed, i) for i in range(50)]
        for e in (0, 1, 17):
            d, s, r = _episode_seeds(keys[3], e, 5)
            assert (int(d), int(s), int(r)) == episode_seeds(seed, 3, e, 5)
            assert int(d) < 2**63


@numba.njit
def _nb_mix64_all(z):
    out = np.empty_like(z)
    for i in range(z.shape[0]):
        out[i] = nb_mix64(z[i])
    return out


def test_splitmix64_numpy_and_numba_forms_agree():
    z = np.random.default_rng(0).integers(0, 2**64, size=1000, dtype=np.uint64)
    z[:3] = (0, 1, 2**64 - 1)
    assert np_mix64(z).tolist() == _nb_mix64_all(z).tolist()
    state, draws = 1234567, []  # SplitMix64's reference stream (Vigna's splitmix64.c seeded 1234567)
    for _ in range(3):
        state, draw = next_random(state)
        draws.append(draw)
    assert draws == [6457827717110365317, 3203168211198807973, 9817491932198370423]


def test_shuffled_equals_the_compiled_shuffle():
    rng = np.random.default_rng(0)
    for n in (0, 1, 2, 56, 98, 127, 128, 129, 200):
        for key in (0, 1, 2**63, 2**64 - 1, int(rng.integers(0, 2**63))):
            cards = np.arange(n, dtype=np.int64)
            kernels.shuffle(cards, n, np.uint64(key))
            assert shuffled(range(n), key) == cards.tolist()


def test_keys_are_not_seed_plus_table():
    keys = {table_key(s, i) for s in range(40) for i in range(40)}
    assert len(keys) == 1600  # seed s table i+1 never shares table i of seed s+1's stream


def test_to_sb3_infos_on_truncation_and_termination():
    venv = agents.vector_env("lama", 6, opponents=["lama/first"] * 3, seed=0, max_turns=12, reward="dense")
    sb3 = to_sb3(venv)
    obs = sb3.reset()
    assert obs.shape == (6, venv.single_observation_space.shape[0])
    seen_trunc = 0
    for _ in range(30):
        acts = np.stack(sb3.env_method("action_masks"))[0].argmax(axis=1)
        before = obs
        obs, rew, dones, infos = sb3.step(acts)
        assert obs is not before and len(infos) == 6
        for i in range(6):
            if dones[i]:
                assert infos[i]["terminal_observation"].shape == obs[i].shape
                assert set(infos[i]["episode"]) == {"r", "l"}
                seen_trunc += infos[i]["TimeLimit.truncated"]
            else:
                assert infos[i] == {}
    assert seen_trunc > 0


def test_truncation_at_max_turns():
    venv = agents.vector_env("lama", 4, opponents=["lama/first"] * 3, seed=1, max_turns=8)
    venv.reset()
    steps = np.zeros(4, np.int64)
    for _ in range(20):
        _, _, term, trunc, info = venv.step(venv.action_masks().argmax(axis=1))
        steps += 1
        assert not (term & trunc).any()
        # at most 8 moves of all seats: the learner decides at most 8 / 1 times, at least 8 / 4
        done = term | trunc
        if done.any():
            assert (info["tabletop_episode"]["l"][trunc] <= 8).all() and (
                info["tabletop_episode"]["l"][trunc] >= 2
            ).all()
            steps[done] = 0
    assert venv.action_masks().any(axis=1).all()


def test_to_sb3_refuses_next_step_autoreset():
    import gymnasium

    env = gymnasium.vector.SyncVectorEnv([lambda: gymnasium.make("CartPole-v1")])
    with pytest.raises(ValueError, match="same-step"):
        to_sb3(env)
