"""`python -m train reproduce ID`: every shipped PPO policy's recorded chain as `python -m train` runs, and one
chain run small, stage after stage, ending with its comparison."""

from __future__ import annotations

import json
import os

import pytest

from agents.pretrained import checkpoints
from train.__main__ import main
from train.reproduce import plan, shipped_stages


def _ppo_ids() -> list[str]:
    out = []
    for agent_id in sorted(checkpoints()):
        try:
            shipped_stages(agent_id)
        except ValueError:
            continue
        out.append(agent_id)
    return out


def test_every_shipped_ppo_policy_has_a_plan_of_train_runs(tmp_path):
    ids = _ppo_ids()
    assert {"lama/ppo", "the_game/ppo", "primi_composti/ppo", "roborally/ppo"} <= set(ids)
    for agent_id in ids:
        runs = plan(agent_id, 1.0, str(tmp_path))
        stages = shipped_stages(agent_id)[1]
        assert len(runs) == len(stages) and all(r[r.index("--out") + 1].endswith(f"stage-{k}")
                                                for k, r in enumerate(runs, start=1))
        for k, run in enumerate(runs[1:], start=1):  # each stage starts from the one before
            assert run[run.index("--init-from") + 1] == str(tmp_path / f"stage-{k}")
        assert "--eval-baselines" in runs[-1] and int(runs[-1][runs[-1].index("--final-eval-games") + 1]) > 0


@pytest.mark.slow
def test_a_chain_runs_small_and_ends_with_its_comparison(tmp_path, capsys):
    out = str(tmp_path / "chain")
    assert main(["reproduce", "lama/ppo-seed2022", "--budget", "0.0000001", "--out", out]) == 0
    with open(os.path.join(out, "stage-2", "eval.json")) as f:
        paired = json.load(f)["paired"][0]
    assert paired["b"] == "lama/third-retuned" and paired["against"] == ["lama/third-retuned"] * 3
    with open(os.path.join(out, "stage-2", "config.json")) as f:
        cfg = json.load(f)
    assert cfg["options"]["rules"] == "seed2022" and cfg["init_from"] == os.path.join(out, "stage-1", "policy")
    assert cfg["net_arch"] == [256, 256]  # continued: the first stage's network, not the preset's
    err = capsys.readouterr().err
    assert f"continuing {os.path.join(out, 'stage-1')} with its settings, changed: " in err and "gamma" in err
    assert main(["reproduce", "lama/ppo-seed2022", "--budget", "0.0000001", "--out", out]) == 0
    assert "stage-1 is done; kept" in capsys.readouterr().out


def test_reproduce_refuses_what_it_cannot_run(capsys):
    assert main(["reproduce", "lama/learned"]) == 2
    assert "not trained by PPO from the environment" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        main(["reproduce", "lama/ppo", "--budget", "2"])
    assert e.value.code == 2
