"""The distillation loop (train/distill.py) on a tiny budget: artefacts, the learned student, the CLI switch."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import agents
import envs
from envs.core.game import legal_mask
from train.__main__ import main
from train.distill import DistillConfig, distill, soft_targets, teacher_values

pytest.importorskip("torch")


def test_soft_targets_follow_the_values():
    v = np.array([1.0, np.nan, 3.0, 2.0])
    p = soft_targets(v, 1.0)
    assert p[1] == 0.0 and p.sum() == pytest.approx(1.0)
    assert p[2] > p[3] > p[0]
    assert soft_targets(v, 0.01)[2] == pytest.approx(1.0)


def test_a_policy_teacher_gives_its_log_probabilities():
    game = envs.make_game("simple_poker")
    nash = agents.make("simple_poker/nash", game, rng=np.random.default_rng(0))
    s = game.initial_state(np.random.default_rng(1))

    mask = legal_mask(game, s)
    view = game.view(s, game.current_player(s))
    v = teacher_values(nash, view, mask, np.random.default_rng(0))
    np.testing.assert_allclose(soft_targets(v, 1.0), nash.action_probs(view, mask), atol=1e-9)


def test_distill_writes_its_artefacts_and_learns_from_the_nash_teacher(tmp_path):
    cfg = DistillConfig(game="simple_poker", teacher="simple_poker/nash", rounds=2, games_per_round=60, epochs=30,
                        hidden=[16], eval_games=20, final_eval_games=40, out=str(tmp_path / "run"))
    summary = distill(cfg, verbose=False)
    for name in ("config.json", "curve.csv", "curve.png", "eval.json", "student/policy.json", "student/weights.pt"):
        assert os.path.exists(tmp_path / "run" / name), name
    assert summary["curve"][-1]["train_agreement"] > 0.6
    assert json.load(open(tmp_path / "run" / "config.json"))["method"] == "distill"
    # the student plays through the registry like any agent
    game = envs.make_game("simple_poker")
    a = agents.make(f"learned:{tmp_path / 'run' / 'student'}", game, rng=np.random.default_rng(0))
    s = game.initial_state(np.random.default_rng(2))

    assert legal_mask(game, s)[a.act(game.view(s, game.current_player(s)), legal_mask(game, s))] == 1


def test_the_cli_needs_a_teacher(capsys):
    with pytest.raises(SystemExit) as e:
        main(["simple_poker", "--method", "distill"])
    assert e.value.code == 2
    assert "--teacher" in capsys.readouterr().err


def test_roborally_distillation_on_a_tiny_budget(tmp_path):
    """The preset's teacher and features: a student that plays whole races and agrees with the teacher."""
    from train.distill import distill_preset

    values = distill_preset("roborally") | {"rounds": 2, "games_per_round": 3, "eval_games": 2, "final_eval_games": 2,
                                            "eval_opponents": ["roborally/random"]}
    summary = distill(DistillConfig(game="roborally", out=str(tmp_path / "run"), **values), verbose=False)
    assert summary["kind"] == "action_scorer" and summary["features"] == "roborally"
    assert summary["curve"][-1]["train_agreement"] > 0.5
    game = envs.make_game("roborally", rules="seed")
    a = agents.make(f"learned:{tmp_path / 'run' / 'student'}", game, rng=np.random.default_rng(0))
    s = game.initial_state(np.random.default_rng(4))
    while not game.is_terminal(s):
        s = game.apply(s, a.act(game.view(s, game.current_player(s)), legal_mask(game, s)))
    assert s.winner in (-1, 0, 1)
