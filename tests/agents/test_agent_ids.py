"""One agent-id grammar, `game/name?key=value&...`, parsed once by the registry into typed keyword
arguments; the old spellings still work for one release, with a one-line note naming the new one."""

from __future__ import annotations

import numpy as np
import pytest

import agents
import envs
from agents.base import canonical_id, parse_id

RNG = np.random.default_rng(0)


@pytest.mark.parametrize(("old", "new"), [
    ("primi_composti/minimax_4", "primi_composti/minimax?depth=4"),
    ("primi_composti/teacher_exact8_depth3", "primi_composti/teacher?exact=8&depth=3"),
    ("simple_poker/threshold-2", "simple_poker/threshold?t=2"),
    ("simple_poker/tactic-011-001", "simple_poker/tactic?bet=011&call=001"),
    ("simple_poker/tactic-011", "simple_poker/tactic?bet=011"),
    ("lama/pimc-k50", "lama/pimc?k=50"),
    ("lama/third:1,2,3.5,0.5", "lama/third?a=1&b=2&c=3.5&d=0.5"),
    ("the_game/rollout-k16", "the_game/rollout?k=16"),
])
def test_old_spellings_are_rewritten_with_one_note(old, new, capsys):
    assert canonical_id(old) == new
    err = capsys.readouterr().err
    assert err.count("\n") <= 1 and (not err or new in err)
    assert canonical_id(new) == new


def test_parameters_are_typed_and_reach_the_factory():
    assert parse_id("lama/third?a=1&b=2&c=3.5&d=0.5") == ("lama/third", {"a": 1.0, "b": 2.0, "c": 3.5, "d": 0.5})
    game = envs.make_game("lama")
    assert agents.make("lama/third?a=1&b=2&c=3.5&d=0.5", game, RNG).params == (1.0, 2.0, 3.5, 0.5)
    poker = envs.make_game("simple_poker", n=3)
    same = agents.make("simple_poker/threshold?t=2", poker, RNG)
    old = agents.make("simple_poker/threshold-2", poker, RNG)
    assert same.strategy == old.strategy
    robot = agents.make("roborally/mc?budget=50&depth=2&policy=greedy", envs.make_game("roborally"), RNG)
    assert robot.options["budget"] == 50 and robot.options["depth"] == 2 and robot.options["policy"] == "greedy"


@pytest.mark.parametrize(("agent_id", "message"), [
    ("simple_poker/threshold?x=2", "takes no parameter 'x'; its parameters: t (positive integer)"),
    ("simple_poker/threshold?t=zero", "t='zero': expected a positive integer"),
    ("simple_poker/threshold", "needs its threshold: simple_poker/threshold?t=T"),
    ("simple_poker/nash?t=1", "takes no parameter 't'; its parameters: none"),
    ("roborally/mc?depth=9", "depth='9': expected one of 1|2|3"),
    ("lama/third?a=1", "all four fold parameters"),
    ("primi_composti/minimax", "needs its search depth"),
])
def test_bad_parameters_are_one_clear_error(agent_id, message):
    game = envs.make_game(agent_id.split("/")[0])
    with pytest.raises(
        ValueError, match=message.replace("?", r"\?").replace("|", r"\|").replace("(", r"\(").replace(")", r"\)")
    ):
        agents.make(agent_id, game, RNG)


def test_listings_show_the_parameters():
    ids = agents.known_ids("simple_poker")
    assert "simple_poker/threshold?t=<positive integer>" in ids
    assert any(
        i.startswith("roborally/mc?budget=<positive integer>&depth=<one of 1|2|3>")
        for i in agents.known_ids("roborally")
    )
