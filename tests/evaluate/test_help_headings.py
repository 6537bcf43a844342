"""`python -m evaluate GAME --help`: every game's own flags under one heading style, apart from the common ones."""

from __future__ import annotations

import pytest

import envs
from evaluate.__main__ import build_parser, game_flags_heading
from evaluate.__main__ import main as evaluate_main


def _help(argv, capsys) -> str:
    with pytest.raises(SystemExit) as e:
        evaluate_main(argv)
    assert e.value.code == 0
    return capsys.readouterr().out


def _section(text: str, heading: str) -> list[str]:
    """The flags listed under `heading` (up to the next blank line)."""
    block = text.split(f"\n{heading}:\n", 1)[1].split("\n\n", 1)[0]
    return [line.split()[0] for line in block.splitlines() if line.startswith("  -")]


@pytest.mark.parametrize("game", envs.available_games())
def test_game_flags_under_the_games_heading(game, capsys):
    parser = build_parser(game)
    own = {a.option_strings[0] for a in parser._actions if a.dest in parser.get_default("game_flags")}
    text = _help([game, "--help"], capsys)
    if not own:
        assert game_flags_heading(game) not in text
        return
    listed = set(_section(text, game_flags_heading(game)))
    assert listed == own
    common = set(_section(text, "options"))
    assert not common & own and "--agents" in common and "--no-progress" in common


def test_exact_sits_under_simple_poker_and_says_no_game_name(capsys):
    text = _help(["simple_poker", "--help"], capsys)
    assert _section(text, game_flags_heading("simple_poker")) == ["--exact"]
    assert "simple_poker: exact" not in text and "primi_composti:" not in _help(["primi_composti", "--help"], capsys)


def test_no_progress_says_what_it_hides(capsys):
    text = " ".join(_help(["lama", "--help"], capsys).split())
    assert "--no-progress hide the progress bar (games done, rate, ETA" in text
