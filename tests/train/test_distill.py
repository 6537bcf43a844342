"""The distillation loop (train/distill.py) on a tiny budget: artefacts, the learned student, the CLI switch."""

from __future__ import annotations

import dataclasses
import json
import os

import numpy as np
import pytest

import agents
import envs
from envs.core.game import legal_mask
from train.__main__ import main
from train.distill import DistillConfig, distill, soft_targets, teacher_labels

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
    v = teacher_labels(nash, view, mask, np.random.default_rng(0), "act")[0]
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


def test_the_cli_sets_the_students_hidden_layers(tmp_path):
    out = tmp_path / "run"
    assert main(["simple_poker", "--method", "distill", "--teacher", "simple_poker/nash", "--hidden", "8,4",
                 "--rounds", "1", "--games-per-round", "4", "--eval-games", "2", "--final-eval-games", "0",
                 "--out", str(out)]) == 0
    meta = json.loads((out / "student" / "policy.json").read_text())
    assert meta["architecture"]["hidden"] == [8, 4]
    assert json.loads((out / "config.json").read_text())["hidden"] == [8, 4]


def test_label_values_must_be_known():
    with pytest.raises(ValueError, match="label_values must be one of act, search"):
        DistillConfig(game="the_game", teacher="the_game/rollout", label_values="raw")


def _the_game_decisions(n_games: int = 1):
    """(game, [(view, mask)]) of bestplays' own games, 2 players: candidates, END_TURN and plain plays."""
    game = envs.make_game("the_game", num_players=2)
    bp = agents.make("the_game/bestplays", game, rng=np.random.default_rng(0))
    out = []
    for g in range(n_games):
        s = game.initial_state(np.random.default_rng(20 + g))
        while not game.is_terminal(s):
            view, mask = game.view(s, game.current_player(s)), legal_mask(game, s)
            out.append((view, mask))
            s = game.apply(s, bp.act(view, mask))
    return game, out


def test_the_rollout_teachers_estimates_come_from_the_same_search_as_its_values():
    from agents.the_game.rollout import RolloutTeacher

    game, decisions = _the_game_decisions()
    teacher = RolloutTeacher(game, np.random.default_rng(0), k=8)
    differ = 0
    for view, mask in decisions[:60]:
        values, estimates = teacher.action_estimates(view, mask, np.random.default_rng(5))
        np.testing.assert_array_equal(values, teacher.action_values(view, mask, np.random.default_rng(5)))
        legal = mask > 0
        assert np.isfinite(estimates[legal]).all() and np.isnan(estimates[~legal]).all()
        # the gate only ever lowers a candidate that beat bestplays' move without significance
        cands = np.flatnonzero(legal & (values > values[legal].min()))
        assert (values[cands] <= estimates[cands] + 1e-12).all()
        differ += int(not np.allclose(values[legal], estimates[legal]))
    assert differ > 0  # the gate acted somewhere, so the two labels are not the same thing


def test_an_action_scorers_compact_decisions_give_the_same_logits():
    import torch

    from agents.learned import Student
    from train.distill import compact, merge

    game, decisions = _the_game_decisions()
    student = Student("the_game", {"num_players": 2}, "action_scorer", [16], "the_game", game=game)
    torch.manual_seed(0)
    batches = []
    for view, mask in decisions[:40]:
        x = student.inputs(view, mask)
        v = np.where(mask > 0, np.arange(len(mask), dtype=np.float64), np.nan)
        cx, cv, ct = compact(x, v, v)
        with torch.no_grad():
            full = student.net(*(torch.as_tensor(a[None]) for a in x))[0][0].numpy()
            small = student.net(*(torch.as_tensor(a[None]) for a in cx))[0][0].numpy()
        np.testing.assert_allclose(small, full[mask > 0], rtol=1e-5, atol=1e-5)
        np.testing.assert_array_equal(cv, np.flatnonzero(mask > 0))
        batches.append({"inputs": tuple(a[None] for a in cx), "values": cv[None], "targets": ct[None]})
    data = merge(batches)  # decisions of different widths pad to the widest: zero mask, NaN values
    widths = [b["values"].shape[1] for b in batches]
    assert data["values"].shape == (len(batches), max(widths))
    for i, w in enumerate(widths):
        assert (data["inputs"][2][i, :w] == 1).all() and (data["inputs"][2][i, w:] == 0).all()
        assert np.isnan(data["values"][i, w:]).all() and np.isfinite(data["values"][i, :w]).all()


def test_search_labels_fit_the_estimates_and_measure_against_the_acted_values(tmp_path):
    from train.distill import label_games, resolve_kind

    cfg = DistillConfig(game="the_game", teacher="the_game/rollout?k=8", options={"num_players": 1},
                        features="the_game", hidden=[8], label_values="search", out=str(tmp_path))
    kind, features = resolve_kind(cfg)
    seeds = [np.random.SeedSequence(3)]
    search = label_games(cfg, kind, features, None, 1.0, seeds)
    act = label_games(dataclasses.replace(cfg, label_values="act"), kind, features, None, 1.0, seeds)
    np.testing.assert_array_equal(search["values"], act["values"])  # the same games, the same teacher values
    np.testing.assert_array_equal(act["targets"], act["values"])
    assert not np.array_equal(np.nan_to_num(search["targets"]), np.nan_to_num(search["values"]))
    assert search["inputs"][1].shape[1] < 405  # stored compactly: legal actions only


def test_an_endless_game_is_cut_in_roll_in_and_in_evaluation(monkeypatch, tmp_path):
    """A student can make a game endless (L.A.M.A.'s seed2022 reshuffle rule): roll-in games stop at
    `ROLL_IN_MAX_MOVES` moves, keeping their decisions, and evaluation games at `EVAL_MAX_TURNS` count as no win."""
    import train.curve
    import train.distill
    from train.curve import evaluate_policy_agent
    from train.distill import label_games, resolve_kind

    cfg = DistillConfig(game="lama", teacher="lama/first", options={"num_players": 4, "rules": "seed2022"},
                        hidden=[8], out=str(tmp_path))
    kind, features = resolve_kind(cfg)
    full = label_games(cfg, kind, features, None, 1.0, [np.random.SeedSequence(4)])
    assert full["decisions"] > 7
    monkeypatch.setattr(train.distill, "ROLL_IN_MAX_MOVES", 7)
    cut = label_games(cfg, kind, features, None, 1.0, [np.random.SeedSequence(4)])
    assert cut["decisions"] == 7
    np.testing.assert_array_equal(cut["values"], full["values"][:7])
    game = envs.make_game("lama", num_players=4, rules="seed2022")
    first = agents.make("lama/first", game, rng=np.random.default_rng(0))
    assert evaluate_policy_agent(game, first, [first], 20, np.random.default_rng(1))["eval_win_rate"] > 0
    monkeypatch.setattr(train.curve, "EVAL_MAX_TURNS", 5)
    assert evaluate_policy_agent(game, first, [first], 20, np.random.default_rng(1))["eval_win_rate"] == 0


class _OneProcess:
    """A worker pool's `starmap` run in this process: the same parts and the same merge, no fork."""

    @staticmethod
    def starmap(fn, args):
        return [fn(*a) for a in args]


def _round_labels(workers: int, pool=None, backend=None) -> dict:
    from train.distill import _label_round, resolve_kind
    from train.seeds import children

    cfg = DistillConfig(game="the_game", teacher="the_game/random", games_per_round=10, hidden=[8], workers=workers)
    kind, features = resolve_kind(cfg)
    seeds = children(np.random.SeedSequence(5), cfg.games_per_round)
    return _label_round(cfg, kind, features, None, 1.0, seeds, pool, backend)


def _assert_same_labels(a: dict, b: dict) -> None:
    assert a["decisions"] == b["decisions"] > 100
    for key in ("values", "chosen"):
        np.testing.assert_array_equal(a[key], b[key])
    for x, y in zip(a["inputs"], b["inputs"]):
        np.testing.assert_array_equal(x, y)


def test_worker_processes_label_as_one_process_does():
    """Two forked workers (`--workers 2`) give the labels of their two parts run here. This test comes before the
    module's Ray tests: a fork beside Ray's threads in the same process can hang the child."""
    import multiprocessing
    import sys

    ray = sys.modules.get("ray")
    if ray is not None and ray.is_initialized():  # left running by an earlier test file in this worker
        ray.shutdown()
    with multiprocessing.get_context("fork").Pool(2) as pool:
        forked = _round_labels(2, pool)
    _assert_same_labels(forked, _round_labels(2, _OneProcess()))


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
    """A round's labels as Ray tasks equal the local labelling with the same `workers` (their parts run in this
    process), also for a teacher that acts from its own generator (`the_game/random`, act only: its choice is
    labelled 0, the rest -1)."""
    local = _round_labels(workers, None if workers == 1 else _OneProcess())
    on_ray = _round_labels(workers, backend=ray_backend)
    _assert_same_labels(on_ray, local)
    assert set(np.unique(local["values"][np.isfinite(local["values"])])) == {-1.0, 0.0}


def test_distill_run_is_the_same_on_ray(ray_backend, tmp_path):
    """A tiny DAgger run with its labelling on Ray writes the local run's student, curve and evaluation."""
    import torch

    runs = {}
    for name, backend in (("local", None), ("ray", ray_backend)):
        cfg = DistillConfig(game="simple_poker", teacher="simple_poker/nash", rounds=2, games_per_round=24, epochs=3,
                            hidden=[8], eval_games=10, final_eval_games=20, out=str(tmp_path / name))
        runs[name] = distill(cfg, verbose=False, backend=backend)
    timing = {"label_seconds_per_decision", "label_wall_seconds", "fit_seconds", "eval_seconds", "wall_s"}
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


def _small(tmp_path, name: str, **kw) -> DistillConfig:
    values = dict(rounds=3, games_per_round=30, epochs=5, hidden=[8], eval_games=10, final_eval_games=0) | kw
    return DistillConfig(game="simple_poker", teacher="simple_poker/nash", out=str(tmp_path / name), **values)


def test_a_stopped_distillation_resumes_to_the_run_it_would_have_been(tmp_path, monkeypatch):
    import signal

    import torch

    from train import distill as distill_module
    from train.checkpoint import read_checkpoint
    from train.run import TrainingStoppedError

    whole = distill(_small(tmp_path, "whole"), verbose=False)
    real = distill_module.evaluate_student
    calls = []

    def stop_in_round_one(*a, **k):  # a SIGTERM arrives while round 1 is under way
        calls.append(1)
        if len(calls) == 2:
            os.kill(os.getpid(), signal.SIGTERM)
        return real(*a, **k)

    monkeypatch.setattr(distill_module, "evaluate_student", stop_in_round_one)
    with pytest.raises(TrainingStoppedError, match="at round 2 of 3"):
        distill(_small(tmp_path, "cut"), verbose=False)
    monkeypatch.setattr(distill_module, "evaluate_student", real)
    cut = str(tmp_path / "cut")
    with pytest.raises(ValueError, match="already holds a run"):
        distill(_small(tmp_path, "cut"), verbose=False)
    resumed = distill(_small(tmp_path, "cut"), verbose=False, resume=read_checkpoint(cut))
    assert [r["fit_loss"] for r in resumed["curve"]] == [r["fit_loss"] for r in whole["curve"]]
    assert resumed["selected_round"] == whole["selected_round"]
    a = torch.load(tmp_path / "whole" / "student" / "weights.pt", weights_only=True)
    b = torch.load(tmp_path / "cut" / "student" / "weights.pt", weights_only=True)
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    assert not any(f.startswith("checkpoint") for f in os.listdir(cut))  # a finished run keeps no checkpoint


def test_the_cli_resumes_a_distillation_and_refuses_its_flags(tmp_path, monkeypatch, capsys):
    from train import distill as distill_module
    from train.checkpoint import write_checkpoint

    # a checkpoint as a stop after round 0 of a 2-round run leaves it
    cfg2 = _small(tmp_path, "run2", rounds=2)
    captured = {}
    real = distill_module.checkpoint_contents

    def keep(*a, **k):
        captured["c"] = real(*a, **k)
        return captured["c"]

    monkeypatch.setattr(distill_module, "checkpoint_contents", keep)
    distill(dataclasses.replace(cfg2, rounds=1, out=str(tmp_path / "tmp")), verbose=False)
    state, tensors = captured["c"]
    state["config"]["rounds"] = 2
    state["config"]["out"] = cfg2.out
    os.makedirs(cfg2.out)
    write_checkpoint(cfg2.out, 1, state, tensors)
    with pytest.raises(SystemExit) as e:
        main(["--resume", cfg2.out, "--teacher", "simple_poker/nash"])
    assert e.value.code == 2 and "drop --teacher" in capsys.readouterr().err
    assert main(["--resume", cfg2.out]) == 0
    summary = json.load(open(os.path.join(cfg2.out, "config.json")))
    assert summary["method"] == "distill" and len(summary["curve"]) == 2


def test_distillation_checks_its_config():
    with pytest.raises(ValueError, match="rounds must be an integer >= 1"):
        DistillConfig(game="simple_poker", teacher="simple_poker/nash", rounds=0)
    with pytest.raises(ValueError, match="seed must be an integer >= 0"):
        DistillConfig(game="simple_poker", teacher="simple_poker/nash", seed=-1)
    with pytest.raises(ValueError, match="teacher must be an agent id"):
        DistillConfig(game="simple_poker", teacher="")


def test_worker_processes_are_refused_beside_a_running_ray(ray_backend, tmp_path):
    """`workers > 1` forks; beside Ray in the same process it is refused before any work, naming the way out."""
    cfg = DistillConfig(game="simple_poker", teacher="simple_poker/nash", workers=2, out=str(tmp_path / "run"))
    with pytest.raises(ValueError, match="label on Ray instead"):
        distill(cfg, verbose=False)
    assert not (tmp_path / "run").exists()
