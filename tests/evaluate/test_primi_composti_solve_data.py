"""The exact-value studies stored in tests/data, against their own records and the doc that quotes them."""

import json
from pathlib import Path

import pytest

from evaluate.primi_composti.solve import summarize

_ROOT = Path(__file__).resolve().parents[2]


def _stored(name: str) -> tuple[dict, str]:
    """A study stored in tests/data and the text of docs/primi_composti.md."""
    stored = json.loads((_ROOT / "tests" / "data" / name).read_text(encoding="utf-8"))
    return stored, (_ROOT / "docs" / "primi_composti.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("name,version,cards,deals", [
    ("primi_composti_solve_v1_12cards.json", 1, 12, 200),
    ("primi_composti_solve_v2_10cards.json", 2, 10, 200),
    ("primi_composti_solve_v2_12cards.json", 2, 12, 200),
])
def test_stored_studies_are_what_their_records_say(name, version, cards, deals):
    """docs/primi_composti.md quotes the studies in tests/data: their statistics must be
    the ones `summarize` computes from their per-deal records, and the doc's figures."""
    stored, doc = _stored(name)
    assert (stored["version"], stored["cards_per_player"], stored["seed"]) == (version, cards, 0)
    assert [r["index"] for r in stored["per_deal"]] == list(range(deals))
    again = summarize(version, cards, stored["per_deal"])
    for k in ("deals", "value_mean", "value_ci", "p1_wins", "p1_wins_ci", "ties", "ties_ci", "p2_wins", "p2_wins_ci",
              "solve_seconds_median", "solve_seconds_worst", "nodes_median"):
        assert again[k] == pytest.approx(stored[k]), k
    row = f"| v{version}, {cards}"
    line = next(ln for ln in doc.splitlines() if ln.replace("**", "").startswith(row))
    sign = lambda x: f"{x:+.2f}".replace("+", "").replace("-", "−")  # noqa: E731
    assert f"{sign(stored['value_mean'])} [{sign(stored['value_ci'][0])}, {sign(stored['value_ci'][1])}]" in line
    assert (
        f"{100 * stored['p2_wins']:.1f} [{100 * stored['p2_wins_ci'][0]:.1f}, {100 * stored['p2_wins_ci'][1]:.1f}]"
        in line
    )


def test_full_v1_study_retrograde_and_search_agree():
    """The v1 12-card study was solved twice, by the alpha-beta search and by the
    retrograde solver: the same value for every deal, and the doc quotes both medians."""
    retro, doc = _stored("primi_composti_solve_v1_12cards.json")
    search, _ = _stored("primi_composti_solve_v1_12cards_search.json")
    assert [r["value"] for r in retro["per_deal"]] == [r["value"] for r in search["per_deal"]]
    assert [r["index"] for r in search["per_deal"]] == list(range(200))
    assert summarize(1, 12, search["per_deal"])["solve_seconds_median"] == pytest.approx(search["solve_seconds_median"])
    row = next(ln for ln in doc.splitlines() if ln.replace("**", "").startswith("| v1, 12"))
    assert f"{retro['solve_seconds_median']:.2f} s / {retro['solve_seconds_worst']:.2f} s" in row
    assert f"the search: {search['solve_seconds_median']:.1f} s / {search['solve_seconds_worst']:.0f} s" in row


def test_full_v2_deal_values_are_the_docs_counts():
    """The doc's paragraph on the 12-card v2 study counts its deals by value."""
    from collections import Counter

    stored, doc = _stored("primi_composti_solve_v2_12cards.json")
    counts = sorted(Counter(r["value"] for r in stored["per_deal"]).items())
    parts = [f"{v:+d}".replace("-", "−") + f": {n}" for v, n in counts]
    text = "(deals by value: " + ", ".join(parts) + ")"
    assert text in " ".join(doc.split()), text
    p2 = sum(n for v, n in counts if v < 0)
    assert f"P2 wins {p2} of {stored['deals']}" in " ".join(doc.split())


@pytest.mark.parametrize("version,cards,column", [(1, 8, 3), (2, 8, 4), (1, 12, 5)])
def test_stored_regret_studies_are_the_docs_columns(version, cards, column):
    """The regret table's 8- and 12-card columns quote tests/data/primi_composti_regret_v*_*cards.json."""
    stored, text = _stored(f"primi_composti_regret_v{version}_{cards}cards.json")
    assert (stored["version"], stored["cards_per_player"], stored["seed"], stored["deals"]) == (version, cards, 0, 200)
    assert [r["index"] for r in stored["per_deal"]] == list(range(200))
    assert summarize(version, cards, stored["per_deal"])["value_mean"] == pytest.approx(stored["value_mean"])
    doc = text.splitlines()
    start = doc.index(
        "| player | v1, 6 cards | v2, 6 cards | v1, 8 cards | v2, 8 cards | **v1, 12 cards (full game)** |"
    )
    rows = {ln.split("|")[1].strip(): ln.split("|") for ln in doc[start + 2 : start + 7] if ln.startswith("|")}
    assert set(rows) == set(stored["regret"])
    for player, r in stored["regret"].items():
        lo, hi = r["ci"]
        assert rows[player][column + 1].strip() == f"{r['mean']:.2f} [{lo:.2f}, {hi:.2f}]", player
