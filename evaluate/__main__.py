"""`python -m evaluate GAME ...`: tournaments for every game, plus game-specific jobs.

    python -m evaluate lama --agents lama/third,lama/first*3 --games 4000 --json results.json
    python -m evaluate list                    # games and their agents
    python -m evaluate primi_composti --league --games 100                    # ratings of every agent
    python -m evaluate simple_poker --paired simple_poker/nash,random --against simple_poker/nash

Game-specific flags (`--reproduce`, `--exact`, ...) come from the module its evaluate package declares
(`evaluate.games.part(game).jobs`: `add_arguments(group)` and `run(args) -> bool`); `python -m evaluate GAME
--help` lists them, with the game's options and examples.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from types import ModuleType

import envs
from envs.core.options import parse_options
from evaluate import backends, cli, games
from evaluate.cli import STOP, Parser, check_outputs, fail, on_stop, positive_int, stop_status, stopped_exit
from evaluate.jsonio import atomic_path, write_report

#: The most games one command may ask for (a typo such as 10**11 is refused, not started).
MAX_GAMES = 10**8


def game_epilog(game: str) -> str:
    """The game's options (from its `Config` declarations) and runnable examples, for `--help`."""
    from agents import default_lineup

    lines = envs.spec(game).options_help()
    lines += ["", f"default line-up: {', '.join(default_lineup(game))} (the last fills the other seats)", "",
              "examples:"]
    lines += [f"  python -m evaluate {e}" for e in games.part(game).examples]
    return "\n".join(lines)


def game_flags_heading(game: str) -> str:
    """The `--help` heading of the flags a game's evaluation module adds (`--reproduce`, `--exact`, ...)."""
    return f"{envs.spec(game).title} only (python -m evaluate {game} ...)"


def build_parser(game: str | None) -> argparse.ArgumentParser:
    """The parser, with the game's own flags when `game` is known."""
    known = game is not None and game in envs.available_games()
    p = Parser(prog="python -m evaluate", description="Tournaments and analysis for tabletop-rl games. Subcommands: "
               f"GAME (one of {', '.join(envs.available_games())}), 'list' (games and their agents), "
               "'play GAME' (play in the terminal); 'python -m evaluate GAME --help' shows the game's options.",
               epilog=game_epilog(game) if known else None, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("game", help=f"one of: {', '.join(envs.available_games())}, 'list', or 'play'")
    p.add_argument("--agents", type=str, default=None,
                   help="comma-separated agent ids, one per seat; NAME*K repeats (default: the game's strongest "
                        "baseline against its next strongest; see GAME --help)")
    p.add_argument(
        "--games", type=positive_int(MAX_GAMES), default=None, help=f"number of games, 1..{MAX_GAMES:,} (default 1000)"
    )
    p.add_argument("--seed", type=positive_int(low=0), default=0, help="root seed of deals and agents (default 0)")
    p.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="game option, repeatable (GAME --help lists them)",
    )
    p.add_argument(
        "--seating",
        choices=["rotate", "fixed"],
        default="rotate",
        help="rotate: every rotation, same deals replayed (duplicate play); fixed: entrant i at seat i",
    )
    p.add_argument(
        "--engine",
        choices=["auto", "python", "compiled"],
        default="auto",
        help="tournaments and --paired: 'compiled' plays whole games on the game's compiled kernels (every "
        "agent needs a deterministic kernel), 'python' move by move through the agents; 'auto' (default) "
        "compiled where it can; the same deals and, for deterministic agents, the same figures either way",
    )
    p.add_argument(
        "--max-turns",
        type=positive_int(),
        default=None,
        help="cut games longer than this (counted as no winner; default: the game's own limit "
        "for rules that let a game go on for ever, L.A.M.A. 10,000)",
    )
    p.add_argument("--json", type=str, default=None, help="write results as JSON to this path")
    p.add_argument("--csv", type=str, default=None, help="write results as CSV to this path")
    p.add_argument("--out", type=str, default=None, help="folder for plots and reports (default results/<game>)")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar (games done, rate, ETA, and the "
                   "first run's kernel compilation) that tournaments, --paired and --league show on a terminal's "
                   "stderr; the results are the same")
    p.add_argument("--paired", type=str, default=None, metavar="A,B[,C...]",
                   help="paired comparison of agent A with B (and C, ...) on the same deals and seats (with --against)")
    p.add_argument(
        "--against",
        type=str,
        default=None,
        metavar="ID,...",
        help="the opponents (teammates) of a --paired comparison; 'self': a copy of the focal agent in every "
        "seat (a cooperative game's self-team protocol)",
    )
    p.add_argument(
        "--league", action="store_true", help="round robin of every agent (or --agents) with ratings and 95%% intervals"
    )
    backends.add_arguments(p)  # --backend ray [--address HOST:6379]: the deals as Ray tasks
    p.set_defaults(game_flags=())
    if known:
        mod = games.jobs(game)
        if mod is not None and hasattr(mod, "add_arguments"):
            before = {a.dest for a in p._actions}
            # one heading for every game's own flags, under the common ones
            mod.add_arguments(p.add_argument_group(game_flags_heading(game)))
            p.set_defaults(game_flags=tuple(a.dest for a in p._actions if a.dest not in before))
    return p


def _check_backend(parser: argparse.ArgumentParser, args: argparse.Namespace, mod: ModuleType | None) -> None:
    """`--backend ray` runs tournaments, --paired, --league and the game jobs that name it in their module's
    `BACKEND_FLAGS`; with any other game job it is refused up front (it would silently run in this process)."""
    if args.backend == "local":
        return
    allowed = set(getattr(mod, "BACKEND_FLAGS", ()))
    used = [d for d in args.game_flags if d not in allowed and getattr(args, d) != parser.get_default(d)]
    if used:
        flag = "--" + used[0].replace("_", "-")
        raise ValueError(
            f"--backend {args.backend} applies to tournaments, --paired, --league"
            f"{' and ' + ', '.join('--' + f.replace('_', '-') for f in sorted(allowed)) if allowed else ''}; "
            f"{flag} runs in this process: drop --backend"
        )


def _check_engine(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """`--engine python|compiled` chooses how tournaments and --paired play; anywhere else it is refused up front
    (it would be silently ignored). `compiled` with `--backend ray` is refused before Ray starts."""
    if args.engine == "compiled" and args.backend != "local":
        raise ValueError("--engine compiled plays whole games in this process: drop --backend")
    if args.engine == "auto" or args.paired or args.against:
        return
    used = [d for d in args.game_flags if getattr(args, d) != parser.get_default(d)]
    other = "--league" if args.league else "--" + used[0].replace("_", "-") if used else None
    if other is not None:
        raise ValueError(f"--engine applies to tournaments and --paired; {other} plays its own way: drop --engine")


def main(argv: list[str] | None = None) -> int:
    """Entry point: usage errors are one line and exit 2; Ctrl-C one line and exit 130, SIGTERM one line and exit
    143, a tournament's finished deals kept either way (written as a partial result to --json / --csv)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["play"]:
        from evaluate.play import main as play_main

        return play_main(argv[1:])
    game = next((a for a in argv if not a.startswith("-")), None)
    parser = build_parser(game)
    args = parser.parse_args(argv)
    STOP.clear()
    # SIGTERM as Ctrl-C, unless whoever started us chose to ignore it (a handler of theirs is theirs to keep);
    # handlers can only be set from the main thread (a caller running main elsewhere keeps its own)
    main_thread = threading.current_thread() is threading.main_thread()
    before = signal.getsignal(signal.SIGTERM) if main_thread else None
    if before is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, on_stop)
    if main_thread and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, on_stop)
    try:
        return _run(parser, args)
    except ValueError as e:
        parser.error(str(e))
    except KeyboardInterrupt:
        word, status = stop_status()
        return fail(word, parser.prog, status)
    except backends.WorkerLostError as e:  # on every retry, before anything finished (or in a job that keeps none)
        return fail(str(e), parser.prog, 1)
    finally:
        if before is signal.SIG_DFL:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
        if main_thread and signal.getsignal(signal.SIGINT) is on_stop:
            signal.signal(signal.SIGINT, signal.default_int_handler)


def named_agents(args: argparse.Namespace) -> list[str]:
    """Every agent id the command line names (--agents, --paired, --against; not `--against self`)."""
    from agents import expand_agent_ids
    from evaluate.paired import SELF

    return [i for flag in (args.agents, args.paired, args.against) if flag for i in expand_agent_ids(flag) if i != SELF]


def _run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    if args.game == "list":
        from agents.options import listing

        for g in envs.available_games():
            print(f"{g}: {envs.spec(g).title}")
            print("\n".join(listing(g)))
        return 0
    cli.check_games(parser, args.game)
    check_outputs(args, parser)  # every output path, before any game is played
    args.options = parse_options(envs.config_class(args.game), args.option)
    args.options = cli.apply_agent_options(args.game, named_agents(args), args.options)
    game = envs.make_game(args.game, **args.options)  # validate options early, with the Config's message
    args.agents = args.agents.split(",") if args.agents else None
    args.out = args.out or os.path.join("results", args.game)
    mod = games.jobs(args.game)
    _check_backend(parser, args, mod)
    _check_engine(parser, args)
    if args.paired or args.against or args.league:
        from evaluate.league import run_cli

        return run_cli(args, parser)
    # A bad combination of the game's own options raises ValueError: a usage error, as below.
    if mod is not None and hasattr(mod, "run") and mod.run(args):
        return 0
    from agents import part as agent_part
    from evaluate.tournament import format_table, run_tournament, write_csv

    ids = args.agents or agent_part(args.game).lineup(game.num_players)
    with backends.from_args(args) as backend:
        result = run_tournament(
            args.game, ids, games=args.games or 1000, seed=args.seed, options=args.options,
            seating=args.seating, max_turns=args.max_turns, progress=False if args.no_progress else None,
            backend=backend, stop_on_interrupt=True, engine=args.engine,
        )
    print(format_table(result))
    write_report(args.json, result.to_dict())
    if args.csv:
        with atomic_path(args.csv) as tmp:
            write_csv(result, tmp)
        print(f"wrote {args.csv}")
    if result.partial:  # stopped, or a Ray worker died on every retry (`backend.lost`)
        return stopped_exit(result.deals, result.planned_deals, [args.json, args.csv], getattr(backend, "lost", None))
    return 0


if __name__ == "__main__":
    sys.exit(main())
