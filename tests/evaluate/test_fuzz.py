"""The fuzzer: every game and variant stays clean, and planted bugs are found."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import envs
from envs.core.parallel import GameParallelEnv
from envs.primi_composti.rules import PrimiCompostiGame
from envs.roborally.rules import RoboRallyGame
from envs.the_game.rules import TheGame
from evaluate.fuzz import fuzz, main, variants

FORMS = [(g, f) for g in envs.available_games() for f in envs.spec(g).fuzz_forms]


def test_roborally_is_fuzzed_in_both_forms():
    assert envs.spec("roborally").fuzz_forms == ("aec", "parallel")
    assert all(envs.spec(g).fuzz_forms == ("aec",) for g in envs.available_games() if g != "roborally")
    with pytest.raises(ValueError, match=r"fuzz_forms must be some of \['aec', 'parallel'\], got \('turns',\)"):
        dataclasses.replace(envs.spec("lama"), fuzz_forms=("turns",))


@pytest.mark.parametrize("game, form", FORMS, ids=[f"{g}-{f}" for g, f in FORMS])
def test_every_variant_fuzzes_clean(game, form):
    todo = variants(game)
    assert len(todo) >= (4 if game == "simple_poker" else 10)
    # RoboRally episodes are about 150 moves: fewer of them per variant keep the test short.
    episodes = len(todo) if game == "roborally" else max(300, 30 * len(todo))
    report = fuzz(game, episodes, seed=0, form=form)
    assert report.failures == []
    assert report.episodes == episodes and report.steps >= episodes and report.variants == todo


def test_parallel_mask_that_disagrees_with_the_rules_is_found(monkeypatch):
    original = RoboRallyGame.seat_mask

    def fewer(self, state, seat):
        mask = original(self, state, seat)
        legal = np.flatnonzero(mask)
        if seat == 1 and len(legal) > 1:
            mask[legal[-1]] = 0
        return mask

    monkeypatch.setattr(RoboRallyGame, "seat_mask", fewer)
    report = fuzz("roborally", 2, seed=5, options={}, form="parallel")
    assert [f.check for f in report.failures] == ["mask", "mask"]
    assert "player_1's mask allows" in report.failures[0].message
    assert (
        report.failures[0].reproducer("roborally")
        == "python -m evaluate.fuzz roborally --episodes 1 --seed 5 --form parallel"
    )


def test_parallel_rewards_that_do_not_add_up_are_found(monkeypatch):
    original = GameParallelEnv.step

    def doubled(self, actions):
        obs, rewards, terms, truncs, infos = original(self, actions)
        return obs, {a: 2 * r for a, r in rewards.items()}, terms, truncs, infos

    monkeypatch.setattr(GameParallelEnv, "step", doubled)
    report = fuzz("roborally", 1, seed=0, options={"board": "tiny", "reward": "progress"}, form="parallel",
                    replays=False)
    assert [f.check for f in report.failures] == ["reward"]


def test_parallel_round_without_every_live_agent_is_found(monkeypatch):
    original = GameParallelEnv.step

    def lenient(self, actions):  # fills in a missing agent's action instead of refusing the round
        filled = {a: actions.get(a, int(np.flatnonzero(self.game.seat_mask(self.game_state, self._seat[a]))[0]))
                  for a in self.agents}
        return original(self, filled)

    monkeypatch.setattr(GameParallelEnv, "step", lenient)
    report = fuzz("roborally", 1, seed=0, options={}, form="parallel", replays=False)
    assert [f.check for f in report.failures] == ["all-act"]


def test_parallel_form_cli(capsys):
    assert main(["roborally", "--episodes", "2", "--form", "parallel", "--option", "board=tiny"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1 and out[0].startswith("roborally (parallel): 2 episodes over 1 variants, ")
    with pytest.raises(SystemExit) as ex:
        main(["lama", "--form", "parallel"])
    assert ex.value.code == 2
    assert "lama is fuzzed in the forms aec; --form parallel is not one of them" in capsys.readouterr().err


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
        (["chess"], "unknown or unavailable game 'chess'"),
        (["lama", "--episodes", "0"], "--episodes: must be an integer >= 1, got 0"),
        (["lama", "--episodes", "many"], "--episodes: expected an integer, got 'many'"),
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
