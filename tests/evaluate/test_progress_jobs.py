"""The bars of the games' own long jobs (Primi Composti's and L.A.M.A.'s reproductions) and the note a bar shows
while numba compiles a kernel called from plain Python (a Monte-Carlo entrant's first decision)."""

from __future__ import annotations

import numba
import numpy as np

from evaluate import tournament
from evaluate.tournament import compiling_note, compiling_text, progress_bar, run_tournament


class _Bar:
    """A progress bar that keeps the descriptions it was given."""

    disable, n = False, 0

    def __init__(self, desc: str = "bar"):
        self.desc, self.descs = desc, []

    def update(self, k=1):
        self.n += k

    def set_postfix_str(self, text, refresh=True):
        pass

    def set_description_str(self, text, refresh=True):
        self.desc = text
        self.descs.append(text)

    def close(self):
        pass


def test_primi_composti_reproduction_and_claims_show_a_bar_of_cells(capsys):
    """--reproduce shows a bar of each table group's cells, --claims one of its cells; progress=False: none."""
    from evaluate.primi_composti.reproduce import claims, reproduce

    lines = []
    out = reproduce(["XII-XIII"], games=2, seed=0, log=lines.append, progress=True)
    err = capsys.readouterr().err
    assert "Primi Composti, Tables XII-XIII" in err and f"0/{len(out['XII-XIII'])}" in err and "cell/s" in err
    rows = claims(2, 0, players=("rand",), log=lines.append, progress=True)
    err = capsys.readouterr().err
    assert "Primi Composti, seat claims" in err and f"0/{len(rows)}" in err
    reproduce(["XII-XIII"], games=2, seed=0, log=lines.append, progress=False)
    claims(2, 0, players=("rand",), log=lines.append, progress=False)
    assert capsys.readouterr().err == ""
    assert len(lines) == 2 + 2 * len(rows)  # the tables and claim lines themselves still come


def test_lama_reproduction_and_search_show_a_bar_of_their_games(capsys, monkeypatch):
    """--reproduce and --tune-third show a bar of their games that ends at its total; progress=False: none."""
    from evaluate.lama import reproduce as lama

    made = []

    def keep(*args, **kwargs):
        made.append(progress_bar(*args, **kwargs))
        return made[-1]

    monkeypatch.setattr(lama, "progress_bar", keep)
    lama.reproduce(games=40, seed=1, out=None, progress=True)
    total = lama.reproduce_games(40, 40)
    err = capsys.readouterr().err
    assert "L.A.M.A., the seed's tables and figures" in err and f"0/{total}" in err and "game/s" in err
    assert made[-1].total == total and made[-1].n == total  # every game played is counted, once
    lama.tune_third(candidates=5, games_per_candidate=10, retest_games=20, seed=1, progress=True)
    err = capsys.readouterr().err
    assert "L.A.M.A., strategy-3 search" in err
    assert made[-1].n == made[-1].total == 5 * 10 + sum(g * k for g, k in lama.halving_schedule(5, 50, 3)) + 4 * 20
    lama.reproduce(games=20, seed=1, out=None, progress=False)
    lama.tune_third(candidates=2, games_per_candidate=5, retest_games=5, seed=1, progress=False)
    assert capsys.readouterr().err == ""


def test_the_compiling_note_lasts_while_numba_compiles():
    """A compile inside the block (nested kernels: one note) shows the note, then the bar's own description; a
    kernel already compiled, or a disabled bar, shows nothing."""

    @numba.njit(cache=False)
    def inner(x):
        return x * 2

    @numba.njit(cache=False)
    def outer(x):
        return inner(x) + 1

    bar = _Bar("lama tournament")
    with compiling_note(bar, "lama", 20):
        assert outer(np.int64(1)) == 3
        outer(np.int64(2))
    assert bar.descs == ["compiling L.A.M.A. kernels, first run only, ~20 s", "lama tournament"]
    assert compiling_text("lama") == "compiling L.A.M.A. kernels, first run only"

    @numba.njit(cache=False)
    def other(x):
        return x - 1

    off = _Bar()
    off.disable = True
    with compiling_note(off, "lama"):
        other(np.int64(1))
    assert off.descs == []

    @numba.njit(cache=False)
    def third(x):
        return x - 2

    named = _Bar(compiling_text("lama", 20))  # `compiling_first` has named the compile already, with its seconds
    with compiling_note(named, "lama"):
        third(np.int64(1))
    assert named.descs == [] and named.desc == compiling_text("lama", 20)


def _with_a_fresh_kernel(monkeypatch, agent_class=None):
    """`agent_class` (default `lama/first`'s) compiles a new kernel at its first decision (as a Monte-Carlo search
    compiles its own)."""
    from agents.lama.strategies import FirstStrategy

    agent_class = agent_class or FirstStrategy

    @numba.njit(cache=False)
    def fresh(x):
        return x + 1

    act = agent_class.act

    def compiling_act(self, view, mask):
        fresh(np.int64(1))
        return act(self, view, mask)

    monkeypatch.setattr(agent_class, "act", compiling_act)


def test_a_python_tournament_names_an_entrants_first_compile(capsys, monkeypatch):
    """On the Python engine an entrant that compiles a kernel at its first decision (a Monte-Carlo search) is seen
    compiling on the bar, which then shows the tournament again; progress=False draws nothing."""

    def with_a_fresh_kernel():
        _with_a_fresh_kernel(monkeypatch)

    with_a_fresh_kernel()
    bar = _Bar("lama tournament")
    monkeypatch.setattr(tournament, "progress_bar", lambda total, desc, progress: bar)
    run_tournament("lama", ["lama/first"] * 4, games=4, seed=0, progress=True, engine="python")
    assert bar.descs[:2] == [compiling_text("lama"), "lama tournament"] and bar.n == 4
    assert set(bar.descs[2:]) <= {"lama tournament"}  # the compile is named once, at the first decision
    monkeypatch.undo()
    with_a_fresh_kernel()
    run_tournament("lama", ["lama/first"] * 4, games=4, seed=0, progress=True, engine="python")
    assert compiling_text("lama") in capsys.readouterr().err
    with_a_fresh_kernel()
    run_tournament("lama", ["lama/first"] * 4, games=4, seed=0, progress=False, engine="python")
    assert capsys.readouterr().err == ""


def test_python_paired_runs_and_leagues_name_an_entrants_first_compile(monkeypatch):
    """--paired and --league on the Python engine name an entrant's first compile on their bars too."""
    from evaluate import league, paired

    for module, run in ((paired, lambda: paired.run_paired("lama", "lama/first", "lama/second", "lama/first",
                                                           games=1, progress=True, engine="python")),
                        (league, lambda: league.run_league("lama", ["lama/first", "lama/second"], games=2,
                                                           bootstrap=1, progress=True, engine="python"))):
        _with_a_fresh_kernel(monkeypatch)
        bar = _Bar(f"lama {module.__name__.rsplit('.', 1)[-1]}")
        monkeypatch.setattr(module, "progress_bar", lambda *args, _bar=bar, **kwargs: _bar)
        run()
        assert bar.descs[:2] == [compiling_text("lama"), bar.desc] and bar.n > 0
        monkeypatch.undo()


def test_a_recorded_race_names_a_drivers_first_compile(capsys, monkeypatch, tmp_path):
    """RoboRally's --record: a driver that compiles at its first decision (`roborally/mc`) is named on the bar."""
    from agents.base import RandomAgent
    from envs.roborally.rules import Config, RoboRallyGame
    from evaluate.roborally.boards import record_race

    _with_a_fresh_kernel(monkeypatch, RandomAgent)
    game = RoboRallyGame(Config(board="tiny", num_robots=2))
    record_race(game, ["random", "random"], str(tmp_path / "race.gif"), turns=1, progress=True)
    assert compiling_text("roborally") in capsys.readouterr().err
