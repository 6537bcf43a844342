"""The exact simple-poker table as a person reads it: no negative zeros, columns that line up."""

from __future__ import annotations

import numpy as np

import agents
import envs
from evaluate.simple_poker.exact import exact_report, fixed, format_report

IDS = ["simple_poker/nash", "simple_poker/threshold?t=2", "random"]


def _report() -> dict:
    game = envs.make_game("simple_poker", n=3)
    built = {i: agents.make(i, game, np.random.default_rng(0), game_name="simple_poker") for i in IDS}
    return exact_report(game, built)


def test_fixed_drops_the_sign_of_a_rounded_zero_only():
    assert fixed(-5.5e-17, 4) == "0.0000"
    assert fixed(-0.0, 6) == "0.000000"
    assert fixed(-0.00005, 4) == "-0.0001"
    assert fixed(-0.47916, 4) == "-0.4792"


def test_an_even_pairing_prints_zero_without_a_sign():
    report = _report()
    # the case this guards: floating-point sums leave a tiny negative payoff for an even pairing
    tiny = report["pairwise"]["simple_poker/threshold?t=2 vs simple_poker/nash"]["mean_over_seats"]
    assert tiny < 0 and round(tiny, 4) == 0
    text = format_report(report)
    assert "-0.0000" not in text
    matrix = text.split("both seatings averaged):\n")[1].splitlines()
    row = next(line for line in matrix if line.startswith("[1] simple_poker/threshold?t=2"))
    assert row.split()[2] == "0.0000"


def test_matrix_columns_line_up_under_their_headers():
    matrix = format_report(_report()).split("both seatings averaged):\n")[1].splitlines()
    header, rows = matrix[0], matrix[1:]
    assert len(rows) == len(IDS)
    ends = [header.index(f"[{j}]") + len(f"[{j}]") for j in range(len(IDS))]
    for line in rows:
        assert len(line) == len(header)
        for end in ends:
            assert line[end - 1].isdigit()  # every value ends where its column's heading ends
