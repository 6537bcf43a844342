"""Terminal play as a newcomer meets it: no question with one answer, The Game's moves a pile a line, plain
counts and card lists on the screens, and misuse refused in one line before any deal is announced."""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np

import envs
import evaluate.games
from evaluate.play import menu, play_session


class Script:
    """Answers `answers`, then `tail` forever; "n" to the replay question; every prompt kept."""

    def __init__(self, answers=(), tail="1"):
        self.answers, self.tail, self.prompts = list(answers), tail, []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        if prompt.startswith("replay"):
            return "n"
        return self.answers.pop(0) if self.answers else self.tail


def test_roborally_never_asks_for_its_only_move():
    out: list[str] = []
    ask = Script()
    play_session("roborally", 0, ["roborally/random"], {}, seed=1, ask=ask, say=out.append)
    text = "\n".join(out)
    # the sub-step after register 5 offers NOOP alone unless a power-down may be announced: played for you
    assert "you: NOOP (your only move)" in text
    assert not any("(1..1 " in p for p in ask.prompts)
    menus = [m for m in re.findall(r"(?:^  \d+\. .*\n?)+", text, flags=re.M)]
    assert menus and all(m.count("\n  ") >= 1 for m in menus)  # every menu shown has two moves or more


def test_roborally_final_board_keeps_its_coordinates():
    out: list[str] = []
    play_session("roborally", 0, ["roborally/greedy"], {}, seed=3, ask=Script(), say=out.append)
    end = out.index("--- game over ---")
    board = out[end + 1].splitlines()
    width = envs.make_game("roborally").board.width
    assert board[1].split() == [str(x) for x in range(width)]  # the column numbers, as in every turn's board
    assert board[3].split()[0] == "0"  # row 0 numbered


def test_power_round_heading_names_the_choice():
    from evaluate.roborally import describe_view

    game = envs.make_game("roborally")
    state = game.initial_state(np.random.default_rng(0))
    while state.step < 5 * game.num_players:  # every robot fills its five registers
        state = game.apply(state, game.legal_actions(state)[0])
    text = describe_view(game, game.view(state, game.current_player(state)))
    assert "register 6" not in text and "programming register 5 of 5" not in text
    assert "registers are set" in text.splitlines()[0]


def test_the_game_menu_is_a_pile_a_line_and_numbers_pick_what_they_show():
    game = envs.make_game("the_game")
    state = game.initial_state(np.random.default_rng(2))
    legal = list(game.legal_actions(state))
    names = [game.action_to_string(state, a) for a in legal]
    order, lines = menu(names, evaluate.games.part("the_game").move_group)
    assert len(names) == 28 and len(lines) == 4  # 7 cards x 4 piles, one line per pile
    assert sorted(order) == list(range(len(names)))
    shown = re.findall(r"(\d+)\. (\d+)", " ".join(lines))
    assert [int(k) for k, _ in shown] == list(range(1, len(names) + 1))
    for line in lines:
        pile = line.split(":")[0].split()[-1]
        for k, card in re.findall(r"(\d+)\. (\d+)", line):
            assert names[order[int(k) - 1]] == f"play {card} on {pile}"
    # in play, number 8 (the first card on the second pile) plays exactly that move
    out: list[str] = []
    play_session("the_game", 0, ["the_game/trick"], {}, seed=2, ask=Script(["8", ":exit", "y"]), say=out.append)
    first_on_up1 = names[order[7]]
    assert first_on_up1.endswith("on up1") and f"you: {first_on_up1}" in out


def test_menu_without_groups_is_one_move_a_line():
    order, lines = menu(["pass", "bet"])
    assert order == [0, 1] and lines == ["  1. pass", "  2. bet"]
    order, lines = menu(["play 3 on up0", "end turn", "play 4 on up0"], evaluate.games.part("the_game").move_group)
    assert lines == ["  play on up0: 1. 3  2. 4", "  3. end turn"] and order == [0, 2, 1]


def test_end_screens_count_and_list_in_words():
    for game, opponent, options in (("the_game", "the_game/trick", {}),
                                    ("primi_composti", "primi_composti/greedy_rand", {"cards_per_player": 4}),
                                    ("lama", "lama/first", {"num_players": 3})):
        out: list[str] = []
        play_session(game, 0, [opponent], options, seed=2, ask=Script(), say=out.append)
        text = "\n".join(out)
        assert "--- game over ---" in text
        assert "(s)" not in text and not re.search(r"\b1 cards\b", text), game
        assert not re.search(r"\[\d+(, \d+)*\]|\[\]", text), game  # no Python lists of cards
    assert re.search(r"\b1 card\b", text)  # this L.A.M.A. deal does come down to one card in a hand


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "evaluate", "play", *args], capture_output=True, text=True,
                          timeout=120, input="")


def test_misuse_is_one_line_and_no_seed_line():
    for args, words in ((["lama", "--opponents", "lama/third,lama/first"], "needs 3 agent ids"),
                        (["simple_poker", "--seat", "2"], "seat must be in 0..1"),
                        (["lama", "--opponents", "nobody"], "unknown agent 'nobody'"),
                        (["lama", "--opponents", "simple_poker/nash"], "does not play 'lama'"),
                        (["the_game", "--option", "num_players=1", "--opponents", "the_game/trick"],
                         "no seat for --opponents the_game/trick")):
        r = _cli(*args, "--seed", "5")
        assert r.returncode == 2 and r.stdout == "", r.stdout
        assert len(r.stderr.splitlines()) == 1 and words in r.stderr and "['" not in r.stderr, r.stderr


def test_a_game_for_one_plays_alone_and_says_the_seed_first():
    r = _cli("the_game", "--option", "num_players=1", "--seed", "5")  # end of input at the first move
    lines = r.stdout.splitlines()
    assert r.returncode == 0, r.stderr
    assert lines[0] == "seed 5 (replay this deal with --seed 5)"
    assert lines[1] == "The Game: you are player_0 (seat 0); you play alone; ? explains the moves, :exit leaves"
