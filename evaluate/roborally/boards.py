"""RoboRally: the shipped boards listed and pictured, and a race recorded as an animated GIF.

    python -m evaluate roborally --boards [--out DIR] [--scale 32]        # every shipped board: table + DIR/<name>.png
    python -m evaluate roborally --boards --option board=random:7         # one board (any spec) instead
    python -m evaluate roborally --agents random*4 --option board=race_easy --record race.gif [--turns 30]

`--study`, `--study-budget`, `--study-plot` and `--study-curve` run `evaluate.roborally.study` (its commands there).
`--record` plays one race through the one game loop (`envs.core.play.play_out`) and draws a frame for the start
and one after every register phase of every turn (the engine's `State.frames`: robots after lasers and checkpoints,
with that phase's laser shots). Without `--option num_robots=...` the race seats one robot per agent.
"""

from __future__ import annotations

import argparse
import os
import re

import numpy as np

import agents as agent_registry
import envs
from agents import expand_agent_ids
from envs.core.play import play_out, reset_agent
from envs.roborally.board import (
    BELT,
    EXPRESS,
    GEAR_CCW,
    GEAR_CW,
    PIT,
    REPAIR,
    REPAIR2,
    Board,
    load_board,
    shipped_boards,
)
from envs.roborally.render import rgb_array, with_caption, with_legend, write_gif
from evaluate.cli import positive_int

GAME = "roborally"


def elements_used(board: Board) -> list[str]:
    """Names of the board elements that occur on `board`, in a fixed order."""
    floor = board.floor
    found = [
        ("pits", bool((floor == PIT).any())),
        ("walls", bool(board.walls.any())),
        ("belts", bool((floor == BELT).any())),
        ("express", bool((floor == EXPRESS).any())),
        ("rotating", bool(board.rotating.any())),
        ("gears cw", bool((floor == GEAR_CW).any())),
        ("gears ccw", bool((floor == GEAR_CCW).any())),
        ("wrenches", bool((floor == REPAIR).any())),
        ("double wrenches", bool((floor == REPAIR2).any())),
        ("pushers", bool(board.pushers)),
        ("crushers", bool(board.crushers)),
    ]
    names = [name for name, present in found if present]
    if board.lasers:
        beams = "/".join(str(b) for b in sorted({las.beams for las in board.lasers}))
        names.insert(names.index("pushers") if "pushers" in names else len(names), f"lasers (beams {beams})")
    return names


def board_table(boards: list[Board]) -> str:
    """One line per board: name, size, flags, starts and the elements it uses."""
    width = max(len(b.name) for b in boards)
    lines = [f"{'board':<{width}}  size   flags  starts  elements"]
    for b in boards:
        size = f"{b.width}x{b.height}"
        lines.append(f"{b.name:<{width}}  {size:<5}  {len(b.flags):>5}  {len(b.starts):>6}  "
                     f"{', '.join(elements_used(b))}")
    return "\n".join(lines)


def write_board_pictures(boards: list[Board], out: str, scale: int = 32) -> list[str]:
    """A PNG of each board (no robots) in `out`, named after the board (':' becomes '_'); the paths written."""
    from PIL import Image

    os.makedirs(out, exist_ok=True)
    paths = []
    for b in boards:
        path = os.path.join(out, b.name.replace(":", "_") + ".png")
        Image.fromarray(rgb_array(b, scale=scale)).save(path, optimize=True)
        paths.append(path)
    return paths


def record_race(game, agent_ids: list[str], path: str, seed: int = 0, turns: int | None = None,
                scale: int = 32, ms_per_frame: int = 400, progress: bool | None = None) -> dict:
    """Play one race on the engine `game` and write its replay GIF; returns frames, turns, winner and reason.

    Agents are built as in tournaments (`agents.make`, one generator each from `seed`); the start state comes from
    the same seed. `turns` stops the recording after that many executed turns (None: until the game ends). A bar of
    the turns played (rate, ETA against `turns` or the game's `max_turns`) is shown from the start (`progress`
    None: on a terminal only; False: never)."""
    if len(agent_ids) != game.num_players:
        raise ValueError(f"the race seats {game.num_players} robots; give {game.num_players} agent ids "
                         f"(got {len(agent_ids)}: {agent_ids})")
    if turns is not None and turns < 1:
        raise ValueError(f"--turns must be >= 1, got {turns}")
    from evaluate.tournament import compiling_note, progress_bar

    bar = progress_bar(turns or game.config.max_turns, f"recording {path}", progress, unit="turn")
    try:
        with compiling_note(bar, GAME):  # a Monte-Carlo driver compiles its kernels at its first decision
            return _record(game, agent_ids, path, seed, turns, scale, ms_per_frame, bar)
    finally:
        bar.close()


def _record(game, agent_ids, path, seed, turns, scale, ms_per_frame, bar) -> dict:
    root = np.random.SeedSequence(seed)
    deal_seq, *agent_seqs = root.spawn(1 + len(agent_ids))
    seated = [agent_registry.make(a, game, np.random.default_rng(s), game_name=GAME)
              for a, s in zip(agent_ids, agent_seqs)]
    for agent in seated:
        reset_agent(agent)
    board = game.board
    state = game.initial_state(np.random.default_rng(deal_seq))
    labels = list(agent_ids)  # every frame says which agent drives each colour

    def draw(robots, shots, caption):
        return with_legend(with_caption(rgb_array(board, robots, shots, scale=scale), caption), labels)

    frames = [draw(state.robots, (), f"start: {board.name}")]
    played = 0
    last = state.frames
    while not game.is_terminal(state) and (turns is None or played < turns):
        state, _ = play_out(game, seated, state, max_turns=1)  # one programming sub-step
        if state.frames is not last and state.frames:
            played += 1
            bar.update(1)
            last = state.frames
            for frame in state.frames:
                # The changing part first: Pillow merges identical frames, and a cut caption must still differ.
                caption = f"turn {played}, register {frame.register}: {board.name}"
                frames.append(draw(frame.robots, frame.shots, caption))
    reason = game.over_reason(state)
    winner = state.winner if state.winner >= 0 else None
    if winner is not None:
        final = f"robot {winner + 1} ({agent_ids[winner]}) wins after {played} turns: {board.name}"
        frames.append(draw(state.robots, (), final))
    write_gif(frames, path, ms_per_frame=ms_per_frame)
    return {"frames": len(frames), "turns": played, "winner": winner, "reason": reason or "recording stopped"}


def add_arguments(g: argparse._ActionsContainer) -> None:
    """RoboRally's own flags, added to `g` (the parser or the argument group `python -m evaluate roborally --help`
    lists them under)."""
    g.add_argument("--boards", action="store_true", help="list the shipped boards (or the --option board=...) with "
                   "size, flags, starts and elements, and write a PNG of each to --out (default results/roborally)")
    g.add_argument("--record", metavar="GIF", default=None, help="play one race with --agents (default random "
                   "robots) and write an animated replay, one frame per register phase")
    g.add_argument("--turns", type=int, default=None, help="--record: stop after this many turns (default: until "
                   "the race ends or the game's max_turns)")
    g.add_argument("--scale", type=int, default=32, help="pixels per board square in pictures (default 32)")
    g.add_argument(
        "--ms-per-frame", type=positive_int(), default=400, help="--record: milliseconds per frame (default 400)"
    )
    g.add_argument("--study", metavar="JSON", default=None, help="race mc, greedy and random on the race boards "
                   "with 2 and 4 robots (resumable; results written to JSON after every chunk of deals)")
    g.add_argument("--study-budget", metavar="JSON", default=None, help="race mc at several playout budgets and "
                   "depths against greedy (race_medium, 2 robots)")
    g.add_argument("--study-boards", default=None, help="--study: comma-separated boards, shipped or random:<seed> "
                   "(default the three races)")
    g.add_argument("--study-sizes", default="2,4", help="--study: robot counts (default 2,4)")
    g.add_argument("--study-pairing", default=None, metavar="A,B", help="--study: race only this pairing of two "
                   "agent ids (e.g. 'roborally/mc?policy=greedy&depth=2&budget=300,roborally/greedy') instead of "
                   "mc/greedy/random")
    g.add_argument("--races", type=int, default=400, help="--study/--study-budget: races per cell (default 400)")
    g.add_argument("--study-curve", metavar="RUN", default=None, help="a training run's snapshots and end against "
                   "greedy on --study-boards (2 robots, --races races of --seed a point), greedy's and mc's levels "
                   "drawn: curve.png/.csv/.json to --out")
    g.add_argument("--study-plot", action="store_true", help="plot the --study / --study-budget JSON files to --out "
                   "and print them as Markdown tables")


def run(args: argparse.Namespace) -> bool:
    """Handle `--boards` and `--record` (True), else fall through to the tournament (False).

    A bad combination raises ValueError, which `python -m evaluate` reports as one usage error (exit 2)."""
    boards_flag, record = getattr(args, "boards", False), getattr(args, "record", None)
    study, budget = getattr(args, "study", None), getattr(args, "study_budget", None)
    if getattr(args, "study_curve", None):
        from evaluate.roborally import study as rs

        boards = args.study_boards.split(",") if args.study_boards else list(rs.BOARDS)
        default = args.out in (None, os.path.join("results", GAME))
        out = os.path.join(args.study_curve, "held_apart") if default else args.out
        for path in rs.run_curve(args.study_curve, boards, args.races, args.seed, out):
            print(f"wrote {path}")
        return True
    if study or budget or getattr(args, "study_plot", False):
        return _run_study(args, study, budget)
    if not boards_flag and record is None:
        return False
    scale = getattr(args, "scale", 32)
    if scale < 8:
        raise ValueError(f"--scale must be >= 8, got {scale}")
    options = dict(getattr(args, "options", None) or {})
    if boards_flag:
        names = [options["board"]] if "board" in options else list(shipped_boards())
        boards = [load_board(n) for n in names]
        print(board_table(boards))
        out = args.out or os.path.join("results", GAME)
        paths = write_board_pictures(boards, out, scale=scale)
        print(f"wrote {len(paths)} picture(s) to {out}")
    if record is not None:
        if not record.endswith(".gif"):
            raise ValueError(f"--record needs a path ending in .gif, got {record!r}")
        if getattr(args, "games", None) is not None:
            raise ValueError("--record plays and draws one race: drop --games (another race: --seed N)")
        ids = expand_agent_ids(args.agents) if args.agents else None
        if ids is not None:
            options.setdefault("num_robots", len(ids))
        game = envs.make_game(GAME, **options)
        ids = ids or ["random"] * game.num_players
        folder = os.path.dirname(record)
        if folder:
            os.makedirs(folder, exist_ok=True)
        summary = record_race(game, ids, record, seed=args.seed, turns=getattr(args, "turns", None),
                              scale=scale, ms_per_frame=getattr(args, "ms_per_frame", 400),
                              progress=False if getattr(args, "no_progress", False) else None)
        result = (f"robot {summary['winner'] + 1} won" if summary["winner"] is not None
                  else f"no winner ({summary['reason']})")
        print(f"wrote {record}: {summary['frames']} frames, {summary['turns']} turns, {result}")
    return True


def _run_study(args: argparse.Namespace, study: str | None, budget: str | None) -> bool:
    from evaluate.roborally import study as rs

    if args.races < 1:
        raise ValueError(f"--races must be >= 1, got {args.races}")
    if args.study_plot:
        out = args.out if args.out != os.path.join("results", GAME) else os.path.join("docs", "img", GAME)
        for path in rs.plot(study, budget, out):
            print(f"wrote {path}")
        for path in (study or "").split(",") + [budget or ""]:
            if path and os.path.exists(path):
                print(rs.markdown_table(path))
        return True
    options = {k: v for k, v in (getattr(args, "options", None) or {}).items() if k not in ("board", "num_robots")}
    if study:
        boards = args.study_boards.split(",") if args.study_boards else list(rs.BOARDS)
        for b in boards:
            if b not in shipped_boards() and not re.fullmatch(r"random:[0-9]+", b):
                raise ValueError(f"--study-boards: unknown board {b!r}; shipped: {', '.join(shipped_boards())}, "
                                 "or random:<seed> (a generated board)")
        sizes = [int(x) for x in args.study_sizes.split(",") if x.strip()]
        if any(n not in (2, 4) for n in sizes):
            raise ValueError(f"--study-sizes must list 2 and/or 4, got {args.study_sizes!r}")
        pairings = rs.PAIRINGS
        if getattr(args, "study_pairing", None):
            pair = tuple(x.strip() for x in args.study_pairing.split(","))
            if len(pair) != 2 or not all(pair):
                raise ValueError(f"--study-pairing takes two agent ids A,B, got {args.study_pairing!r}")
            game = envs.make_game(GAME, **{**rs.RACE_OPTIONS, **options, "board": boards[0], "num_robots": 2})
            for x in pair:  # an unknown id or option fails here, before any race or file
                agent_registry.make(x, game, np.random.default_rng(0), game_name=GAME)
            pairings = (pair,)
        rs.run_cells(study, rs.study_cells(boards, sizes, pairings), args.races, seed=args.seed, options=options)
    if budget:
        rs.run_cells(budget, rs.budget_cells(), args.races, seed=args.seed)
    return True


__all__ = ["add_arguments", "board_table", "elements_used", "record_race", "run", "write_board_pictures"]
