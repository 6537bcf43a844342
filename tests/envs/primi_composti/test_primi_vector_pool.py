"""Primi Composti's vector env with batch policies, opponent pools and `set_opponents`: every table still replays
alone in the plain engine, move for move, with the batch policies' Python twins in their seats."""

from __future__ import annotations

import numpy as np
import pytest
from test_primi_vector import CASE, GREEDY  # the shadow replay of one table in the plain engine (shared contract)
from vector_contract import RandomMirror

import agents
from agents.primi_composti.strategies import SeedPlayer
from agents.vector import resolve_opponents
from envs.core.game import IllegalActionError
from envs.core.vector import BatchPolicy, Pool, pick_line_up, table_key
from envs.primi_composti.encoding import PrimiCompostiEncoder
from envs.primi_composti.rules import Config, PrimiCompostiGame


def _pick(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """A deterministic choice that depends on every observed number: the k-th legal action, k from the
    observation's bytes (so an observation encoded from the wrong seat picks other cards)."""
    k = [int.from_bytes(o.tobytes()[-8:], "little") ^ int(o.sum() * 4096) ^ int(o @ np.arange(o.size)) for o in obs]
    out = np.empty(len(obs), np.int64)
    for i, m in enumerate(mask):
        legal = np.flatnonzero(m)
        out[i] = legal[k[i] % legal.size]
    return out


class PickTwin:
    """`_pick` as a Python agent of the plain engine: it encodes its own seat's view, as the vector env encodes
    the batch policy's observations."""

    def __init__(self, game: PrimiCompostiGame):
        self.enc = PrimiCompostiEncoder(game)

    def act(self, view, mask):
        return int(_pick(self.enc.encode(view)[None], np.asarray(mask, bool)[None])[0])


def _batch(calls: list, name: str = "pick") -> BatchPolicy:
    def fn(obs, mask, rows, rng):
        assert obs.dtype == np.float32 and mask.dtype == np.bool_ and rows.dtype == np.int64
        assert isinstance(rng, np.random.Generator)
        calls.append(rows.copy())
        return _pick(obs, mask)

    return BatchPolicy(fn, name)


@pytest.mark.parametrize("opts", [dict(cards_per_player=5), dict(version=2, cards_per_player=6, observation_hints=True,
                                                                 seat0_holds_two=False, reward="result")])
def test_batch_policy_seat_replays_in_the_plain_engine(opts):
    game = PrimiCompostiGame(Config(**opts))
    calls: list[np.ndarray] = []
    venv = agents.vector_env("primi_composti", 6, opponents=[_batch(calls)], seed=4, **opts)
    episodes = CASE.replay(venv, game, 4, lambda shared: [PickTwin(game)], 8 * game.cards_per_player,
                       np.random.default_rng(3))
    assert episodes >= 6 * 7
    # one call per opponent turn over every table waiting on it, not one per table
    assert max(len(c) for c in calls) > 1


def test_pool_draws_line_ups_per_table_from_the_episode_key():
    opts = dict(cards_per_player=4, version=2)
    game = PrimiCompostiGame(Config(**opts))
    weights = [0.5, 0.3, 0.2]
    pool = Pool([[GREEDY], [_batch([])], ["random"]], weights=weights)
    venv = agents.vector_env("primi_composti", 6, opponents=pool, seed=9, **opts)
    cum = np.cumsum(weights)
    cum[-1] = 1.0
    seen = []

    def make(shared):
        i = pick_line_up(cum, table_key(9, shared["table"]), shared["episode"])
        seen.append(i)
        return [[SeedPlayer(game, None, "greedy_rand", fast=False), PickTwin(game), RandomMirror(shared)][i]]

    CASE.replay(venv, game, 9, make, 60, np.random.default_rng(5))
    counts = np.bincount(seen, minlength=3)
    assert counts.min() > 0, counts


def test_set_opponents_takes_effect_at_each_tables_next_episode():
    venv = agents.vector_env("primi_composti", 6, opponents=[GREEDY], seed=1, cards_per_player=4)
    venv.reset()
    rng = np.random.default_rng(0)
    asked: list[np.ndarray] = []
    venv.set_opponents([_batch(asked, "new")])
    ended = np.zeros(6, bool)
    for _ in range(40):
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
    # and back to a kernel opponent (the same compiled kernels) in a weighted pool
    venv.set_opponents(resolve_opponents("primi_composti", Pool([[GREEDY], ["random"]], weights=[1, 3])))
    for _ in range(12):
        venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in venv.action_masks()]))
    with pytest.raises(ValueError, match="needs 1 opponent"):
        venv.set_opponents(resolve_opponents("primi_composti", [GREEDY, GREEDY]))


def test_truncation_does_not_ask_the_batch_policy():
    calls: list[np.ndarray] = []
    venv = agents.vector_env("primi_composti", 3, opponents=[_batch(calls)], seed=0, seat=0, max_turns=5,
                             cards_per_player=6)
    venv.reset()  # seat 0 holds card 2 and moves first: no opponent move in the opening
    assert not calls
    for step in range(3):
        calls.clear()
        _, _, term, trunc, info = venv.step(venv.action_masks().argmax(axis=1))
        # moves 2 and 4 are the batch policy's; after the learner's third card (move 5) the episode is truncated
        assert [len(c) for c in calls] == ([] if step == 2 else [3])
    assert trunc.all() and not term.any() and (info["episode"]["l"] == 3).all()


def test_all_seats_takes_no_pool():
    with pytest.raises(ValueError, match="Pool"):
        agents.vector_env("primi_composti", 2, opponents=Pool([[GREEDY]]), control="all_seats")
    venv = agents.vector_env("primi_composti", 2, opponents=[], control="all_seats", seed=0)
    with pytest.raises(ValueError, match="all_seats"):
        venv.set_opponents(resolve_opponents("primi_composti", [GREEDY]))


def test_bad_batch_policies_and_pools_are_refused_with_a_name():
    # the first illegal action of the mask (a card not in the hand); seat 1: the opponent opens every deal
    illegal = BatchPolicy(lambda obs, mask, rows, rng: np.argmin(mask, axis=1), "bad")
    venv = agents.vector_env("primi_composti", 3, opponents=[illegal], seed=2, seat=1)
    with pytest.raises(IllegalActionError, match="bad"):
        venv.reset()
    shape = BatchPolicy(lambda obs, mask, rows, rng: np.zeros(len(rows) + 1, np.int64), "shape")
    venv = agents.vector_env("primi_composti", 3, opponents=[shape], seed=2, seat=1)
    with pytest.raises(ValueError, match="shape"):
        venv.reset()
    with pytest.raises(ValueError, match="callable"):
        agents.vector_env("primi_composti", 3, opponents=[BatchPolicy(3, "x")])
    with pytest.raises(ValueError, match="no compiled kernel"):
        agents.vector_env("primi_composti", 3, opponents=Pool([["primi_composti/nope"]]))
