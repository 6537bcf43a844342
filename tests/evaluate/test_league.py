"""League: planted orders come out in order with separated intervals; seeds; the fit; the notes that explain shared
figures; the agents left out; the options line; exploitability; CLI; the leaderboard writer."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import envs
import evaluate.games
from agents.simple_poker.strategies import behaviour_of, exploitability
from evaluate.__main__ import main
from evaluate.league import Rating, _Fingerprints, _notes, fit_bradley_terry, league_entrants, options_line, run_league


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
    """Two agents that play to the same results tie: the table orders them by id, whatever order they came in,
    and a note says that the games themselves cannot tell them apart."""
    for entrants in (["roborally/random", "random"], ["random", "roborally/random"]):
        r = run_league("roborally", entrants, games=2, seed=0, bootstrap=10)
        assert r.ratings[0].rating == pytest.approx(r.ratings[1].rating)
        assert [x.id for x in r.ratings] == ["random", "roborally/random"]
        assert len(r.notes) == 1 and "cannot tell them apart" in r.notes[0]


def test_shared_interval_with_different_results_is_explained_and_sweeps_noted():
    # greedy beats both random agents every time; the two random ones never reach a flag
    r = run_league("roborally", ["roborally/greedy", "random", "roborally/random"], games=3, seed=0, bootstrap=20)
    sweeps = [n for n in r.notes if n.startswith("`roborally/greedy` won every comparison")]
    assert len(sweeps) == 1 and "`random`" in sweeps[0] and "`roborally/random`" in sweeps[0]
    assert len(r.gaps) == 2 and r.gaps[0][1] > 0  # greedy's lead over the next is ordered in every resample


def test_fingerprints_ignore_play_order_and_see_one_different_game():
    a, b = _Fingerprints(), _Fingerprints()
    games = [(0, [0, 2], (1.0, -1.0)), (0, [2, 0], (0.0, 0.0)), (0, [1, 2], (1.0, -1.0)), (0, [2, 1], (0.0, 0.0))]
    for g in games:
        a.add(*g)
    for g in games[::-1]:
        b.add(*g)
    assert a.same_results(0, 1) and b.same_results(0, 1) and a.h == b.h
    a.add(1, [1, 2], (1.0, -1.0))
    a.add(1, [0, 2], (-1.0, 1.0))
    assert not a.same_results(0, 1)


def test_note_when_a_rating_leads_an_agent_it_does_not_beat_exactly():
    ids = ["a", "b", "c"]
    ratings = [Rating("a", 50.0, (40.0, 60.0), 0.6, 0.2, 10), Rating("b", 40.0, (30.0, 45.0), 0.55, 0.1, 10),
               Rating("c", -90.0, (-99.0, -80.0), 0.3, -0.3, 10)]
    total = np.array([[0.0, 5.0, 8.0], [5.0, 0.0, 7.0], [2.0, 3.0, 0.0]])
    exact = {"a": {"b": 0.0, "c": 0.5}, "b": {"a": 0.0, "c": 0.25}, "c": {"a": -0.5, "b": -0.25}}
    notes = _notes(ids, total, ratings, _Fingerprints(), exact)
    assert len(notes) == 1 and notes[0].startswith("`a` is rated above `b`, yet exactly it nets +0.0000 a game")
    assert "`a` +0.5000, `b` +0.2500" in notes[0]
    exact["a"]["b"], exact["b"]["a"] = 0.1, -0.1
    assert _notes(ids, total, ratings, _Fingerprints(), exact) == []


def test_left_out_agents_carry_their_reasons():
    game = envs.make_game("simple_poker")
    ids, left_out = league_entrants("simple_poker", game)
    assert "simple_poker/threshold?t=2" in ids and "simple_poker/threshold" not in ids
    assert "needs its threshold" in left_out["simple_poker/threshold"]
    assert left_out["simple_poker/threshold?t=<positive integer>"].startswith("a pattern, not one agent (entered: ")
    lama_ids, lama_out = league_entrants("lama", envs.make_game("lama"))
    assert lama_out["lama/pimc"] == evaluate.games.part("lama").league_skip["lama/pimc"]
    assert lama_out["lama/learned-seed2022"].endswith("enters a league run with --option rules=seed2022")
    # every registered id is either entered or left out with a reason
    import agents
    assert set(agents.known_ids("lama")) <= set(lama_ids) | set(lama_out)
    assert all(lama_out.values())


def test_options_line_states_every_option_and_exploitability_is_the_exact_one():
    entrants = ["simple_poker/nash", "simple_poker/threshold?t=2", "random"]
    r = run_league("simple_poker", entrants, games=4, seed=0, options={"n": 4}, bootstrap=5)
    line = options_line(r)
    assert line.startswith("n=4, ante=1.0, bet=2.0") and "given: n" in line
    assert r.left_out == {}  # the user chose the entrants
    game = envs.make_game("simple_poker", n=4)
    import agents
    for i in entrants:
        agent = agents.make(i, game, np.random.default_rng(0), game_name="simple_poker")
        assert r.exploitability[i] == pytest.approx(exploitability(game, behaviour_of(agent, game)).total, abs=1e-12)
    assert r.exploitability["simple_poker/nash"] == pytest.approx(0.0, abs=1e-9)


def test_bradley_terry_recovers_strengths():
    true = np.array([1.0, 0.0, -1.0])
    p = 1 / (1 + np.exp(-(true[:, None] - true[None, :])))
    wins = 10000 * p * (1 - np.eye(3))
    assert fit_bradley_terry(wins, alpha=0.0) == pytest.approx(true, abs=1e-6)
    # with the league's regularisation a clean sweep stays finite and in order
    sweep = fit_bradley_terry(np.array([[0.0, 20.0, 20.0], [0.0, 0.0, 10.0], [0.0, 10.0, 0.0]]))
    assert np.isfinite(sweep).all() and sweep[0] > sweep[1] == pytest.approx(sweep[2])


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
    assert "**Options:** n=3, ante=1.0, bet=2.0 (all defaults)" in text and "exploitability (exact)" in text
    assert "![simple_poker ratings with 95% intervals](img/league_simple_poker.png)" in text
    assert "- `simple_poker/threshold`: simple_poker/threshold needs its threshold" in text
    assert (tmp_path / "img" / "league_simple_poker.png").stat().st_size > 1000
    data = json.loads((tmp_path / "data" / "league_simple_poker.json").read_text())
    assert np.array(data["extra"]["wins"]).shape == (len(data["ratings"]),) * 2
    # the page and plot again from the saved result, playing nothing: the same page
    (tmp_path / "img" / "league_simple_poker.png").unlink()
    assert league.main(["--docs", str(doc), "--games", "simple_poker", "--deals", "20", "--render-only"]) == 0
    assert doc.read_text() == text and (tmp_path / "img" / "league_simple_poker.png").exists()
    with pytest.raises(SystemExit) as e:
        league.main(["--docs", str(doc), "--games", "simple_poker", "--seed", "3", "--render-only"])
    assert e.value.code == 2
    # another game's saved result beside the page: playing one game keeps the other's section (the page stays whole)
    import shutil

    shutil.copy(Path(league.__file__).parents[1] / "docs" / "data" / "league_the_game.json", tmp_path / "data")
    assert league.main(["--docs", str(doc), "--games", "simple_poker", "--deals", "20", "--render-only"]) == 0
    text = doc.read_text()
    assert "## simple_poker" in text and "## the_game" in text and "`the_game/bestplays`" in text
    assert "python -m evaluate the_game --league --games 1000 --seed 0" in text
    assert "--games simple_poker" in text  # lama, roborally and primi_composti have no saved result here
