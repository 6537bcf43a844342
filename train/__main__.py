"""`python -m train [ppo|distill|finetune] GAME`: train a policy for any game, with per-game presets;
`python -m train reproduce ID` runs a shipped policy's chain of runs again; `--resume RUN` continues a stopped run.
See docs/training.md.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from typing import Any

import envs
from envs.core.options import parse_options
from evaluate import backends
from evaluate.cli import Parser, apply_agent_options, check_games, check_outputs, fail, nonnegative_float, positive_int
from train.config import TrainConfig
from train.presets import PRESETS, preset
from train.run import IDENTITY

#: The training methods, named as the first word: `python -m train METHOD GAME`.
METHODS = ("ppo", "distill", "finetune")


def setting_flags() -> dict[str, tuple[dataclasses.Field, tuple[str, ...]]]:
    """Flag dest -> (the config field that declares it with `train.run.setting`, the methods whose config has a
    field of that name): the flags generated from the configs."""
    from train.distill import DistillConfig

    out: dict[str, tuple[dataclasses.Field, tuple[str, ...]]] = {}
    for method, cls in (("ppo", TrainConfig), ("distill", DistillConfig)):
        for f in dataclasses.fields(cls):
            if f.name in out:
                out[f.name] = (out[f.name][0], (*out[f.name][1], method))
            elif "help" in f.metadata:
                out[f.name] = (f, (method,))
    return out


#: Flags that define a run: given with --resume they would contradict the checkpoint's settings.
RUN_FLAGS = ("game", "opponents", "self_play", "baselines", "eval_baselines", "option", "also", "overwrite",
             "init_from", "hidden", *setting_flags())


#: Shown by `python -m train --help` (each runs as written; tests/test_docs_commands.py runs the README's).
EXAMPLES = (
    "python -m train GAME                                        # PPO with the game's preset (GAME --help shows it)",
    "python -m train GAME --opponents ID,ID --timesteps 100000   # against fixed opponents (agent ids)",
    "python -m train GAME --self-play --option KEY=VALUE         # self-play (two players), in a variant",
    "python -m train distill GAME --teacher ID                   # a student from a teacher (DAgger)",
    "python -m train finetune GAME --init-from GAME/learned --critic-warmup 50000 --learning-rate 1e-5",
    "python -m train --resume runs/RUN                           # continue a stopped run",
    "python -m train --export runs/RUN                           # its latest checkpoint as a policy, no training",
    "python -m train reproduce GAME/ppo --budget 0.1             # a shipped PPO policy's chain of runs again",
)

def _number(v: object) -> str:
    if isinstance(v, dict):  # a preset's game options
        return ",".join(f"{k}={x}" for k, x in v.items()) or "(defaults)"
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return ",".join(map(str, v)) if isinstance(v, (list, tuple)) else str(v)
    return f"{v:,}" if isinstance(v, int) else f"{v:g}"


def preset_values(game: str) -> tuple[dict, dict]:
    """The run settings of `python -m train GAME` (ppo) and `--method distill`: the defaults, then the game's
    presets, as the run would use them."""
    from train.distill import DistillConfig, distill_preset

    ppo = {k: v for k, v in TrainConfig.defaults().items() if k not in IDENTITY} | preset(game)
    distill = {k: v for k, v in DistillConfig.defaults().items() if k not in IDENTITY} | distill_preset(game)
    distill["net_arch"] = distill.pop("hidden")
    return ppo, distill


def game_epilog(game: str, ppo: dict, distill: dict) -> str:
    """`python -m train GAME --help`'s epilog: the game's options and its presets' numbers."""
    lines = envs.spec(game).options_help()
    module = PRESETS.module_of(game) if PRESETS.module(game) is not None else None
    where = f" ({module.replace('.', '/')}.py)" if module else ""
    lines += ["", f"{game} preset{where}, what a run uses unless a flag says otherwise:"]
    keys = ("timesteps", "opponents", "self_play", "control", "options", "n_envs", "n_steps", "batch_size",
            "n_epochs", "precision", "learning_rate", "ent_coef", "net_arch", "eval_every", "eval_games",
            "final_eval_games")
    lines.append(f"  ppo:     learner {_learner(game, ppo)}, " + ", ".join(f"{k} {_number(ppo[k])}" for k in keys))
    if "teacher" in distill:
        dkeys = ("teacher", "options", "rounds", "games_per_round", "workers", "net_arch", "eval_games",
                 "final_eval_games")
        lines.append("  distill: " + ", ".join(f"{k} {_number(distill[k])}" for k in dkeys if k in distill))
    else:
        lines.append("  distill: no preset teacher (give --teacher ID)")
    return "\n".join(lines)


def _learner(game: str, ppo: dict) -> str:
    """The learner a run of these settings gets (`TrainConfig.resolved_learner`), or the setting as given where the
    settings do not make a config (the run itself then reports why)."""
    try:
        return TrainConfig(game=game, seed=0, out="", **ppo).resolved_learner()
    except (TypeError, ValueError):
        return str(ppo.get("learner"))


def build_parser(game: str | None = None) -> argparse.ArgumentParser:
    """The command line of `python -m train`; with a known `game`, the help shows its options and preset numbers."""
    known = game is not None and game in envs.available_games()
    epilog = "examples:\n" + "\n".join(f"  {e}" for e in EXAMPLES)
    try:
        values = preset_values(game) if known else None
    except ValueError:  # a broken preset is reported when the run is configured, as a usage error
        values = None
    if values is not None:
        epilog = game_epilog(game, *values) + "\n\n" + epilog
    p = Parser(prog="python -m train", usage="python -m train [ppo|distill|finetune] GAME [options]",
               description="Train a policy on a tabletop-rl game: ppo (the default method: a one-file PPO on the "
                           "game's compiled vector env, or MaskablePPO with --learner sb3), distill "
                           "(DAgger from a teacher) or finetune (PPO from a distilled student, --init-from). "
                           "'python -m train GAME --help' shows the game's options and its preset's numbers.",
               epilog=epilog, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("game", nargs="?", default=None, help=f"one of: {', '.join(envs.available_games())}")
    p.add_argument("--opponents", type=str, default=None,
                   help="comma-separated opponent agent ids (one, repeated, or one per other seat; NAME*K repeats)")
    p.add_argument("--self-play", action="store_true",
                   help="opponents drawn from snapshots of the learner, its live policy and --baselines")
    p.add_argument("--baselines", type=str, default=None,
                   help="with --self-play: baseline agent ids added to the pool; with --league-every: league members "
                        "besides the snapshots (agents with kernels)")
    p.add_argument("--eval-baselines", type=str, default=None, metavar="IDS",
                   help="comma-separated agent ids measured once in the policy's place against its evaluation "
                        "opponents, drawn as lines on the curve (e.g. the opponents' own strategy and a distilled "
                        "student)")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="env option, repeatable")
    p.add_argument("--also", action="append", default=[], metavar="'KEY=VALUE [KEY=VALUE]'",
                   help="cleanrl: more tables (as many again) under these option changes, stepped with the rest (e.g. "
                        "'board=race_medium num_robots=4'): one policy learns several variants at once; repeatable")
    for dest, (f, methods) in setting_flags().items():  # generated from the config fields (train.run.setting)
        meta = f.metadata
        kw: dict[str, Any] = {"default": None, "help": ("distill: " if methods == ("distill",) else "") + meta["help"]}
        if meta["choices"]:
            kw["choices"] = meta["choices"]
        elif str(f.type) == "bool":
            kw["action"] = argparse.BooleanOptionalAction
        elif str(f.type).startswith("int"):
            kw["type"] = positive_int(meta["high"], 1 if meta["low"] is None else meta["low"])
        elif str(f.type).startswith("float"):
            kw["type"] = nonnegative_float
        if meta["metavar"]:
            kw["metavar"] = meta["metavar"]
        p.add_argument(f"--{dest.replace('_', '-')}", **kw)
    p.add_argument("--init-from", type=str, default=None, metavar="RUN|POLICY",
                   help="start from a run of the default learner (continued with its settings unless a flag changes "
                        "them), or a saved policy (its folder, or a shipped id such as GAME/learned: the run takes its "
                        "options and network)")
    p.add_argument("--out", type=str, default="",
                   help="run folder (default runs/<game>-<time>); an existing run is refused")
    p.add_argument("--overwrite", action="store_true", help="replace the run already in --out (its files are removed)")
    p.add_argument("--resume", type=str, default=None, metavar="RUN",
                   help="continue the stopped run in folder RUN to its planned timesteps")
    p.add_argument("--export", type=str, default=None, metavar="RUN",
                   help="write the policy of RUN's latest checkpoint as RUN/policy-<step> (or --out), the one "
                        "saved-policy format, without training: a stopped or running run measured as it stands")
    p.add_argument("--no-progress", action="store_true")
    p.add_argument("--method", choices=METHODS, default=None, help="the same as the METHOD word before GAME")
    p.add_argument("--hidden", type=layer_sizes, default=None, metavar="N,N,...",
                   help="hidden layer sizes of the network (distill: the student's; ppo: net_arch); default: the "
                        "preset's")
    backends.add_arguments(p)  # distill: --backend ray [--address HOST:6379] labels as Ray tasks
    if values is not None:
        _show_presets(p, game, values)
    return p


def _show_presets(p: argparse.ArgumentParser, game: str, values: tuple[dict, dict]) -> None:
    """Add to each flag's help what a run of `game` takes for it unless given (`preset_values`: `[lama: ppo
    40,000,000]`); unset values (None, false, empty) are not shown."""
    generated = setting_flags()
    for action in p._actions:
        methods = generated[action.dest][1] if action.dest in generated else ("ppo", "distill")
        key = "net_arch" if action.dest == "hidden" else action.dest
        shown = [f"{name} {_number(v[key])}" for name, v in zip(("ppo", "distill"), values)
                 if name in methods and key in v and not (v[key] is None or v[key] is False or v[key] in ([], {}))]
        if shown and action.dest != "help":
            action.help = f"{action.help} [{game}: {'; '.join(shown)}]"


def given_settings(p: argparse.ArgumentParser, args: argparse.Namespace, method: str) -> dict[str, Any]:
    """The generated flags given on the command line, as config values of `method` (the run's identity, the
    seed, excepted); a flag of another method's config is a usage error."""
    out = {}
    for key, (_, methods) in setting_flags().items():
        v = getattr(args, key)
        if v is None or key == "seed":
            continue
        if method not in methods:
            p.error(f"--{key.replace('_', '-')} applies to {' and '.join(methods)} runs, not {method}")
        out[key] = v
    return out


def layer_sizes(text: str) -> list[int]:
    """An argparse `type`: comma-separated positive layer sizes (`256,256`)."""
    try:
        sizes = [int(x) for x in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers such as 64,64, got {text!r}") from None
    if not sizes or any(n < 1 or n > 4096 for n in sizes):
        raise argparse.ArgumentTypeError(f"layer sizes must be integers in 1..4096, got {text!r}")
    return sizes


def config_from_args(p: argparse.ArgumentParser, args: argparse.Namespace) -> TrainConfig:
    """The run's `TrainConfig`: the game's preset, then the command line."""
    if args.game is None:
        p.error("give a game (or --resume RUN)")
    check_games(p, args.game)
    from agents import expand_agent_ids

    continued = continued_run(args.game, args.init_from) if args.init_from else None
    values = dict(continued) if continued is not None else preset(args.game)
    options = dict(values.get("options", {}))
    if args.init_from and continued is None:
        # A student plays the options it was distilled on (a preset's other reward or rules would be a new game).
        options = student_options(args.game, args.init_from, values)
    given = parse_options(envs.config_class(args.game), args.option)
    options.update(given)
    if args.opponents:
        values["opponents"] = args.opponents.split(",")
    if args.baselines is not None:
        values["baselines"] = [b for b in args.baselines.split(",") if b]
    if args.also:
        values["also"] = list(args.also)
    if args.eval_baselines is not None:
        values["eval_baselines"] = expand_agent_ids(args.eval_baselines)
    if args.opponents or args.baselines:
        # opponents trained on a variant bring its options; one that contradicts a user's --option is refused
        ids = expand_agent_ids(values.get("opponents", []) + values.get("baselines", []))
        options = {**options, **apply_agent_options(args.game, ids, given)}
    envs.make_game(args.game, **options)
    values["options"] = options
    if args.critic_warmup is not None and not args.init_from:
        p.error("--critic-warmup applies with --init-from (a fresh policy has nothing to keep)")
    values.update(given_settings(p, args, "ppo"))
    if args.opponents and values.get("control") == "all_seats":
        p.error("--opponents names the other seats' agents, but under control all_seats the policy plays every "
                "seat: drop --opponents (or give --control one_seat)")
    if args.hidden is not None:
        if args.init_from and args.hidden != values["net_arch"]:
            p.error(f"--hidden {','.join(map(str, args.hidden))} differs from the --init-from student's "
                    f"{','.join(map(str, values['net_arch']))}")
        values["net_arch"] = args.hidden
    # Naming opponents means training against them, unless --self-play is asked too.
    values["self_play"] = args.self_play or (values.get("self_play", False) and not args.opponents)
    if values["self_play"] and not args.opponents:
        values["opponents"] = []  # a self-play run's opponents are its pool (config.json said ["random"])
    seed = args.seed if args.seed is not None else (continued or {}).get("seed", 0)
    values.pop("seed", None)
    TrainConfig.check_keys(values, "training settings")
    if continued is not None:
        changed = [f"{k} {continued.get(k)!r} -> {v!r}" for k, v in values.items() if v != continued.get(k)
                   and k != "init_from"]
        print(f"train {args.game}: continuing {args.init_from} with its settings"
              + (f", changed: {'; '.join(changed)}" if changed else ""), file=sys.stderr)
    return TrainConfig(game=args.game, seed=seed, out=args.out, **values)


def continued_run(game: str, spec: str) -> dict | None:
    """The settings of the run that made `spec` for a run that continues it (`--init-from`), its policy as the
    start: a run folder of the default learner (`config.json` and `policy/`), or a saved policy with its run's
    `config.json` beside it (a shipped id such as `roborally/ppo-program`, a folder of `train/checkpoints/`); None
    where `spec` is neither (a distilled student: the preset's settings).

    Raises:
        ValueError: a run of another game.
    """
    from envs.core.files import read_json
    from train.run import student_folder

    try:
        folder = spec if os.path.isdir(spec) else student_folder(spec)
    except ValueError:
        return None
    config = os.path.join(folder, "config.json")
    policy = next((d for d in (os.path.join(folder, "policy"), folder)
                   if os.path.isfile(os.path.join(d, "policy.json"))), None)
    if policy is None or not os.path.isfile(config):
        return None
    saved = read_json(config)
    if not isinstance(saved, dict) or saved.get("learner") != "cleanrl":
        return None
    if saved.get("game") != game:
        raise ValueError(f"--init-from {spec!r} is a run of {saved.get('game')}, not {game}")
    values = {k: v for k, v in saved.items() if k in TrainConfig.preset_keys() or k == "seed"}
    values["init_from"] = policy
    if os.path.isfile(os.path.join(policy, "critic.pt")):
        values["critic_warmup"] = 0  # its own critic goes on; a saved policy without one trains a fresh critic
    return values


def student_options(game: str, spec: str, values: dict) -> dict:
    """The options of the student `spec` (folder or shipped id), and its network set into the run's `values`.

    Raises:
        ValueError: a student of another game or kind, or none at `spec`.
    """
    from agents.learned import read_meta
    from train.run import student_folder

    folder = student_folder(spec)
    meta = read_meta(folder)
    arch = meta["architecture"]
    if meta["game"] != game:
        raise ValueError(f"--init-from {spec!r} is a student of {meta['game']}, not {game}")
    values.update(init_from=folder, net_arch=list(arch["hidden"]), activation=arch.get("activation", "relu"))
    return dict(meta.get("options", {}))


def resumed_config(p: argparse.ArgumentParser, args: argparse.Namespace) -> tuple[Any, tuple]:
    """The config (`TrainConfig`, or `DistillConfig` for a distillation run) and checkpoint of the run in
    `--resume RUN`."""
    from train.checkpoint import read_checkpoint

    given = [f"--{k.replace('_', '-')}" if k != "game" else "GAME" for k in RUN_FLAGS
             if getattr(args, k) not in (None, False, [])] + (["--out"] if args.out else [])
    if given:
        p.error(f"--resume takes the run's settings from its checkpoint; drop {', '.join(given)}")
    state, tensors = read_checkpoint(args.resume)
    if state.get("method") == "distill":
        from train.distill import DistillConfig

        return DistillConfig.from_checkpoint(state.get("config"), args.resume), (state, tensors)
    config = state.get("config")
    if isinstance(config, dict):  # older runs' choice of tables: every learner now plays the compiled vector env
        config = {k: v for k, v in config.items() if k != "env"}
    # a checkpoint that names no learner was written by the SB3 learner
    return TrainConfig.from_checkpoint(config, args.resume, learner="sb3"), (state, tensors)


def export_main(p: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """`python -m train --export RUN [--out FOLDER]`: the policy of RUN's checkpoint, written and named."""
    import shutil

    if args.resume is not None:
        p.error("--export and --resume are two commands; give one")
    out, args.out, args.resume = args.out, "", args.export
    try:
        cfg, (state, tensors) = resumed_config(p, args)
        if state.get("method") == "distill":
            p.error(f"{args.export!r} is a distillation run: its best student so far is in {args.export}/student")
        if not os.path.isfile(os.path.join(args.export, "policy", "policy.json")):
            raise ValueError(f"{args.export!r} has no policy/ beside its checkpoint (a run of an older version)")
        # every learner's checkpoint writes the policy as it stands beside it
        folder = out or os.path.join(args.export, f"policy-{state['step']}")
        shutil.copytree(os.path.join(args.export, "policy"), folder, dirs_exist_ok=bool(out))
    except ValueError as e:
        p.error(str(e))
    print(f"wrote {folder} (step {state['step']:,}); play it with learned:{folder}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point."""
    from train.ppo import train
    from train.run import TrainingStoppedError

    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["reproduce"]:
        from train.reproduce import main as reproduce

        return reproduce(argv[1:], main)
    word = argv.pop(0) if argv[:1] and argv[0] in METHODS else None
    p = build_parser(next((a for a in argv if a in envs.available_games()), None))
    args = p.parse_args(argv)
    if word is not None and args.method is not None and args.method != word:
        p.error(f"the method is given twice: {word} and --method {args.method}")
    args.method = word or args.method or "ppo"
    if args.method == "finetune":
        if not args.init_from and args.resume is None:
            p.error("finetune starts from a distilled student: add --init-from STUDENT (a folder or a shipped id)")
        args.method = "ppo"  # fine-tuning is PPO whose policy starts from the student
    cfg = None
    try:
        check_outputs(args)  # every output path, before any work (an existing run is checked by train.ppo)
    except ValueError as e:
        p.error(str(e))
    if args.backend != "local" and args.method != "distill":
        p.error(f"--backend {args.backend} applies to --method distill (the teacher's labelling); "
                "PPO on a cluster: see train/rllib.py")
    for flag in ("address", "num_cpus"):
        if getattr(args, flag) is not None and args.backend != "ray":
            p.error(f"--{flag.replace('_', '-')} needs --backend ray")
    if args.method == "distill":
        if args.resume is not None:
            p.error("--resume takes the method from the run's checkpoint; drop distill")
        for flag in ("self_play", "baselines", "eval_baselines"):
            if getattr(args, flag) not in (None, False):
                p.error(f"--{flag.replace('_', '-')} applies to ppo and finetune runs, not distill")
        check_games(p, args.game)
        from train.distill import distill_main

        args.seed = 0 if args.seed is None else args.seed
        return distill_main(p, args, given_settings(p, args, "distill"))
    if args.export is not None:
        return export_main(p, args)
    try:
        if args.resume is not None:
            cfg, resume = resumed_config(p, args)
            if resume[0].get("method") == "distill":
                from train.distill import run_distill
                from train.run import command_line

                return run_distill(p, args, cfg, command_line(), resume)
        else:
            cfg, resume = config_from_args(p, args), None
        if cfg.learner == "auto":
            cfg.learner = cfg.resolved_learner()
            print(f"train {cfg.game}: learner {cfg.learner}" + (" (a self-play pool)" if cfg.self_play else ""),
                  flush=True)
        if cfg.learner == "cleanrl":
            from train.vector_ppo import train as train_cleanrl

            train_cleanrl(cfg, progress=not args.no_progress, resume=resume, overwrite=args.overwrite)
        else:
            train(cfg, progress=not args.no_progress, resume=resume, overwrite=args.overwrite)
    except (ValueError, NotImplementedError) as e:
        p.error(str(e))
    except TrainingStoppedError as e:
        return fail(str(e), p.prog, 128 + e.signum)
    except KeyboardInterrupt:
        where = (f"; the last checkpoint (if any) resumes with `python -m train --resume {cfg.out}`"
                 if cfg and cfg.out else "")
        return fail(f"interrupted{where}", p.prog, 130)
    return 0


if __name__ == "__main__":
    sys.exit(main())
