"""The AEC adapter's generic hooks: default bindings and public info."""

from __future__ import annotations

import pytest
from pettingzoo.test import api_test

from envs.core.aec import GameAECEnv, make_env_fn
from envs.simple_poker.encoding import SimplePokerEncoder
from envs.simple_poker.rules import Config, SimplePokerGame

# Run again on the oldest supported PettingZoo (.ci/run): these tests exercise the PettingZoo-facing API.
pytestmark = pytest.mark.pettingzoo_api


class PokerWithPublicInfo(SimplePokerGame):
    """Simple poker that publishes how many actions were taken."""

    def public_info(self, state):
        return {"actions_taken": len(state.history)}


class raw_env(GameAECEnv):  # noqa: N801
    metadata = {"name": "test_v0", "render_modes": ["ansi"], "is_parallelizable": False}
    config_class = Config
    game_class = PokerWithPublicInfo
    encoder_class = SimplePokerEncoder


def test_default_binding_and_public_info_reach_every_seat():
    env = raw_env(n=4, mask_in="obs")
    assert isinstance(env.game, PokerWithPublicInfo) and env.game.n == 4
    env.reset(seed=0)
    assert env.infos == {"player_0": {"actions_taken": 0}, "player_1": {"actions_taken": 0}}
    env.step(1)
    assert env.infos["player_0"] == env.infos["player_1"] == {"actions_taken": 1}
    assert env.infos["player_0"] is not env.infos["player_1"]
    env = raw_env(n=4)  # default mask_in="both": the mask beside the public info
    env.reset(seed=0)
    assert env.infos["player_0"]["actions_taken"] == 0 and env.infos["player_0"]["action_mask"].tolist() == [1, 1]
    assert env.infos["player_1"]["action_mask"].tolist() == [0, 0]  # not to act
    api_test(make_env_fn(raw_env)(), num_cycles=50)


def test_unchecked_constructor_builds_equal_objects():
    from dataclasses import dataclass

    from envs.core.game import unchecked_constructor

    @dataclass(frozen=True, slots=True)
    class Slotted:
        a: int
        b: tuple

    @dataclass(frozen=True)
    class Plain:
        a: int
        b: tuple = ()

    for cls in (Slotted, Plain):
        made = unchecked_constructor(cls)(1, (2, 3))
        assert made == cls(1, (2, 3)) and hash(made) == hash(cls(1, (2, 3))) and type(made) is cls
