"""The tournament runner's per-game records, decision timing and `start_deal` (what the RoboRally study cells
take from it: `evaluate.roborally.study.play_cell`)."""

from __future__ import annotations

import numpy as np
import pytest

from evaluate.tournament import run_tournament

LAMA_MIXED = ["lama/first", "random", "lama/first", "random"]  # `random` keeps it on the Python engine


def _games(res):
    return [(g.deal, g.rotation, g.winners, g.moves) for g in res.records]


def test_records_agree_with_the_figures():
    res = run_tournament("lama", LAMA_MIXED, games=24, seed=5, progress=False, records=True)
    assert res.engine == "python"
    assert [(g.deal, g.rotation) for g in res.records] == [(d, r) for d in range(6) for r in range(4)]
    for e, fig in enumerate(res.agents):
        assert sum(e in g.winners for g in res.records) == fig.wins
    assert sum(g.moves for g in res.records) / res.games == pytest.approx(res.mean_turns)
    assert "records" in res.to_dict() and "decision_time" not in res.to_dict()
    assert "records" not in run_tournament("lama", LAMA_MIXED, games=4, seed=5, progress=False).to_dict()


def test_deals_played_in_chunks_are_the_deals_played_at_once():
    whole = run_tournament("lama", LAMA_MIXED, games=24, seed=5, progress=False, records=True)
    first = run_tournament("lama", LAMA_MIXED, games=8, seed=5, progress=False, records=True)
    rest = run_tournament("lama", LAMA_MIXED, games=16, seed=5, progress=False, records=True, start_deal=2)
    assert [g.deal for g in rest.records][:4] == [2, 2, 2, 2]
    assert _games(first) + _games(rest) == _games(whole)
    other = run_tournament("lama", LAMA_MIXED, games=24, seed=6, progress=False, records=True)
    assert _games(other) != _games(whole)  # the comparison can fail: another seed, other games


def test_records_are_the_same_on_both_engines():
    ids = ["lama/first", "lama/third", "lama/first", "lama/second"]
    kw = dict(games=40, seed=3, progress=False, records=True, start_deal=7)
    compiled = run_tournament("lama", ids, engine="compiled", **kw)
    python = run_tournament("lama", ids, engine="python", **kw)
    assert compiled.engine == "compiled" and python.engine == "python"
    assert _games(compiled) == _games(python)
    assert compiled.records[0].deal == 7


def test_timing_counts_every_move_once():
    res = run_tournament("lama", ["lama/first", "lama/third", "lama/first", "lama/second"], games=12, seed=1,
                         progress=False, timing=True)
    assert res.engine == "python"  # timing plays the agents' own moves, even where a compiled runner exists
    seconds, calls = np.array(res.decision_time).T
    assert calls.sum() == pytest.approx(res.mean_turns * res.games)
    assert (calls > 0).all() and (seconds > 0).all()


def test_bad_options_are_refused():
    with pytest.raises(ValueError, match="start_deal must be an integer >= 0"):
        run_tournament("lama", LAMA_MIXED, games=4, start_deal=-1, progress=False)
    with pytest.raises(ValueError, match="timing .* plays in Python"):
        run_tournament("lama", ["lama/first"] * 4, games=4, timing=True, engine="compiled", progress=False)
