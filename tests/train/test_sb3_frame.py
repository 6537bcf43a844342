"""`--learner sb3` runs inside the one training frame: the run folder of the default learner plus `model.zip`, and a
run stopped by SIGTERM and resumed with `--resume` ends with exactly the weights, history and final figures of the
same run left alone (a fixed line-up on the compiled vector env)."""

from __future__ import annotations

import csv
import hashlib
import json
import os
import signal

import pytest

from train import ppo
from train.__main__ import main
from train.checkpoint import read_checkpoint

pytest.importorskip("sb3_contrib")

#: Columns of the history that measure the clock, not the run.
CLOCK = ("wall_s", "steps_per_s", "collect_s", "learn_s")
RUN = ["simple_poker", "--learner", "sb3", "--option", "n=3", "--opponents", "simple_poker/threshold?t=1",
       "--timesteps", "2048", "--n-envs", "4", "--n-steps", "64", "--batch-size", "64", "--eval-every", "512",
       "--eval-games", "10", "--eval-baselines", "random", "--checkpoint-every", "512", "--final-eval-games", "20",
       "--seed", "3", "--no-progress"]


def _model_weights(out: str) -> dict[str, str]:
    """Hashes of every tensor of the SB3 policy in `out`'s `model.zip` (actor, critic and their heads)."""
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(os.path.join(out, "model.zip"), device="cpu")
    return {k: hashlib.sha256(v.numpy().tobytes()).hexdigest() for k, v in model.policy.state_dict().items()}


def _history(out: str) -> list[dict[str, str]]:
    with open(os.path.join(out, "history.csv"), newline="", encoding="utf-8") as f:
        return [{k: v for k, v in row.items() if k not in CLOCK} for row in csv.DictReader(f)]


def _stop_after(monkeypatch, steps: int) -> None:
    """SIGTERM the process right after the update that reaches `steps` learner steps, as a user's `kill` would."""
    real = ppo.SB3Learner.update

    def update(self):
        entry = real(self)
        if entry["steps"] == steps:
            signal.raise_signal(signal.SIGTERM)
        return entry

    monkeypatch.setattr(ppo.SB3Learner, "update", update)


@pytest.mark.slow
def test_an_sb3_run_stopped_and_resumed_ends_as_the_run_left_alone(tmp_path, monkeypatch, capsys):
    alone, stopped = str(tmp_path / "alone"), str(tmp_path / "stopped")
    assert main([*RUN, "--out", alone]) == 0
    for name in ("policy/policy.json", "model.zip", "config.json", "history.csv", "curve.csv", "curve.png",
                 "eval.json"):
        assert os.path.exists(os.path.join(alone, name)), name

    _stop_after(monkeypatch, 768)  # after the checkpoint at 512, between two curve points
    assert main([*RUN, "--out", stopped]) == 128 + signal.SIGTERM
    assert "--resume" in capsys.readouterr().err
    state, _ = read_checkpoint(stopped)
    assert state["step"] == 768 and state["learner"] == "sb3" and len(state["history"]) == 3
    assert not os.path.exists(os.path.join(stopped, "model.zip"))
    monkeypatch.undo()

    assert main(["--resume", stopped, "--no-progress"]) == 0
    assert _model_weights(stopped) == _model_weights(alone)
    assert _history(stopped) == _history(alone) and len(_history(alone)) == 8
    with open(os.path.join(alone, "eval.json")) as f, open(os.path.join(stopped, "eval.json")) as g:
        a, b = json.load(f), json.load(g)
    for result in a["paired"] + b["paired"]:
        result.pop("a")  # the policy's own folder
    assert a == b and len(a["paired"]) == 1
    with open(os.path.join(alone, "config.json")) as f:
        assert json.load(f)["provenance"]["learner"] == "sb3"
    assert not any(name.startswith("checkpoint") for name in os.listdir(stopped))


def test_the_frame_keeps_the_generators_of_sb3_between_updates(tmp_path):
    """What the frame does between two updates (evaluation games, saving the policy: new torch modules draw
    their initial weights from torch's global generator) does not change what SB3 learns next."""
    import torch

    from train.config import TrainConfig

    def weights(disturb: bool) -> list:
        cfg = TrainConfig(game="simple_poker", options={"n": 3}, learner="sb3", opponents=["random"], timesteps=256,
                          n_envs=2, n_steps=64, batch_size=64, eval_games=0, final_eval_games=0, seed=1,
                          out=str(tmp_path / f"r{disturb}"))
        learner = _learner(cfg)
        learner.update()
        if disturb:
            torch.rand(100)
            import numpy as np

            np.random.rand(100)
        learner.update()
        return [v.clone() for v in learner.policy.state_dict().values()]

    a, b = weights(False), weights(True)
    assert all(torch.equal(x, y) for x, y in zip(a, b))


def _learner(cfg):
    """An `SB3Learner` for `cfg`, built as `train.ppo.train` builds it."""
    import envs
    from train.presets import hooks
    from train.seeds import RunSeeds

    game = envs.make_game(cfg.game, **cfg.options)
    run = ppo.Run(cfg, game, envs.make_encoder(cfg.game, game), RunSeeds.from_seed(cfg.seed, cfg.n_envs),
                  hooks(cfg.game))
    opponents = ppo.build_opponents(run)
    return ppo.SB3Learner(run, ppo.build_learner(run, ppo.build_envs(run, opponents)), opponents, True)
