"""Primi Composti's evaluation jobs: the seed's tables (`reproduce`), exact solves of deals (`solve`) and position
counts (`positions`); terminal play is `python -m evaluate play primi_composti`. Importing the package declares the
game's part of the evaluate layer (`evaluate.games`): its jobs, how to describe it to a person (terminal play), its
league and examples."""

from __future__ import annotations

from typing import Any

from evaluate.games import declare


def _cards(cards) -> str:
    return " ".join(map(str, cards)) or "-"


def describe_view(game: Any, view: Any) -> str:
    """What the seat of `view` may know, as text for a person (only the view's contents)."""
    me = view.seat
    lines = [f"turn {view.turn + 1}"]
    for s, score in enumerate(view.scores):
        who = "you" if s == me else f"player_{s}"
        primes, comps = view.stacks[2 * s], view.stacks[2 * s + 1]
        size = view.hand_sizes[s]
        lines.append(f"  {who:>8}: score {score:>3} | primes {_cards(primes)} | composites {_cards(comps)}"
                     f" | {size} card{'' if size == 1 else 's'}")
        if s != me and view.hands[s] is not None:
            lines.append(f"            hand {_cards(sorted(view.hands[s]))}")
    lines.append(f"  your hand: {_cards(sorted(view.hands[me]))}")
    return "\n".join(lines)


declare(
    "primi_composti",
    jobs="evaluate.primi_composti.reproduce",
    goal=("the highest score when every card is played (a prime counts 2, a composite 1). Version 1: a card "
          "scores its value plus the two visible top cards it makes by +, −, × or ÷. Version 2: it captures "
          "those two cards onto your stacks, and the cards on your stacks are your score."),
    move_help=(
        "play C: lay card C on your prime or composite stack; if it equals the sum, difference, "
        "product or quotient of two visible top cards you take them (the operation: with "
        "steal_choice=player the name says which pair; 'no operation' takes nothing)."
    ),
    describe_view=describe_view,
    examples=(
        "primi_composti --agents primi_composti/minimax?depth=4,primi_composti/greedy_rand --games 400",
        "primi_composti --option version=2 --agents primi_composti/learned-v2,primi_composti/minimax?depth=4 "
        "--games 200",
    ),
    league_deals=300,
    league_members=("primi_composti/minimax?depth=2", "primi_composti/minimax?depth=6"),
    league_skip={"primi_composti/solver": "an exact search: seconds a game",
                 "primi_composti/teacher": "a search: seconds a game"},
    warm_up=(  # the exact solver's kernels, for each version and the official options
        "primi_composti --agents primi_composti/solver,primi_composti/greedy_rand --games 1 "
        "--option cards_per_player=4",
        "primi_composti --option version=2 --agents primi_composti/solver,primi_composti/greedy_rand --games 1 "
        "--option cards_per_player=4",
        "primi_composti --option version=2 --option steal_choice=player --agents primi_composti/solver,"
        "primi_composti/greedy_rand --games 1 --option cards_per_player=4",
    ),
)
