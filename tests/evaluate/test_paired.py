"""Paired comparisons: a planted difference, A against itself, determinism, CLI."""

from __future__ import annotations

import json

import pytest

from evaluate.__main__ import main
from evaluate.paired import run_paired


def test_planted_difference_has_the_right_sign_and_excludes_zero():
    # Against the equilibrium, nash keeps the game value and random loses chips (exact EV gap ~0.48 per hand).
    r = run_paired("simple_poker", "simple_poker/nash", "random", "simple_poker/nash", games=300, seed=1)
    assert r.pooled.diff > 0 and r.pooled.diff_ci95[0] > 0
    swapped = run_paired("simple_poker", "random", "simple_poker/nash", "simple_poker/nash", games=300, seed=1)
    assert swapped.pooled.diff == pytest.approx(-r.pooled.diff)
    assert swapped.pooled.diff_ci95[1] < 0
    assert len(r.per_seat) == 2 and all(f.deals == 300 for f in r.per_seat)


@pytest.mark.parametrize("game,agent,against", [
    ("simple_poker", "random", "random"),
    ("lama", "random", "lama/first"),
    ("the_game", "the_game/random", "the_game/trick"),
])
def test_agent_against_itself_gives_exactly_zero(game, agent, against):
    # A stochastic agent replayed on the same deal, seat and generators plays the same game.
    r = run_paired(game, agent, agent, against, games=6, seed=3)
    for fig in [r.pooled, *r.per_seat]:
        assert fig.diff == 0.0 and fig.diff_ci95 == (0.0, 0.0) and fig.win_diff == 0.0
        assert fig.mean_score_a == fig.mean_score_b


def test_deterministic_under_a_seed():
    a = run_paired("lama", "lama/third", "random", "lama/first", games=5, seed=7).to_dict()
    b = run_paired("lama", "lama/third", "random", "lama/first", games=5, seed=7).to_dict()
    c = run_paired("lama", "lama/third", "random", "lama/first", games=5, seed=8).to_dict()
    assert a == b and a != c


def test_cli_json_and_misuse(tmp_path, capsys):
    out = tmp_path / "p.json"
    assert main(["simple_poker", "--paired", "simple_poker/nash,random", "--against", "simple_poker/nash",
                 "--games", "50", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["a"] == "simple_poker/nash" and data["deals"] == 50 and len(data["per_seat"]) == 2
    assert "A scores more than B, at 95% confidence" in capsys.readouterr().out
    for argv in (["simple_poker", "--paired", "simple_poker/nash"],
                 ["simple_poker", "--paired", "random,random"],
                 ["simple_poker", "--paired", "random,random", "--against", "random,random"]):
        with pytest.raises(SystemExit) as e:
            main(argv)
        assert e.value.code == 2


def test_one_player_game_needs_no_against(capsys):
    assert main(["the_game", "--option", "num_players=1", "--paired", "the_game/bestplays,random",
                 "--games", "6", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "against (none: one seat)" in out and "6 deals x 1 seats" in out
    with pytest.raises(SystemExit) as e:  # two players: the teammate is still needed
        main(["the_game", "--option", "num_players=2", "--paired", "the_game/bestplays,random"])
    assert e.value.code == 2
    assert "needs 1 agent ids" in capsys.readouterr().err
