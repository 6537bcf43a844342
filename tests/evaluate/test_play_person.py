"""Terminal play for a person: RoboRally's robots numbered alike everywhere, its picture drawn again at the end
with who drives each colour, its cards by name with played ones gone; L.A.M.A.'s quit move apart from the
word that leaves, its round summaries, its goal and plain winners; `--record` with `--games` refused."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

import envs
from envs.roborally.render import ROBOT_COLOURS
from evaluate.__main__ import main as evaluate_main
from evaluate.play import play_session


class Script:
    """Answers from a list, then `tail` forever; "n" to the replay question."""

    def __init__(self, answers, tail="1"):
        self.answers, self.tail = list(answers), tail

    def __call__(self, prompt: str) -> str:
        if prompt.startswith("replay"):
            return "n"
        if self.answers:
            return self.answers.pop(0)
        if self.tail is None:
            raise EOFError
        return self.tail


def test_roborally_race_that_robot_2_wins(tmp_path):
    out: list[str] = []
    png = tmp_path / "board.png"
    # seed 3: always the first listed card for robot 1 (you) against the flag seeker, which wins
    res = play_session("roborally", 0, ["roborally/greedy"], {}, seed=3, ask=Script([]), say=out.append, png=str(png))
    assert res == [(0.0, 1.0)]  # seat 1, robot 2, won
    text = "\n".join(out)
    assert "you are robot 1 (seat 0); robot 2: roborally/greedy" in text
    assert "robot 2 won" in text and out[-1] == "robot 2 wins" and "robot 1 won" not in text
    assert "robot 2: moved" in text and "player_" not in text
    # the picture is drawn again after the last move: robot 2 stands on the last flag, no robot on its start
    assert out[out.index("--- game over ---") + 2] == f"  final board picture: {png}"
    game = envs.make_game("roborally")
    board = np.asarray(Image.open(png).convert("RGB"))
    assert board.shape == (game.board.height * 32 + 24, game.board.width * 32, 3)
    strip = board[-24:].reshape(-1, 3)
    for colour in ROBOT_COLOURS[:2]:  # each robot's colour in the legend strip ("1 you", "2 roborally/greedy (won)")
        assert (strip == colour).all(axis=1).any()


def test_roborally_hand_by_name_with_played_cards_removed():
    out: list[str] = []
    play_session("roborally", 0, ["roborally/greedy"], {}, seed=3, ask=Script(["1"], tail=None), say=out.append)
    text = "\n".join(out)
    first, second = text.split("you: register 1: U/10")[:2]
    assert "your hand (kind/priority" in first and "U/10 U/30 R/190" in first
    assert "U/10 before U/30" in first and "the seed counts every rotation card of one kind" in first
    assert "your registers: 1 U/10, 2 -" in second and "U/10" not in second.split("your hand")[1].split("\n")[0]
    assert "legend: 1^ robot 1 facing north" in first and "robot 1 (you): at (5,11)" in first
    assert "     0   1   2" in first  # column numbers over the board


def test_roborally_any_card_of_the_hand_by_name():
    out: list[str] = []
    # seed 3, robot 1's hand: U/10 U/30 R/190 L/320 M1/530 M1/560 M1/620 M2/720 M2/740 (U/30 waits behind U/10)
    answers = ["U/30", "u/10", "m3/620", "/999", "M2/740"]
    play_session("roborally", 0, ["roborally/greedy"], {}, seed=3, ask=Script(answers, tail=None), say=out.append)
    text = "\n".join(out)
    first = text.split("you: register 1")[0]
    assert "(`--option card_classes=false` lists every card); you may also type any card of your hand by name (e.g. " \
           "U/30)" in first
    assert out[out.index("you: register 1: U/10") - 1].startswith("playing U/30 as U/10: cards of one class have the "
                                                                  "same effect this turn")
    assert "'u/10': U/10 is in register 1 already" in text
    assert "'m3/620': M3/620: the card of priority 620 in your hand is M1/620" in text
    assert "'/999': no card of priority 999 in your hand (U/30 R/190 L/320 M1/530 M1/560 M1/620 M2/720 M2/740)" in text
    assert "you: register 2: M2/740" in text and "playing M2/740" not in text  # a card offered as it is


def test_roborally_every_card_listed_with_card_classes_off():
    """`card_classes=False`: the hand's every card is a listed move, a typed card goes in as itself (no note), and
    the view says nothing of cards waiting behind others."""
    from evaluate.roborally.person import read_move

    out: list[str] = []
    play_session("roborally", 0, ["roborally/greedy"], {"card_classes": False}, seed=3,
                 ask=Script(["U/30"], tail=None), say=out.append)
    first = "\n".join(out).split("you: register 1")[0]
    assert "you: register 1: U/30" in out and "playing U/30" not in "\n".join(out)
    assert "cards of one class" not in first
    game = envs.make_game("roborally", card_classes=False)
    state = game.initial_state(np.random.default_rng(3))
    assert [game.action_to_string(state, a) for a in game.legal_actions(state)][:2] == [
        "register 1: U/10",
        "register 1: U/30",
    ]
    assert read_move(game, state, "U/30") == (1, "")


def test_roborally_each_register_is_told_as_it_runs():
    """After a turn runs, terminal play tells each register: the cards that ran, by priority (each the card the
    robot had programmed there), and where each robot ended; a flag touched is named."""
    from envs.roborally.cards import card_name
    from evaluate.roborally import round_summary

    game = envs.make_game("roborally")
    names = ["robot 1", "you"]
    state, rng, told = game.deal(3), np.random.default_rng(0), []
    while not game.is_terminal(state) and len(told) < 4:
        before = state
        state = game.apply(state, int(rng.choice(game.legal_actions(state))))
        text = round_summary(game, before, state, names)
        if state.turn == before.turn:
            assert text is None
            continue
        lines = text.splitlines()
        assert lines[0] == f"turn {state.turn} ran, register by register (cards in priority order):"
        prev = before.robots
        for frame, line in zip(state.frames, lines[1:]):
            ran = sorted(((c, i) for i, c in enumerate(frame.cards) if c), reverse=True)
            assert ran and all(c == before.registers[i][frame.register - 1] for c, i in ran)  # the programmed card
            cards = ", ".join(f"{names[i]} {card_name(c, game.numbering)}" for c, i in ran)
            assert line.startswith(f"  register {frame.register}: {cards} -> ")
            for i, (a, r) in enumerate(zip(prev, frame.robots)):
                where = f"{names[i]} at ({r.x},{r.y}) facing {'NESW'[r.facing]}"
                moved = r.on_board and a.on_board and (a.x, a.y, a.facing) != (r.x, r.y, r.facing)
                assert (where in line) == moved or not r.on_board
            prev = frame.robots
        told.append(text)
    assert len(told) == 4 and any("register 5:" in t for t in told)
    out: list[str] = []
    play_session("roborally", 0, ["roborally/greedy"], {}, seed=3, ask=Script([], tail="1"), say=out.append)
    text = "\n".join(out)
    assert "turn 1 ran, register by register" in text and "touched the last flag and won" in text


def test_roborally_program_mode_reads_a_whole_program_by_its_cards():
    from evaluate.roborally.person import read_move

    game = envs.make_game("roborally", action_mode="program")
    state = game.initial_state(np.random.default_rng(3))
    action, note = read_move(game, state, "U/30 R/190 M1/530 M1/560 M2/720")
    assert (
        action in game.legal_actions(state)
        and game.action_to_string(state, action) == "U/10 R/190 M1/530 M1/560 M2/720"
    )
    assert note.startswith("playing U/30 as U/10: ")
    action, note = read_move(game, state, "u/10 u/30 r/190 l/320 m1/530")
    assert game.action_to_string(state, action) == "U/10 U/30 R/190 L/320 M1/530" and note == ""
    with pytest.raises(ValueError, match="a program here is 5 cards"):
        read_move(game, state, "U/10 R/190")
    with pytest.raises(ValueError, match="POWER_DOWN cannot be announced now"):  # undamaged robot
        read_move(game, state, "U/30 R/190 M1/530 M1/560 M2/720 power_down")
    with pytest.raises(ValueError, match="one register only"):
        read_move(game, state, "U/10 U/10 R/190 L/320 M1/530")
    assert read_move(game, state, "hello") is None and read_move(game, state, "3") is None


def test_lama_quit_is_a_move_and_exit_leaves():
    out: list[str] = []
    ask = Script(["?", "q", ":exit", "n", "quit", ":exit", "y"])
    assert play_session("lama", 0, ["lama/first"], {}, seed=5, ask=ask, say=out.append) == [None]
    text = "\n".join(out)
    assert "goal: have the fewest penalty points" in text
    assert "'q' is not a legal move" in text and "to leave the game type :exit" in text
    assert "you: quit" in text  # "quit" is the L.A.M.A. move (leave the round)
    assert "round 1 over: player_3 emptied their hand." in text and "you +25 = 25" in text
    assert out[-1] == "game ended (you left)"


def test_lama_round_summaries_and_plain_winners():
    out: list[str] = []
    res = play_session("lama", 0, ["lama/first"], {}, seed=5, ask=Script([]), say=out.append)
    text = "\n".join(out)
    summaries = [line for line in out if line.startswith("round ") and " over: " in line]
    assert len(summaries) >= 2 and all("Penalty points this round and totals: you " in s for s in summaries)
    assert "a chip returned" in text
    winners = [i for i, r in enumerate(res[0]) if r > 0]
    assert out[-1] == ("you win" if winners == [0] else f"player_{winners[0]} wins") or "share" in out[-1]
    board = out[out.index("--- game over ---") + 1]
    names = [f"player_{i}" for i in winners]
    assert board.splitlines()[-1] == (f"game over. Winner: {names[0]}" if len(names) == 1
                                      else f"game over. Winners: {', '.join(names[:-1])} and {names[-1]}")
    assert "[" not in board.splitlines()[-1]


@pytest.mark.parametrize("totals, line", [((30, 12, 40), "game over. Winner: player_1"),
                                          ((9, 20, 9, 31), "game over. Winners: player_0 and player_2"),
                                          ((5, 5, 5), "game over. Winners: player_0, player_1 and player_2")])
def test_lama_render_names_winners_plainly(totals, line):
    game = envs.make_game("lama", num_players=len(totals))
    state = game.initial_state(np.random.default_rng(0))._replace(totals=totals, game_over=True)
    assert game.render(state).splitlines()[-1] == line


def test_record_with_games_is_refused(capsys, tmp_path):
    with pytest.raises(SystemExit) as e:
        evaluate_main(["roborally", "--record", str(tmp_path / "r.gif"), "--games", "3"])
    err = capsys.readouterr().err.strip()
    assert e.value.code == 2 and len(err.splitlines()) == 1 and "drop --games" in err
