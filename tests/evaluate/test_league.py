"""League: planted orders come out in order with separated intervals; seeds; CLI; the leaderboard writer."""

from __future__ import annotations

import json

import numpy as np
import pytest

from evaluate.__main__ import main
from evaluate.league import fit_bradley_terry, run_league


def _assert_order(result, planted):
    by_id = {r.id: r for r in result.ratings}
    assert [r.id for r in result.ratings] == planted
    for better, worse in zip(planted, planted[1:]):
        assert by_id[better].ci95[0] > by_id[worse].ci95[1], (better, worse)


def test_simple_poker_planted_order():
    # Exact nets (both seatings): nash beats threshold-1 by 0.208 a hand, threshold-1 beats random by 0.5.
    planted = ["simple_poker/nash", "simple_poker/threshold?t=1", "random"]
    r = run_league("simple_poker", planted[::-1], games=300, seed=0, bootstrap=100)
    _assert_order(r, planted)
    assert r.exact_head_to_head["simple_poker/nash"]["simple_poker/threshold?t=1"] == pytest.approx(0.208, abs=1e-3)


def test_primi_composti_planted_order():
    planted = ["primi_composti/minimax?depth=6", "primi_composti/greedy_rand", "primi_composti/rand"]
    r = run_league("primi_composti", planted[::-1], games=12, seed=0, options={"cards_per_player": 4}, bootstrap=100)
    _assert_order(r, planted)


def test_reproducible_and_multiplayer_and_cooperative():
    a = run_league("lama", ["lama/third", "random"], games=4, seed=5, bootstrap=20).to_dict()
    b = run_league("lama", ["lama/third", "random"], games=4, seed=5, bootstrap=20).to_dict()
    assert a == b and a["lineups"].startswith("each agent alone")
    # 4 seats: per deal 2 line-ups x 4 focal seats, each agent in every game
    assert {r["games"] for r in a["ratings"]} == {4 * 2 * 4}
    coop = run_league("the_game", ["the_game/trick", "the_game/random"], games=3, seed=1, bootstrap=10)
    assert coop.lineups.startswith("teams") and coop.ratings[0].id == "the_game/trick"


def test_identical_agents_are_listed_by_id_in_either_entry_order():
    """Two agents that play the same moves tie: the table orders them by id, whatever order they came in."""
    for entrants in (["roborally/random", "random"], ["random", "roborally/random"]):
        r = run_league("roborally", entrants, games=2, seed=0, bootstrap=10)
        assert r.ratings[0].rating == pytest.approx(r.ratings[1].rating)
        assert [x.id for x in r.ratings] == ["random", "roborally/random"]


def test_bradley_terry_recovers_strengths():
    true = np.array([1.0, 0.0, -1.0])
    p = 1 / (1 + np.exp(-(true[:, None] - true[None, :])))
    wins = 10000 * p * (1 - np.eye(3))
    assert fit_bradley_terry(wins, ridge=0.0) == pytest.approx(true, abs=1e-3)


def test_cli_table_json_plot(tmp_path, capsys):
    out = tmp_path / "l.json"
    assert main(["simple_poker", "--league", "--agents", "simple_poker/nash,random", "--games", "20",
                 "--json", str(out), "--out", str(tmp_path)]) == 0
    text = capsys.readouterr().out
    assert "Bradley–Terry" in text and "simple_poker/nash" in text
    data = json.loads(out.read_text())
    assert [r["id"] for r in data["ratings"]] == ["simple_poker/nash", "random"]
    assert (tmp_path / "league_simple_poker.png").stat().st_size > 1000
    with pytest.raises(SystemExit) as e:
        main(["simple_poker", "--league", "--agents", "random", "--games", "5"])
    assert e.value.code == 2


def test_leaderboard_writer(tmp_path):
    from evaluate import league

    doc = tmp_path / "lb.md"
    assert league.main(["--docs", str(doc), "--games", "simple_poker", "--deals", "20"]) == 0
    text = doc.read_text()
    assert "## simple_poker" in text and "python -m evaluate.league --docs" in text and "`simple_poker/nash`" in text
