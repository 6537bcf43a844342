"""benchmarks/primi_phase_loss.py: the teacher scored by itself loses nothing; a random player loses points."""

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

import agents
from envs.primi_composti import fast
from envs.primi_composti.rules import Config, PrimiCompostiGame

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "primi_phase_loss.py"
_spec = importlib.util.spec_from_file_location("primi_phase_loss", _PATH)
phase = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(phase)


@pytest.mark.parametrize("version", [1, 2])
def test_the_teacher_loses_nothing_and_random_loses_points(version):
    game = PrimiCompostiGame(Config(version=version, cards_per_player=5))
    make = lambda i, k: agents.make(i, game, rng=np.random.default_rng(k), game_name="primi_composti")  # noqa: E731
    teacher, opponent = make("primi_composti/teacher", 3), make("primi_composti/minimax?depth=2", 2)
    decks = fast.random_decks(np.random.default_rng(0), 8, 5)
    own = phase.phase_loss(game, make("primi_composti/teacher", 1), opponent, teacher, decks)
    assert sorted(own) == list(range(1, 11)) and all(r["decisions"] == 8 for r in own.values())
    assert all(r["mean_loss"] == 0 and r["share_wrong"] == 0 for r in own.values())
    rand = phase.phase_loss(game, make("primi_composti/rand", 1), opponent, teacher, decks)
    assert sum(r["mean_loss"] for r in rand.values()) > 0 and all(r["mean_loss"] >= 0 for r in rand.values())


def test_cli_json_and_a_bad_teacher(tmp_path, capsys):
    out = tmp_path / "p.json"
    assert phase.main(["--agent", "primi_composti/greedy_rand", "--version", "1", "--cards", "4", "--deals", "3",
                       "--start", "0", "--json", str(out)]) == 0
    d = json.loads(out.read_text())
    assert d["deals"] == 3 and sum(r["decisions"] for r in d["by_cards_left"].values()) == 3 * 2 * 4
    with pytest.raises(SystemExit) as e:
        phase.main(["--agent", "primi_composti/rand", "--teacher", "primi_composti/minimax?depth=2", "--cards", "4"])
    assert e.value.code == 2 and "gives no card values" in capsys.readouterr().err
