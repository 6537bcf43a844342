"""RoboRally's vector env with batch policies, opponent pools and `set_opponents`: every table still replays alone in
the plain engine, sub-step for sub-step, with the batch policies' Python twins in their seats."""

from __future__ import annotations

import numpy as np
import pytest
from test_roborally_vector import CASE  # the shadow replay of one table in the plain engine (the shared contract)
from vector_contract import RandomMirror

import agents
from agents.roborally.strategies import GreedyProgram
from agents.vector import resolve_opponents
from envs.core.game import IllegalActionError
from envs.core.vector import BatchPolicy, Pool, pick_line_up, table_key
from envs.roborally.encoding import RoboRallyEncoder
from envs.roborally.rules import Config, RoboRallyGame


def _pick(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """A deterministic choice that depends on every observed number: the k-th legal action, k from the
    observation's bytes (so an observation encoded from the wrong seat picks other moves)."""
    k = [int.from_bytes(o.tobytes()[-8:], "little") ^ int(o.sum() * 4096) ^ int(o @ np.arange(o.size)) for o in obs]
    out = np.empty(len(obs), np.int64)
    for i, m in enumerate(mask):
        legal = np.flatnonzero(m)
        out[i] = legal[k[i] % legal.size]
    return out


class PickTwin:
    """`_pick` as a Python agent of the plain engine: it encodes its own seat's view, as the vector env encodes
    the batch policy's observations (asked at forced sub-steps too, where it can only answer the one legal action
    the kernel plays without asking)."""

    def __init__(self, game: RoboRallyGame):
        self.enc = RoboRallyEncoder(game)

    def act(self, view, mask):
        return int(_pick(self.enc.encode(view)[None], np.asarray(mask, bool)[None])[0])


def _batch(calls: list) -> BatchPolicy:
    def fn(obs, mask, rows, rng):
        assert obs.dtype == np.float32 and mask.dtype == np.bool_ and rows.dtype == np.int64
        assert isinstance(rng, np.random.Generator)
        assert (mask.sum(axis=1) >= 2).all()  # asked only where it has a choice
        calls.append(len(rows))
        return _pick(obs, mask)

    return BatchPolicy(fn, "pick")


@pytest.mark.parametrize("n,opts", [
    (2, dict(rules="seed", reward="progress", max_turns=12)),
    (3, dict(num_robots=3, reward="progress", max_turns=8)),  # classic: the power round
    (4, dict(board="race_medium", num_robots=4, max_turns=6)),
])
def test_batch_policy_seats_replay_in_the_plain_engine(n, opts):
    game = RoboRallyGame(Config(**opts))
    calls: list[int] = []
    pick = _batch(calls)
    ids = [pick, "roborally/greedy", pick][: n - 1]
    venv = agents.vector_env("roborally", 5, opponents=ids, seed=4, **opts)

    def make(shared):
        return [PickTwin(game), GreedyProgram(game, np.random.default_rng(0)), PickTwin(game)][: n - 1]

    assert CASE.replay(venv, game, 4, make, 250, np.random.default_rng(3)) >= 10
    # one call per sub-step over every table waiting on it, not one per table
    assert max(calls) > 1


def test_pool_draws_line_ups_per_table_from_the_episode_key():
    opts = dict(num_robots=3, rules="seed", reward="progress", max_turns=6)
    game = RoboRallyGame(Config(**opts))
    weights = [0.5, 0.3, 0.2]
    pool = Pool([["roborally/greedy"] * 2, [_batch([]), "random"], ["random", "random"]], weights=weights)
    venv = agents.vector_env("roborally", 6, opponents=pool, seed=9, **opts)
    cum = np.cumsum(weights)
    cum[-1] = 1.0
    seen = set()

    def make(shared):
        i = pick_line_up(cum, table_key(9, shared["table"]), shared["episode"])
        seen.add(i)
        greedy = [GreedyProgram(game, np.random.default_rng(0)) for _ in range(2)]
        return [greedy, [PickTwin(game), RandomMirror(shared, draw_when_forced=False)], [RandomMirror(shared, draw_when_forced=False), RandomMirror(shared, draw_when_forced=False)]][i]

    assert CASE.replay(venv, game, 9, make, 300, np.random.default_rng(5)) >= 20
    assert seen == {0, 1, 2}


def test_set_opponents_takes_effect_at_each_tables_next_episode():
    opts = dict(rules="seed", reward="progress", max_turns=5)
    venv = agents.vector_env("roborally", 6, opponents=["roborally/greedy"], seed=1, **opts)
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
    # back to a kernel line-up (a pool): the batch policy plays out the episodes it sits in, then is asked no more
    venv.set_opponents(resolve_opponents("roborally", Pool([["roborally/greedy"], ["random"]])))
    ended[:] = False
    for _ in range(400):
        masks = venv.action_masks()
        asked.clear()
        _, _, term, trunc, _ = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        for rows in asked:
            assert not ended[rows].any()
        ended |= term | trunc
        if ended.all():
            break
    assert ended.all()
    with pytest.raises(ValueError, match="needs 1 opponents"):
        venv.set_opponents([BatchPolicy(fn, "a"), BatchPolicy(fn, "b")])


def test_a_learned_policy_snapshot_is_an_opponent():
    """An SB3 policy (as a self-play snapshot) seated through `agents.batch_policy`: its observations and masks fit
    the learner's, and its greedy moves are the ones it makes on each table's own observation alone."""
    from sb3_contrib import MaskablePPO

    from agents.vector import batch_policy
    from envs.core import to_sb3

    opts = dict(rules="seed", reward="progress", max_turns=6)
    venv = to_sb3(agents.vector_env("roborally", 4, opponents=["random"], seed=0, **opts))
    model = MaskablePPO("MlpPolicy", venv, n_steps=8, batch_size=32, n_epochs=1, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [16]})
    snap = batch_policy(model.policy, play="greedy", name="snapshot")
    seen: list[tuple] = []

    def fn(obs, mask, rows, rng):
        acts = snap.fn(obs, mask, rows, rng)
        seen.append((obs.copy(), mask.copy(), acts))
        return acts

    env = agents.vector_env("roborally", 4, opponents=[BatchPolicy(fn, "snapshot")], seed=1, **opts)
    env.reset()
    rng = np.random.default_rng(0)
    episodes = 0
    for _ in range(60):
        masks = env.action_masks()
        _, _, term, trunc, _ = env.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        episodes += int((term | trunc).sum())
    assert episodes >= 4 and len(seen) > 20
    for obs, mask, acts in seen[:10]:
        for i in range(len(acts)):
            assert snap.fn(obs[i:i + 1], mask[i:i + 1], np.zeros(1, np.int64), rng)[0] == acts[i]


def test_bad_batch_policies_and_pools_are_refused_with_a_name():
    opts = dict(rules="seed", max_turns=5)
    # the first illegal action of the mask (the power choice is never legal in the register rounds)
    illegal = BatchPolicy(lambda obs, mask, rows, rng: np.argmin(mask, axis=1), "bad")
    venv = agents.vector_env("roborally", 3, opponents=[illegal], seed=2, seat=1, **opts)
    with pytest.raises(IllegalActionError, match="bad"):
        venv.reset()
    shape = BatchPolicy(lambda obs, mask, rows, rng: np.zeros(len(rows) + 1, np.int64), "shape")
    venv = agents.vector_env("roborally", 3, opponents=[shape], seed=2, seat=1, **opts)
    with pytest.raises(ValueError, match="shape"):
        venv.reset()
    with pytest.raises(ValueError, match="callable"):
        agents.vector_env("roborally", 3, opponents=[BatchPolicy(3, "x")], **opts)
    with pytest.raises(ValueError, match="allowed: random, roborally/greedy, roborally/random"):
        agents.vector_env("roborally", 3, opponents=Pool([["random"], ["roborally/nope"]]), **opts)
    with pytest.raises(ValueError, match="needs 2 opponents"):
        agents.vector_env("roborally", 3, opponents=Pool([["random", "random"], ["random"]]), num_robots=3)
