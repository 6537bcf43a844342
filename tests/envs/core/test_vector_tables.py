"""The batched-env layer written once (`envs.core.vector.KernelTablesEnv`): every compiled game's vector env is built
by the one constructor from its kernels and shapes, and refuses misuse with the same words."""

from __future__ import annotations

import numpy as np
import pytest

import agents
from envs.core.vector import KernelTablesEnv

GAMES = (("lama", {}), ("the_game", {"num_players": 2}), ("primi_composti", {}))


@pytest.mark.parametrize("game,options", GAMES, ids=[g for g, _ in GAMES])
def test_one_constructor_refuses_alike(game, options):
    venv = agents.vector_env(game, 2, opponents=[], control="all_seats", seed=0, **options)
    assert isinstance(venv, KernelTablesEnv)
    n = venv.num_players
    with pytest.raises(ValueError, match="control='all_seats' plays every seat itself: it takes no opponents"):
        agents.vector_env(game, 2, opponents=["random"] * (n - 1), control="all_seats", **options)
    with pytest.raises(ValueError, match="seat must be None under control='all_seats'"):
        agents.vector_env(game, 2, opponents=[], control="all_seats", seat=0, **options)
    with pytest.raises(ValueError, match=f"a {n}-player game needs {n - 1} opponents"):
        agents.vector_env(game, 2, opponents=["random"] * n, **options)
    with pytest.raises(ValueError, match="control must be one of 'one_seat', 'all_seats', got 'every'"):
        agents.vector_env(game, 2, opponents=[], control="every", **options)


def test_a_team_pays_every_seat_the_steps_reward():
    """The Game's kernels keep one team reward: under `all_seats` `info["rewards"]` repeats it for every seat, zero
    at a reset."""
    venv = agents.vector_env("the_game", 4, opponents=[], control="all_seats", seed=1, num_players=3)
    rng = np.random.default_rng(0)
    _, info = venv.reset()
    assert info["rewards"].shape == (4, 3) and not info["rewards"].any()
    paid = 0.0
    for _ in range(30):
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in venv.action_masks()])
        _, reward, _, _, info = venv.step(acts)
        np.testing.assert_array_equal(info["rewards"], np.repeat(reward[:, None], 3, axis=1))
        paid += float(np.abs(reward).sum())
    assert paid > 0
    _, info = venv.reset()
    assert not info["rewards"].any()
