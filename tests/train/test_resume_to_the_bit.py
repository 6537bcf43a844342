"""`python -m train GAME` (the default learner on the compiled vector env) stopped by SIGTERM and resumed with
`--resume` ends with exactly the weights, history and final figures of the same run left alone: against fixed
opponents with curve points, in a league of its own snapshots, and alone (The Game solo); so does one killed after
its last periodic checkpoint."""

from __future__ import annotations

import hashlib
import json
import os
import signal

import pytest

from train import vector_ppo
from train.__main__ import main
from train.checkpoint import read_checkpoint

#: Columns of the history that measure the clock, not the run.
CLOCK = ("wall_s", "steps_per_s", "collect_s", "learn_s")

CASES = {
    "lama": ["lama", "--opponents", "lama/first", "--option", "reward=dense", "--eval-every", "256",
             "--eval-games", "6", "--eval-baselines", "lama/first", "--final-eval-games", "4", "--save-every", "256"],
    "the_game": ["the_game", "--option", "num_players=1", "--final-eval-games", "3"],
    # a league that keeps one snapshot: older ones leave the pool while tables still seat them
    "lama-league": ["lama", "--opponents", "lama/first", "--league-every", "128", "--league-size", "1",
                    "--baselines", "random", "--eval-games", "0", "--final-eval-games", "2"],
    # an action scorer on two boards at once (a MultiVectorEnv of FeatureVectorEnvs)
    "roborally-variants": ["roborally", "--features", "roborally", "--also", "board=race_medium num_robots=3",
                           "--eval-games", "2", "--final-eval-games", "2"],
}
#: The update after which each case is stopped (the league's third: a snapshot left the pool, still seated).
STOP = {"lama": 2, "the_game": 2, "lama-league": 3, "roborally-variants": 2}
#: Learner steps an update (8 tables x 16 steps, of each variant).
BATCH = {"roborally-variants": 256}
SMALL = ["--timesteps", "640", "--n-envs", "8", "--n-steps", "16", "--batch-size", "64", "--n-epochs", "2",
         "--hidden", "32,32", "--checkpoint-every", "128", "--seed", "5", "--no-progress"]


def _digest(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def _history(out: str) -> list[dict[str, str]]:
    import csv

    with open(os.path.join(out, "history.csv"), newline="", encoding="utf-8") as f:
        return [{k: v for k, v in row.items() if k not in CLOCK} for row in csv.DictReader(f)]


def _weights(out: str) -> dict[str, str]:
    """Hashes of the weights of the policy in `out` (a run folder, or a policy folder such as a snapshot)."""
    import torch

    folder = os.path.join(out, "policy") if os.path.isdir(os.path.join(out, "policy")) else out
    state = torch.load(os.path.join(folder, "weights.pt"), weights_only=True)
    critic = torch.load(os.path.join(folder, "critic.pt"), weights_only=True)
    return {k: hashlib.sha256(v.numpy().tobytes()).hexdigest() for k, v in {**state, **critic}.items()}


def _stop_after(monkeypatch, updates: int) -> None:
    """SIGTERM the process right after the learner's `updates`-th update, as a user's `kill` would."""
    real = vector_ppo.learner_for

    def learner_for(cfg, venv, start=None):
        ppo = real(cfg, venv, start)
        update = ppo.update

        def counted():
            entry = update()
            if entry["update"] == updates:
                signal.raise_signal(signal.SIGTERM)
            return entry

        ppo.update = counted
        return ppo

    monkeypatch.setattr(vector_ppo, "learner_for", learner_for)


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(CASES))
def test_a_stopped_and_resumed_run_ends_as_the_run_left_alone(game, tmp_path, monkeypatch, capsys):
    alone, stopped = str(tmp_path / "alone"), str(tmp_path / "stopped")
    assert main([*CASES[game], *SMALL, "--out", alone]) == 0

    _stop_after(monkeypatch, STOP[game])
    code = main([*CASES[game], *SMALL, "--out", stopped])
    assert code == 128 + signal.SIGTERM
    assert "--resume" in capsys.readouterr().err
    state, _ = read_checkpoint(stopped)
    batch = BATCH.get(game, 128)
    assert state["step"] == batch * STOP[game] and len(state["history"]) == STOP[game]
    assert not os.path.exists(os.path.join(stopped, "history.csv"))
    monkeypatch.undo()

    assert main(["--resume", stopped, "--no-progress"]) == 0
    assert _weights(stopped) == _weights(alone)
    assert _history(stopped) == _history(alone) and len(_history(alone)) == -(-640 // batch)
    with open(os.path.join(alone, "eval.json")) as f, open(os.path.join(stopped, "eval.json")) as g:
        a, b = json.load(f), json.load(g)
    for result in a.get("paired", []) + b.get("paired", []):
        result.pop("a", None)  # the policy's own folder
    for result in a.get("tournaments", []) + b.get("tournaments", []):
        result.pop("agents", None)
    assert a == b
    assert not any(name.startswith("checkpoint") for name in os.listdir(stopped))
    with open(os.path.join(alone, "config.json")) as f, open(os.path.join(stopped, "config.json")) as g:
        a, b = json.load(f), json.load(g)
    assert a["learner"] == "cleanrl" and a.get("eval_baseline_levels") == b.get("eval_baseline_levels")
    if game == "lama":
        assert set(a["eval_baseline_levels"]) == {"lama/first"}
        snaps = sorted(os.listdir(os.path.join(alone, "snapshots")))
        assert snaps == sorted(os.listdir(os.path.join(stopped, "snapshots"))) == ["000000000256", "000000000512"]
        for snap in snaps:
            snaps = [os.path.join(run, "snapshots", snap) for run in (alone, stopped)]
            assert _weights(snaps[0]) == _weights(snaps[1])
    if game == "lama-league":
        league = state["league"]
        assert league["added"] == 3 and league["pool"] == [3]
        seated = {k for reg in league["slots"][0] for k in reg if k is not None}
        assert seated - set(league["pool"]), "no snapshot outside the pool is seated: the slots' restore is untested"
        assert a["provenance"]["league"] == {"every": 128, "baselines": ["random"], "size": 1}


class _Killed(BaseException):
    """A SIGKILL's end of the process: nothing after it runs (no checkpoint, no handler, no files)."""


@pytest.mark.slow
def test_a_run_killed_after_its_last_checkpoint_resumes_to_the_run_left_alone(tmp_path, monkeypatch, capsys):
    """Killed in its third update (checkpoints after the second and fourth), the run's folder keeps the second's
    checkpoint; --resume goes on from there and ends with the weights and history of the run left alone; resuming
    it again says the run is complete."""
    run = [*CASES["lama"], *SMALL, "--checkpoint-every", "256", "--final-eval-games", "0"]
    alone, killed = str(tmp_path / "alone"), str(tmp_path / "killed")
    assert main([*run, "--out", alone]) == 0

    real = vector_ppo.learner_for

    def learner_for(cfg, venv, start=None):
        ppo = real(cfg, venv, start)
        update = ppo.update

        def dies_in_the_third():
            entry = update()  # the tables and the learner move past the checkpoint, then the process is gone
            if entry["update"] == 3:
                raise _Killed
            return entry

        ppo.update = dies_in_the_third
        return ppo

    monkeypatch.setattr(vector_ppo, "learner_for", learner_for)
    with pytest.raises(_Killed):
        main([*run, "--out", killed])
    monkeypatch.undo()
    state, _ = read_checkpoint(killed)
    assert state["step"] == 256 and len(state["history"]) == 2
    assert not os.path.exists(os.path.join(killed, "history.csv"))

    assert main(["--resume", killed, "--no-progress"]) == 0
    assert _weights(killed) == _weights(alone)
    assert _history(killed) == _history(alone) and len(_history(alone)) == 5
    capsys.readouterr()
    with pytest.raises(SystemExit) as e:
        main(["--resume", killed, "--no-progress"])
    err = capsys.readouterr().err.strip().splitlines()
    assert e.value.code == 2 and len(err) == 1 and "(the run is complete)" in err[0], err


@pytest.mark.parametrize("edit,says", [
    (lambda s: s["config"].update(n_envs=16), "this run makes 256 steps an update"),  # another number of tables
    (lambda s: s["config"]["options"].update(num_players=2), "not fit"),  # another game's tables and network
    (lambda s: s["config"].update(n_envs=10**9), "n_envs must be <= 8,192"),  # would allocate for ever
    (lambda s: s["config"].update(eval_every=0), "eval_every must be an integer >= 1"),
    (lambda s: s["config"].update(timesteps="many"), "timesteps must be an integer"),
    (lambda s: s["numbers"].update(steps=10**12), "10**12"),  # a run said to be done that never ran
], ids=["tables", "players", "huge", "interval", "text", "steps"])
def test_a_resumed_run_refuses_a_checkpoint_it_cannot_continue(edit, says, tmp_path, monkeypatch, capsys):
    out = str(tmp_path / "run")
    _stop_after(monkeypatch, 1)
    assert main([*CASES["the_game"], *SMALL, "--out", out]) == 128 + signal.SIGTERM
    monkeypatch.undo()
    path = os.path.join(out, "checkpoint.json")
    with open(path) as f:
        state = json.load(f)
    edit(state)
    with open(path, "w") as f:
        json.dump(state, f)
    capsys.readouterr()
    with pytest.raises(SystemExit) as e:
        main(["--resume", out, "--no-progress"])
    err = capsys.readouterr().err.strip().splitlines()
    says = f"{10**12!r} steps" if says == "10**12" else says
    assert e.value.code == 2 and len(err) == 1 and says in err[0], err


def test_a_full_disk_is_one_line_and_the_last_checkpoint_stays(tmp_path, monkeypatch, capsys):
    """The disk fills at the third checkpoint: one line, exit 2; the second checkpoint is whole and resumes."""
    import errno

    import torch

    out = str(tmp_path / "run")
    real, saves = torch.save, []

    def save(obj, f, *args, **kwargs):
        if isinstance(obj, dict) and "optimizer" in obj:  # a checkpoint's tensors (not a policy's weights)
            saves.append(f)
            if len(saves) == 3:
                raise OSError(errno.ENOSPC, "No space left on device")
        return real(obj, f, *args, **kwargs)

    monkeypatch.setattr(torch, "save", save)
    with pytest.raises(SystemExit) as e:
        main([*CASES["the_game"], *SMALL, "--out", out])
    err = capsys.readouterr().err.strip().splitlines()
    assert e.value.code == 2 and len(err) == 1 and "No space left on device" in err[0], err
    assert "the last checkpoint written stays whole" in err[0]
    monkeypatch.undo()
    state, _ = read_checkpoint(out)
    assert state["step"] == 256
    assert main(["--resume", out, "--no-progress"]) == 0
