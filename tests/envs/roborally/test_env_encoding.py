"""RoboRally observation encoding: fields by name, the same space for every seat, own-first order."""

import numpy as np

from envs.roborally.cards import KINDS
from envs.roborally.encoding import RoboRallyEncoder
from envs.roborally.rules import Config, RoboRallyGame


def test_fields_describe_the_view():
    game = RoboRallyGame(Config(board="arena", num_robots=4, max_turns=50))
    enc = RoboRallyEncoder(game)
    state = game.initial_state(np.random.default_rng(0))
    state = game.apply(state, game.legal_actions(state)[0])  # seat 0 placed its lowest card
    w = game.board.width
    for seat in range(4):
        obs = enc.encode(game.view(state, seat))
        assert enc.observation_space.contains(obs)
        f = enc.layout.split(obs)
        r = state.robots[seat]
        assert f["own_robot"].sum() == 1 and f["own_robot"][r.y * w + r.x] == 1
        assert f["other_robots"].sum() == 3
        hand = f["hand"].reshape(9, 9)
        for slot, card in enumerate(state.hands[seat]):
            assert hand[slot, KINDS["classic"][card]] == 1 and np.isclose(hand[slot, 7], card / 84)
        # Robot status, own robot first.
        assert np.isclose(f["robots"].reshape(4, 14)[0, 9], r.y / (game.board.height - 1))
        assert f["round"][0] == 1
    f0 = enc.layout.split(enc.encode(game.view(state, 0)))
    assert f0["hand"].reshape(9, 9)[0, 8] == 1  # slot 0 is marked placed
    assert f0["registers"][:8].sum() > 0


def test_static_layers():
    game = RoboRallyGame(Config(board="arena", num_robots=2))
    enc = RoboRallyEncoder(game)
    f = enc.layout.split(enc.encode(game.view(game.initial_state(np.random.default_rng(0)), 0)))
    b = game.board
    hw = b.height * b.width
    assert np.array_equal(f["floor"].reshape(8, hw).argmax(0), b.floor.reshape(-1))
    assert f["walls"].sum() == sum(bin(int(v)).count("1") for v in b.walls.reshape(-1))
    assert f["flags"].max() == 1.0 and (f["flags"] > 0).sum() == len(b.flags)
    fx, fy = b.flags[0]
    assert f["own_next_flag"][fy * b.width + fx] == 1
