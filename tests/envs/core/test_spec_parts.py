"""A spec holds what the engine layer knows; each layer above declares its own part of a game and finds it in the
game's own package of that layer (`<layer>.<game>`, or beside the spec of a game from outside the suite)."""

from __future__ import annotations

import dataclasses

import pytest

import agents
import envs
import evaluate.games
from envs.core import spec as spec_registry
from envs.core.chance import ChanceModel
from examples.tictactoe.spec import SPEC as TICTACTOE
from train.presets import PRESETS

GAMES = envs.GAMES


@pytest.mark.parametrize("game", GAMES)
def test_each_layer_finds_its_part_in_its_own_package(game):
    assert envs.home(game) == f"envs.{game}"
    assert agents.games.module_of(game) == f"agents.{game}" and agents.part(game).default_lineup
    assert evaluate.games.module_of(game) == f"evaluate.{game}" and evaluate.games.part(game).examples
    assert PRESETS.module_of(game) == f"train.presets.{game}" and PRESETS.module(game) is not None
    assert issubclass(envs.spec(game).chance_model, ChanceModel)  # every built-in game exports to OpenSpiel


def test_a_spec_names_no_part_of_a_layer_above():
    names = {f.name for f in dataclasses.fields(envs.GameSpec)}
    moved = {"default_lineup", "agents_module", "evaluate_module", "train_presets", "vector_kernels",
             "compiled_games", "describe_view", "examples", "league_deals", "warm_up", "read_move"}
    assert not names & moved


def test_a_spec_answers_engine_layer_fields_only():
    spec = envs.spec("lama")  # the layers above import (agents, evaluate, train.presets): none answers for the spec
    for name in ("default_lineup", "vector_kernels", "agents_module", "examples", "train_presets", "compiled_games",
                 "lineup", "seat_name", "no_such_name"):
        with pytest.raises(AttributeError, match=f"no attribute '{name}'"):
            getattr(spec, name)
    assert not hasattr(spec_registry, "add_part_finder")


def test_a_bare_spec_has_no_home_and_default_parts():
    spec = dataclasses.replace(TICTACTOE, id="barespec")
    envs.register(spec)
    try:
        assert envs.home("barespec") is None and agents.games.module_of("barespec") is None
        assert agents.part("barespec").lineup(3) == ["random"] * 3
        assert evaluate.games.part("barespec").seat_name(1) == "player_1"
        assert PRESETS.module("barespec") is None
    finally:
        envs.unregister("barespec")
    assert envs.home("barespec") is None


def test_a_spec_registered_from_a_package_has_that_home():
    envs.register("tictactoe", "examples.tictactoe.spec:SPEC")
    try:
        assert envs.home("tictactoe") == "examples.tictactoe"
        assert agents.games.module_of("tictactoe") == "examples.tictactoe.agents"
        assert evaluate.games.module_of("tictactoe") == "examples.tictactoe.evaluate"
        assert PRESETS.module("tictactoe") is None  # it has no presets.py
    finally:  # its parts stay as declared (withdrawing them would undo what importing its packages declared once)
        envs.unregister("tictactoe")


def test_a_part_is_checked_when_declared():
    with pytest.raises(ValueError, match="default_lineup needs at least one"):
        agents.games.GameAgents("lama", default_lineup=())
    with pytest.raises(ValueError, match="starting with the game's id"):
        evaluate.games.GameEvaluation("lama", warm_up=("--games 1",))
