"""Every `python -m evaluate|train ...` command of README.md and docs/*.md runs as written, at small sizes.

The commands are extracted from the documentation (tests/docs_commands.py), their sizes shrunk to the
smallest values they accept (`shrink`), and run in this process, one after another in document order,
in one temporary folder (a later command reads what an earlier one wrote: `ppo:runs/demo`, the study
files that `--study-plot` draws). Synopses (`python -m train GAME ...`), bare mentions of a command's
name and the RLlib command (its own environment, `.venv-rllib`) are not run. Commands that take long even
at their smallest sizes (`PARSE_ONLY`: training runs, reproductions, studies, Ray) are parsed by their own
parser and their settings built (options, agents' needed options, the run's config), not run, to keep
this file within minutes on two cores; `DOCS_COMMANDS=all` in the environment runs them too.
"""

from __future__ import annotations

import importlib
import io
import os
import re
import sys

import pytest
from docs_commands import ROOT, doc_commands, is_synopsis

COMMANDS = doc_commands()

#: Size flags and the smallest value each accepts (per module, where modules differ).
SIZES = {
    "--games": "2", "--timesteps": "64", "--episodes": "2", "--races": "2", "--solve-deals": "1", "--rounds": "1",
    "--games-per-round": "1", "--workers": "1", "--candidates": "2", "--search-games": "2", "--retest-games": "2",
    "--critic-warmup": "32", "--eval-games": "1", "--final-eval-games": "0", "--deals": "1", "--cards": "4",
    "--eval-every": "64", "--turns": "2", "--final-games": "2",
}
#: Jobs of `python -m evaluate GAME` that play no tournament (no --games to add).
NO_GAMES = ("--exact", "--boards", "--study", "--study-budget", "--study-plot", "--merge-solves", "--solve-deals",
            "--help", "--record")


#: Long even at their smallest sizes: (pattern, reason). Checked by their parser unless DOCS_COMMANDS=all.
PARSE_ONLY = (
    (r"--backend ray", "starts a Ray instance (tests/evaluate/test_backends.py plays the same jobs on Ray)"),
    (r"^python -m train (?!simple_poker --option n=3 --out runs/demo|lama --timesteps 2000000 --out runs/lama-cleanrl)",
     "a training run (a rollout, curve points and the final files: seconds at 64 steps; tests/train runs them)"),
    (r"--reproduce|--tune-third|--claims", "a reproduction: many cells even at 2 games each"),
    (r"--study(?!-plot)|--study-budget(?! docs/data/roborally_budget.json --out)", "a study: Monte-Carlo races"),
    (r"--study-plot", "plots the study files the (parsed only) studies would write"),
    (r"-m evaluate\b.*--league(?!.*--agents)", "a league of every agent of the game"),
    (r"evaluate.primi_composti.check", "exact regret of 12-card deals against minimax_6"),
    (r"--paired .*the_game/rollout", "the rollout teacher takes seconds a game"),
)


def parse_only_reason(cmd: str) -> str | None:
    """Why a command is only parsed here (None: it runs), unless DOCS_COMMANDS=all."""
    if os.environ.get("DOCS_COMMANDS") == "all":
        return None
    return next((why for pattern, why in PARSE_ONLY if re.search(pattern, cmd)), None)


def check_parses(module: str, argv: list[str]) -> None:
    """Parse `argv` with the module's own parser and build what it would run with (options with the agents'
    needed options, the training config); raises on a flag, option or agent the code does not know."""
    import agents
    import envs
    from envs.core.options import parse_options

    game = next((a for a in argv if a in envs.available_games()), None)
    if module == "evaluate":
        from evaluate.__main__ import build_parser, named_agents

        args = build_parser(game).parse_args(argv)
        options, _ = agents.resolve_options(args.game, named_agents(args), parse_options(envs.config_class(args.game),
                                                                                          args.option))
        envs.make_game(args.game, **options)
        for aid in named_agents(args):
            agents.make(aid, envs.make_game(args.game, **options), __import__("numpy").random.default_rng(0),
                        game_name=args.game)
    elif module == "train" and argv[:1] == ["reproduce"]:  # the chain's plan is built from the shipped policy
        from train.reproduce import main as reproduce

        assert reproduce([*argv[1:], "--dry-run"]) == 0
    elif module == "train":
        from train.__main__ import METHODS, build_parser, config_from_args

        word = argv[0] if argv[:1] and argv[0] in METHODS else None
        p = build_parser(game)
        args = p.parse_args(argv[1:] if word else argv)
        args.method = word or args.method or "ppo"
        if args.method == "finetune":
            assert args.init_from, "finetune needs --init-from"
            args.method = "ppo"
        if args.resume is not None or args.export is not None:
            assert args.game is None  # a resumed or exported run takes every setting from its checkpoint
        elif args.method == "ppo":
            if args.init_from and args.init_from.startswith("runs/") and not os.path.exists(args.init_from):
                args.init_from = args.critic_warmup = None  # an earlier command's run, only parsed: its flags alone
            config_from_args(p, args)
        else:
            envs.make_game(args.game, **parse_options(envs.config_class(args.game), args.option))
    elif module == "evaluate.primi_composti.check":
        assert "--agent" in argv
    else:
        raise AssertionError(f"no parser check for {module}")


def skip_reason(cmd: str) -> str | None:
    """Why a documented command is not run, or None."""
    if is_synopsis(cmd):
        return "a synopsis (placeholders such as GAME, N, RUN)"
    if len(cmd.split()) == 3 or cmd.split()[3:] in (["ppo"], ["distill"], ["finetune"]):
        return "names the command (no arguments)"
    if cmd.startswith("python -m train.rllib"):
        return "RLlib runs in its own environment (.venv-rllib); tests/integrations/test_rllib.py covers it"
    return None


def _set(argv: list[str], flag: str, value: str) -> None:
    if flag in argv:
        argv[argv.index(flag) + 1] = value
    else:
        argv += [flag, value]


def shrink(module: str, argv: list[str]) -> list[str]:
    """`argv` with every size at its smallest and the sizes a preset would fill given small."""
    argv = list(argv)
    for i, a in enumerate(argv[:-1]):
        if a in SIZES and not argv[i + 1].startswith("--"):
            argv[i + 1] = SIZES[a]
    argv = [
        re.sub(r"^cards_per_player=(\d+)$", lambda m: f"cards_per_player={min(int(m.group(1)), 6)}", a) for a in argv
    ]
    if module == "evaluate" and argv[:1] not in (["list"], ["play"]):
        if not any(f in argv for f in NO_GAMES) and "--games" not in argv:
            argv += ["--games", "2"]
        if "--league" in argv or "--paired" in argv:
            _set(argv, "--games", "2")
        if "--record" in argv:
            _set(argv, "--turns", "2")
        argv.append("--no-progress") if "--help" not in argv else None
    if module == "evaluate.league":
        argv += ["--deals", "2", "--games", "simple_poker"]  # every game's league takes minutes: the smallest one
    if module == "train" and argv[:1] == ["reproduce"]:  # its sizes are its --budget's
        return argv
    if module == "train" and "--resume" not in argv:
        if argv[:1] == ["distill"] or "--method" in argv and argv[argv.index("--method") + 1] == "distill":
            for flag in ("--rounds", "--games-per-round", "--workers", "--eval-games", "--final-eval-games"):
                _set(argv, flag, SIZES[flag])
        else:
            for flag in ("--timesteps", "--eval-every", "--eval-games"):
                _set(argv, flag, SIZES[flag])
            _set(argv, "--n-envs", "1")
            _set(argv, "--final-eval-games", "2")
        if "--out" not in argv:
            argv += ["--out", f"runs/doc-{len(os.listdir('runs')) if os.path.isdir('runs') else 0}"]
        argv.append("--no-progress")
    if module == "evaluate.primi_composti.check" and "--deals" not in argv:
        argv += ["--deals", "1"]
    return argv


def _main(module: str):
    name = {"evaluate": "evaluate.__main__", "train": "train.__main__"}.get(module, module)
    return importlib.import_module(name).main


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    """One folder for every command (later commands read earlier outputs), the repository importable."""
    path = tmp_path_factory.mktemp("docs")
    # the committed checkpoints a documented command continues, at the path the docs give from the repository root
    (path / "train").mkdir()
    (path / "train" / "checkpoints").symlink_to(os.path.join(ROOT, "train", "checkpoints"), target_is_directory=True)
    old = os.getcwd()
    sys.path.insert(0, ROOT)
    os.chdir(path)
    yield path
    os.chdir(old)
    sys.path.remove(ROOT)


def _resume_target(argv: list[str], monkeypatch) -> None:
    """`--resume RUN` continues a stopped run: make RUN a tiny run stopped as it saved its final files."""
    import train.ppo as ppo
    from train.config import TrainConfig

    run = argv[argv.index("--resume") + 1]
    if os.path.exists(run):
        return

    def stopped(*args, **kwargs):
        raise KeyboardInterrupt

    with monkeypatch.context() as m:
        m.setattr(ppo, "save", stopped)
        with pytest.raises(KeyboardInterrupt):
            ppo.train(TrainConfig(game="lama", opponents=["lama/first"], timesteps=64, n_envs=1, n_steps=64,
                                  batch_size=64, eval_games=1, final_eval_games=0, out=run),
                      progress=False, verbose=False)


@pytest.mark.parametrize("where,cmd,env", [(f"{f}:{n}", c, e) for f, n, c, e in COMMANDS],
                         ids=[f"{f}:{n}" for f, n, _, _ in COMMANDS])
def test_documented_command_runs(where, cmd, env, workdir, monkeypatch, capsys):
    reason = skip_reason(cmd)
    if reason:
        pytest.skip(reason)
    import shlex

    import envs

    words = shlex.split(cmd)
    module, argv = words[2], shrink(words[2], words[3:])
    added = [envs.register_from(w).id for w in env.get("TABLETOP_RL_GAMES", "").split(",") if w]
    try:
        if parse_only_reason(cmd):
            check_parses(module, argv)
            return
        if module == "train" and "--resume" in argv:
            _resume_target(argv, monkeypatch)
        monkeypatch.setattr(sys, "stdin", io.StringIO(""))  # terminal play: the end of input ends the game
        try:
            rc = _main(module)(argv)
        except SystemExit as e:
            rc = e.code
    finally:
        for game in added:
            envs.unregister(game)
    out = capsys.readouterr()
    assert rc in (0, None), f"{where}: `{cmd}` ran as {module} {' '.join(argv)} -> exit {rc}\n{out.err[-2000:]}"


def test_commands_are_found():
    """The extraction sees the documentation's commands (a guard against a parser that finds none)."""
    cmds = [c for _, _, c, _ in COMMANDS]
    assert len(cmds) > 60
    assert "python -m evaluate list" in cmds
    assert any("python -m train" in c and "--init-from lama/learned-seed2022" in c for c in cmds)  # continued lines
    assert any("cards_per_player=12" in c and "--regret-players" in c for c in cmds)  # inline over a line break
