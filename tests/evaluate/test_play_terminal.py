"""The terminal play command, driven through its input for every game."""

from __future__ import annotations

import subprocess
import sys

import pytest

import envs
import evaluate.games
from evaluate.play import describe, play_session

GAMES = {
    "simple_poker": ("simple_poker/nash", {}),
    "lama": ("lama/third", {"num_players": 3}),
    "the_game": ("the_game/trick", {}),
    "primi_composti": ("primi_composti/greedy_rand", {"cards_per_player": 4}),
    "roborally": ("random", {}),
}
PARAMS = [g for g in GAMES if g in envs.available_games()]


class Script:
    """Answers moves from a list, then `tail` forever (None: end of input); the
    replay question from `replays`, then "n"."""

    def __init__(self, answers, tail="1", replays=()):
        self.answers = list(answers)
        self.tail = tail
        self.replays = list(replays)

    def __call__(self, prompt: str) -> str:
        if prompt.startswith("replay"):
            return self.replays.pop(0) if self.replays else "n"
        if self.answers:
            return self.answers.pop(0)
        if self.tail is None:
            raise EOFError
        return self.tail


@pytest.mark.parametrize("game", PARAMS)
def test_legal_play_to_the_end_with_bad_inputs_and_a_replay(game, tmp_path):
    opponent, options = GAMES[game]
    out: list[str] = []
    # bad entries first, then help, then always move 1; after the first deal: replay (y), after the second: no.
    ask = Script(["zzz", "0", "9999", "?"], tail="1", replays=["y"])
    png = str(tmp_path / "board.png") if game == "roborally" else None
    results = play_session(game, 0, [opponent], options, seed=2, ask=ask, say=out.append, png=png)
    text = "\n".join(out)
    assert len(results) == 2 and all(r is not None for r in results)
    assert (
        "'zzz' is not a legal move" in text and "0 is not a move number" in text and "9999 is not a move number" in text
    )
    part = evaluate.games.part(game)
    assert part.move_help in text and "goal: " in text
    assert f"you are {part.seat_name(0)}" in text and f"you are {part.seat_name(1)}" in text
    assert text.count("--- game over ---") == 2
    assert "  1. " in text
    if game == "roborally":
        assert "board picture:" in text and (tmp_path / "board.png").stat().st_size > 1000


@pytest.mark.parametrize("game", PARAMS)
def test_leave_and_end_of_input(game):
    opponent, options = GAMES[game]
    out: list[str] = []
    for ask in (Script([":exit", "y"]), Script([], tail=None)):
        out.clear()
        assert play_session(game, 0, [opponent], options, seed=1, ask=ask, say=out.append) == [None]
        assert out[-1] == "game ended (you left)" and "  1. " in "\n".join(out)


def test_move_by_name_and_view_shows_no_hidden_cards():
    import numpy as np

    game = envs.make_game("simple_poker")
    out: list[str] = []
    script = Script(["bet", "n"])
    res = play_session("simple_poker", 0, ["simple_poker/nash"], {}, seed=4, ask=script, say=out.append)
    assert out.count("you: bet") == 1 and res[0] is not None
    # The view text of a seat names only its own card.
    state = game.initial_state(np.random.default_rng(0))
    assert (
        describe("simple_poker", game, game.view(state, 0))
        == f"your card: {state.cards[0]} (cards 1..3); so far: nothing yet"
    )


def test_cli_stdin_and_misuse():
    cmd = [sys.executable, "-m", "evaluate", "play", "primi_composti", "--seat", "1", "--opponents",
           "primi_composti/greedy_rand", "--seed", "3", "--option", "cards_per_player=3"]
    r = subprocess.run(cmd, input="abc\n?\n1\n1\n1\n", capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert (
        "'abc' is not a legal move" in r.stdout and "--- game over ---" in r.stdout and "you are player_1" in r.stdout
    )
    r = subprocess.run(cmd[:5] + ["--seat", "7"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "seat must be in 0..1" in r.stderr
    r = subprocess.run(cmd[:4] + ["--option", "bogus=1"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2
