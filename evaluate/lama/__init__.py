"""L.A.M.A.'s evaluation jobs: the seed's tables reproduced and strategy 3 re-tuned (`reproduce`). Importing the
package declares the game's part of the evaluate layer (`evaluate.games`): its jobs, how to describe it to a person
(terminal play), its league and examples."""

from __future__ import annotations

from typing import Any

from evaluate.games import declare
from evaluate.stats import plural


def _cards(counts: tuple[int, ...]) -> str:
    names = [("llama" if v == 0 else str(v)) for v in (*range(1, len(counts)), 0) for _ in range(counts[v])]
    return " ".join(names) or "-"


def describe_view(game: Any, view: Any) -> str:
    """What the seat of `view` may know, as text for a person (only the view's contents)."""
    me = view.seat
    top = "llama" if view.top == 0 else str(view.top)
    lines = [f"round {view.round + 1}: top of the discard pile {top}, draw pile {plural(view.draw_size, 'card')}"]
    for s in range(len(view.hand_sizes)):
        who = "you" if s == me else f"player_{s}"
        state = "in the round" if view.active[s] else "out of the round"
        lines.append(f"  {who:>8}: {plural(view.hand_sizes[s], 'card')}, {state}, total {view.totals[s]}")
    lines.append(f"  your hand: {_cards(view.hand)}")
    return "\n".join(lines)


def round_summary(game: Any, before: Any, after: Any, names: list[str]) -> str | None:
    """When a move ended a round: who went out (emptied their hand), each seat's penalty this round and total."""
    if after.round == before.round and not (after.game_over and not before.game_over):
        return None
    n = len(names)
    out = [names[i] for i in range(n) if after.last_scores[i] == 0]  # any card left scores at least 1
    whose = "your hand" if out == ["you"] else "their hand" if len(out) == 1 else "their hands"
    how = (f"{' and '.join(out)} emptied {whose}" if out
           else "nobody emptied their hand (every player left the round)")
    delta = [a - b for a, b in zip(after.totals, before.totals)]
    chips = [f" (cards {s}, a chip returned)" if d < s else "" for d, s in zip(delta, after.last_scores)]
    parts = [f"{names[i]} {delta[i]:+d}{chips[i]} = {after.totals[i]}" for i in range(n)]
    return f"round {before.round + 1} over: {how}. Penalty points this round and totals: " + ", ".join(parts)


declare(
    "lama",
    jobs="evaluate.lama.reproduce",
    move_help=(
        "play V / play llama: lay that card on the discard pile (same value as the top card or the next one; "
        "a llama follows a 6, a 1 follows a llama); draw: take a card from the draw pile; quit: leave the "
        "round and score the cards you hold."
    ),
    describe_view=describe_view,
    goal=("have the fewest penalty points when the game ends, after the round in which someone's total reaches "
          "40 (target_points). A round ends when a player empties their hand or every player has left it (quit); "
          "the cards still in a hand score penalty points (a card its value, a llama 10; each value once under the "
          "published rules), and a player who empties their hand gives back a chip (10 points, else 1)."),
    round_summary=round_summary,
    examples=(
        "lama --agents lama/first,lama/third*3 --games 2000",
        "lama --option rules=seed2022 --agents lama/third-retuned,lama/first*3 --games 2000",
    ),
    league_deals=100,
    league_skip={"lama/pimc": "a search: seconds a game", "lama/pimc-retuned": "a search: seconds a game"},
    warm_up=("lama --agents lama/pimc?k=4,lama/first*3 --games 1",),
)
