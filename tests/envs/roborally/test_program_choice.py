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


def _readable_observe(env):
    """The rows, actions, mask and cards a decision offers, built from the readable `preselect`/`seeker_order`."""
    from envs.roborally.choice import _SCALE, MAX_ROBOTS, seeker_order

    cards, feats, counts = env.venv.program_table()
    T, b, K = env.venv._tables, env.game.board, env.candidates
    nflags, big, dist = len(b.flags), float(b.width + b.height), env.venv.engine.board[15]
    obs = np.zeros((env.num_envs, CONTEXT_DIM + K * FEATURE_DIM), np.float32)
    acts = np.full((env.num_envs, K), PROGRAM_NOOP, np.int64)
    mask = np.zeros((env.num_envs, K), bool)
    cands = np.zeros((env.num_envs, K, 5), np.int32)

    def steps(R, i):
        nf = int(R[i, fast.RNF])
        if nf >= nflags:
            return 0.0
        x, y = int(R[i, fast.RX]), int(R[i, fast.RY])
        if not R[i, fast.RON] or not (0 <= x < b.width and 0 <= y < b.height) or dist[nf, y, x] < 0:
            return 1.0
        return min(float(dist[nf, y, x]), big) / big

    for r in range(env.num_envs):
        c, R, me = int(counts[r]), T.R[r], int(T.learner[r])
        others = [i for i in range(R.shape[0]) if i != me]
        cap = env.config.max_turns
        obs[r, :CONTEXT_DIM] = [
            min(int(R[me, fast.RDMG]), 10) / 10, int(R[me, fast.RLIVES]) / max(int(env.game.lives), 1),
            (nflags - int(R[me, fast.RNF])) / nflags, steps(R, me),
            0.0 if cap is None else min(int(T.meta[r, fast.M_TURN]) / cap, 1.0), c / NUM_PROGRAMS,
            R.shape[0] / MAX_ROBOTS, max((int(R[i, fast.RNF]) for i in others), default=0) / nflags,
            min((steps(R, i) for i in others), default=1.0), float(c > K)]
        if c == 0:
            mask[r, 0] = True
            continue
        kept = preselect(feats[r], c, K, env.per_end)
        n = kept.size
        acts[r, :n], mask[r, :n], cands[r, :n] = kept, True, cards[r, kept]
        per = obs[r, CONTEXT_DIM:].reshape(K, FEATURE_DIM)
        per[:n, :len(_SCALE)] = feats[r, kept] / _SCALE
        place = np.empty(n, np.float32)
        place[seeker_order(feats[r, kept], kept)] = np.arange(n)
        per[:n, len(_SCALE)] = place / K
        fin = feats[r, kept, FEAT["finished"]] > 0
        if fin.any():
            died = feats[r, kept, FEAT["died_at"]]
            per[:n, len(_SCALE) + 1] = fin & (died == died[fin].min())
        per[:n, len(_SCALE) + 2] = 1.0
    return obs, acts, mask, cands


@pytest.mark.parametrize("board, robots, candidates", [("race_easy", 2, 8), ("race_hard", 4, 32),
                                                       ("random:5", 3, 200)])
def test_compiled_candidates_equal_the_readable_ones(board, robots, candidates):
    opts = {**OPTS, "board": board, "num_robots": robots, "max_turns": 12}
    env = ProgramChoiceEnv(8, candidates=candidates, per_end=2, opponents=[RANDOM] * (robots - 1), seed=21,
                           **opts)
    obs, _ = env.reset()
    rng = np.random.default_rng(5)
    cut = 0
    for _ in range(30):
        want = _readable_observe(env)
        np.testing.assert_array_equal(obs, want[0])
        for got, exp in zip((env.candidate_actions(), env.action_masks(), env.candidate_cards()), want[1:]):
            np.testing.assert_array_equal(got, exp)
        cut += int(env.cut.sum())
        obs, *_ = env.step(np.array([rng.choice(np.flatnonzero(m)) for m in env.action_masks()]))
    assert cut > 0 or candidates == 200


def test_joint_columns_read_no_hidden_card():
    """`roborally_program_joint`'s rows (the flag seeker's programs for hands dealt from the unseen cards) are the
    same whatever the other robots hold: their hands and their placed, unlocked registers changed, the rows stay;
    the learner's own hand changed, they change. The same seed gives the same rows."""
    from agents.roborally.fast import opponent_kernel
    from agents.roborally.joint import joint_turn

    opts = {**OPTS, "board": "race_hard", "num_robots": 3}
    greedy = opponent_kernel("roborally/greedy")

    def make():
        env = ProgramChoiceEnv(6, candidates=16, joint=joint_turn(2), opponents=[greedy] * 2, seed=3, **opts)
        env.reset()
        return env

    env, twin = make(), make()
    rng = np.random.default_rng(4)
    for _ in range(6):
        pick = np.array([rng.choice(np.flatnonzero(m)) for m in env.action_masks()])
        obs, *_ = env.step(pick)
        np.testing.assert_array_equal(obs, twin.step(pick)[0])
    assert obs[:, CONTEXT_DIM:].reshape(6, 16, -1)[:, :, FEATURE_DIM:].any()
    T = env.venv._tables
    others = np.arange(3)[None, :] != T.learner[:, None]
    T.hands[others] = np.sort(rng.integers(1, 85, size=T.hands[others].shape), axis=1)
    free = np.arange(5)[None, :] < 5 - np.maximum(T.R[..., fast.RDMG] - 4, 0)[others][:, None]
    T.regs[others] = np.where(free, rng.integers(1, 85, size=T.regs[others].shape), T.regs[others])
    np.testing.assert_array_equal(env._observe(), obs)
    mine = np.flatnonzero(T.hand_len[np.arange(6), T.learner] > 1)
    assert mine.size
    T.hands[mine, T.learner[mine], 0] = 85 - T.hands[mine, T.learner[mine], 0]
    joint = env._observe()[mine, CONTEXT_DIM:].reshape(mine.size, 16, -1)[:, :, FEATURE_DIM:]
    assert not np.array_equal(joint, obs[mine, CONTEXT_DIM:].reshape(mine.size, 16, -1)[:, :, FEATURE_DIM:])
