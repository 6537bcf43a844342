"""`python -m train reproduce AGENT_ID [--budget FRACTION] [--out DIR] [--dry-run]`: a shipped PPO policy's chain
of runs again, through `python -m train`.

Each recorded stage of the policy's provenance becomes one resumable `python -m train` run in `DIR/stage-<k>`
(`stage_argv`: its settings, its own steps times `--budget`, on this machine's CPU, started from the previous
stage); the last ends with the README's paired comparison (`eval.json`). Docs: docs/training.md.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable, Iterator
from typing import Any

#: Deals of the final comparison at the full budget (fewer with a smaller one; at least `MIN_FINAL_DEALS`).
FINAL_DEALS = 2000
MIN_FINAL_DEALS = 20

#: Old flag -> the frame's flag of the same meaning.
RENAMED = {"--minibatch": "--batch-size", "--epochs": "--n-epochs", "--lr": "--learning-rate", "--clip": "--clip-range",
           "--league-baselines": "--baselines", "--final-paired": "--eval-baselines",
           "--final-games": "--final-eval-games"}
#: Old flags counted in updates -> the frame's, counted in learner steps.
PER_UPDATE = {"--save-every": "--save-every", "--eval-every": "--eval-every", "--league": "--league-every"}
#: Old flags without a value.
SWITCHES = ("--overwrite", "--privileged-critic", "--action-table", "--help", "-h")
#: Old flags the frame has no word for, and why.
GONE = {"--final-seed": "its final comparison plays seed 1,000,000 + --seed, the old default"}


def _pairs(words: list[str]) -> list[tuple[str, str | None]]:
    """(flag or positional, value or None) in order; `--flag=value` split."""
    out: list[tuple[str, str | None]] = []
    i = 0
    while i < len(words):
        w = words[i]
        if w.startswith("--") and "=" in w:
            out.append(tuple(w.split("=", 1)))  # type: ignore[arg-type]
        elif w.startswith("-") and w not in SWITCHES and i + 1 < len(words):
            out.append((w, words[i + 1]))
            i += 1
        else:
            out.append((w, None))
        i += 1
    return out


def _batch(pairs: list[tuple[str, str | None]]) -> int:
    """Learner steps an update: n_steps x n_envs x the variants (the preset's sizes where not given)."""
    from train.presets import preset

    given = dict(p for p in pairs if p[1] is not None)
    game = next((w for w, v in pairs if v is None and not w.startswith("-")), None)
    pre = preset(game) if game else {}
    variants = 1 + sum(1 for w, _ in pairs if w == "--also")
    tables = int(given.get("--n-envs", pre.get("n_envs", 1)))
    return tables * int(given.get("--n-steps", pre.get("n_steps", 1))) * variants


def train_argv(words: list[str]) -> list[str]:
    """`python -m train`'s arguments for the old command `python -m train.cleanrl_ppo WORDS`: the same run with
    `--learner cleanrl`, old flags renamed (`RENAMED`), flags counted in updates counted in learner steps
    (`PER_UPDATE`), and what the old command did not do unless asked kept off.

    Raises:
        ValueError: a flag the frame has no word for, or `--final-paired` and `--eval-baselines` naming other agents.
    """
    pairs = _pairs(list(words))
    given = dict(pairs)
    for flag, why in GONE.items():
        if flag in given:
            raise ValueError(f"{flag} has no equivalent in python -m train ({why}): drop it")
    if "--final-paired" in given and given.get("--eval-baselines", given["--final-paired"]) != given["--final-paired"]:
        raise ValueError("--final-paired and --eval-baselines are one flag of python -m train (--eval-baselines: "
                         "the curve's lines and the final comparison): give the same agents")
    out = [w for w, v in pairs if v is None and not w.startswith("-")] + ["--learner", "cleanrl"]
    batch = _batch(pairs) if given.keys() & PER_UPDATE.keys() else 0
    for w, v in pairs:
        if v is None and not w.startswith("-"):
            continue
        if w == "--eval-baselines" and "--final-paired" in given:
            continue
        if w in PER_UPDATE:
            out += [PER_UPDATE[w], str(int(v) * batch)]
        else:
            out += [RENAMED.get(w, w)] + ([] if v is None else [v])
    defaults = {"--control": "one_seat", "--eval-games": "200" if "--eval-every" in given else "0",
                "--final-eval-games": "500" if "--final-paired" in given else "0"}
    for flag, value in defaults.items():
        if flag not in out:
            out += [flag, value]
    return out


#: A recorded command's flags that a stage sets anew (its place in the chain, this machine, the curve not drawn).
DROPPED = ("--out", "--init-from", "--timesteps", "--max-minutes", "--device", "--threads", "--save-every",
           "--eval-every", "--eval-games", "--eval-baselines", "--final-eval-games", "--no-progress", "--overwrite")


def recorded_argv(command: str) -> list[str]:
    """The `python -m train` arguments of a recorded command: `python -m train [ppo|finetune] ...` as it is, the
    one-file learner's old `python -m train.cleanrl_ppo ...` read by `train_argv`."""
    words = shlex.split(command)
    module, rest = words[words.index("-m") + 1], words[words.index("-m") + 2:]
    if module == "train.cleanrl_ppo":
        return train_argv(rest)
    return rest[1:] if rest[:1] in (["ppo"], ["finetune"]) else rest


def _trained_by_ppo(stage: dict[str, Any]) -> bool:
    """Whether a recorded stage is a run of the one-file PPO (the old command, or python -m train's default)."""
    command = str(stage.get("command", ""))
    return "train.cleanrl_ppo" in command or (stage.get("method") in ("ppo", "finetune")
                                               and stage.get("learner") == "cleanrl")


def _distilled(stage: dict[str, Any]) -> bool:
    """Whether a recorded stage is a distillation run (`python -m train distill`)."""
    return stage.get("method") == "distill"


def shipped_stages(agent_id: str) -> tuple[str, list[dict[str, Any]]]:
    """The game and the recorded stages (oldest first) of shipped policy `agent_id`.

    Raises:
        ValueError: not a shipped policy, or one whose provenance records no command of the one-file learner.
    """
    from agents.learned import read_meta
    from agents.pretrained import checkpoints
    from train.run import earlier_stages

    shipped = checkpoints()
    if agent_id not in shipped:
        raise ValueError(f"unknown shipped policy {agent_id!r}; shipped: {', '.join(sorted(shipped))}")
    game = read_meta(shipped[agent_id])["game"]
    stages = earlier_stages(shipped[agent_id])
    # A chain may start from a distilled student (python -m train distill), then goes on by PPO.
    if not stages or not _trained_by_ppo(stages[-1]) \
            or not all(_trained_by_ppo(s) or _distilled(s) for s in stages):
        raise ValueError(f"{agent_id} was not trained by PPO from the environment (its provenance records "
                         f"{[str(s.get('command', ''))[:40] for s in stages]}); reproduce takes the ppo policies")
    return game, stages


def _own_steps(stage: dict[str, Any]) -> int:
    """The learner steps a stage's policy had of its own: the picked snapshot's, else the stage's."""
    m = re.search(r"snapshot at ([\d,]+) steps", str(stage.get("picked", "")))
    return int(m.group(1).replace(",", "")) if m else int(stage["steps"])


def _groups(words: list[str]) -> Iterator[list[str]]:
    """A recorded command's words in order, a flag together with its value where it takes one."""
    i = 0
    while i < len(words):
        takes = i + 1 < len(words) and words[i].startswith("--") and not words[i + 1].startswith("--")
        yield words[i:i + 1 + takes]
        i += 1 + takes


def stage_argv(stage: dict[str, Any], budget: float, out: str, start: str | None) -> list[str]:
    """The `python -m train` arguments of one recorded stage (see the module docstring), into run folder `out`,
    started from `start` (a run folder or a shipped id; None: fresh). A distillation stage keeps its rounds and
    selection games and labels `--budget` of its games a round."""
    words, argv = recorded_argv(stage["command"]), []
    if _distilled(stage):
        return _distill_argv(words, budget, out)
    for group in _groups(words):
        if group[0] not in DROPPED and not (group[0] == "--hidden" and start):
            argv += group
    argv += ["--timesteps", str(max(1, int(_own_steps(stage) * budget))), "--out", out,
             "--eval-games", "0", "--final-eval-games", "0", "--no-progress"]
    return argv + (["--init-from", start] if start else [])


def _distill_argv(words: list[str], budget: float, out: str) -> list[str]:
    """A recorded distillation command's arguments into run folder `out`, `--budget` of its games a round."""
    argv: list[str] = []
    for group in _groups(words):
        if group[0] == "--games-per-round" and len(group) == 2:
            argv += [group[0], str(max(1, int(int(group[1]) * budget)))]
        elif group[0] not in ("--out", "--overwrite", "--final-eval-games", "--no-progress"):
            argv += group
    return argv + ["--out", out, "--final-eval-games", "0", "--no-progress"]


def final_argv(game: str, argv: list[str], budget: float) -> list[str]:
    """The last stage's arguments with the final comparison: against the stage's opponents' own strategy in the
    seat (the README's comparison), or the game's strongest baseline (`agents.default_lineup`) without any."""
    from agents import default_lineup, expand_agent_ids

    given = argv[argv.index("--opponents") + 1] if "--opponents" in argv else None
    baseline = expand_agent_ids(given.split(","))[0] if given else default_lineup(game)[0]
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
    done = any(os.path.isdir(os.path.join(out, d)) for d in ("policy", "student"))  # a PPO run's, a distilled
    if os.path.isfile(os.path.join(out, "config.json")) and done:
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
