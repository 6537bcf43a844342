"""Starting a run from a saved action scorer: its weights are shared over the candidates, so a scorer saved with the
game's action count (as a rules-engine agent holds it) starts a run whose env offers fewer candidates."""

from __future__ import annotations

import pytest
import torch

from train.networks import Policy, ScorerPolicy, start_from


def test_a_scorer_starts_a_run_with_another_candidate_count():
    saved = ScorerPolicy(10, 19, 30241, [16, 16], torch.Generator().manual_seed(1))
    fresh = ScorerPolicy(10, 19, 32, [16, 16], torch.Generator().manual_seed(2))
    start_from(fresh, saved, [16, 16])
    for (name, a), b in zip(saved.state_dict().items(), fresh.state_dict().values()):
        assert torch.equal(a, b), name


def test_a_scorer_of_other_features_or_an_mlp_is_refused():
    saved = ScorerPolicy(10, 19, 32, [16, 16], torch.Generator().manual_seed(1))
    with pytest.raises(ValueError, match="init is a ScorerPolicy"):
        start_from(ScorerPolicy(10, 18, 32, [16, 16], torch.Generator()), saved, [16, 16])
    with pytest.raises(ValueError, match="init is a ScorerPolicy"):
        start_from(Policy(618, 32, [16, 16], torch.Generator()), saved, [16, 16])


def test_init_from_a_shipped_policy_keeps_its_runs_settings(capsys):
    """`--init-from roborally/ppo-program` (a saved policy with its run's config.json beside it) continues with that
    run's settings (its feature set, options, table groups), says so, and takes a flag over them."""
    import json

    from train.__main__ import build_parser, config_from_args, continued_run
    from train.run import student_folder

    folder = student_folder("roborally/ppo-program")
    with open(f"{folder}/config.json", encoding="utf-8") as f:
        saved = json.load(f)
    values = continued_run("roborally", "roborally/ppo-program")
    assert values["init_from"] == folder  # no critic.pt: its critic_warmup stays the run's
    assert values.get("critic_warmup") == saved.get("critic_warmup")
    p = build_parser("roborally")
    cfg = config_from_args(p, p.parse_args(["roborally", "--init-from", "roborally/ppo-program", "--n-envs", "8"]))
    assert (cfg.features, cfg.also, cfg.net_arch, cfg.options) == (saved["features"], saved["also"], saved["net_arch"],
                                                                   saved["options"])
    assert cfg.n_envs == 8 and cfg.seed == saved["seed"]
    err = capsys.readouterr().err
    assert "continuing roborally/ppo-program with its settings" in err and "n_envs 32 -> 8" in err
    assert continued_run("roborally", "roborally/learned") is None  # a distilled student: the preset's settings
    with pytest.raises(ValueError, match="run of roborally, not lama"):
        continued_run("lama", "roborally/ppo-program")
