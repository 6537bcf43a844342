"""A tiny training run end to end: files saved, model usable as an agent."""

from __future__ import annotations

import csv
import json
import subprocess
import sys

import numpy as np
import pytest

import agents
from agents.simple_poker.strategies import behaviour_of, exploitability
from envs.simple_poker import Config, SimplePokerGame


def _train_cli(out, *args: str) -> dict:
    """`python -m train simple_poker ARGS --out OUT --no-progress` to its end; the run's saved config."""
    subprocess.run([sys.executable, "-m", "train", "simple_poker", *args, "--out", str(out), "--no-progress"],
                   check=True, capture_output=True, text=True)
    return json.loads((out / "config.json").read_text())


@pytest.mark.slow
def test_train_self_play_then_evaluate(tmp_path):
    out = tmp_path / "run"
    cfg = _train_cli(out, "--option", "n=3", "--timesteps", "2048", "--n-envs", "2", "--eval-every", "1024",
                     "--final-eval-games", "100")
    for name in ("model.zip", "config.json", "curve.csv", "curve.png", "eval.json", "snapshots.pt"):
        assert (out / name).exists(), name
    assert cfg["game"] == "simple_poker" and cfg["options"] == {"n": 3} and cfg["play"] == "average"
    assert cfg["self_play"] and cfg["opponents"] == [] and cfg["learner"] == "sb3"  # its opponents are its pool
    ev = json.loads((out / "eval.json").read_text())["tournaments"]
    assert [[a["id"] for a in t["agents"]] for t in ev] == [[f"ppo:{out}", "random"]]
    curve = (out / "curve.csv").read_text().splitlines()
    assert curve[0].startswith("timesteps") and "exploitability" in curve[0] and len(curve) >= 3
    game = SimplePokerGame(Config(n=3))
    agent = agents.make(f"ppo:{out}", game, np.random.default_rng(0))
    e = exploitability(game, behaviour_of(agent, game)).total
    assert 0 <= e < 1.0
    # the saved agent plays a tournament through the CLI
    proc = subprocess.run([sys.executable, "-m", "evaluate", "simple_poker", "--agents", f"ppo:{out},simple_poker/nash",
                           "--option", "n=3", "--games", "100", "--no-progress"], check=True, capture_output=True,
                          text=True)
    assert "ppo:" in proc.stdout
    # a model for another game shape is refused clearly
    with pytest.raises(ValueError, match="trained on simple_poker"):
        agents.make(f"ppo:{out}", SimplePokerGame(Config(n=5)), np.random.default_rng(0))


@pytest.mark.slow
def test_self_play_final_evaluation_faces_each_baseline(tmp_path):
    from train.config import TrainConfig
    from train.ppo import train

    cfg = TrainConfig(game="simple_poker", options={"n": 3}, self_play=True,
                      baselines=["simple_poker/threshold?t=1", "random"], timesteps=512, n_envs=1, n_steps=128,
                      batch_size=64, eval_games=0, final_eval_games=20, seed=1, out=str(tmp_path / "r"))
    summary = train(cfg, progress=False, verbose=False)
    opponents = [[a["id"] for a in t["agents"]][1:] for t in summary["evaluation"]["tournaments"]]
    assert opponents == [["simple_poker/threshold?t=1"], ["random"]]


@pytest.mark.slow
def test_same_seed_same_training_run(tmp_path):
    from train.config import TrainConfig
    from train.ppo import train

    curves = []
    for name in ("a", "b"):
        cfg = TrainConfig(game="simple_poker", options={"n": 3}, self_play=True, meta_solver="nash", timesteps=1024,
                          n_envs=2, n_steps=128, batch_size=128, eval_every=512, eval_games=0, snapshot_every=256,
                          final_eval_games=0, seed=7, out=str(tmp_path / name))
        train(cfg, progress=False, verbose=False)
        with open(tmp_path / name / "curve.csv", encoding="utf-8") as f:  # all but the wall-clock column
            curves.append([{k: v for k, v in row.items() if k != "wall_s"} for row in csv.DictReader(f)])
    assert curves[0] == curves[1] and len(curves[0]) >= 2


@pytest.mark.slow
def test_train_against_fixed_opponent(tmp_path):
    cfg = _train_cli(tmp_path / "fixed", "--opponents", "simple_poker/threshold?t=1", "--timesteps", "1024",
                     "--n-envs", "1", "--eval-every", "512", "--final-eval-games", "0")
    # fixed opponents with kernels: the default learner on the compiled vector env
    assert cfg["learner"] == "cleanrl" and cfg["opponents"] == ["simple_poker/threshold?t=1"] and not cfg["self_play"]
    assert (tmp_path / "fixed" / "policy" / "policy.json").exists() and cfg["provenance"]["learner"] == "cleanrl"


def test_eval_baselines_are_measured_on_one_set_of_games_and_refused_by_distill(tmp_path):
    from train.curve import Evaluator

    cfg = _train_cli(tmp_path / "eb", "--learner", "sb3", "--opponents", "simple_poker/nash", "--timesteps", "512",
                     "--n-envs", "1",
                     "--eval-every", "512", "--eval-games", "30", "--eval-baselines", "random,simple_poker/nash",
                     "--final-eval-games", "0")
    ev = Evaluator("simple_poker", cfg["options"], ["simple_poker/nash"], 30, cfg["seed"])  # the curve's games
    again = {b: ev.measure_agent(b) for b in ("random", "simple_poker/nash")}
    assert cfg["eval_baseline_levels"] == again and cfg["eval_baselines"] == ["random", "simple_poker/nash"]
    bad = subprocess.run([sys.executable, "-m", "train", "distill", "simple_poker", "--eval-baselines", "random"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr.strip().splitlines() == [
        "python -m train: error: --eval-baselines applies to ppo and finetune runs, not distill"]


def test_train_cli_rejects_bad_input():
    bad = subprocess.run([sys.executable, "-m", "train", "simple_poker", "--option", "n=0"], capture_output=True,
                         text=True)
    assert bad.returncode == 2 and "n must be an integer >= 2" in bad.stderr
    bad = subprocess.run([sys.executable, "-m", "train", "chess"], capture_output=True, text=True)
    assert bad.returncode == 2 and "available" in bad.stderr


@pytest.mark.parametrize("game", ["lama", "primi_composti"])
def test_all_seats_with_maskableppo_is_for_cooperative_games_only(tmp_path, game):
    """One SB3 trajectory through every seat's moves credits each seat with the others': refused before any file
    is written, naming what to use instead (L.A.M.A. and Primi Composti both have `all_seats` vector envs)."""
    from train.config import TrainConfig
    from train.ppo import train

    cfg = TrainConfig(game=game, control="all_seats", timesteps=64, n_envs=1, n_steps=64, batch_size=64,
                      eval_games=0, final_eval_games=0, out=str(tmp_path / "r"))
    with pytest.raises(ValueError, match=f"{game}'s seats each have their own") as e:
        train(cfg, progress=False, verbose=False)
    assert f"python -m train {game} --learner cleanrl --control all_seats" in str(e.value)
    assert not (tmp_path / "r" / "model.zip").exists()
