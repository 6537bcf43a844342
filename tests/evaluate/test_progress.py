"""The progress bar of tournaments and paired runs: shown from the start, naming a first run's compilation."""

from __future__ import annotations

import numba
import numpy as np

import agents
from evaluate.tournament import compiling_first, progress_bar, run_tournament, uncompiled


def test_a_tournament_and_a_paired_run_show_a_bar_of_games(capsys):
    from evaluate.paired import run_paired

    run_tournament("lama", ["lama/ppo", "lama/first", "lama/first", "lama/first"], games=8, progress=True)
    err = capsys.readouterr().err
    assert "lama tournament" in err and "0/8" in err and "game/s" in err  # shown before the first game
    run_paired("lama", "lama/ppo", "lama/first", "lama/first", games=3, progress=True)
    err = capsys.readouterr().err
    assert "lama paired" in err and "0/24" in err  # 3 deals x 4 focal seats x 2 agents


def test_the_bar_names_a_first_runs_compilation(capsys):
    @numba.njit(cache=False)
    def fresh(x):
        return x + 1

    class Play:
        """A compiled runner's `play` whose kernel has not been compiled yet."""

        kernels = (fresh,)

    class Runner:
        play = Play()

    assert uncompiled(Play.kernels)
    bar = progress_bar(2, "lama tournament", True)
    seen = []
    for block in compiling_first(iter([[1], [2]]), Runner(), "lama", bar):
        seen.append(bar.desc)
        fresh(np.int64(block[0]))
        bar.update(1)
    bar.close()
    assert seen == ["lama tournament", "lama tournament"]  # back to the tournament once the first block is in
    said = agents.part("lama").compile_seconds
    assert f"compiling L.A.M.A. kernels, first run only, ~{said:.0f} s" in capsys.readouterr().err
    assert not uncompiled(Play.kernels)  # compiled in this process now



class _Bar:
    """A progress bar that keeps what it was told (its count after each update, its postfixes)."""

    disable, n, desc = False, 0, "bar"

    def __init__(self):
        self.told = []

    def update(self, k=1):
        self.n += k
        self.told.append(self.n)

    def set_postfix_str(self, text, refresh=True):
        self.told.append(text)

    def set_description_str(self, text, refresh=True):
        self.desc = text

    def close(self):
        pass


def test_a_python_tournament_moves_its_bar_game_by_game_and_shows_the_game_in_play(capsys, monkeypatch):
    """On the Python engine in this process the bar moves after every game, not every deal of four, and shows the
    decisions of the game in play (a Monte-Carlo entrant takes seconds a game); `progress=False` draws nothing."""
    from evaluate import tournament

    bar = _Bar()
    monkeypatch.setattr(tournament, "progress_bar", lambda total, desc, progress: bar)
    monkeypatch.setattr(tournament.Watch, "every", 0.0)
    result = run_tournament("lama", ["lama/first"] * 4, games=8, seed=0, progress=True, engine="python")
    counts = [x for x in bar.told if isinstance(x, int)]
    assert counts == list(range(1, 9)) and result.games == 8
    shown = [x for x in bar.told if isinstance(x, str) and x]
    assert shown[:3] == [f"decision {k} of the game in play" for k in (1, 2, 3)]
    assert len(shown) >= 8 * 20  # every decision of every game (a L.A.M.A. game has dozens)
    bar.told.clear()
    bar.n = 0
    run_tournament("lama", ["lama/first"] * 4, games=8, seed=0, progress=True, engine="compiled")
    assert [x for x in bar.told if isinstance(x, int)] == [8]  # compiled: a block of deals at a time
    monkeypatch.undo()
    run_tournament("lama", ["lama/first"] * 4, games=4, seed=0, progress=False, engine="python")
    assert capsys.readouterr().err == ""


def test_a_python_paired_run_moves_its_bar_game_by_game(monkeypatch):
    """--paired on the Python engine in this process: the bar moves after every game of a deal (8 of them: 4 focal
    seats x 2 agents), the game in play shown."""
    from evaluate import paired, tournament

    bar = _Bar()
    monkeypatch.setattr(paired, "progress_bar", lambda total, desc, progress: bar)
    monkeypatch.setattr(tournament.Watch, "every", 0.0)
    paired.run_paired("lama", "lama/first", "lama/second", "lama/first", games=2, progress=True, engine="python")
    assert [x for x in bar.told if isinstance(x, int)] == list(range(1, 17))
    assert "decision 1 of the game in play" in bar.told


def test_a_league_shows_a_bar_of_deals(capsys):
    """--league shows a bar of its deals from the start (the compiled runner here: kernels only); progress=False
    draws nothing."""
    from evaluate.league import run_league

    result = run_league("lama", ["lama/first", "lama/third-retuned"], games=4, bootstrap=2, progress=True)
    err = capsys.readouterr().err
    assert "lama league" in err and "0/4" in err and "deal/s" in err
    run_league("lama", ["lama/first", "lama/third-retuned"], games=4, bootstrap=2, progress=False)
    assert capsys.readouterr().err == ""
    assert result.deals == 4


def test_compiled_blocks_start_small_then_follow_the_rate_of_the_last_block():
    """`compiled_blocks` covers every deal once, in order: a first block of FIRST_BLOCK deals, then as many as the
    last block's rate plays in `target` seconds (COMPILED_BLOCK at most, 1 at least)."""
    import time

    from evaluate.tournament import COMPILED_BLOCK, FIRST_BLOCK, compiled_blocks

    quick = list(compiled_blocks(3000, lambda part: part, start=5, target=float("inf")))
    assert [d for part in quick for d in part] == list(range(5, 3005))
    assert [len(part) for part in quick[:3]] == [FIRST_BLOCK, COMPILED_BLOCK, COMPILED_BLOCK]
    slow = [len(part) for part in compiled_blocks(20, lambda part: part, target=0.0)]
    assert slow[0] == FIRST_BLOCK and set(slow[1:]) == {1} and sum(slow) == 20

    def ten_ms_a_deal(part):
        time.sleep(0.01 * len(part))
        return part

    sizes = [len(part) for part in compiled_blocks(60, ten_ms_a_deal, target=0.2)]
    assert sizes[0] == FIRST_BLOCK and all(5 <= s <= 20 for s in sizes[1:-1])  # about 0.2 s / 10 ms


def test_compiled_figures_do_not_depend_on_the_blocks(monkeypatch):
    """A tournament and a paired run on the compiled engine give the same JSON in blocks of one or two deals as in
    the default blocks, a sampling network's games included (its streams follow from the deal alone)."""
    from evaluate import tournament
    from evaluate.paired import run_paired

    ids = ["lama/ppo-sb3", "lama/ppo", "lama/first", "lama/first"]
    case = dict(games=48, seed=3, progress=False, records=True, engine="compiled")
    pair = dict(game_name="lama", a_id="lama/ppo-sb3", b_id="lama/first", against="lama/first", games=5, seed=1,
                engine="compiled")
    whole, paired = run_tournament("lama", ids, **case).to_dict(), run_paired(**pair).to_dict()
    monkeypatch.setattr(tournament, "FIRST_BLOCK", 1)
    monkeypatch.setattr(tournament, "COMPILED_BLOCK", 2)
    assert run_tournament("lama", ids, **case).to_dict() == whole
    assert run_paired(**pair).to_dict() == paired


def test_the_game_reproductions_show_a_bar_of_cells(capsys):
    """The Game's --reproduce parts (minutes of Python games) show a bar of their cells; progress=False: none."""
    from evaluate.the_game.reproduce import reproduce_berger2024, reproduce_official

    cells = reproduce_berger2024(games=2, players=(1, 2), progress=True)
    err = capsys.readouterr().err
    assert "berger2024 table" in err and f"0/{len(cells)}" in err and "cell/s" in err
    reproduce_official(games=2, players=(2,), progress=True)
    assert "official-rules baselines" in capsys.readouterr().err
    reproduce_berger2024(games=2, players=(1,), progress=False)
    assert capsys.readouterr().err == ""
