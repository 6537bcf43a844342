"""Reproduction of the seed's tables at small sample sizes, with tolerances from evaluate.stats."""

from __future__ import annotations

import numpy as np
import pytest

from evaluate.__main__ import main
from evaluate.primi_composti.reproduce import (
    GROUPS,
    PAPER_V1_SIMPLE,
    PAPER_V2_MM45,
    PAPER_V2_SIMPLE,
    compare,
    play_cell,
)
from evaluate.stats import two_sample_tolerance

Z_STRICT = 3.29  # 99.9% two-sided: a reproduction test should almost never fail by chance


def _check(paper_pct: float, ours_pct: float, n_ours: int, n_paper: int) -> None:
    p = paper_pct / 100
    tol = 100 * two_sample_tolerance(max(p, 1e-3), n_ours, n_paper, z=Z_STRICT)
    assert abs(ours_pct - paper_pct) <= tol, (ours_pct, paper_pct, tol)


@pytest.mark.parametrize(
    "version,p1,p2,paper",
    [
        (1, "rand", "rand", PAPER_V1_SIMPLE[("rand", "rand")]),
        (1, "greedy_rand", "rand", PAPER_V1_SIMPLE[("greedy_rand", "rand")]),
        (1, "greedy_asc", "greedy_desc", PAPER_V1_SIMPLE[("greedy_asc", "greedy_desc")]),
        (2, "greedy_rand", "greedy_rand", PAPER_V2_SIMPLE[("greedy_rand", "greedy_rand")]),
        (2, "desc", "asc", PAPER_V2_SIMPLE[("desc", "asc")]),
    ],
)
def test_simple_and_greedy_cells(version, p1, p2, paper):
    n = 20_000
    cell = play_cell(version, p1, p2, n, np.random.default_rng(7))
    _check(paper[0], cell.w1, n, 200_000)
    if version == 1:
        _check(paper[1], cell.tie, n, 200_000)
    else:
        assert cell.tie == 0.0  # 33 points in all: no ties in version 2
        assert cell.mean1 + cell.mean2 == pytest.approx(33.0)


def test_first_player_edge_among_greedy_players():
    """The seed's claim: P1 wins more often than P2 in greedy_rand self-play (v1)."""
    cell = play_cell(1, "greedy_rand", "greedy_rand", 40_000, np.random.default_rng(3))
    assert cell.w1_ci[0] > cell.w2_ci[1]


def test_second_player_favoured_in_minimax_self_play_version_2():
    """The seed's claim: minimax vs minimax favours the second player (v2, minimax_4: 29.2 % for P1)."""
    n = 300
    cell = play_cell(2, "minimax_4", "minimax_4", n, np.random.default_rng(5))
    assert cell.w1_ci[1] < 50.0
    _check(PAPER_V2_MM45[("minimax_4", "minimax_4")][0], cell.w1, n, 1_000)


def test_compare_flags_consistency():
    g = GROUPS["IV-V"]
    cell = play_cell(1, "asc", "desc", 2_000, np.random.default_rng(1))
    r = compare(g, cell)
    assert set(r["consistent"]) == {"w1", "tie", "w2"} and 0.0 <= r["p_value"] <= 1.0
    assert r["paper"]["w1"] == 39.60


def test_cli_reproduce_small(capsys):
    assert main(["primi_composti", "--reproduce", "--tables", "XII-XIII", "--games", "6"]) == 0
    out = capsys.readouterr().out
    assert "Tables XII-XIII" in out and "minimax_6" in out and "paper w1 35" in out


def test_claims_cli_small(capsys):
    assert main(["primi_composti", "--claims", "--games", "30"]) == 0
    out = capsys.readouterr().out
    assert out.count("self-play") == 10 and "favoured" in out


def test_unknown_table_group_is_a_usage_error(capsys):
    from evaluate.primi_composti.reproduce import reproduce_groups

    with pytest.raises(ValueError, match="unknown table group"):
        reproduce_groups("IV-V,XX")
    with pytest.raises(SystemExit) as e:
        main(["primi_composti", "--reproduce", "--tables", "XX"])
    assert e.value.code == 2
    assert "unknown table group(s) ['XX']" in capsys.readouterr().err
