"""Simple poker's vector env with batch policies, opponent pools and `set_opponents`."""

from __future__ import annotations

import numpy as np
import pytest

import agents
from envs.core.game import IllegalActionError
from envs.core.vector import BatchPolicy, Pool, pick_line_up, table_key
from envs.simple_poker.rules import BET, PASS

N = 10


def _pure(kernel) -> BatchPolicy:
    """A batch policy playing the pure behaviour strategy of `kernel` (probabilities 0 or 1), reading its card
    and whether a bet was seen from the observation (the opponent's own seat's encoding)."""
    p = np.asarray(kernel.params)
    assert set(np.unique(p)) <= {0.0, 1.0}

    def fn(obs, mask, rows, rng):
        assert mask.all() and obs.shape == (len(rows), N + 4)
        card = obs[:, :N].argmax(axis=1) + 1
        assert np.allclose(obs[:, N], card / N)  # the card, as the opponent sees its own
        seen = obs[:, N + 3] > 0
        return np.where(p[np.where(seen, N, 0) + card - 1] > 0.5, BET, PASS).astype(np.int64)

    return BatchPolicy(fn, f"pure {kernel.name}")


def _run(venv, steps: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    obs, info = venv.reset()
    out = [obs.copy()]
    for _ in range(steps):
        obs, rew, term, trunc, info = venv.step(rng.integers(0, 2, venv.num_envs))
        out += [obs.copy(), rew.copy(), info["deal_seed"].copy(), info["seat"].copy()]
    return out


def _same(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("agent", ["simple_poker/threshold?t=4", "simple_poker/threshold?t=8"])
def test_a_batch_policy_plays_as_the_kernel_of_the_same_strategy(agent):
    kernel = agents.vector.resolve_opponents("simple_poker", [agent], {"n": N})[0]
    a = agents.vector_env("simple_poker", 64, opponents=[agent], seed=3, n=N)
    b = agents.vector_env("simple_poker", 64, opponents=[_pure(kernel)], seed=3, n=N)
    _same(_run(a, 40), _run(b, 40))


def test_pool_weights_and_per_table_draws():
    kernel = agents.vector.resolve_opponents("simple_poker", ["simple_poker/threshold?t=6"], {"n": N})[0]
    pure = _pure(kernel)
    only_kernel = _run(agents.vector_env("simple_poker", 32, opponents=Pool([[kernel], [pure]], (1, 0)), seed=5,
                                         n=N), 30)
    _same(only_kernel, _run(agents.vector_env("simple_poker", 32, opponents=[kernel], seed=5, n=N), 30))
    only_batch = _run(agents.vector_env("simple_poker", 32, opponents=Pool([["random"], [pure]], (0, 1)), seed=5,
                                        n=N), 30)
    _same(only_batch, _run(agents.vector_env("simple_poker", 32, opponents=[pure], seed=5, n=N), 30))
    # a mixed pool: each table's line-up at its first hand is the one its episode key draws
    venv = agents.vector_env("simple_poker", 200, opponents=Pool([["random"], [kernel], [pure]], (0.2, 0.3, 0.5)),
                             seed=8, n=N)
    venv.reset()
    cum = np.array([0.2, 0.5, 1.0])
    picks = np.array([pick_line_up(cum, table_key(8, i), 0) for i in range(200)])
    codes = np.array([-1, 1, -3])[picks]
    np.testing.assert_array_equal(venv._code, codes)
    assert set(picks) == {0, 1, 2}


def test_set_opponents_waits_for_the_hand_in_play():
    calls = []

    def fold(obs, mask, rows, rng):
        calls.append(len(rows))
        return np.full(len(rows), PASS, np.int64)

    venv = agents.vector_env("simple_poker", 16, opponents=["simple_poker/threshold?t=1"], seed=0, seat=0, n=N)
    venv.reset()
    venv.set_opponents([BatchPolicy(fold, "fold")])
    # the hands in play were dealt against the always-calling threshold: it answers the learner's bets now
    _, rew, *_ = venv.step(np.full(16, BET))
    # every bet called: +-(ante + bet) at the showdown (ante 1, bet 2), 0 where the cards tie
    assert not calls and np.isin(rew, [-3, 0, 3]).all() and (rew != 0).sum() > 8
    _, rew, *_ = venv.step(np.full(16, BET))
    assert calls == [16] and (rew == 1).all()  # the new opponent folds: the learner takes the ante


def test_bad_opponents_are_refused():
    with pytest.raises(ValueError, match="1 opponents"):
        agents.vector_env("simple_poker", 4, opponents=[BatchPolicy(lambda *a: 0), BatchPolicy(lambda *a: 0)], n=N)
    bad = BatchPolicy(lambda obs, mask, rows, rng: np.full(len(rows), 7, np.int64), "seven")
    venv = agents.vector_env("simple_poker", 4, opponents=[bad], seed=0, seat=1, n=N)
    with pytest.raises(IllegalActionError, match=r"7 .*seat 0.*'seven' at table 0") as e:
        venv.reset()  # the learner sits second: the opponent (seat 0) opens every hand
    assert e.value.seat == 0 and e.value.action == 7
    with pytest.raises(RuntimeError, match="call reset"):
        venv.step(np.zeros(4, np.int64))
    answers = BatchPolicy(lambda obs, mask, rows, rng: np.full(len(rows), 9, np.int64), "nine")
    venv = agents.vector_env("simple_poker", 4, opponents=[answers], seed=0, seat=0, n=N)
    venv.reset()  # the learner opens: the opponent (seat 1) answers only a bet
    with pytest.raises(IllegalActionError, match=r"'nine' at table 0") as e:
        venv.step(np.full(4, BET))
    assert e.value.seat == 1
    with pytest.raises(RuntimeError, match="call reset"):
        venv.step(np.full(4, BET))
    venv.set_opponents([_pure(agents.vector.resolve_opponents("simple_poker", ["simple_poker/threshold?t=4"],
                                                              {"n": N})[0])])
    venv.reset()  # a reset deals anew, and with a sound opponent the env steps again
    venv.step(np.full(4, BET))
    for out, says in ((np.zeros(3, np.int64), "4 integer actions"), (np.zeros(4), "4 integer actions")):
        shape = BatchPolicy(lambda obs, mask, rows, rng, out=out: out, "shape")
        with pytest.raises(ValueError, match=says):
            agents.vector_env("simple_poker", 4, opponents=[shape], seed=0, seat=1, n=N).reset()
    allseats = agents.vector_env("simple_poker", 4, opponents=[], control="all_seats", n=N)
    with pytest.raises(ValueError, match="all_seats"):
        allseats.set_opponents([bad])
