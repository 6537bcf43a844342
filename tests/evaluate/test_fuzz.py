"""The fuzzer: every game and variant stays clean, and planted bugs are found."""

from __future__ import annotations

import numpy as np
import pytest

import envs
from envs.primi_composti.rules import PrimiCompostiGame
from envs.the_game.rules import TheGame
from evaluate.fuzz import fuzz, main, variants


@pytest.mark.parametrize("game", envs.available_games())
def test_every_variant_fuzzes_clean(game):
    todo = variants(game)
    assert len(todo) >= (4 if game == "simple_poker" else 10)
    # RoboRally episodes are about 150 moves: fewer of them per variant keep the test short.
    episodes = 2 * len(todo) if game == "roborally" else max(300, 30 * len(todo))
    report = fuzz(game, episodes, seed=0)
    assert report.failures == []
    assert report.episodes == episodes and report.steps >= episodes and report.variants == todo


def test_variants_cover_player_counts_and_presets():
    the_game = variants("the_game")
    assert {v.get("num_players", 2) for v in the_game} == set(range(1, 8))  # 1..5 official, 1..7 berger2024
    assert {v["rules"] for v in the_game} == {"official", "berger2024"}
    assert {v["version"] for v in variants("primi_composti")} == {1, 2}


def test_a_mask_that_disagrees_with_the_rules_is_found(monkeypatch):
    original = TheGame.legal_actions

    def fewer(self, state):
        legal = list(original(self, state))
        return legal[:-1] if len(legal) > 3 else legal

    monkeypatch.setattr(TheGame, "legal_actions", fewer)
    report = fuzz("the_game", 3, seed=5, options={})
    assert len(report.failures) == 3 and {f.check for f in report.failures} == {"mask"}
    assert report.failures[0].reproducer("the_game") == "python -m evaluate.fuzz the_game --episodes 1 --seed 5"


def test_returns_that_do_not_sum_to_zero_are_found(monkeypatch):
    original = PrimiCompostiGame.returns
    monkeypatch.setattr(PrimiCompostiGame, "returns", lambda self, s: tuple(r + 0.5 for r in original(self, s)))
    report = fuzz("primi_composti", 2, seed=0, options={"cards_per_player": 3})
    assert [f.check for f in report.failures] == ["zero-sum", "zero-sum"]


def test_an_accepted_illegal_action_is_found(monkeypatch):
    original = TheGame.apply

    def accepting(self, state, action):
        if action not in self.legal_actions(state):
            return state  # accepted, nothing happens
        return original(self, state, action)

    monkeypatch.setattr(TheGame, "apply", accepting)
    report = fuzz("the_game", 1, seed=0, options={})
    assert [f.check for f in report.failures] == ["illegal"]


def test_cli_prints_failures_with_reproducers_and_exits_1(monkeypatch, capsys):
    original = PrimiCompostiGame.returns
    monkeypatch.setattr(PrimiCompostiGame, "returns", lambda self, s: tuple(r + 0.5 for r in original(self, s)))
    assert main(["primi_composti", "--episodes", "2", "--seed", "7", "--option", "cards_per_player=3"]) == 1
    out = capsys.readouterr().out
    assert "reproduce: python -m evaluate.fuzz primi_composti --episodes 1 --seed 8 --option cards_per_player=3" in out
    assert out.strip().splitlines()[-1].startswith("primi_composti: 2 episodes over 1 variants, ")
    assert ", 2 failures (" in out


def test_cli_clean_run_exits_0(capsys):
    assert main(["simple_poker", "--episodes", "50", "--option", "n=4"]) == 0
    assert "simple_poker: 50 episodes over 1 variants" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["chess"], "unknown game 'chess'"),
        (["lama", "--episodes", "0"], "must be a positive integer"),
        (["lama", "--episodes", "many"], "must be a positive integer"),
        (["lama", "--option", "colour=red"], "unknown option 'colour'"),
        (["lama", "--option", "num_players=99"], "num_players must be an integer in 2..6"),
        (["lama", "--option", "rules"], "not of the form key=value"),
    ],
)
def test_cli_misuse_is_one_line_and_exit_2(argv, message, capsys):
    with pytest.raises(SystemExit) as ex:
        main(argv)
    assert ex.value.code == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_same_seed_same_report():
    a, b = fuzz("lama", 30, seed=3), fuzz("lama", 30, seed=3)
    assert (a.steps, a.failures) == (b.steps, b.failures)
    assert np.isfinite(a.seconds)
