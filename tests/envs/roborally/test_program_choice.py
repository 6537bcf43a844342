"""The program-choice env (`envs.roborally.choice`): its rows, mask and candidates, and that a candidate played
is the wrapped program-mode env's action (same deals, same states, same rewards)."""

from __future__ import annotations

import numpy as np
import pytest

from envs.core.vector import RANDOM
from envs.roborally import fast
from envs.roborally.choice import CONTEXT_DIM, FEATURE_DIM, ProgramChoiceEnv, preselect
from envs.roborally.rules import NUM_PROGRAMS, PROGRAM_NOOP
from envs.roborally.vector import vector_env

OPTS = dict(board="race_easy", num_robots=2, rules="seed", reward="progress", max_turns=15)
FEAT = {name: i for i, name in enumerate(fast.PROGRAM_FEATURES)}


def test_shapes_mask_and_candidates():
    env = ProgramChoiceEnv(8, candidates=24, opponents=[RANDOM], seed=4, **OPTS)
    obs, _ = env.reset()
    assert obs.shape == (8, CONTEXT_DIM + 24 * FEATURE_DIM) and env.feature_dims == (CONTEXT_DIM, FEATURE_DIM)
    cards, feats, counts = env.venv.program_table()
    mask, acts = env.action_masks(), env.candidate_actions()
    for r in range(8):
        n = int(mask[r].sum())
        assert n == min(int(counts[r]), 24) and mask[r, :n].all()
        assert len(set(acts[r, :n].tolist())) == n and (acts[r, :n] < counts[r]).all()
        per = obs[r, CONTEXT_DIM:].reshape(24, FEATURE_DIM)
        assert (per[n:] == 0).all() and (per[:n, -1] == 1).all()
        np.testing.assert_allclose(per[:n, FEAT["alive"]], feats[r, acts[r, :n], FEAT["alive"]])
        # the first candidate in the flag seeker's order is its program: best (alive, flags, -steps), lowest rank
        best = acts[r, int(np.argmin(per[:n, len(fast.PROGRAM_FEATURES)]))]
        f = feats[r, :counts[r]]
        key = np.stack([f[:, FEAT["alive"]], f[:, FEAT["flags"]], -f[:, FEAT["distance"]]], axis=1)
        most = max(map(tuple, key))
        top = [p for p in range(int(counts[r])) if tuple(key[p]) == most]
        assert best == top[0]
    assert (counts > 24).any()


def test_preselect_keeps_everything_that_fits_and_caps_an_end():
    feats = np.zeros((10, len(fast.PROGRAM_FEATURES)), np.float32)
    feats[:, FEAT["alive"]] = 1
    feats[:, FEAT["facing_n"]] = 1
    feats[:, FEAT["distance"]] = np.arange(10)[::-1] / 20  # the higher the rank, the nearer
    assert preselect(feats, 10, 10, 1).tolist() == list(range(10))
    assert preselect(feats, 10, 3, 4).tolist() == [9, 8, 7]
    feats[5:, FEAT["x"]] = 0.5  # two ends: ranks 0-4 and 5-9; at most 2 each come first
    assert preselect(feats, 10, 5, 2).tolist() == [9, 8, 4, 3, 7]


@pytest.mark.parametrize("candidates", [4, 200])
def test_a_candidate_is_the_program_mode_action(candidates):
    env = ProgramChoiceEnv(6, candidates=candidates, opponents=[RANDOM], seed=9, **OPTS)
    ref = vector_env(6, opponents=[RANDOM], seed=9, action_mode="program", **OPTS)
    env.reset()
    ref.reset()
    rng = np.random.default_rng(2)
    ended = 0
    for _ in range(40):
        mask, acts = env.action_masks(), env.candidate_actions()
        assert (ref.action_masks()[np.arange(6)[:, None], np.where(mask, acts, PROGRAM_NOOP)] | ~mask).all()
        pick = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        _, rew, term, trunc, info = env.step(pick)
        _, rew_r, term_r, trunc_r, info_r = ref.step(acts[np.arange(6), pick])
        np.testing.assert_array_equal(rew, rew_r)
        assert np.array_equal(term, term_r) and np.array_equal(trunc, trunc_r)
        assert np.array_equal(env.venv._tables.R, ref._tables.R)
        ended += int((term | trunc).sum())
    assert ended >= 3 and (acts < NUM_PROGRAMS).any()


def test_same_seed_same_episodes():
    def run():
        env = ProgramChoiceEnv(4, candidates=16, opponents=[RANDOM], seed=13, **OPTS)
        obs, _ = env.reset()
        out = [obs]
        rng = np.random.default_rng(0)
        for _ in range(12):
            m = env.action_masks()
            obs, rew, *_ = env.step(np.array([rng.choice(np.flatnonzero(x)) for x in m]))
            out += [obs, rew]
        return out

    for a, b in zip(run(), run()):
        np.testing.assert_array_equal(a, b)


def test_bad_options():
    with pytest.raises(ValueError, match="candidates"):
        ProgramChoiceEnv(2, candidates=0, opponents=[RANDOM])
    with pytest.raises(ValueError, match="action_mode"):
        ProgramChoiceEnv(2, opponents=[RANDOM], action_mode="register")
