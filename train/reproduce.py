"""`python -m train reproduce AGENT_ID [--budget FRACTION] [--out DIR] [--dry-run]`: a shipped PPO policy's chain
of runs again, through `python -m train`.

A shipped policy's `policy.json` records the runs that made it (`provenance.stages`, oldest first, each with the
command that ran, its own learner steps and, where a snapshot was picked on validation games, which). Each stage
becomes one `python -m train` run (`stage_argv`): the same game options, opponents and learner settings, the
stage's own steps (the picked snapshot's where one was picked) times `--budget`, on this machine's CPU (a stage
that ran on a GPU runs here; its sampling differs, so the weights will too), started from the previous stage's
run (`--init-from`), without the curve's evaluation games. Each stage is a resumable run in `DIR/stage-<k>`: a
stopped chain goes on with the same command (a finished stage is kept, a stopped one resumed). The last stage ends
with the comparison the README's table makes: the policy against the game's strongest baseline
(`GameSpec.default_lineup`) in its seat, paired on deals never used to train (`eval.json`).

`--dry-run` prints the stages' commands and runs nothing.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable
from typing import Any

import envs

#: Deals of the final comparison at the full budget (fewer with a smaller one; at least `MIN_FINAL_DEALS`).
FINAL_DEALS = 2000
MIN_FINAL_DEALS = 20

#: The one-file learner's flags whose value goes to `python -m train` under another name (None: dropped here,
#: with why: the stage's place in the chain, this machine, or the curve that is not drawn).
RENAMED = {"lr": "learning-rate", "minibatch": "batch-size", "epochs": "n-epochs", "clip": "clip-range",
           "league_baselines": "baselines"}
DROPPED = ("out", "init_from", "timesteps", "max_minutes", "device", "threads", "save_every", "eval_every",
           "eval_games", "eval_baselines", "final_paired", "final_games", "final_seed", "league", "control",
           "option", "also", "opponents", "hidden", "game")


def shipped_stages(agent_id: str) -> tuple[str, list[dict[str, Any]]]:
    """The game and the recorded stages (oldest first) of shipped policy `agent_id`.

    Raises:
        ValueError: not a shipped policy, or one whose provenance records no command of the one-file learner.
    """
    from agents.learned import read_meta
    from agents.pretrained import checkpoints
    from train.cleanrl_ppo import earlier_stages

    shipped = checkpoints()
    if agent_id not in shipped:
        raise ValueError(f"unknown shipped policy {agent_id!r}; shipped: {', '.join(sorted(shipped))}")
    game = read_meta(shipped[agent_id])["game"]
    stages = earlier_stages(shipped[agent_id])
    if not stages or not all("train.cleanrl_ppo" in str(s.get("command", "")) for s in stages):
        raise ValueError(f"{agent_id} was not trained by PPO from the environment (its provenance records "
                         f"{[str(s.get('command', ''))[:40] for s in stages]}); reproduce takes the ppo policies")
    return game, stages


def _own_steps(stage: dict[str, Any]) -> int:
    """The learner steps a stage's policy had of its own: the picked snapshot's, else the stage's."""
    m = re.search(r"snapshot at ([\d,]+) steps", str(stage.get("picked", "")))
    return int(m.group(1).replace(",", "")) if m else int(stage["steps"])


def stage_argv(stage: dict[str, Any], budget: float, out: str, start: str | None) -> list[str]:
    """The `python -m train` arguments of one recorded stage (see the module docstring), into run folder `out`,
    started from `start` (a run folder or a shipped id; None: fresh)."""
    from train.cleanrl_ppo import build_parser
    from train.presets import preset

    words = shlex.split(stage["command"])
    args = build_parser().parse_args(words[words.index("train.cleanrl_ppo") + 1:])
    pre = preset(args.game)
    seats = envs.make_game(args.game, **{**pre.get("options", {}), **_options(args)}).num_players
    if args.control != pre.get("control", "one_seat") and seats > 1:  # alone, one seat is every seat
        raise ValueError(f"a stage of control={args.control} on {args.game}, whose preset has "
                         f"{pre.get('control', 'one_seat')}: python -m train cannot run it")
    batch = (args.n_envs or pre.get("n_envs", 1)) * (args.n_steps or pre.get("n_steps", 1)) * (1 + len(args.also))
    argv = [args.game, "--timesteps", str(max(1, int(_own_steps(stage) * budget))), "--out", out,
            "--eval-games", "0", "--final-eval-games", "0", "--no-progress"]
    for opt in args.option:
        argv += ["--option", opt]
    for also in args.also:
        argv += ["--also", also]
    if args.opponents:
        argv += ["--opponents", args.opponents]
    if args.hidden and not start:
        argv += ["--hidden", args.hidden]
    if start:
        argv += ["--init-from", start]
    if args.league:
        argv += ["--league-every", str(args.league * batch)]
    defaults = vars(build_parser().parse_args([args.game, "--out", "x"]))
    for key, value in vars(args).items():
        if key in DROPPED or value == defaults.get(key) or value in (None, False):
            continue
        flag = "--" + RENAMED.get(key, key).replace("_", "-")
        argv += [flag] if value is True else [flag, str(value)]
    return argv


def _options(args: Any) -> dict[str, Any]:
    from envs.core.options import parse_options

    return parse_options(envs.config_class(args.game), args.option)


def final_argv(game: str, argv: list[str], budget: float) -> list[str]:
    """The last stage's arguments with the final comparison: against the stage's opponents' own strategy in the
    seat (the README's comparison), or the game's strongest baseline (`GameSpec.default_lineup`) without any."""
    from agents import expand_agent_ids

    given = argv[argv.index("--opponents") + 1] if "--opponents" in argv else None
    baseline = expand_agent_ids(given.split(","))[0] if given else envs.spec(game).default_lineup[0]
    deals = max(MIN_FINAL_DEALS, int(FINAL_DEALS * min(1.0, budget)))
    i = argv.index("--final-eval-games")
    return [*argv[:i], "--final-eval-games", str(deals), "--eval-baselines", baseline, *argv[i + 2:]]


def plan(agent_id: str, budget: float, out: str) -> list[list[str]]:
    """The `python -m train` arguments of every stage of `agent_id`'s chain, in order."""
    from agents.pretrained import checkpoints

    game, stages = shipped_stages(agent_id)
    runs, start = [], None
    for k, stage in enumerate(stages, start=1):
        folder = os.path.join(out, f"stage-{k}")
        own_start = None
        if start is None:  # the first stage's own start (as recorded), unless it is the policy being made
            words = shlex.split(stage["command"])
            given = words[words.index("--init-from") + 1] if "--init-from" in words else None
            recorded = stage.get("init_from")
            if isinstance(recorded, str) and (recorded in checkpoints() or os.path.isdir(recorded)):
                given = recorded
            own_start = given if given and given != agent_id else None
        runs.append(stage_argv(stage, budget, folder, start or own_start))
        start = folder
    runs[-1] = final_argv(game, runs[-1], budget)
    return runs


def run_stage(argv: list[str], train_main: Callable[[list[str]], int]) -> int:
    """One stage, by `train_main` (`python -m train`'s entry): resumed where its folder holds a checkpoint, skipped
    where it holds a finished run."""
    out = argv[argv.index("--out") + 1]
    if os.path.isfile(os.path.join(out, "checkpoint.json")):
        return train_main(["--resume", out, "--no-progress"])
    if os.path.isfile(os.path.join(out, "config.json")) and os.path.isdir(os.path.join(out, "policy")):
        print(f"train reproduce: {out} is done; kept", flush=True)
        return 0
    return train_main(argv)


def main(argv: list[str], train_main: Callable[[list[str]], int] | None = None) -> int:
    """`python -m train reproduce ...`, each stage run by `train_main` (`python -m train`'s entry, which calls this;
    needed unless `--dry-run`); usage errors are one line and exit status 2."""
    from evaluate.cli import Parser, fail

    p = Parser(prog="python -m train reproduce", description=__doc__.split("\n\n")[0])
    p.add_argument("agent", help="a shipped PPO policy's id, e.g. lama/ppo")
    p.add_argument("--budget", type=float, default=1.0, metavar="FRACTION",
                   help="the share of each stage's learner steps to run (default 1: the whole chain)")
    p.add_argument("--out", default="", metavar="DIR", help="the chain's folder (default runs/reproduce-<id>)")
    p.add_argument("--dry-run", action="store_true", help="print the stages' commands, run nothing")
    args = p.parse_args(argv)
    if not 0 < args.budget <= 1:
        p.error(f"--budget must be a fraction in (0, 1], got {args.budget:g}")
    out = args.out or os.path.join("runs", "reproduce-" + args.agent.replace("/", "-"))
    try:
        runs = plan(args.agent, args.budget, out)
    except ValueError as e:
        return fail(str(e), p.prog, 2)
    for k, stage in enumerate(runs, start=1):
        print(f"stage {k}/{len(runs)}: python -m train {shlex.join(stage)}", flush=True)
    if args.dry_run:
        return 0
    if train_main is None:
        raise ValueError("reproduce runs its stages through python -m train's entry (train_main)")
    for stage in runs:
        code = run_stage(stage, train_main)
        if code:
            return code
    print(f"train reproduce: {args.agent} again in {out}/stage-{len(runs)} (its eval.json: the comparison)", flush=True)
    return 0


__all__ = ["main", "plan", "shipped_stages", "stage_argv"]
