"""A `Variant` (a game with its options) is what every layer takes in place of a game id: engines, vector
envs, tournaments, paired comparisons, fuzzing; an engine tells its variant back (`Variant.of`)."""

from __future__ import annotations

import numpy as np
import pytest

import agents
import envs
from envs import Variant
from evaluate.fuzz import fuzz
from evaluate.paired import run_paired
from evaluate.tournament import run_tournament


@pytest.mark.parametrize("game_id", envs.GAMES)
def test_an_engine_tells_its_variant(game_id):
    spec = envs.spec(game_id)
    built = 0
    for options in ({}, *spec.fuzz_variants):
        v = Variant(game_id, dict(options))
        try:
            engine = v.make_game()
        except ValueError:  # a variant only an env plays (RoboRally's lone robot)
            continue
        built += 1
        assert envs.spec_of(engine) is spec
        back = Variant.of(engine)
        assert back.make_game().config == engine.config
        assert Variant.from_json(back.to_json()) == back
        # only the options that differ from the defaults are named
        assert set(back.options) <= set(options)
    assert built >= 2


def test_spec_of_refuses_what_is_not_an_engine():
    with pytest.raises(ValueError, match="not the engine of a registered game"):
        envs.spec_of(object())


def test_resolve_merges_and_refuses_other_types():
    v = Variant("lama", {"rules": "seed2022", "num_players": 3})
    assert envs.resolve(v, {"num_players": 5}) == ("lama", {"rules": "seed2022", "num_players": 5})
    assert envs.resolve("lama", None) == ("lama", {})
    assert envs.make_game(v, num_players=5).config.num_players == 5
    with pytest.raises(TypeError, match="a game is its id"):
        envs.resolve(3)


def test_tournament_and_paired_take_a_variant():
    v = Variant("lama", {"num_players": 3})
    by_variant = run_tournament(v, ["lama/first", "lama/second", "random"], games=6, seed=4, progress=False)
    by_id = run_tournament("lama", ["lama/first", "lama/second", "random"], games=6, seed=4, progress=False,
                           options={"num_players": 3})
    assert by_variant.to_dict() == by_id.to_dict()
    assert by_variant.variant == v
    p = run_paired(v, "lama/first", "lama/second", "lama/first", games=3, seed=2)
    q = run_paired("lama", "lama/first", "lama/second", "lama/first", games=3, seed=2, options={"num_players": 3})
    assert p.to_dict() == q.to_dict() and p.variant == v


def test_vector_env_and_fuzz_take_a_variant():
    v = Variant("lama", {"num_players": 3})
    a = agents.vector_env(v, 4, opponents=["lama/first"] * 2, seed=1)
    b = agents.vector_env("lama", 4, opponents=["lama/first"] * 2, seed=1, num_players=3)
    (oa, _), (ob, _) = a.reset(), b.reset()
    np.testing.assert_array_equal(oa, ob)
    report = fuzz(v, 2, seed=3, replays=False)
    assert report.variants == [{"num_players": 3}] and not report.failures
