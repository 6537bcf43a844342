"""Presets, per-game hooks and the run's random streams."""

from __future__ import annotations

import sys
import types

import numpy as np
import pytest

import agents
import envs
from envs.the_game.rules import Config, TheGame
from evaluate.stats import mean_interval
from evaluate.the_game.reproduce import simulate
from train.config import TrainConfig
from train.presets import PRESETS, hooks, preset
from train.seeds import RunSeeds, child


@pytest.mark.parametrize("game", [g for g in envs.available_games() if PRESETS.module(g) is not None])
def test_every_preset_builds_a_config(game):
    cfg = TrainConfig(game=game, **preset(game))
    assert cfg.game == game


def _fake_presets(monkeypatch):
    """simple_poker's presets looked for in the module `tests_fake_preset`."""
    monkeypatch.setattr(PRESETS, "module_of", lambda game: "tests_fake_preset")


def test_unknown_preset_key_is_refused_with_the_allowed_list(monkeypatch):
    monkeypatch.setitem(sys.modules, "tests_fake_preset", types.SimpleNamespace(PRESET={"timestep": 5}))
    _fake_presets(monkeypatch)
    with pytest.raises(ValueError, match="unknown key\\(s\\) timestep; allowed: .*timesteps"):
        preset("simple_poker")
    assert "game" not in TrainConfig.preset_keys() and "seed" not in TrainConfig.preset_keys()


def test_the_game_team_metrics_hook_reports_cards_left():
    """With a heuristic as the learner the hook agrees with `simulate` on the same kind of games."""
    game = TheGame(Config(num_players=2))
    learner = agents.make("the_game/bestplays", game, np.random.default_rng(0))
    m = hooks("the_game").metrics(game, learner)
    assert set(m) == {"mean_cards_left", "excellent_rate", "win_rate"}
    rnd = simulate(game, "the_game/random", 50, seed=2)["cards_left"]
    assert m["mean_cards_left"] < mean_interval(rnd)[1]


def test_simple_poker_hooks_are_exact():
    from envs.simple_poker import Config as PokerConfig
    from envs.simple_poker import SimplePokerGame

    game = SimplePokerGame(PokerConfig(n=3))
    nash = agents.make("simple_poker/nash", game, np.random.default_rng(0))
    h = hooks("simple_poker")
    assert abs(h.metrics(game, nash)["exploitability"]) < 1e-9
    assert h.match_value(game, nash, nash) == pytest.approx(0.0, abs=1e-12)
    assert hooks("lama").metrics is None


def test_run_streams_are_spawned_once_and_named():
    seeds = RunSeeds.from_seed(5, n_envs=3)
    spawned = np.random.SeedSequence(5).spawn(8)
    assert [s.spawn_key for s in seeds.envs] == [(0,), (1,), (2,)]
    assert seeds.agents.spawn_key == spawned[3].spawn_key and seeds.eval.spawn_key == spawned[7].spawn_key
    fresh = np.random.SeedSequence(5).spawn(8)[3].spawn(4)
    assert child(seeds.agents, 3).generate_state(4).tolist() == fresh[3].generate_state(4).tolist()


def test_cli_exits_2_on_a_bad_preset(monkeypatch, capsys):
    from train.__main__ import main

    monkeypatch.setitem(sys.modules, "tests_fake_preset", types.SimpleNamespace(PRESET={"n_env": 2}))
    _fake_presets(monkeypatch)
    with pytest.raises(SystemExit) as e:
        main(["simple_poker", "--timesteps", "10"])
    assert e.value.code == 2 and "unknown key(s) n_env; allowed:" in capsys.readouterr().err


def test_the_method_word_before_the_game(capsys):
    from train.__main__ import main

    with pytest.raises(SystemExit) as e:
        main(["finetune", "lama", "--timesteps", "10"])
    assert e.value.code == 2 and "add --init-from STUDENT" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        main(["distill", "lama", "--method", "ppo"])
    assert e.value.code == 2 and "the method is given twice" in capsys.readouterr().err


@pytest.mark.parametrize("game", [g for g in envs.available_games() if PRESETS.module(g) is not None])
def test_the_game_help_says_how_the_preset_sizes_a_run(game, capsys):
    """`python -m train GAME --help` says what the preset picks for this machine: the learner that runs, the tables,
    steps and minibatch of an update, the epochs and the precision, as the run would take them."""
    from train.__main__ import main

    with pytest.raises(SystemExit):
        main([game, "--help"])
    ppo_line = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("  ppo:"))
    cfg = TrainConfig(game=game, **preset(game))
    assert f"learner {cfg.resolved_learner()}," in ppo_line
    for key in ("n_envs", "n_steps", "batch_size", "n_epochs"):
        assert f" {key} {getattr(cfg, key):,}," in ppo_line, key
    assert f" precision {cfg.precision}," in ppo_line
