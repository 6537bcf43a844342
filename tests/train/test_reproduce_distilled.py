"""`python -m train reproduce` of a chain that starts with a distillation (a student distilled, then fine-tuned by
PPO): the distill stage is run again as `python -m train distill`, the PPO stage continues its run folder, and a
distillation run folder is a start for `--init-from`."""

from __future__ import annotations

import json
import os

import pytest

import agents.pretrained
import train.run
from train.reproduce import plan, shipped_stages

DISTILL = {"method": "distill", "seed": 41, "teacher": "roborally/mc",
           "command": "python -m train distill roborally --teacher roborally/mc --features roborally_program_joint "
                      "--option action_mode=program --rounds 5 --games-per-round 1300 --eval-games 100 --seed 41 "
                      "--out /somewhere/rr-learned"}
FINETUNE = {"method": "finetune", "learner": "cleanrl", "steps": 600_000,
            "command": "python -m train roborally --init-from /somewhere/rr-learned --features "
                       "roborally_program_joint --option action_mode=program --n-envs 32 --n-steps 32 "
                       "--critic-warmup 150000 --timesteps 20000000 --max-minutes 35 --seed 43 --out /somewhere/ft"}


@pytest.fixture
def chain(monkeypatch):
    """A shipped id `roborally/chain-test` whose provenance is DISTILL then FINETUNE (`stages` of the given list)."""
    folder = agents.pretrained.checkpoints()["roborally/ppo-program-joint"]
    real = agents.pretrained.checkpoints
    stages: list[dict] = [DISTILL, FINETUNE]
    monkeypatch.setattr(agents.pretrained, "checkpoints", lambda *a: {**real(*a), "roborally/chain-test": folder})
    real_stages = train.run.earlier_stages
    monkeypatch.setattr(train.run, "earlier_stages",
                        lambda f, *a: [dict(s) for s in stages] if f == folder else real_stages(f, *a))
    return stages


def test_a_distilled_then_finetuned_chain_plans_distill_then_ppo(chain, tmp_path):
    runs = plan("roborally/chain-test", 0.1, str(tmp_path))
    assert len(runs) == 2
    first, second = runs
    assert first[:2] == ["distill", "roborally"] and "--init-from" not in first
    assert first[first.index("--games-per-round") + 1] == "130"  # a tenth of the recorded games a round
    assert first[first.index("--out") + 1] == str(tmp_path / "stage-1") and "/somewhere/rr-learned" not in first
    assert "--timesteps" not in first and first[first.index("--eval-games") + 1] == "100"
    assert second[second.index("--init-from") + 1] == str(tmp_path / "stage-1")
    assert second[second.index("--timesteps") + 1] == "60000" and "--critic-warmup" in second
    assert "--eval-baselines" in second


def test_a_chain_must_end_by_ppo(chain):
    chain[:] = [DISTILL]
    with pytest.raises(ValueError, match="not trained by PPO"):
        shipped_stages("roborally/chain-test")


def test_a_distillation_run_folder_is_a_start(tmp_path):
    (tmp_path / "student").mkdir()
    (tmp_path / "student" / "policy.json").write_text(json.dumps({}))
    assert train.run.student_folder(str(tmp_path)) == os.path.join(str(tmp_path), "student")
    assert train.run.student_folder(str(tmp_path / "student")) == str(tmp_path / "student")


def test_the_shipped_distilled_program_scorer_plans_its_distillation_then_its_fine_tuning(tmp_path):
    """`roborally/learned-program-joint`: distilled from roborally/mc, then fine-tuned by PPO from that run."""
    first, second = plan("roborally/learned-program-joint", 1.0, str(tmp_path))
    assert first[:2] == ["distill", "roborally"] and first[first.index("--teacher") + 1] == "roborally/mc"
    assert second[second.index("--init-from") + 1] == str(tmp_path / "stage-1")
    assert second[second.index("--features") + 1] == "roborally_program_joint"
    assert "board=race_easy num_robots=4" in second  # one --also word, as typed
