"""L.A.M.A.'s vector env with batch policies, opponent pools and `set_opponents`: every table still replays alone in
the plain engine, move for move, with the batch policies' Python twins in their seats."""

from __future__ import annotations

import numpy as np
import pytest
from test_lama_vector import CASE  # the shadow replay of one table in the plain engine (the shared contract)
from vector_contract import RandomMirror

import agents
from agents.lama.strategies import FirstStrategy
from envs.core.game import IllegalActionError
from envs.core.vector import BatchPolicy, Pool, pick_line_up, table_key
from envs.lama.encoding import LamaEncoder
from envs.lama.rules import Config, LamaGame


def _pick(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """A deterministic choice that depends on every observed number: the k-th legal action, k from the
    observation's bytes (so an observation encoded from the wrong seat picks other moves)."""
    k = np.array([int.from_bytes(o.tobytes()[-8:], "little") ^ int(o.sum() * 4096) for o in obs], dtype=object)
    out = np.empty(len(obs), np.int64)
    for i, m in enumerate(mask):
        legal = np.flatnonzero(m)
        out[i] = legal[int(k[i]) % legal.size]
    return out


class PickTwin:
    """`_pick` as a Python agent of the plain engine: it encodes its own seat's view, as the vector env encodes
    the batch policy's observations."""

    def __init__(self, game: LamaGame):
        self.enc = LamaEncoder(game)

    def act(self, view, mask):
        return int(_pick(self.enc.encode(view)[None], np.asarray(mask, bool)[None])[0])


def _batch(calls: list) -> BatchPolicy:
    def fn(obs, mask, rows, rng):
        assert obs.dtype == np.float32 and mask.dtype == np.bool_ and rows.dtype == np.int64
        assert isinstance(rng, np.random.Generator)
        calls.append(len(rows))
        return _pick(obs, mask)

    return BatchPolicy(fn, "pick")


@pytest.mark.parametrize("opts", [dict(reward="dense"), dict(rules="seed2022", num_players=3)])
def test_batch_policy_seats_replay_in_the_plain_engine(opts):
    game = LamaGame(Config(**opts))
    n = game.num_players
    calls: list[int] = []
    pick = _batch(calls)
    venv = agents.vector_env("lama", 5, opponents=[pick, "lama/first", pick][: n - 1], seed=4, **opts)

    def make(shared):
        return [PickTwin(game), FirstStrategy(), PickTwin(game)][: n - 1]

    assert CASE.replay(venv, game, 4, make, 250, np.random.default_rng(3)) >= 3
    # one call per opponent turn over every table waiting on it, not one per table
    assert max(calls) > 1


def test_pool_draws_line_ups_per_table_from_the_episode_key():
    opts = dict(num_players=3, reward="dense")
    game = LamaGame(Config(**opts))
    weights = [0.5, 0.3, 0.2]
    pool = Pool([["lama/first"] * 2, [_batch([]), "random"], ["random", "random"]], weights=weights)
    venv = agents.vector_env("lama", 6, opponents=pool, seed=9, **opts)
    cum = np.cumsum(weights)
    cum[-1] = 1.0
    seen = set()

    def make(shared):
        i = pick_line_up(cum, table_key(9, shared["table"]), shared["episode"])
        seen.add(i)
        return [[FirstStrategy(), FirstStrategy()], [PickTwin(game), RandomMirror(shared)],
                [RandomMirror(shared), RandomMirror(shared)]][i]

    CASE.replay(venv, game, 9, make, 400, np.random.default_rng(5))
    assert seen == {0, 1, 2}


def test_set_opponents_takes_effect_at_each_tables_next_episode():
    opts = dict(num_players=2, target_points=10, reward="dense")
    venv = agents.vector_env("lama", 6, opponents=["lama/first"], seed=1, **opts)
    venv.reset()
    rng = np.random.default_rng(0)
    asked: list[np.ndarray] = []

    def fn(obs, mask, rows, rng_):
        asked.append(rows.copy())
        return _pick(obs, mask)

    venv.set_opponents([BatchPolicy(fn, "new")])
    ended = np.zeros(6, bool)
    for _ in range(400):
        masks = venv.action_masks()
        asked.clear()
        _, _, term, trunc, _ = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        ended |= term | trunc
        # the new opponent is asked only at tables whose episode ended after set_opponents (this step or before)
        for rows in asked:
            assert ended[rows].all()
        if ended.all() and asked:
            break
    assert ended.all() and asked
    with pytest.raises(ValueError, match="needs 1 opponents"):
        venv.set_opponents([BatchPolicy(fn, "a"), BatchPolicy(fn, "b")])


def test_bad_batch_policies_and_pools_are_refused_with_a_name():
    opts = dict(num_players=2)
    # the first illegal action of the mask (QUIT is always legal, so a card never held is illegal)
    illegal = BatchPolicy(lambda obs, mask, rows, rng: np.argmin(mask, axis=1), "bad")
    venv = agents.vector_env("lama", 3, opponents=[illegal], seed=2, seat=1, **opts)
    with pytest.raises(IllegalActionError, match="bad"):
        venv.reset()
    shape = BatchPolicy(lambda obs, mask, rows, rng: np.zeros(len(rows) + 1, np.int64), "shape")
    venv = agents.vector_env("lama", 3, opponents=[shape], seed=2, seat=1, **opts)
    with pytest.raises(ValueError, match="shape"):
        venv.reset()
    with pytest.raises(ValueError, match="callable"):
        agents.vector_env("lama", 3, opponents=[BatchPolicy(3, "x")], **opts)
    with pytest.raises(ValueError, match="weights"):
        Pool([[shape]], weights=[1, 2])
    with pytest.raises(ValueError, match="non-negative"):
        Pool([[shape], [shape]], weights=[-1, 2])
    with pytest.raises(ValueError, match="no compiled kernel"):
        agents.vector_env("lama", 3, opponents=Pool([["lama/nope"]]), **opts)


def test_batch_policy_of_a_shipped_policy_plays_its_distribution():
    from agents.learned import load_student
    from agents.pretrained import checkpoints

    student = load_student(checkpoints()["lama/ppo-sb3"])
    greedy = agents.vector.batch_policy("lama/ppo-sb3", play="greedy")
    venv = agents.vector_env("lama", 64, opponents=["lama/first"] * 3, seed=0)
    obs, _ = venv.reset()
    mask = venv.action_masks()
    import torch

    with torch.no_grad():
        logits, _ = student.net(torch.from_numpy(obs), torch.from_numpy(mask).float())
    np.testing.assert_array_equal(greedy.fn(obs, mask, np.arange(64), np.random.default_rng(0)),
                                  np.where(mask, logits.numpy(), -np.inf).argmax(axis=1))
    sample = agents.vector.batch_policy("lama/ppo-sb3")  # the saved policy's own way: sampled
    rng = np.random.default_rng(1)
    draws = np.stack([sample.fn(obs[:1].repeat(4000, 0), mask[:1].repeat(4000, 0), np.zeros(4000, np.int64), rng)])
    p = torch.softmax(logits[0].double(), -1).numpy()
    freq = np.bincount(draws.ravel(), minlength=p.size) / draws.size
    assert np.abs(freq - p).max() < 4.5 * np.sqrt(0.25 / draws.size)  # within ~4.5 standard errors everywhere
    assert mask[0][np.flatnonzero(freq)].all()
    venv = agents.vector_env("lama", 8, opponents=[sample, "lama/first", greedy], seed=2)
    venv.reset()
    venv.step(venv.action_masks().argmax(axis=1))
    with pytest.raises(ValueError, match="shipped"):
        agents.vector.batch_policy("lama/nope")


def test_a_step_after_a_batch_policys_error_is_refused_until_reset():
    state = {"fail": True}

    def flaky(obs, mask, rows, rng):
        if state["fail"]:
            raise KeyError("boom")
        return mask.argmax(axis=1)

    venv = agents.vector_env("lama", 4, opponents=[BatchPolicy(flaky, "flaky")], seed=0, seat=1, num_players=2)
    with pytest.raises(KeyError):
        venv.reset()
    with pytest.raises(RuntimeError, match="call reset"):
        venv.step(np.zeros(4, np.int64))
    state["fail"] = False
    venv.reset()
    venv.step(venv.action_masks().argmax(axis=1))
