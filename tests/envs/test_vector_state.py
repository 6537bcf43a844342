"""A vector env's state taken mid-run and written into a new env of the same build continues exactly as the
original (`envs.core.vector_state`): what a training checkpoint needs to resume to the bit."""

from __future__ import annotations

import numpy as np
import pytest

import agents
from envs.core.vector_state import load_vector_state, vector_state

CASES = [
    ("lama", ["lama/first"] * 3, {"reward": "dense"}),
    ("the_game", [], {"num_players": 1}),
    ("primi_composti", ["primi_composti/greedy_rand"], {}),
    ("roborally", ["roborally/greedy"], {"board": "race_easy", "num_robots": 2}),
    ("simple_poker", ["random"], {"n": 3}),
]


def _play(venv, rng: np.random.Generator, steps: int) -> list[tuple[np.ndarray, ...]]:
    out = []
    for _ in range(steps):
        masks = venv.action_masks()
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rew, term, trunc, info = venv.step(acts)
        out.append((np.array(obs), np.array(rew), np.array(term), np.array(trunc), np.array(info["deal_seed"])))
    return out


@pytest.mark.parametrize("game,opponents,options", CASES, ids=[c[0] for c in CASES])
def test_state_continues_the_run(game, opponents, options):
    original = agents.vector_env(game, 8, opponents=opponents, seed=3, **options)
    original.reset()
    _play(original, np.random.default_rng(0), 25)
    saved = vector_state(original)
    assert all(isinstance(v, np.ndarray) and v.dtype != object for v in saved.values())
    ahead = _play(original, np.random.default_rng(1), 40)

    copy = agents.vector_env(game, 8, opponents=opponents, seed=99, **options)  # another seed: the state says it all
    copy.reset()
    load_vector_state(copy, saved)
    again = _play(copy, np.random.default_rng(1), 40)
    for a, b in zip(ahead, again):
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)
    assert any(a[2].any() for a in ahead), "no episode ended: the test would not see the deal sequence continue"


def test_state_of_another_build_is_refused():
    lama = agents.vector_env("lama", 4, opponents=["lama/first"] * 3, seed=0)
    lama.reset()
    other = agents.vector_env("lama", 8, opponents=["lama/first"] * 3, seed=0)
    other.reset()
    with pytest.raises(ValueError, match="do not fit"):
        load_vector_state(other, vector_state(lama))
    with pytest.raises(ValueError, match="missing"):
        load_vector_state(other, {})
