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


@pytest.fixture(scope="module")
def ray_backend():
    """One local Ray instance (2 CPUs, no dashboard) for the module's Ray tests, shut down after them."""
    ray = pytest.importorskip("ray")
    from evaluate.backends import get_backend

    if ray.is_initialized():
        ray.shutdown()
    b = get_backend("ray", None, 2)
    yield b
    b.close()


@pytest.mark.parametrize("workers", [1, 2])
def test_labels_are_the_same_on_ray(ray_backend, workers):
    """A round's labels as Ray tasks equal the local labelling with the same `workers`, also for a teacher
    that acts from its own generator (`the_game/random`, act only: its choice is labelled 0, the rest -1)."""
    from train.distill import _label_round, resolve_kind
    from train.seeds import children

    cfg = DistillConfig(game="the_game", teacher="the_game/random", games_per_round=10, hidden=[8], workers=workers)
    kind, features = resolve_kind(cfg)
    seeds = children(np.random.SeedSequence(5), cfg.games_per_round)
    if workers == 1:
        local = _label_round(cfg, kind, features, None, 1.0, seeds, None)
    else:
        import multiprocessing

        with multiprocessing.get_context("fork").Pool(workers) as pool:
            local = _label_round(cfg, kind, features, None, 1.0, seeds, pool)
    on_ray = _label_round(cfg, kind, features, None, 1.0, seeds, None, ray_backend)
    assert on_ray["decisions"] == local["decisions"] > 100
    for key in ("values", "chosen"):
        np.testing.assert_array_equal(on_ray[key], local[key])
    for a, b in zip(on_ray["inputs"], local["inputs"]):
        np.testing.assert_array_equal(a, b)
    assert set(np.unique(local["values"][np.isfinite(local["values"])])) == {-1.0, 0.0}


def test_distill_run_is_the_same_on_ray(ray_backend, tmp_path):
    """A tiny DAgger run with its labelling on Ray writes the local run's student, curve and evaluation."""
    import torch

    runs = {}
    for name, backend in (("local", None), ("ray", ray_backend)):
        cfg = DistillConfig(game="simple_poker", teacher="simple_poker/nash", rounds=2, games_per_round=24, epochs=3,
                            hidden=[8], eval_games=10, final_eval_games=20, out=str(tmp_path / name))
        runs[name] = distill(cfg, verbose=False, backend=backend)
    timing = {"label_seconds_per_decision", "label_wall_seconds", "fit_seconds", "eval_seconds"}
    curves = [[{k: v for k, v in row.items() if k not in timing} for row in runs[n]["curve"]] for n in runs]
    assert curves[0] == curves[1] and runs["ray"]["selected_round"] == runs["local"]["selected_round"]
    w = [torch.load(tmp_path / n / "student" / "weights.pt", weights_only=True) for n in runs]
    assert w[0].keys() == w[1].keys() and all(torch.equal(w[0][k], w[1][k]) for k in w[0])
    evals = [(tmp_path / n / "eval.json").read_text().replace(str(tmp_path / n), "RUN") for n in runs]
    assert evals[0] == evals[1] and "learned:RUN/student" in evals[0]


def test_the_cli_refuses_a_backend_for_ppo(capsys):
    with pytest.raises(SystemExit) as e:
        main(["simple_poker", "--backend", "ray"])
    assert e.value.code == 2 and "--backend ray applies to --method distill" in capsys.readouterr().err
