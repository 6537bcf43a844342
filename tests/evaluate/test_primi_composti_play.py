"""The terminal play command, driven through stdin."""

from __future__ import annotations

import subprocess
import sys

from evaluate.primi_composti.play import play


def _lowest_card(out: list[str]) -> str:
    """The lowest card of the hand shown last."""
    shown = [chunk for chunk in out if "\n  your hand: " in chunk][-1]  # the table's line, not a message
    hand = shown.split("\n  your hand: ")[1].splitlines()[0]
    assert "[" not in hand  # the cards as a person writes them, not a Python list
    return hand.split()[0]


def test_play_rejects_bad_input_and_finishes():
    out: list[str] = []
    answers = iter(["x7", "999"])
    asked = []

    def ask(prompt: str) -> str:
        asked.append(prompt)
        try:
            return next(answers)
        except StopIteration:
            # Then a legal card: the lowest in the hand shown last.
            return _lowest_card(out)

    scores = play("primi_composti/greedy_rand", {"cards_per_player": 4}, 0, 3, ask=ask, say=out.append)
    text = "\n".join(out)
    assert "'x7' is not a card number" in text and "999 is not in your hand" in text
    assert scores is not None and sum(1 for p in asked if p.startswith("your card")) == 4 + 2
    assert any(s in text for s in ("you win!", "P2 wins", "tie!"))


def test_play_with_operand_choice():
    out: list[str] = []

    def ask(prompt: str) -> str:
        if prompt.startswith("which"):
            return "0"
        return _lowest_card(out)

    scores = play(
        "primi_composti/greedy_rand",
        {"version": 2, "steal_choice": "player", "cards_per_player": 5},
        1,
        4,
        ask=ask,
        say=out.append,
    )
    assert scores is not None and sum(scores) > 0


def test_cli_stdin_quit():
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "evaluate.primi_composti.play",
            "--opponent",
            "primi_composti/minimax?depth=2",
            "--seed",
            "1",
            "--seat",
            "1",
        ],
        input="abc\n99\nq\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0
    assert "'abc' is not a card number" in r.stdout and "99 is not in your hand" in r.stdout and "bye" in r.stdout
    assert "your hand:" in r.stdout and "score" in r.stdout
