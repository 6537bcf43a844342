"""`python -m evaluate.primi_composti.check` (the policies' check on held-out deals): game options beyond version and
size (a policy trained with observation hints is measured under them), and a bad option is one line with exit
status 2."""

from __future__ import annotations

import json

import pytest

from evaluate.primi_composti.check import main


def test_options_reach_the_game_and_the_json(tmp_path):
    out = tmp_path / "r.json"
    assert main(["--agent", "random", "--against", "primi_composti/minimax?depth=1", "--cards", "4", "--deals", "3",
                 "--option", "observation_hints=True", "--json", str(out)]) == 0
    got = json.loads(out.read_text())
    assert got["options"] == {"observation_hints": True} and got["cards_per_player"] == 4
    h2h = got["head_to_head"]["primi_composti/minimax?depth=1"]
    assert h2h["games"] == 6 and h2h["ci"][0] <= h2h["mean_difference"] <= h2h["ci"][1] and "regret" in got


def test_head_to_head_is_the_score_difference_on_both_seats_of_each_deck():
    """The runner's figure is, deal by deal, the mean over both seats of the agent's final score minus the
    other's, on the given decks (played here move by move with the plain engine)."""
    import numpy as np

    import agents
    from envs.core.play import play_out
    from envs.primi_composti import fast
    from envs.primi_composti.rules import Config, PrimiCompostiGame
    from evaluate.primi_composti.check import head_to_head
    from evaluate.stats import mean_interval

    options = {"version": 2, "cards_per_player": 5}
    game = PrimiCompostiGame(Config(**options))
    decks = fast.random_decks(np.random.default_rng(0), 15, 5)
    a = agents.make("primi_composti/minimax?depth=2", game, np.random.default_rng(0), game_name="primi_composti")
    b = agents.make("primi_composti/greedy_asc", game, np.random.default_rng(0), game_name="primi_composti")
    per_deal = []
    for d in decks:
        start = game.deal_from(d)
        finals = [play_out(game, [a, b], start)[0], play_out(game, [b, a], start)[0]]
        per_deal.append(np.mean([finals[0].scores[0] - finals[0].scores[1], finals[1].scores[1] - finals[1].scores[0]]))
    fig = head_to_head(options, "primi_composti/minimax?depth=2", "primi_composti/greedy_asc", decks)
    m, lo, hi = mean_interval(np.array(per_deal))
    assert fig.games == 30 and np.isclose(fig.mean_score, m) and np.allclose(fig.score_ci95, (lo, hi))
    assert np.std(per_deal) > 0  # the decks differ


def test_a_bad_option_is_one_line_and_exit_2(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--agent", "random", "--option", "hints=yes"])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "'hints'" in err[0] and "observation_hints" in err[0]
