"""A game added by files only: `examples/tictactoe` (each layer's part in a file of its own: the engine layer's spec,
engine and encoder; an agent and the default line-up; how to describe it to a person) plays through every shared
tool — the command lines, fuzzing, tournaments, leagues, terminal play, training and the PettingZoo checks — and the
shared tools name no game."""

from __future__ import annotations

import ast
import dataclasses
import importlib.util
import json
import os
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import agents
import envs
import evaluate.games
from envs.core.spec import Variant
from examples.tictactoe.evaluate import MOVE_HELP
from examples.tictactoe.spec import SPEC

ROOT = pathlib.Path(__file__).resolve().parents[2]
ENV = {**os.environ, "TABLETOP_RL_GAMES": "examples.tictactoe.spec:SPEC", "PYTHONPATH": str(ROOT)}

# Run again on the oldest supported PettingZoo (.ci/run): these tests exercise the PettingZoo-facing API.
pytestmark = pytest.mark.pettingzoo_api


@pytest.fixture(scope="module", autouse=True)
def tictactoe_registered():
    """Registered for this module's tests only (the other tests see the five games)."""
    envs.register(SPEC.id, "examples.tictactoe.spec:SPEC")
    envs.register_with_pettingzoo(SPEC.id)
    yield
    envs.unregister(SPEC.id)


def run_cli(*args: str, timeout: int = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=timeout)


def test_registered_and_known_to_the_registries():
    assert "tictactoe" in envs.available_games() and envs.home("tictactoe") == "examples.tictactoe"
    assert "tictactoe/lines" in agents.known_ids("tictactoe")
    assert agents.part("tictactoe").default_lineup == ("tictactoe/lines", "random")  # found in examples.tictactoe
    assert evaluate.games.part("tictactoe").move_help == MOVE_HELP
    game = envs.make_game("tictactoe", starter="random")
    assert game.config.starter == "random"
    with pytest.raises(ValueError, match="starter must be one of"):
        envs.make_game("tictactoe", starter="o")
    v = Variant("tictactoe", {"starter": "random"})
    assert Variant.from_json(v.to_json()) == v and v.make_game().config == game.config


def test_pettingzoo_api():
    from examples.tictactoe import env as mod

    api_test(mod.env(), num_cycles=30)
    api_test(mod.raw_env(), num_cycles=30)
    seed_test(mod.env, num_cycles=30)


@pytest.mark.pettingzoo_registry
def test_pettingzoo_registry():
    import pettingzoo

    env = pettingzoo.make("aec", "tabletop/tictactoe-v0")
    env.reset(seed=1)
    with pytest.raises(ValueError, match="turn-based"):
        pettingzoo.make("parallel", "tabletop/tictactoe-v0")


def test_fuzz_and_tournament_in_process():
    from evaluate.fuzz import fuzz, variants
    from evaluate.tournament import run_tournament

    assert {"starter": "random"} in variants("tictactoe")
    report = fuzz("tictactoe", episodes=200, seed=0)
    assert report.episodes == 200 and not report.failures
    res = run_tournament("tictactoe", ["tictactoe/lines", "random"], games=200, seed=0, progress=False)
    lines = next(a for a in res.agents if a.id == "tictactoe/lines")
    assert lines.ci95[0] > 0.6  # the line player beats random play far more often than not


def test_play_in_the_terminal():
    from evaluate.play import play_session

    out: list[str] = []
    answers = iter(["?", "zzz"] + ["1"] * 20)
    results = play_session("tictactoe", 0, ["tictactoe/lines"], {}, seed=0, ask=lambda _: next(answers), say=out.append)
    text = "\n".join(out)
    assert len(results) == 1 and results[0] is not None
    assert MOVE_HELP in text and "cells are numbered" in text and "--- game over ---" in text


def test_league_in_process():
    from evaluate.league import run_league

    res = run_league("tictactoe", games=10, seed=0, options={})
    assert {r.id for r in res.ratings} >= {"tictactoe/lines", "random"}
    assert res.ratings[0].id == "tictactoe/lines"


def test_command_lines_and_training(tmp_path):
    out = run_cli("-m", "evaluate", "tictactoe", "--games", "40", "--json", str(tmp_path / "t.json"), "--no-progress")
    assert out.returncode == 0, out.stderr
    assert "tictactoe/lines" in out.stdout and json.loads((tmp_path / "t.json").read_text())
    helped = run_cli("-m", "evaluate", "tictactoe", "--help")
    assert helped.returncode == 0 and "starter (one of x|random; default 'x')" in helped.stdout
    listed = run_cli("-m", "evaluate", "list")
    assert "tictactoe: " in listed.stdout and "tictactoe/lines" in listed.stdout
    run = tmp_path / "run"
    trained = run_cli("-m", "train", "tictactoe", "--timesteps", "512", "--n-envs", "2", "--eval-games", "20",
                      "--final-eval-games", "20", "--out", str(run), "--no-progress")
    assert trained.returncode == 0, trained.stderr
    assert (run / "model.zip").exists() and (run / "curve.csv").exists()
    played = run_cli(
        "-m", "evaluate", "tictactoe", "--agents", f"ppo:{run},tictactoe/lines", "--games", "20", "--no-progress"
    )
    assert played.returncode == 0, played.stderr


#: The shared tools: they read game specs and must not name a game in their code.
SHARED = ["envs/core", "envs/openspiel.py", "envs/gymnasium_registry.py", "agents/games.py", "evaluate/games.py",
          "agents/base.py", "agents/policy.py", "agents/learned.py", "agents/search",
          "evaluate/__main__.py", "evaluate/cli.py", "evaluate/fuzz.py", "evaluate/league.py", "evaluate/play.py",
          "evaluate/paired.py", "evaluate/tournament.py", "evaluate/backends.py", "evaluate/stats.py",
          "evaluate/jsonio.py", "train/__main__.py", "train/presets/__init__.py", ".ci/compile_kernels.py"]
GAME_WORD = re.compile(r"(?<![a-z])(lama|simple_poker|the_game|roborally|primi_composti|tictactoe)(?![a-z])")


def _code_strings_and_names(tree: ast.AST) -> list[tuple[int, str]]:
    """Every string constant that is not a docstring, and every identifier, with its line."""
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docstrings.add(id(first.value))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            out.append((node.lineno, node.value))
        elif isinstance(node, ast.Name):
            out.append((node.lineno, node.id))
        elif isinstance(node, ast.alias):
            out.append((getattr(node, "lineno", 0), node.name))
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.append((node.lineno, node.module))
    return out


def test_shared_tools_name_no_game():
    files = []
    for place in SHARED:
        p = ROOT / place
        files += sorted(p.rglob("*.py")) if p.is_dir() else [p]
    found = []
    for f in files:
        for line, text in _code_strings_and_names(ast.parse(f.read_text(), str(f))):
            if GAME_WORD.search(text.lower()):
                found.append(f"{f.relative_to(ROOT)}:{line}: {text[:60]!r}")
    assert not found, "game names in shared tools:\n" + "\n".join(found)


def test_the_check_above_can_fail():
    tree = ast.parse('"""A docstring naming lama is fine."""\nx = {"lama": 1}\n')
    assert [t for _, t in _code_strings_and_names(tree) if "lama" in t] == ["lama"]


def test_an_engine_imports_without_the_adapters():
    code = "import sys, envs.lama.rules; print('envs.core.aec' in sys.modules, 'envs.lama_v0' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.stdout.split() == ["False", "False"], out.stderr


def test_a_spec_builds_its_engine_and_lineup():
    spec = envs.spec("tictactoe")
    assert agents.part("tictactoe").lineup(2) == ["tictactoe/lines", "random"]
    game = spec.make_game()
    state = game.deal(0)
    assert game.legal_actions(state) == tuple(range(9))
    assert spec.make_encoder(game).encode(game.view(state, 0)).shape == (20,)
    rng = np.random.default_rng(0)
    agent = agents.make("tictactoe/lines", game, rng, game_name="tictactoe")
    assert agent.act(game.view(state, 0), np.ones(9, dtype=np.int8)) == 4


def test_ci_compiles_the_kernels_its_specs_declare():
    """`.ci/compile_kernels.py` takes its jobs from the registered specs: an added game's `warm_up` lines run (here
    in this process), and every game with compiled kernels gets its vector env (strategy opponents and all seats)
    and its tournaments under each of its `kernel_variants`."""
    loader = importlib.util.spec_from_file_location("compile_kernels", ROOT / ".ci" / "compile_kernels.py")
    ck = importlib.util.module_from_spec(loader)
    sys.modules.setdefault("compile_kernels", ck)  # its dataclass looks its module up there
    loader.loader.exec_module(ck)
    line = "tictactoe --agents tictactoe/lines,random --games 2"
    shown = evaluate.games.part("tictactoe")
    evaluate.games.declare("tictactoe", **{**{f.name: getattr(shown, f.name) for f in dataclasses.fields(shown)
                                              if f.name != "game"}, "warm_up": (line,)})
    try:
        jobs = {j.name: j for j in ck.jobs()}
        name, seconds, cpu = ck._run(jobs[f"tictactoe: python -m evaluate {line}"])
    finally:
        evaluate.games.declare("tictactoe", **{f.name: getattr(shown, f.name) for f in dataclasses.fields(shown)
                                               if f.name != "game"})
    assert name.endswith(line) and seconds >= 0 and cpu >= 0
    for game in envs.registered():
        spec, mine = envs.spec(game), agents.part(game)
        for options in spec.kernel_variants:
            said = ck._described(options)
            assert (f"{game} vector env, all seats{said}" in jobs) == bool(spec.vector and mine.kernels)
            assert (f"{game} tournament{said}" in jobs) == bool(mine.compiled_games)
    with pytest.raises(ValueError, match="starting with the game's id"):
        evaluate.games.GameEvaluation("tictactoe", warm_up=("--games 1",))
    with pytest.raises(ValueError, match="kernel_variants"):
        dataclasses.replace(SPEC, kernel_variants=())


#: The layers above `envs`: no code string in `envs/` names one of their modules, and no import there reaches one.
HIGHER_LAYERS = ("agents", "evaluate", "train", "benchmarks")
HIGHER = re.compile(rf"({'|'.join(HIGHER_LAYERS)})[.:]\w")


def _upward(tree: ast.AST) -> list[tuple[int, str]]:
    """Every code string (docstrings aside) naming a module of a layer above `envs`, and every import of one."""
    docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                  if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and n.body
                  and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            if HIGHER.match(node.value):
                found.append((node.lineno, node.value))
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.split(".")[0] in HIGHER_LAYERS]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module.split(".")[0] in HIGHER_LAYERS:
            found.append((node.lineno, node.module))
    return found


def test_the_engine_layer_names_no_module_above_it():
    found = [f"{f.relative_to(ROOT)}:{line}: {text[:60]!r}" for f in sorted((ROOT / "envs").rglob("*.py"))
             for line, text in _upward(ast.parse(f.read_text(), str(f)))]
    assert not found, "envs/ names modules of the layers above:\n" + "\n".join(found)


def test_the_upward_check_can_fail():
    tree = ast.parse('"""Docs may name agents.lama."""\nx = "agents.lama:SPEC"\nimport evaluate.play\ny = "an agent"\n')
    assert sorted(t for _, t in _upward(tree)) == ["agents.lama:SPEC", "evaluate.play"]
