"""The Game's evaluation jobs: the seed's Monte Carlo table and the official-rules baselines (`reproduce`). Importing
the package declares the game's part of the evaluate layer (`evaluate.games`): its jobs, how to describe it to a
person (terminal play), its league and examples."""

from __future__ import annotations

from typing import Any

from envs.the_game.rules import FLAG_NAMES
from evaluate.games import declare


def describe_view(game: Any, view: Any) -> str:
    """What the seat of `view` may know, as text for a person (only the view's contents)."""
    me = view.seat
    names = ("up0", "up1", "down0", "down1")
    piles = ", ".join(f"{n} {p[-1]}" for n, p in zip(names, view.piles))
    lines = [f"piles: {piles}; draw pile {view.deck_size}; cards on the piles {view.placed}",
             f"  hands: {', '.join(f'player_{s} {k}' for s, k in enumerate(view.hand_sizes))}"]
    if view.player == me:
        lines.append(f"  laid this turn {view.played_this_turn}, at least {view.required} required")
    flagged = [f"{'you' if s == me else f'player_{s}'} {names[p]} {FLAG_NAMES[v]}"
               for s, seat_flags in enumerate(view.flags) for p, v in enumerate(seat_flags) if v]
    if flagged:
        lines.append(f"  flags: {', '.join(flagged)}")
    lines.append(f"  your hand: {' '.join(map(str, sorted(view.hand)))}")
    return "\n".join(lines)


def move_group(name: str) -> tuple[str, str] | None:
    """Terminal play lists the moves onto one pile on one line (`play on up0: 1. 19  2. 31 ...`) and a seat's
    flags on one pile likewise; `end turn` keeps a line of its own."""
    words = name.split()
    if len(words) == 4 and words[0] == "play" and words[2] == "on":
        return f"play on {words[3]}", words[1]
    if len(words) == 3 and words[0] == "flag":
        return f"flag {words[1]}", words[2]
    return None


declare(
    "the_game",
    jobs="evaluate.the_game.reproduce",
    goal=("together, lay all 98 cards on the four piles (two counting up from 1, two down from 100); the team "
          "wins when every card is placed, and scores the cards placed."),
    move_help=(
        "play C on upK / downK: lay card C on ascending pile K (higher card, or exactly 10 lower) or "
        "descending pile K (lower card, or exactly 10 higher); end turn: stop once you have laid the "
        "required number of cards; flag PILE VALUE: tell the team about a pile without naming cards."
    ),
    describe_view=describe_view,
    move_group=move_group,
    examples=(
        "the_game --option num_players=1 --agents the_game/bestplays --games 1000",
        "the_game --option num_players=3 --agents the_game/simplest*3 --games 1000",
    ),
    league_deals=1000,
    league_skip={"the_game/rollout": "a search: seconds a game"},
)
