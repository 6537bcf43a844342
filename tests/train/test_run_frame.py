"""The one run frame (train/run.py): a config base with a subclass per method, flags generated from the
config fields, the same run-folder checks for every method."""

from __future__ import annotations

import dataclasses

import pytest

from train.__main__ import build_parser, main, setting_flags
from train.config import TrainConfig
from train.distill import DistillConfig
from train.run import RunConfig


def test_every_method_config_is_a_run_config_with_the_shared_checks():
    for cls in (TrainConfig, DistillConfig):
        assert issubclass(cls, RunConfig)
        with pytest.raises(ValueError, match="eval_games must be an integer >= 0"):
            cls(game="simple_poker", teacher="simple_poker/nash", eval_games=-1) if cls is DistillConfig \
                else cls(game="simple_poker", eval_games=-1)
    assert TrainConfig(game="lama").default_out().startswith("runs/lama-")
    assert DistillConfig(game="lama", teacher="lama/pimc").default_out().startswith("runs/lama-distill-")
    assert "game" not in TrainConfig.preset_keys() and "teacher" in DistillConfig.preset_keys()


def test_every_setting_field_is_a_flag_with_its_help_and_range(capsys):
    dests = {a.dest: a for a in build_parser()._actions}
    declared = {f.name for cls in (TrainConfig, DistillConfig) for f in dataclasses.fields(cls) if "help" in f.metadata}
    assert declared == set(setting_flags()) and declared <= set(dests)
    for name in declared:
        f = next(f for cls in (TrainConfig, DistillConfig) for f in dataclasses.fields(cls) if f.name == name)
        assert f.metadata["help"] in dests[name].help
    # the range comes from the field: --n-envs stops at MAX_ENVS, --eval-games takes 0
    with pytest.raises(SystemExit) as e:
        main(["lama", "--n-envs", "9000"])
    assert e.value.code == 2 and "--n-envs: must be an integer in 1..8,192, got 9000" in capsys.readouterr().err


@pytest.mark.parametrize(("argv", "message"), [
    (["distill", "simple_poker", "--teacher", "simple_poker/nash", "--timesteps", "100"],
     "--timesteps applies to ppo runs, not distill"),
    (["simple_poker", "--rounds", "3"], "--rounds applies to distill runs, not ppo"),
])
def test_a_flag_of_another_method_is_refused(argv, message, capsys, tmp_path):
    with pytest.raises(SystemExit) as e:
        main([*argv, "--out", str(tmp_path / "run")])
    assert e.value.code == 2 and message in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


def test_distillation_refuses_a_folder_that_holds_a_run(tmp_path, capsys):
    out = tmp_path / "run"
    out.mkdir()
    (out / "config.json").write_text("{}")
    with pytest.raises(SystemExit) as e:
        main(["distill", "simple_poker", "--teacher", "simple_poker/nash", "--out", str(out)])
    assert e.value.code == 2 and "already holds a run" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["the_game", "--opponents", "lama/first"],  # the preset's control is all_seats
                                  ["lama", "--control", "all_seats", "--opponents", "lama/first"]])
def test_opponents_under_all_seats_are_refused(argv, capsys, tmp_path):
    """Under control all_seats there are no other seats: --opponents was ignored (another game's ids too); now
    one line says so."""
    with pytest.raises(SystemExit) as e:
        main([*argv, "--out", str(tmp_path / "run")])
    err = capsys.readouterr().err.strip().splitlines()
    assert e.value.code == 2 and len(err) == 1 and "drop --opponents" in err[0], err
    assert not (tmp_path / "run").exists()


def test_a_feature_set_of_another_game_is_refused_naming_the_games_own():
    with pytest.raises(ValueError, match=r"features must be one of \['the_game', 'the_game_noscore'\] for the_game, "
                                         r"got 'roborally'"):
        TrainConfig(game="the_game", features="roborally")
    with pytest.raises(ValueError, match="lama has no feature set .* drop --features, got 'roborally'"):
        TrainConfig(game="lama", features="roborally")
    assert TrainConfig(game="roborally", features="roborally_program").features == "roborally_program"
    from agents.learned import FEATURES

    def mine(view, mask):  # a user's own feature set, registered from outside the suite's agents packages
        raise AssertionError("not called")

    FEATURES["a_users_own"] = mine
    try:
        assert TrainConfig(game="lama", features="a_users_own").features == "a_users_own"
    finally:
        del FEATURES["a_users_own"]
