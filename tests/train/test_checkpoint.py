"""Training survives a stop: checkpoints, SIGTERM/SIGKILL, `--resume`, guarded run folders."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import agents
from envs.simple_poker import Config, SimplePokerGame

TRAIN = [sys.executable, "-m", "train"]
RUN = ["simple_poker", "--option", "n=3", "--self-play", "--timesteps", "4096", "--n-envs", "1", "--eval-every", "256",
       "--checkpoint-every", "256", "--final-eval-games", "20", "--no-progress"]


def _stop_after_checkpoint(out, sig) -> subprocess.CompletedProcess:
    """Start a run, send `sig` once its first checkpoint exists, and wait for it."""
    proc = subprocess.Popen(TRAIN + RUN + ["--out", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    deadline = time.time() + 240
    while not (out / "checkpoint.json").exists():
        assert proc.poll() is None, proc.communicate()
        assert time.time() < deadline
        time.sleep(0.02)
    proc.send_signal(sig)
    stdout, stderr = proc.communicate(timeout=240)
    return subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)


def _steps(out) -> list[int]:
    with open(out / "curve.csv", encoding="utf-8") as f:
        return [int(r["timesteps"]) for r in csv.DictReader(f)]


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL])
def test_stopped_run_resumes_to_the_end(tmp_path, sig):
    out = tmp_path / "run"
    stopped = _stop_after_checkpoint(out, sig)
    assert stopped.returncode == (-sig if sig == signal.SIGKILL else 128 + sig)
    if sig != signal.SIGKILL:
        lines = stopped.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in stopped.stderr and f"--resume {out}" in lines[0], stopped.stderr
    state = json.loads((out / "checkpoint.json").read_text())
    assert 0 < state["step"] < 4096 and (out / state["tensors"]).exists()
    assert not (out / "model.zip").exists()
    # the folder holds a run: a new run there is refused
    again = subprocess.run(TRAIN + RUN + ["--out", str(out)], capture_output=True, text=True)
    assert again.returncode == 2 and len(again.stderr.strip().splitlines()) == 1 and "--resume" in again.stderr
    resumed = subprocess.run(TRAIN + ["--resume", str(out), "--no-progress"], capture_output=True, text=True,
                             timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    steps = _steps(out)
    assert 0 < steps[0] <= 256 and steps[-1] >= 4096  # a point an update (the curve of the frame)
    assert steps == sorted(set(steps))  # no duplicate step
    assert all(b - a <= 256 + 128 for a, b in zip(steps, steps[1:]))  # no gap: a point every eval_every (+ one rollout)
    assert not (out / "checkpoint.json").exists() and not list(out.glob("checkpoint-*.pt"))
    for name in ("model.zip", "config.json", "curve.png", "eval.json", "snapshots.pt"):
        assert (out / name).exists(), name
    agents.make(f"ppo:{out}", SimplePokerGame(Config(n=3)), np.random.default_rng(0))
    done = subprocess.run(TRAIN + ["--resume", str(out)], capture_output=True, text=True)
    assert done.returncode == 2 and "complete" in done.stderr and len(done.stderr.strip().splitlines()) == 1


@pytest.mark.slow
def test_overwrite_clears_the_old_run(tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    (out / "eval.json").write_text("{}")
    (out / "notes.txt").write_text("mine")
    short = ["simple_poker", "--opponents", "random", "--timesteps", "256", "--n-envs", "1", "--final-eval-games", "0",
             "--no-progress", "--out", str(out)]
    refused = subprocess.run(TRAIN + short, capture_output=True, text=True)
    assert refused.returncode == 2 and "--overwrite" in refused.stderr
    done = subprocess.run(TRAIN + short + ["--overwrite"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert not (out / "eval.json").exists() and (out / "notes.txt").read_text() == "mine"
    assert (out / "policy" / "policy.json").exists() and (out / "history.csv").exists()  # the default learner's


def test_run_failing_validation_leaves_no_folder(tmp_path):
    out = tmp_path / "run"
    bad = subprocess.run(TRAIN + ["simple_poker", "--opponents", "nobody", "--out", str(out)], capture_output=True,
                         text=True)
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1
    assert not out.exists()


def test_checkpoint_tensors_are_never_unpickled(tmp_path):
    """A checkpoint folder is a file a user can hand us: a pickle in it is refused, and nothing runs."""
    from train.checkpoint import read_checkpoint

    marker = tmp_path / "ran"

    class Evil:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))

    import pickle

    (tmp_path / "checkpoint-5.pt").write_bytes(pickle.dumps({"policy": Evil()}))
    (tmp_path / "checkpoint.json").write_text(json.dumps({"format": 1, "step": 5, "tensors": "checkpoint-5.pt"}))
    with pytest.raises(ValueError, match="refused"):
        read_checkpoint(str(tmp_path))
    assert not marker.exists()


def test_atomic_path_leaves_the_old_file_on_failure(tmp_path):
    from train.checkpoint import atomic_path

    target = tmp_path / "model.zip"
    target.write_text("old")
    with pytest.raises(RuntimeError), atomic_path(str(target)) as tmp:
        with open(tmp, "w") as f:
            f.write("half")
        raise RuntimeError("killed")
    assert target.read_text() == "old" and os.listdir(tmp_path) == ["model.zip"]


@pytest.mark.slow
def test_stop_during_the_final_files_resumes_without_learning(tmp_path, monkeypatch):
    import train.ppo as ppo
    import train.vector_ppo as frame
    from train.checkpoint import read_checkpoint
    from train.config import TrainConfig

    def cfg():
        return TrainConfig(game="simple_poker", options={"n": 3}, opponents=["random"], learner="sb3", timesteps=512,
                           n_envs=1, n_steps=128, batch_size=64, eval_games=20, final_eval_games=0,
                           out=str(tmp_path / "r"))

    real_finish = frame.finish

    def killed(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(frame, "finish", killed)
    with pytest.raises(KeyboardInterrupt):
        ppo.train(cfg(), progress=False, verbose=False)
    state, tensors = read_checkpoint(str(tmp_path / "r"))
    assert state["step"] == 512 and [r["steps"] for r in state["history"]][-1] == 512
    monkeypatch.setattr(frame, "finish", real_finish)
    ppo.train(cfg(), progress=False, verbose=False, resume=(state, tensors))
    assert _steps(tmp_path / "r") == [r["steps"] for r in state["history"]]
    assert (tmp_path / "r" / "model.zip").exists() and not (tmp_path / "r" / "checkpoint.json").exists()


@pytest.mark.slow
def test_a_stopped_run_exports_its_policy_without_training(tmp_path, capsys):
    from train.__main__ import main

    out = tmp_path / "run"
    _stop_after_checkpoint(out, signal.SIGTERM)
    step = json.loads((out / "checkpoint.json").read_text())["step"]
    assert main(["--export", str(out)]) == 0
    folder = out / f"policy-{step}"
    assert f"wrote {folder}" in capsys.readouterr().out
    meta = json.loads((folder / "policy.json").read_text())
    assert meta["provenance"]["timesteps"] == step and meta["architecture"]["play"] == "sample"
    game = SimplePokerGame(Config(n=3))
    agent = agents.make(f"learned:{folder}", game, np.random.default_rng(0))
    s = game.initial_state(np.random.default_rng(1))
    assert agent.act(game.view(s, 0), np.ones(2, np.int8)) in (0, 1)
    assert json.loads((out / "checkpoint.json").read_text())["step"] == step  # nothing trained
    with pytest.raises(SystemExit) as e:
        main(["--export", str(out), "--resume", str(out)])
    assert e.value.code == 2
