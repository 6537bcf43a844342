"""Helps that teach: the game's options, examples and preset numbers are generated from its declarations, and a
mistyped option names what it accepts."""

from __future__ import annotations

import dataclasses
from typing import Literal

import pytest

import envs
import evaluate.games
from evaluate.__main__ import main as evaluate_main
from examples.tictactoe.rules import Config as TicTacToeConfig
from examples.tictactoe.spec import SPEC as TICTACTOE
from train.__main__ import main as train_main


@dataclasses.dataclass(frozen=True)
class KnobConfig(TicTacToeConfig):
    """Tic-tac-toe with one more option, declared only here.

    Attributes:
        starter: who moves first.
        reward: the reward.
        fake_knob: a knob that exists only in this test.
    """

    fake_knob: Literal["low", "high"] = "low"


@pytest.fixture
def knob_game():
    """A throwaway game whose Config has an option no shipped game has."""
    spec = dataclasses.replace(TICTACTOE, id="knobgame", title="Knob game", config_class=KnobConfig)
    envs.register(spec)  # a bare spec: no package of its own, so its evaluate part is declared here
    evaluate.games.declare(spec.id, examples=("knobgame --option fake_knob=high --games 10",))
    yield spec
    evaluate.games.withdraw(spec.id)
    envs.unregister(spec.id)


def _help(main, argv, capsys) -> str:
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 0
    return capsys.readouterr().out


def test_a_new_option_appears_in_both_helps(knob_game, capsys):
    line = "fake_knob (one of low|high; default 'low'): a knob that exists only in this test."
    evaluate_help = _help(evaluate_main, ["knobgame", "--help"], capsys)
    assert line in evaluate_help and "python -m evaluate knobgame --option fake_knob=high --games 10" in evaluate_help
    assert line in _help(train_main, ["knobgame", "--help"], capsys)


def test_evaluate_help_lists_the_subcommands(capsys):
    text = " ".join(_help(evaluate_main, ["--help"], capsys).split())
    for word in ("'list'", "'play GAME'", "--league", "--paired", *envs.available_games()):
        assert word in text, word


def test_train_help_shows_examples_and_the_presets_numbers(capsys):
    from train.presets import preset

    plain = _help(train_main, ["--help"], capsys)
    assert "examples:" in plain and "python -m train GAME" in plain
    lama = " ".join(_help(train_main, ["lama", "--help"], capsys).split())
    steps = preset("lama")["timesteps"]
    assert f"[lama: ppo {steps:,}]" in lama and f"timesteps {steps:,}" in lama
    assert "rules (one of official|seed2022" in lama


@pytest.mark.parametrize("argv,names", [
    (["simple_poker", "--option", "n=ten"], ["'ten' is not an integer", "n (int; default 3)"]),
    (["simple_poker", "--option", "ante=lots"], ["'lots' is not a number", "ante (float"]),
    (["lama", "--option", "rules=house"], ["one of official|seed2022"]),
    (["lama", "--option", "return_chip=maybe"], ["not a boolean", "return_chip (bool"]),
])
def test_option_type_error_names_the_allowed_values(argv, names, capsys):
    with pytest.raises(SystemExit) as e:
        evaluate_main(argv)
    err = capsys.readouterr().err.strip()
    assert e.value.code == 2 and len(err.splitlines()) == 1 and "invalid literal" not in err
    for name in names:
        assert name in err, err
