"""The progress bar of tournaments and paired runs: shown from the start, naming a first run's compilation."""

from __future__ import annotations

import numba
import numpy as np

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
    assert "compiling L.A.M.A. kernels, first run only" in capsys.readouterr().err
    assert not uncompiled(Play.kernels)  # compiled in this process now
