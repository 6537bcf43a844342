"""How a table prints an interval: a single deal's unbounded interval reads "n/a", not `[-inf, inf]`."""

from __future__ import annotations

from evaluate.stats import interval_text, mean_interval


def test_one_sample_has_no_interval_to_print():
    m, lo, hi = mean_interval([1.5])
    assert m == 1.5 and interval_text(lo, hi) == "n/a"
    assert interval_text(*mean_interval([])[1:]) == "n/a"


def test_a_finite_interval_prints_its_bounds():
    m, lo, hi = mean_interval([0.0, 1.0, 2.0, 3.0])
    assert lo < m < hi
    assert interval_text(lo, hi, 4) == f"[{lo:.4f}, {hi:.4f}]"
    assert interval_text(-0.25, 0.5) == "[-0.250, 0.500]"


def test_the_tables_of_a_single_deal_say_n_a_and_count_in_words():
    from evaluate.paired import format_paired, run_paired
    from evaluate.stats import plural
    from evaluate.tournament import format_table, run_tournament

    table = format_table(run_tournament("simple_poker", ["random", "simple_poker/nash"], games=2, seed=1,
                                        options={"n": 3}, progress=False))
    assert "inf" not in table and "n/a" in table and "2 games (1 deal," in table
    paired = format_paired(run_paired("simple_poker", "random", "simple_poker/nash", ["random"], games=1, seed=1,
                                      options={"n": 3}))
    assert "inf" not in paired and "n/a" in paired
    assert (plural(1, "game"), plural(2000, "game")) == ("1 game", "2,000 games")
