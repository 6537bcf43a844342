"""L.A.M.A.'s vector env against the plain engine: every table replays alone, action for action, from its deal seed;
the shared contract (`tests/envs/vector_contract.py`) on L.A.M.A."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import agents
from agents.lama.strategies import DEFAULT, TUNED, FirstStrategy, SecondStrategy, ThirdStrategy
from envs.lama.rules import NUM_ACTIONS, Config, LamaGame

sys.path.append(str(Path(__file__).parents[1]))  # tests/envs (after the installed packages), for the shared contract
from vector_contract import RandomMirror, VectorCase, VectorContract  # noqa: E402

CASE = VectorCase(
    "lama",
    ["random", "lama/first", "random"],
    not_kernels="lama/pimc",
    allowed="random, lama/first",
    num_actions=NUM_ACTIONS,
    refused=((None, dict(control="all_seats"), "takes no opponents"),),
    random_replays=(
        dict(num_players=4, reward="dense"),
        dict(rules="seed2022", num_players=3),
        dict(num_players=2, empty_deck="reshuffle", target_points=15),
        dict(rules="seed2022", num_players=2, target_points=12, reward="dense"),
    ),
    replay_size=(3, 400, 30),
    sb3=(["lama/first"] * 3, dict(reward="dense"), 16, 32, 2_000),
    redeals=True,
)  # a deal that ends before the learner's first decision is dealt again


class TestVectorContract(VectorContract):
    case = CASE


@pytest.mark.parametrize("ids,opts", [
    (["lama/first"] * 3, dict(reward="dense")),
    (["lama/second", "lama/third", "lama/third-default"], dict(rules="seed2022")),
    (["lama/third", "random", "lama/first", "lama/second", "lama/third?a=1&b=2&c=3&d=0.5", "lama/first"],
     dict(rules="seed2022", num_players=7, reward="dense")),
])
def test_kernel_opponents_move_as_the_python_agents(ids, opts):
    game = LamaGame(Config(**opts))
    python = {
        "lama/first": FirstStrategy,
        "lama/second": SecondStrategy,
        "lama/third": lambda: ThirdStrategy(params=TUNED),
        "lama/third-default": lambda: ThirdStrategy(params=DEFAULT),
        "lama/third?a=1&b=2&c=3&d=0.5": lambda: ThirdStrategy(params=(1, 2, 3, 0.5)),
    }

    def make(shared):
        return [RandomMirror(shared) if i == "random" else python[i]() for i in ids]

    venv = agents.vector_env("lama", 4, opponents=ids, seed=3, **opts)
    assert CASE.replay(venv, game, 3, make, 300, np.random.default_rng(1)) >= 5


def test_fixed_seat():
    venv = agents.vector_env("lama", 3, opponents=["lama/first"] * 2, seed=2, seat=1, num_players=3)
    game = LamaGame(Config(num_players=3))
    _, info = venv.reset()
    assert (info["seat"] == 1).all()
    CASE.replay(venv, game, 2, lambda shared: [FirstStrategy(), FirstStrategy()], 100, np.random.default_rng(2),
            fixed_seat=1)


@pytest.mark.parametrize("opts,steps", [(dict(), 150), (dict(num_players=3, reward="dense"), 150),
                                        (dict(rules="seed2022", num_players=2, target_points=12), 100)])
def test_all_seats_replays_in_the_plain_engine(opts, steps):
    """`control="all_seats"`: the policy moves for every seat; each table replays alone in the plain engine from its
    deal seed, every seat's reward (`info["rewards"]`), the mover's observation and mask at every step."""
    game = LamaGame(Config(**opts))
    venv = agents.vector_env("lama", 6, opponents=[], control="all_seats", seed=4, **opts)
    assert CASE.replay(venv, game, 4, None, steps, np.random.default_rng(3), all_seats=True) >= 6
    _, _, _, _, info = venv.step(venv.action_masks().argmax(axis=1))
    assert info["rewards"].shape == (6, game.num_players) and info["current_player"].shape == (6,)


def test_all_seats_refuses_opponents_and_a_seat():
    with pytest.raises(ValueError, match="takes no opponents"):
        agents.vector_env("lama", 2, opponents=["lama/first"] * 3, control="all_seats")
    with pytest.raises(ValueError, match="seat must be None under control='all_seats'"):
        agents.vector_env("lama", 2, opponents=[], control="all_seats", seat=1)
