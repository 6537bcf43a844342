"""The seed's L.A.M.A. figures, reproduced at CI sample sizes with derived tolerances."""

from __future__ import annotations

import os

import numpy as np
import pytest

from agents.lama.fast import FIRST, SECOND, THIRD
from agents.lama.strategies import TUNED
from evaluate.lama.reproduce import (
    BOX,
    PAPER_TABLES,
    SEED_CODE_ROUNDS,
    SEED_CODE_S3,
    compare_to_paper,
    crn_wins,
    game_seeds,
    matchup,
    random_seating,
    reproduce,
    seat_table,
    tune_third,
)
from evaluate.stats import Z95, two_sample_tolerance

GAMES = 3000


@pytest.mark.parametrize("key", list(PAPER_TABLES))
def test_tables_match_the_seed(key):
    strat, n = key
    st = seat_table(n, [strat] * n, GAMES, seed=11 + n + 10 * strat)
    assert compare_to_paper(st, PAPER_TABLES[key]) == []


def test_comparison_can_fail():
    # The published game's scoring gives clearly fewer points than Table I: the
    # same test must notice.
    st = seat_table(4, [FIRST] * 4, GAMES, seed=5, rules="official")
    bad = compare_to_paper(st, PAPER_TABLES[(FIRST, 4)])
    assert any("average points" in b for b in bad)


def test_rounds_per_game_match_the_seed_code():
    # rules doc §6.4: the seed's code over 3000 (n = 4) games gives 3.04 rounds per game
    st = seat_table(4, [FIRST] * 4, GAMES, seed=21)
    m, lo, hi = st.rounds
    sd = (hi - lo) / (2 * Z95) * np.sqrt(GAMES)
    tol = Z95 * sd * np.sqrt(1 / GAMES + 1 / 3000)
    assert abs(m - SEED_CODE_ROUNDS[4]) < tol


def test_first_seat_advantage_grows_with_target():
    # seed Fig. 2: with 5000 points (long games) seat 1 wins far more than seat 2 (n = 2)
    short = seat_table(2, [FIRST] * 2, 2000, seed=3)
    long = seat_table(2, [FIRST] * 2, 300, seed=4, target_points=5000)
    assert long.win[0][1] > long.win[1][2]  # intervals apart
    assert long.win[0][0] - long.win[1][0] > short.win[0][0] - short.win[1][0]


@pytest.mark.parametrize("opp", [FIRST, SECOND])
def test_strategy3_matches_the_seed_code(opp):
    # The seed's published code gives 0.275 / 0.332 over 10,000 games (rules doc §6.4).
    games = 4000
    p, lo, hi = matchup(THIRD, opp, games, seed=100 + opp)
    code, _ = SEED_CODE_S3[opp]
    assert abs(p - code) < two_sample_tolerance(code, games, 10_000)
    assert lo > 0.25  # strategy 3 beats the equal-share baseline


def test_common_random_numbers_give_identical_rows_for_identical_candidates():
    from envs.lama.rules import Config

    cfg = Config(rules="seed2022")
    seeds = game_seeds(300, 1)
    strats, seat = random_seating(300, 4, THIRD, FIRST, 1)
    w = crn_wins(cfg, seeds, strats, seat, np.array([TUNED, TUNED, (5.0, 1.0, 2.0, 0.2)]))
    assert np.array_equal(w[0], w[1])
    assert w.shape == (3, 300)


def test_tune_third_small_run():
    rep = tune_third(candidates=12, games_per_candidate=150, retest_games=1500, seed=2)
    for best in (rep.seed_style_best, rep.crn_best):
        assert all(BOX[i, 0] <= best[i] <= BOX[i, 1] for i in range(4))
    for iv in (rep.seed_style_retest, rep.crn_retest, rep.tuned_retest, rep.default_retest):
        assert iv[1] <= iv[0] <= iv[2]
    assert rep == tune_third(candidates=12, games_per_candidate=150, retest_games=1500, seed=2)


def test_reproduce_writes_everything(tmp_path):
    rep = reproduce(games=300, seed=1, out=str(tmp_path))
    for name in ("Table I", "Table II", "Table III", "Table IV", "Strategy 3", "official"):
        assert name in rep["text"]
    assert len(rep["figures"]) == 8
    assert all(os.path.getsize(p) > 1000 for p in rep["figures"])


def test_cli(tmp_path, capsys):
    from evaluate.__main__ import main

    out = tmp_path / "r.json"
    assert main(["lama", "--tune-third", "--candidates", "6", "--search-games", "100", "--retest-games", "500",
                 "--json", str(out)]) == 0
    assert "successive halving" in capsys.readouterr().out
    assert out.exists()


def test_retuned_set_beats_the_reports_on_fresh_deals():
    # Paired comparison on the same fresh deals and seatings (common random
    # numbers): RETUNED − TUNED, 95 % interval above zero.
    from agents.lama.strategies import RETUNED
    from envs.lama.rules import Config
    from evaluate.stats import mean_interval

    cfg = Config(rules="seed2022")
    games = 12_000
    seeds = game_seeds(games, 777)
    strats, seat = random_seating(games, 4, THIRD, FIRST, 777)
    w = crn_wins(cfg, seeds, strats, seat, np.array([RETUNED, TUNED]))
    m, lo, hi = mean_interval(w[0].astype(float) - w[1].astype(float))
    assert lo > 0


def test_cli_reproduce(tmp_path, capsys):
    from evaluate.__main__ import main

    assert main(["lama", "--reproduce", "--games", "200", "--out", str(tmp_path)]) == 0
    text = capsys.readouterr().out
    assert "Table IV" in text and "consistent with the seed's published code" in text
    assert len(list(tmp_path.glob("fig*.png"))) == 8


def test_a_game_that_never_ends_is_cut_and_counted_not_a_crash():
    """Strategy 2 at both seats of seed2022's two-player table: game 6,158 of seed 202 never ends (the reshuffle);
    the reproduction cuts it at the move limit, won by no one, and says so."""
    from envs.lama.rules import Config
    from evaluate.lama.reproduce import SECOND, format_comparison, move_limit, seat_table

    st = seat_table(2, [SECOND] * 2, 6_200, 202)
    assert (st.games, st.cut) == (6_200, 1)
    assert "(1 cut at the move limit, won by no one)" in format_comparison("strategy 2", st, None)
    assert move_limit(Config(num_players=2, target_points=5000)) == 125 * move_limit(Config(num_players=2))
