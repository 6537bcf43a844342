"""Agents carry their settings: a policy trained on a variant declares its options, the command lines
apply them when the user gave none (one line says so) and refuse a contradiction with one line naming
the `--option` to change (exit 2)."""

from __future__ import annotations

import os

import pytest

import agents
from agents import base
from agents.options import first_sentence, listing, required_options, resolve_options
from evaluate.__main__ import main as evaluate_main
from evaluate.play import main as play_main

SEED2022 = "lama/learned-seed2022"


def test_shipped_students_declare_their_options():
    assert required_options(SEED2022)["rules"] == "seed2022"
    assert required_options("the_game/learned")["num_players"] == 1
    assert required_options("roborally/learned")["rules"] == "seed"
    assert required_options("lama/first") == {}
    folder = os.path.join(os.path.dirname(agents.__file__), "pretrained", "lama-seed2022")
    assert required_options(f"learned:{folder}?sample")["rules"] == "seed2022"


def test_registered_agent_declares_options():
    base.register("lama/test-needs-seed", base.RandomAgent, options={"rules": "seed2022"}, doc="A test agent.")
    try:
        assert required_options("lama/test-needs-seed") == {"rules": "seed2022"}
        opts, notes = resolve_options("lama", ["lama/test-needs-seed", "lama/first"], {})
        assert opts == {"rules": "seed2022"} and notes == [
            "using --option rules=seed2022, which lama/test-needs-seed was trained on"]
        assert any(
            line.startswith("  lama/test-needs-seed: A test agent.") and "[needs --option rules=seed2022]" in line
            for line in listing("lama")
        )
    finally:
        base._EXACT.pop("lama/test-needs-seed")
        base._OPTIONS.pop("lama/test-needs-seed")
        base._DOCS.pop("lama/test-needs-seed")


def test_resolve_applies_and_refuses():
    assert resolve_options("lama", ["lama/learned", "lama/first"], {}) == ({}, [])  # trained on the defaults
    assert resolve_options("the_game", ["the_game/learned"], {})[0] == {"num_players": 1}
    assert resolve_options("lama", [SEED2022], {"rules": "seed2022"}) == ({"rules": "seed2022"}, [])
    with pytest.raises(ValueError, match="replace --option rules=official with --option rules=seed2022"):
        resolve_options("lama", [SEED2022], {"rules": "official"})
    with pytest.raises(ValueError, match="remove --option power_down=True"):
        resolve_options("roborally", ["roborally/learned"], {"power_down": True})
    with pytest.raises(ValueError, match="cannot play at one table"):
        resolve_options("lama", [SEED2022, "lama/learned"], {})
    # an option that changes only the returns does not matter to a policy
    assert resolve_options("lama", [SEED2022], {"reward": "dense"})[0] == {"reward": "dense", "rules": "seed2022"}


def test_evaluate_applies_the_students_options(capsys):
    assert evaluate_main(["lama", "--agents", f"{SEED2022},lama/first*3", "--games", "2", "--no-progress"]) == 0
    err = capsys.readouterr().err
    assert "using --option rules=seed2022, which lama/learned-seed2022 was trained on" in err


@pytest.mark.parametrize("main,argv", [
    (evaluate_main, ["lama", "--agents", f"{SEED2022},lama/first*3", "--games", "2", "--option", "rules=official"]),
    (evaluate_main, ["lama", "--paired", f"{SEED2022},lama/first", "--against", "lama/first*3",
                     "--option", "rules=official"]),
    (play_main, ["lama", "--opponents", SEED2022, "--option", "rules=official"]),
])
def test_contradiction_is_one_line_exit_2(main, argv, capsys):
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--option rules=seed2022" in err, err


def test_train_opponents_bring_their_options(capsys):
    from train.__main__ import build_parser, config_from_args

    p = build_parser()
    cfg = config_from_args(p, p.parse_args(["lama", "--opponents", SEED2022]))
    assert cfg.options["rules"] == "seed2022" and cfg.options["reward"] == "dense"  # the preset's reward kept
    assert "which lama/learned-seed2022 was trained on" in capsys.readouterr().err
    with pytest.raises(ValueError, match="replace --option rules=official"):
        config_from_args(p, p.parse_args(["lama", "--opponents", SEED2022, "--option", "rules=official"]))


def test_list_describes_each_agent_in_a_stable_order(capsys):
    assert evaluate_main(["list"]) == 0
    first = capsys.readouterr().out
    assert evaluate_main(["list"]) == 0
    assert capsys.readouterr().out == first
    lines = first.splitlines()
    seed_line = next(line for line in lines if line.strip().startswith(SEED2022 + ":"))
    assert "[needs --option rules=seed2022]" in seed_line and "distilled from" in seed_line
    the_game = next(line for line in lines if line.strip().startswith("the_game/learned:"))
    assert "[needs --option num_players=1]" in the_game
    lama = [line.strip().split(": ")[0] for line in lines[1:lines.index("simple_poker: Simple poker")]]
    exact = [i for i in lama if "<" not in i and "," not in i]
    assert exact == sorted(exact)
    assert all(": " in line for line in lines if line.startswith("  "))  # every agent has its one-line description


def test_first_sentence():
    assert first_sentence("`a/b` and `a/c`: the teacher. More.") == "The teacher."
    assert (
        first_sentence("R. Weinmeister's rules (§5), official\nonly.\n\nArgs: x")
        == "R. Weinmeister's rules (§5), official only."
    )
