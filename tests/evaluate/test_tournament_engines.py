"""The tournament's two engines: the compiled whole-game runner plays the same deals and, for deterministic
entrants, the same games as the agents' Python `act` (`evaluate.tournament`, `agents.part(game).compiled_games`)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from evaluate.tournament import run_tournament


def _both(**case):
    py = run_tournament(**case, progress=False, engine="python").to_dict()
    cc = run_tournament(**case, progress=False, engine="compiled").to_dict()
    assert (py.pop("engine"), cc.pop("engine")) == ("python", "compiled")
    return py, cc


@pytest.mark.parametrize("case", [
    dict(agent_ids=["lama/first"] * 4, games=80, seed=3),
    dict(agent_ids=["lama/third-retuned", "lama/first", "lama/second", "lama/third?a=1&b=2&c=20&d=1"], games=60,
         seed=11, options={"rules": "seed2022"}),
    dict(agent_ids=["lama/third", "lama/second", "lama/first"], games=45, seed=5,
         options={"reward": "dense", "num_players": 3}),
    dict(agent_ids=["lama/third"] * 4 + ["lama/first"] * 3, games=21, seed=2,
         options={"rules": "seed2022", "num_players": 7}),
    dict(agent_ids=["lama/third-default", "lama/first", "lama/first", "lama/second"], games=30, seed=1,
         seating="fixed"),
    # a move limit inside most games: both engines cut them at the same move, with no winner
    dict(agent_ids=["lama/third-retuned", "lama/first", "lama/second", "lama/third"], games=60, seed=4, max_turns=150),
    dict(agent_ids=["lama/third", "lama/second", "lama/first"], games=45, seed=6, max_turns=90,
         options={"reward": "dense", "num_players": 3, "rules": "seed2022"}),
], ids=["first*4", "seed2022", "dense-3p", "7p", "fixed", "cut", "cut-dense-seed2022"])
def test_compiled_engine_gives_the_python_figures(case):
    py, cc = _both(game_name="lama", **case)
    assert cc == py  # every win rate, score, interval, per-seat figure and the mean turns, exactly
    if "max_turns" in case:  # some games were cut, not all: both paths are compared
        assert 0 < py["at_move_limit"] < case["games"]
    assert py["games"] == case["games"] + (-case["games"]) % (
        1 if case.get("seating") == "fixed" else len(case["agent_ids"])
    )


@pytest.mark.parametrize("case", [
    dict(agent_ids=["the_game/bestplays"] * 2, games=60, seed=3),
    dict(agent_ids=["the_game/simplest", "the_game/bestplays", "the_game/bestplays"], games=60, seed=1,
         options={"num_players": 3, "empty_hand": "ends_game", "win_bonus": 3.0}),
    dict(agent_ids=["the_game/simplest"] * 2, games=20, seed=2, options={"actions": "slot"}, seating="fixed"),
], ids=["bestplays-2p", "mixed-3p", "slot-fixed"])
def test_compiled_engine_gives_the_python_figures_in_the_game(case):
    py, cc = _both(game_name="the_game", **case)
    assert cc == py
    assert py["mean_turns"] > 50  # whole games were played


@pytest.mark.parametrize("case", [
    dict(agent_ids=["primi_composti/greedy_rand", "primi_composti/greedy_asc"], games=40, seed=3),
    dict(agent_ids=["primi_composti/rand", "primi_composti/desc"], games=40, seed=1,
         options={"version": 2, "cards_per_player": 6, "reward": "result"}),
    dict(agent_ids=["primi_composti/minimax?depth=2", "primi_composti/greedy_desc"], games=20, seed=2,
         options={"cards_per_player": 6, "reward": "score"}, seating="fixed"),
    dict(agent_ids=["primi_composti/greedy_rand", "primi_composti/greedy_asc", "primi_composti/rand"], games=30,
         seed=4, options={"num_players": 3, "version": 2, "cards_per_player": 5, "seat0_holds_two": False}),
    dict(agent_ids=["primi_composti/greedy_desc", "primi_composti/greedy_rand"] * 2, games=20, seed=5,
         options={"num_players": 4, "cards_per_player": 4, "reward": "result"}),
    dict(agent_ids=["primi_composti/minimax?depth=2", "primi_composti/greedy_rand"], games=30, seed=6,
         options={"version": 2, "cards_per_player": 6, "steal_choice": "player", "allow_revealed_operand": True}),
    dict(agent_ids=["primi_composti/greedy_asc", "primi_composti/greedy_rand", "primi_composti/desc"], games=30,
         seed=7, options={"num_players": 3, "version": 2, "cards_per_player": 5, "allow_revealed_operand": True}),
], ids=["greedy", "v2-result", "minimax-fixed", "v2-3p", "4p", "v2-official", "v2-revealed-3p"])
def test_compiled_engine_gives_the_python_figures_in_primi_composti(case):
    py, cc = _both(game_name="primi_composti", **case)
    assert cc == py


def test_the_game_compiled_engine_counts_won_games_as_python_does():
    py, cc = _both(game_name="the_game", agent_ids=["the_game/bestplays"] * 2, games=60, seed=3)
    assert cc == py and py["agents"][0]["wins"] > 0  # some of these deals are won: the winners path is compared


def test_auto_takes_the_compiled_engine_only_where_it_plays_the_same_games():
    det = ["lama/third-retuned", "lama/first", "lama/first", "lama/first"]
    assert run_tournament("lama", det, games=8, progress=False).engine == "compiled"
    # a random entrant draws from another stream in the kernel; a move limit is (`max_turns`)
    assert run_tournament("lama", ["random"] + det[1:], games=8, progress=False).engine == "python"
    assert run_tournament("lama", det, games=8, max_turns=50, progress=False).engine == "compiled"
    assert run_tournament("the_game", ["the_game/bestplays"] * 2, games=4, max_turns=50,
                          progress=False).engine == "python"  # its runner cuts no game
    assert run_tournament("simple_poker", ["simple_poker/nash", "random"], games=8, progress=False).engine == "python"
    # options the compiled game loop does not play
    bp = ["the_game/bestplays"] * 2
    assert run_tournament("the_game", bp, games=4, progress=False).engine == "compiled"
    assert run_tournament("the_game", bp, games=4, options={"communication": "pile_flags"},
                          progress=False).engine == "python"
    gr = ["primi_composti/greedy_rand"] * 2
    assert run_tournament("primi_composti", gr, games=4, progress=False).engine == "compiled"
    assert run_tournament("primi_composti", gr, games=4, options={"version": 2, "steal_choice": "player"},
                          progress=False).engine == "compiled"
    assert run_tournament("primi_composti", gr + ["primi_composti/rand"], games=3, options={"num_players": 3},
                          progress=False).engine == "compiled"


def test_forcing_the_compiled_engine_where_it_cannot_run_says_why():
    with pytest.raises(ValueError, match="agent 'random' has no deterministic compiled kernel.*lama/first"):
        run_tournament("lama", ["lama/first", "random", "lama/first", "lama/first"], games=8, progress=False,
                       engine="compiled")
    with pytest.raises(ValueError, match="has no compiled tournament runner; games with one: .*lama"):
        run_tournament("simple_poker", ["simple_poker/nash", "random"], games=8, progress=False, engine="compiled")
    with pytest.raises(ValueError, match="plays rules=official, communication=none, starter=0 only"):
        run_tournament("the_game", ["the_game/bestplays"] * 2, games=4, options={"starter": 1},
                       progress=False, engine="compiled")
    with pytest.raises(ValueError, match="plays games without a move limit \\(drop --max-turns\\)"):
        run_tournament("the_game", ["the_game/bestplays"] * 2, games=4, max_turns=9, progress=False, engine="compiled")
    with pytest.raises(ValueError, match="engine must be one of auto, python, compiled"):
        run_tournament("lama", ["lama/first"] * 4, games=8, progress=False, engine="numba")


def test_the_compiled_engine_starts_where_the_python_engine_does():
    """Both engines' deal d: `initial_state(rng)` (Python) is `deal(deal_key(rng))` (what the kernel replays)."""
    import numpy as np

    import envs
    from evaluate.tournament import deal_rng

    for name, options in (("lama", {}), ("lama", {"rules": "seed2022", "num_players": 6}), ("the_game", {}),
                          ("primi_composti", {"num_players": 3})):
        game = envs.make_game(name, **options)
        deal = game.deal if name == "lama" else game.deal_from  # a deal seed; a deck order
        for d in range(5):
            assert game.initial_state(deal_rng(7, d)) == deal(game.deal_key(deal_rng(7, d)))
        assert game.initial_state(np.random.default_rng(3)) != game.initial_state(np.random.default_rng(4))


def test_every_declared_compiled_runner_resolves():
    """A game that declares `compiled_games`: the runner imports, takes the default line-up (or names what it
    cannot play), and the deals it replays (`deal_keys`: the engine's `deal_key`, or the initial states of a game
    without one) are those of the Python engine's tournament."""
    import importlib

    import agents
    import envs
    from envs.core.spec import NoKernelError
    from evaluate.tournament import deal_keys, deal_start

    declared = [g for g in envs.available_games() if agents.part(g).compiled_games]
    assert {"lama", "the_game", "primi_composti", "roborally"} <= set(declared)
    for name in declared:
        part = agents.part(name)
        game = envs.make_game(name)
        keys = deal_keys(game, 5, range(2))
        if not hasattr(game, "deal_key"):
            assert keys == [deal_start(game, 5, d) for d in range(2)], name
        module, _, attr = part.compiled_games.partition(":")
        runner = getattr(importlib.import_module(module), attr)
        try:
            assert callable(runner(game, part.lineup(game.num_players)))
        except NoKernelError as e:
            assert e.agent_id in part.lineup(game.num_players)
        with pytest.raises(NoKernelError, match="'random'"):
            runner(game, ["random"] * game.num_players)
        try:  # a move limit: the runner cuts games there, or says it cannot
            assert callable(runner(game, part.lineup(game.num_players), 50))
        except NoKernelError as e:
            assert e.agent_id in part.lineup(game.num_players) or "move limit" in str(e)


def test_cli_engine_flag():
    run = [sys.executable, "-m", "evaluate", "lama", "--games", "8", "--no-progress", "--agents"]
    ok = subprocess.run(run + ["lama/third,lama/first*3", "--engine", "compiled"], capture_output=True, text=True)
    assert ok.returncode == 0 and "compiled engine" in ok.stdout.splitlines()[0]
    bad = subprocess.run(run + ["lama/third,random*3", "--engine", "compiled"], capture_output=True, text=True)
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1 and "'random'" in bad.stderr


@pytest.mark.parametrize("case", [
    dict(a_id="lama/third-retuned", b_id="lama/first", against="lama/first*3", games=25, seed=4),
    dict(a_id="lama/second", b_id="lama/third?a=1&b=2&c=20&d=1", against=["lama/third", "lama/first"], games=20,
         seed=9, options={"num_players": 3, "rules": "seed2022", "reward": "dense"}),
    dict(game_name="the_game", a_id="the_game/simplest", b_id="the_game/bestplays", against="the_game/bestplays",
         games=15, seed=2, options={"num_players": 3}),
    dict(game_name="primi_composti", a_id="primi_composti/greedy_asc", b_id="primi_composti/greedy_rand",
         against="primi_composti/greedy_desc", games=15, seed=2, options={"cards_per_player": 6}),
    # a move limit inside many games: both engines cut them at the same move, and count them
    dict(a_id="lama/third-retuned", b_id="lama/second", against="lama/first", games=10, seed=4, max_turns=150),
], ids=["4p", "3p-dense", "the_game", "primi_composti", "cut"])
def test_paired_compiled_engine_gives_the_python_figures(case):
    from evaluate.paired import format_paired, run_paired

    case = {"game_name": "lama", **case}
    py = run_paired(**case, engine="python").to_dict()
    result = run_paired(**case, engine="compiled")
    cc = result.to_dict()
    assert (py.pop("engine"), cc.pop("engine")) == ("python", "compiled")
    assert cc == py
    if "max_turns" in case:  # some of A's and of B's 40 games were cut, not all
        assert py["max_turns"] == 150 and all(0 < c < 40 for c in py["at_move_limit"])
        assert (f"{result.at_move_limit[0]} of A's 40 games and {result.at_move_limit[1]} of B's reached the move "
                "limit (150 moves)") in format_paired(result)
    elif case["game_name"] != "lama":  # no move limit: nothing said of one
        assert "max_turns" not in py and "move limit" not in format_paired(result)


@pytest.mark.parametrize("game,ids,against,options", [
    ("lama", ["lama/third", "lama/first", "lama/second"], "lama/first", {}),
    ("the_game", ["the_game/bestplays", "the_game/simplest", "the_game/bestplays"], "self", {"num_players": 2}),
], ids=["lama-3-agents", "the_game-self-team"])
def test_paired_many_compiled_gives_the_python_figures(game, ids, against, options):
    from evaluate.paired import run_paired_many

    py = [r.to_dict() for r in run_paired_many(game, ids, against, games=6, seed=3, options=options, engine="python")]
    cc = [r.to_dict() for r in run_paired_many(game, ids, against, games=6, seed=3, options=options, engine="compiled")]
    assert [(p.pop("engine"), c.pop("engine")) for p, c in zip(py, cc)] == [("python", "compiled")] * 2
    assert cc == py


def test_paired_auto_and_forced_engines():
    from evaluate.paired import run_paired

    assert run_paired("lama", "lama/third", "lama/first", "lama/first", games=3).engine == "compiled"
    assert run_paired("lama", "lama/third", "random", "lama/first", games=3).engine == "python"
    with pytest.raises(ValueError, match="agent 'random' has no deterministic compiled kernel"):
        run_paired("lama", "lama/third", "lama/first", "random", games=3, engine="compiled")


def test_cli_engine_flag_for_paired_and_elsewhere():
    run = [sys.executable, "-m", "evaluate", "lama", "--games", "4", "--no-progress"]
    ok = subprocess.run(
        run + ["--paired", "lama/third,lama/first", "--against", "lama/first*3", "--engine", "compiled"],
        capture_output=True,
        text=True,
    )
    assert ok.returncode == 0 and "compiled engine" in ok.stdout.splitlines()[0]
    bad = subprocess.run(run + ["--league", "--engine", "python"], capture_output=True, text=True)
    assert bad.returncode == 2 and "--engine applies to tournaments and --paired" in bad.stderr
    ray = subprocess.run(run + ["--engine", "compiled", "--backend", "ray"], capture_output=True, text=True)
    assert ray.returncode == 2 and ray.stderr.strip().endswith("drop --backend") and "Ray" not in ray.stderr


def test_a_game_that_never_ends_is_cut_at_the_games_move_limit():
    """L.A.M.A.'s seed reshuffle lets players who never fold go on for ever: deal 584 of seed 5 at this table
    does, in its third seating (found by 2,000 deals of it). Both engines cut it at the game's `max_game_length`, with
    no winner, and say so (uncut, the compiled engine would raise past a million moves and the Python engine never
    return)."""
    import envs
    from evaluate.tournament import format_table

    limit = envs.make_game("lama").max_game_length
    case = dict(agent_ids=["lama/second", "lama/first", "lama/third", "lama/third-retuned"], games=4, seed=5,
                options={"rules": "seed2022"}, start_deal=584, records=True)
    py, cc = _both(game_name="lama", **case)
    assert cc == py
    assert py["max_turns"] == limit and py["at_move_limit"] >= 1
    assert any(r["moves"] == limit and not r["winners"] for r in py["records"])
    text = format_table(run_tournament("lama", **case, progress=False))
    assert f"reached the move limit ({limit:,} moves) and were cut" in text
