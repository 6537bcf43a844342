"""Primi Composti's distilled students (`primi_composti/learned`, version 1, and `primi_composti/learned-v2`: action
scorers whose features read the dealt hands' order, `PrimiFeatures.from_tables`) on the compiled tournament runner:
seated as batch policies on its compiled loop, they play the Python engine's games, game for game."""

from __future__ import annotations

import pytest

from evaluate.tournament import run_tournament


def _both(**case):
    py = run_tournament(**case, progress=False, engine="python").to_dict()
    result = run_tournament(**case, progress=False)  # auto: the compiled engine seats the student
    assert result.engine == "compiled"
    cc = result.to_dict()
    assert (py.pop("engine"), cc.pop("engine")) == ("python", "compiled")
    return py, cc


@pytest.mark.parametrize("case", [
    dict(agent_ids=["primi_composti/learned", "primi_composti/minimax?depth=4"], games=10, seed=3),
    dict(agent_ids=["primi_composti/greedy_rand", "primi_composti/learned-v2"], games=12, seed=1,
         options={"version": 2}),
    dict(agent_ids=["primi_composti/learned-v2", "primi_composti/learned-v2"], games=6, seed=2,
         options={"version": 2}, seating="fixed"),
], ids=["v1+minimax4", "greedy_rand+v2", "v2-self-fixed"])
def test_a_student_plays_the_python_games_of_primi_composti(case):
    py, cc = _both(game_name="primi_composti", **case)
    assert cc == py  # every figure
    assert py["games"] == case["games"]


def test_paired_student_gives_the_python_figures():
    from evaluate.paired import run_paired

    case = dict(game_name="primi_composti", a_id="primi_composti/learned", b_id="primi_composti/greedy_rand",
                against="primi_composti/minimax?depth=4", games=6, seed=4)
    py = run_paired(**case, engine="python").to_dict()
    result = run_paired(**case)
    assert result.engine == "compiled"
    cc = result.to_dict()
    assert (py.pop("engine"), cc.pop("engine")) == ("python", "compiled")
    assert cc == py


def test_a_sampled_student_replays_a_deal_alone():
    """`?sample` draws from the deal's own streams on the compiled engine: deal 3 played by itself is the same
    games as in the whole run."""
    ids = ["learned:agents/pretrained/primi_composti-v1?sample", "primi_composti/greedy_rand"]
    whole = run_tournament("primi_composti", ids, games=10, seed=5, progress=False, records=True, engine="compiled")
    alone = run_tournament("primi_composti", ids, games=2, seed=5, progress=False, records=True, engine="compiled",
                           start_deal=3)
    assert whole.engine == alone.engine == "compiled"
    assert [r for r in whole.records if r.deal == 3] == alone.records
    greedy = run_tournament("primi_composti", [ids[0].replace("?sample", "?greedy"), ids[1]], games=10, seed=5,
                            progress=False, records=True, engine="compiled")
    # a sample, not the greedy policy's games: the mean scores differ
    assert [a.mean_score for a in greedy.agents] != [a.mean_score for a in whole.agents]


def test_a_league_with_a_student_gives_the_python_ratings_on_the_compiled_engine():
    from evaluate.league import run_league

    case = dict(agent_ids=["primi_composti/learned", "primi_composti/greedy_rand", "primi_composti/minimax?depth=2"],
                games=4, seed=2, bootstrap=20)
    cc = run_league("primi_composti", **case, engine="compiled").to_dict()
    assert cc == run_league("primi_composti", **case, engine="python").to_dict()
