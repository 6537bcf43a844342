"""Simple poker's evaluation jobs: exact payoffs, value and exploitability (`exact`). Importing the package declares
the game's part of the evaluate layer (`evaluate.games`): its jobs, how to describe it to a person (terminal play),
its league and examples."""

from __future__ import annotations

from typing import Any

from evaluate.games import declare


def describe_view(game: Any, view: Any) -> str:
    """What the seat of `view` may know, as text for a person (only the view's contents)."""
    words = [("pass", "bet"), ("pass", "call")]
    hist = ", ".join(f"player_{i} {words[i][a]}" for i, a in enumerate(view.history)) or "nothing yet"
    return f"your card: {view.card} (cards 1..{game.n}); so far: {hist}"


declare(
    "simple_poker",
    jobs="evaluate.simple_poker.exact",
    goal=("win chips: each player antes and gets one card; the higher card takes the pot at a showdown, and a "
          "player who folds to a bet loses the ante. Your return is your net chips."),
    move_help=(
        "pass: check (first player) or fold (second player); bet: put the bet in (first player) "
        "or call it (second player). The higher card wins a showdown."
    ),
    describe_view=describe_view,
    examples=(
        "simple_poker --option n=10 --agents simple_poker/nash,simple_poker/threshold?t=2 --games 4000",
        "simple_poker --option n=10 --exact --agents simple_poker/nash,simple_poker/threshold?t=2,random",
    ),
    league_deals=20000,
    league_members=("simple_poker/threshold?t=1", "simple_poker/threshold?t=2", "simple_poker/threshold?t=3"),
)
