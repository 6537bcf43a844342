"""Paired comparisons: a planted difference, A against itself, determinism, several agents, the self-team
protocol, CLI."""

from __future__ import annotations

import json

import pytest

import envs
from evaluate.__main__ import main
from evaluate.paired import run_paired, run_paired_many
from evaluate.the_game.reproduce import play_with
from evaluate.tournament import deal_rng


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
    [data] = json.loads(out.read_text())["comparisons"]
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


def test_several_agents_each_give_their_pair_s_figures():
    # A's games do not depend on who else is compared: A,B,C gives A,B's and A,C's results.
    ab, ac = run_paired_many("lama", ["lama/third", "random", "lama/second"], "lama/first", games=4, seed=7)
    ac.engine = "compiled"  # lama/third and lama/second alone have kernels: the same games, played compiled
    assert ab.to_dict() == run_paired("lama", "lama/third", "random", "lama/first", games=4, seed=7).to_dict()
    assert ac.to_dict() == run_paired("lama", "lama/third", "lama/second", "lama/first", games=4, seed=7).to_dict()


@pytest.mark.parametrize("engine", ["python", "compiled"])
def test_self_team_plays_the_deal_with_a_copy_in_every_seat(engine):
    # The Game's protocol: the focal agent's copies fill the table; the figures are those of
    # `evaluate.the_game.reproduce.play_with` (the games of `simulate`) on the same deals.
    game = envs.make_game("the_game", num_players=3)
    r = run_paired("the_game", "the_game/bestplays", "the_game/simplest", "self", games=5, seed=4,
                   options={"num_players": 3}, engine=engine)
    assert r.team and r.against == ["self"] and r.engine == engine
    for agent, score, win in (("the_game/bestplays", r.pooled.mean_score_a, r.pooled.win_rate_a),
                              ("the_game/simplest", r.pooled.mean_score_b, r.pooled.win_rate_b)):
        finals = [play_with(game, agent, deal_rng(4, d)) for d in range(5)]
        assert score == pytest.approx(sum(game.returns(f)[0] for f in finals) / 5)
        assert win == pytest.approx(sum(f.won for f in finals) / 5)
    assert all(f.mean_score_a == r.pooled.mean_score_a for f in r.per_seat)  # one team, one return


def test_bad_line_ups_are_one_line_errors(capsys):
    for ids, against, match in ((["random"], "random", "at least two agent ids"),
                                (["random", "self"], "random", "names the teammates"),
                                (["random", "random"], "self,random", "'self' .* stands alone"),
                                (["random", "random"], [], "needs 1 agent ids .*or 'self'")):
        with pytest.raises(ValueError, match=match):
            run_paired_many("simple_poker", ids, against, games=2)
    for argv in (["the_game", "--paired", "the_game/bestplays", "--against", "self"],
                 ["the_game", "--paired", "the_game/bestplays,random", "--against", "self,random"]):
        with pytest.raises(SystemExit) as e:
            main(argv)
        err = capsys.readouterr().err
        assert e.value.code == 2 and len(err.splitlines()) == 1 and "self" in err


def test_cli_compares_each_agent_with_the_first(tmp_path, capsys):
    out = tmp_path / "p.json"
    assert main(["the_game", "--option", "num_players=2", "--paired",
                 "the_game/bestplays,the_game/simplest,the_game/minimal", "--against", "self", "--games", "3",
                 "--json", str(out)]) == 0
    data = json.loads(out.read_text())["comparisons"]
    assert [(c["a"], c["b"], c["against"]) for c in data] == [
        ("the_game/bestplays", "the_game/simplest", ["self"]), ("the_game/bestplays", "the_game/minimal", ["self"])]
    assert capsys.readouterr().out.count("against self (copies of the focal agent in every seat)") == 2
