"""Primi Composti: the seed's tables (IV–XV) reproduced side by side, and exact solves.

    python -m evaluate primi_composti --reproduce                 # paper sample sizes
    python -m evaluate primi_composti --reproduce --games 20000 --tables VIII-IX,X-XI   # at most 20,000 games a cell
    python -m evaluate primi_composti --claims --games 1000               # first/second-player edges
    python -m evaluate primi_composti --solve-deals 200 --option version=2 --option cards_per_player=8

Games are played on the players' compiled kernels (`agents.primi_composti.fast`, on
the engine's fast path), which are differential-tested against the plain engine and players. P1 (row) is always
the holder of card 2 and moves first, as in the seed. The published figures come from the
seed's repository raw tables (rules doc §7); the paper's printed Tables IV–XV are
excerpts of them (their rand / greedy_rand / minimax cells).
"""

from __future__ import annotations

import argparse
import time
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from scipy.stats import chi2_contingency

import agents
from agents.primi_composti import fast as strategies
from envs.core.files import InputFileError, read_json
from envs.primi_composti import fast
from evaluate import backends
from evaluate.cli import positive_int
from evaluate.jsonio import write_report
from evaluate.stats import mean_interval, two_sample_tolerance, wilson_interval
from evaluate.tournament import compiling_note, progress_bar

SIMPLE6 = ("asc", "desc", "rand", "greedy_asc", "greedy_desc", "greedy_rand")
GREEDY_MM = ("greedy_asc", "greedy_desc", "greedy_rand", "minimax_4", "minimax_5")
MM56 = ("minimax_5", "minimax_6")


def _rows(text: str, names: tuple[str, ...], width: int) -> dict[tuple[str, str], tuple[float, ...]]:
    vals = [float(x) for x in text.split()]
    cells = [tuple(vals[c : c + width]) for c in range(0, len(vals), width)]  # row by row
    return dict(zip([(a, b) for a in names for b in names], cells))


# The paper's tables as whitespace-separated numbers, a row of cells a line (a long row goes on in an indented line).
# Rules doc §7.1: v1, 200,000 games per cell: W1 T W2 |Δ| (percent, points).
PAPER_V1_SIMPLE = _rows(
    """
57.40 5.00 37.60 5.80  39.60 7.33 53.08 4.43  41.42 5.80 52.78 5.47
    0.70 0.36 98.94 14.58  0.17 0.09 99.74 20.05  0.29 0.13 99.57 18.00
50.41 6.19 43.41 5.10  56.45 7.54 36.01 4.56  45.01 5.79 49.19 5.46
    0.60 0.29 99.11 17.53  0.47 0.20 99.33 17.12  0.73 0.31 98.95 17.15
55.75 5.05 39.20 6.17  48.30 5.49 46.21 5.77  51.02 5.33 43.64 5.87
    1.29 0.49 98.22 15.70  0.70 0.31 98.99 17.16  1.01 0.39 98.61 16.42
99.55 0.14 0.31 18.35  97.84 0.63 1.53 15.63  98.64 0.38 0.98 16.60
    54.60 5.30 40.10 5.93  46.98 5.22 47.80 6.01  49.52 5.48 44.99 5.85
98.26 0.44 1.30 18.33  96.14 0.87 2.99 15.35  98.92 0.33 0.75 17.26
    51.02 5.21 43.77 6.02  46.54 5.38 48.08 5.93  51.10 5.27 43.63 6.02
99.03 0.25 0.72 18.59  96.78 0.76 2.45 15.23  98.78 0.37 0.85 16.94
    55.55 5.48 38.96 5.92  47.44 5.22 47.33 6.03  50.90 5.38 43.72 5.88
""",
    SIMPLE6,
    4,
)
# Rules doc §7.2: v2, 200,000 games per cell: W1 W2 avg1 avg2 |Δ|.
PAPER_V2_SIMPLE = _rows(
    """
55.59 44.41 16.85 16.15 6.25  43.76 56.24 15.70 17.30 5.81  47.79 52.21 16.11 16.89 6.57
    2.04 97.96 8.55 24.45 16.08  0.26 99.74 6.58 26.42 19.86  0.67 99.33 7.50 25.50 18.05
57.10 42.90 17.33 15.67 6.45  53.01 46.99 16.68 16.32 5.79  51.06 48.94 16.58 16.42 6.54
    4.63 95.37 9.97 23.03 13.42  2.26 97.74 8.54 24.46 16.08  3.21 96.79 9.25 23.75 14.74
53.09 46.91 16.87 16.13 6.99  44.57 55.43 15.91 17.09 6.77  49.39 50.61 16.38 16.62 7.00
    1.83 98.17 8.19 24.81 16.76  0.94 99.06 7.24 25.76 18.59  1.38 98.62 7.69 25.31 17.71
99.35 0.65 23.97 9.03 14.99  91.57 8.43 21.60 11.40 10.85  96.12 3.88 23.12 9.88 13.52
    64.03 35.97 18.17 14.83 8.48  53.67 46.33 16.91 16.09 8.26  60.28 39.72 17.79 15.21 8.55
99.52 0.48 25.17 7.83 17.36  95.82 4.18 22.98 10.02 13.26  97.96 2.04 24.20 8.80 15.54
    52.39 47.61 16.82 16.18 8.24  49.98 50.02 16.52 16.48 7.91  53.92 46.08 17.01 15.99 8.28
99.33 0.67 24.65 8.35 16.34  94.13 5.87 22.46 10.54 12.36  97.34 2.66 23.74 9.26 14.67
    59.13 40.87 17.61 15.39 8.41  52.03 47.97 16.73 16.27 8.16  56.59 43.41 17.33 15.67 8.41
""",
    SIMPLE6,
    5,
)
# Rules doc §7.3, 1,000 games per cell. v1: W1 T W2 |Δ|; v2: W1 W2 |Δ|.
PAPER_V1_MM45 = _rows(
    """
56.1 4.6 39.3 6.00  45.9 5.6 48.5 5.90  51.5 3.9 44.6 6.09  7.5 3.0 89.5 9.59  8.6 2.8 88.6 9.32
52.9 5.9 41.2 5.92  46.8 6.2 47.0 5.90  53.5 4.9 41.6 6.01  8.1 2.5 89.4 8.93  7.3 2.5 90.2 9.25
57.7 5.0 37.3 5.86  48.7 5.1 46.2 5.95  50.9 5.6 43.5 5.71  8.4 2.5 89.1 9.20  7.4 2.1 90.5 9.40
83.5 3.0 13.5 8.30  81.3 3.1 15.6 7.76  83.5 2.4 14.1 8.38  30.6 5.8 63.6 5.13  21.0 4.8 74.2 5.81
88.5 3.3 8.2 8.95  83.7 2.7 13.6 8.11  85.5 3.6 10.9 8.70  44.4 6.1 49.5 4.63  34.5 7.3 58.2 4.27
""",
    GREEDY_MM,
    4,
)
PAPER_V2_MM45 = _rows(
    """
63.8 36.2 8.22  56.2 43.8 8.50  62.3 37.7 8.55  3.0 97.0 14.34  2.7 97.3 14.54
55.5 44.5 8.21  50.8 49.2 8.04  52.5 47.5 8.18  2.8 97.2 13.48  2.3 97.7 14.85
58.5 41.5 8.39  51.7 48.3 8.15  58.1 41.9 8.43  3.0 97.0 13.65  2.0 98.0 14.49
93.7 6.3 13.86  92.3 7.7 11.69  94.0 6.0 12.93  29.2 70.8 5.32  17.5 82.5 6.57
96.7 3.3 13.89  91.6 8.4 11.77  95.0 5.0 13.25  39.6 60.4 4.91  27.7 72.3 5.68
""",
    GREEDY_MM,
    3,
)
# Rules doc §7.4. v1 (180 games): W1 T W2 avg1 avg2 |Δ|; v2 (80 games): W1 W2 avg1 avg2 |Δ|.
PAPER_V1_MM56 = _rows(
    "35.00 5.56 59.44 38.40 40.04 4.35  22.78 4.44 72.78 35.79 38.82 4.59  "
    "43.33 8.89 47.78 37.49 37.92 4.17  28.89 8.89 62.22 33.76 35.87 4.41",
    MM56,
    6,
)
PAPER_V2_MM56 = _rows(
    "41.25 58.75 15.08 17.92 5.88  16.25 83.75 13.42 19.57 7.07  "
    "40.00 60.00 15.60 17.40 4.30  25.00 75.00 14.59 18.41 4.97",
    MM56,
    5,
)


@dataclass(frozen=True)
class TableGroup:
    """A set of the seed's tables: one version, one P1 × P2 matrix of players."""

    key: str
    version: int
    players: tuple[str, ...]
    paper_games: int
    paper: dict
    fields: tuple[str, ...]  # names of the paper's numbers per cell


GROUPS = {
    "IV-V": TableGroup("IV-V", 1, SIMPLE6, 200_000, PAPER_V1_SIMPLE, ("w1", "tie", "w2", "absdiff")),
    "VI-VII": TableGroup("VI-VII", 2, SIMPLE6, 200_000, PAPER_V2_SIMPLE, ("w1", "w2", "mean1", "mean2", "absdiff")),
    "VIII-IX": TableGroup("VIII-IX", 1, GREEDY_MM, 1_000, PAPER_V1_MM45, ("w1", "tie", "w2", "absdiff")),
    "X-XI": TableGroup("X-XI", 2, GREEDY_MM, 1_000, PAPER_V2_MM45, ("w1", "w2", "absdiff")),
    "XII-XIII": TableGroup("XII-XIII", 1, MM56, 180, PAPER_V1_MM56, ("w1", "tie", "w2", "mean1", "mean2", "absdiff")),
    "XIV-XV": TableGroup("XIV-XV", 2, MM56, 80, PAPER_V2_MM56, ("w1", "w2", "mean1", "mean2", "absdiff")),
}


@dataclass
class CellResult:
    """Our measurement of one P1-vs-P2 cell (percentages and points), with 95% intervals."""

    version: int
    p1: str
    p2: str
    games: int
    w1: float
    tie: float
    w2: float
    w1_ci: tuple[float, float]
    tie_ci: tuple[float, float]
    w2_ci: tuple[float, float]
    mean1: float
    mean2: float
    absdiff: float
    absdiff_ci: tuple[float, float]
    seconds: float


def play_cell(
    version: int, p1: str, p2: str, games: int, rng: np.random.Generator, cards_per_player: int = 12
) -> CellResult:
    """Play `games` fresh deals of `p1` (holder of 2, first) vs `p2`; win/tie
    percentages with Wilson intervals, mean scores and mean |score difference|."""
    t = time.perf_counter()
    decks = fast.random_decks(rng, games, cards_per_player)
    scores, _ = strategies.simulate(version, cards_per_player, p1, p2, decks)
    dt = time.perf_counter() - t
    d = scores[:, 0] - scores[:, 1]
    w1, tie, w2 = int((d > 0).sum()), int((d == 0).sum()), int((d < 0).sum())

    def pct(k: int) -> tuple[float, tuple[float, float]]:
        lo, hi = wilson_interval(k, games)
        return 100.0 * k / games, (100.0 * lo, 100.0 * hi)

    (pw1, cw1), (pt, ct), (pw2, cw2) = pct(w1), pct(tie), pct(w2)
    m, lo, hi = mean_interval(np.abs(d))
    return CellResult(
        version, p1, p2, games, pw1, pt, pw2, cw1, ct, cw2,
        float(scores[:, 0].mean()), float(scores[:, 1].mean()), m, (lo, hi), dt,
    )


def compare(group: TableGroup, cell: CellResult) -> dict[str, Any]:
    """Our cell next to the paper's, with each proportion's two-sample tolerance
    (ours over `cell.games`, the paper's over `group.paper_games`)."""
    paper = dict(zip(group.fields, group.paper[(cell.p1, cell.p2)]))
    out: dict[str, Any] = {"paper": paper, "ours": asdict(cell), "consistent": {}}
    fields = [f for f in ("w1", "tie", "w2") if f in paper]
    for f in fields:
        tol = 100.0 * two_sample_tolerance(max(paper[f] / 100.0, 0.5 / group.paper_games), cell.games,
                                           group.paper_games)
        out["consistent"][f] = abs(getattr(cell, f) - paper[f]) <= tol
        out.setdefault("tolerance", {})[f] = tol
    # One test per cell: are our (W1, T, W2) counts and the paper's drawn from the
    # same outcome distribution? (chi-square on the 2 x outcomes table; 5% of
    # cells are flagged by chance alone.)
    ours_counts = [round(getattr(cell, f) * cell.games / 100) for f in fields]
    paper_counts = [round(paper[f] * group.paper_games / 100) for f in fields]
    table = np.array([ours_counts, paper_counts], dtype=float)
    table = table[:, table.sum(axis=0) > 0]
    out["p_value"] = float(chi2_contingency(table)[1]) if table.shape[1] > 1 else 1.0
    return out


def reproduce(keys: list[str], games: int | None, seed: int, log=print,
              progress: bool | None = None) -> dict[str, list[dict[str, Any]]]:
    """Play every cell of the chosen table groups (`games` caps the games per cell;
    None = the paper's sample size) and compare with the published figures. `progress`: a bar of each group's
    cells (`None`: only on a terminal), naming a first run's compilation."""
    rng = np.random.default_rng(seed)
    out: dict[str, list[dict[str, Any]]] = {}
    for key in keys:
        g = GROUPS[key]
        n = g.paper_games if games is None else min(games, g.paper_games)
        rows = []
        bar = progress_bar(len(g.players) ** 2, f"Primi Composti, Tables {key}", progress, unit="cell")
        with bar, compiling_note(bar, "primi_composti", agents.part("primi_composti").compile_seconds):
            for p1 in g.players:
                for p2 in g.players:
                    rows.append(compare(g, play_cell(g.version, p1, p2, n, rng)))
                    bar.update(1)
            out[key] = rows
        log(format_group(g, rows))
    return out


def format_group(group: TableGroup, rows: list[dict[str, Any]]) -> str:
    """A side-by-side text table of one group."""
    n = rows[0]["ours"]["games"]
    head = (f"Tables {group.key} — version {group.version}: P1 (row, holds 2, first) vs P2; ours {n:,} games/cell, "
            f"paper {group.paper_games:,}")
    lines = [
        head,
        "  cell: ours W1 % [95% CI] / tie / W2  |Δ| (mean scores)   vs paper  -> p-value of 'same distribution'",
    ]
    flagged = 0
    for r in rows:
        o, p = r["ours"], r["paper"]
        ok = r["p_value"] >= 0.05
        flagged += not ok
        ours = (f"{o['w1']:6.2f} [{o['w1_ci'][0]:5.2f},{o['w1_ci'][1]:6.2f}] / {o['tie']:5.2f} / {o['w2']:6.2f}  "
                f"|Δ| {o['absdiff']:5.2f} ({o['mean1']:5.2f}, {o['mean2']:5.2f})")
        pap = " / ".join(f"{k} {v:g}" for k, v in p.items())
        lines.append(
            f"  {o['p1']:>11} v {o['p2']:<11} {ours}   paper {pap}  p={r['p_value']:.2f} {'ok' if ok else 'DIFFERS'}"
        )
    lines.append(f"  {flagged} of {len(rows)} cells differ at the 5% level "
                 "(chi-square of W1/T/W2 counts, ours vs paper; ~5% expected by chance)")
    return "\n".join(lines)


CLAIM_PLAYERS = ("rand", "greedy_rand", "minimax_4", "minimax_5", "minimax_6")


def claims(games: int, seed: int, players: tuple[str, ...] = CLAIM_PLAYERS, log=print,
           progress: bool | None = None) -> list[dict[str, Any]]:
    """The paper's seat claims at a chosen sample size: self-play of each player in
    both versions, P1 (first) vs P2 win rates with Wilson intervals. The seed finds
    a first-player edge for simple/greedy players and a second-player edge for
    minimax players, strongest in version 2. `progress`: a bar of the cells (`None`: only on a terminal)."""
    from tqdm import tqdm

    rng = np.random.default_rng(seed)
    out = []
    bar = progress_bar(2 * len(players), "Primi Composti, seat claims", progress, unit="cell")
    with bar, compiling_note(bar, "primi_composti", agents.part("primi_composti").compile_seconds):
        for version in (1, 2):
            for p in players:
                c = play_cell(version, p, p, games, rng)
                bar.update(1)
                edge = "P1" if c.w1_ci[0] > c.w2_ci[1] else "P2" if c.w2_ci[0] > c.w1_ci[1] else "none"
                row = {"version": version, "player": p, "games": games, "w1": c.w1, "w1_ci": c.w1_ci, "tie": c.tie,
                       "w2": c.w2, "w2_ci": c.w2_ci, "favoured": edge}
                out.append(row)
                with tqdm.external_write_mode():  # the line above the bar, not through it
                    log(f"v{version} {p:>11} self-play, {games} games: P1 {c.w1:5.1f}% [{c.w1_ci[0]:.1f}, "
                        f"{c.w1_ci[1]:.1f}], tie {c.tie:4.1f}%, P2 {c.w2:5.1f}% [{c.w2_ci[0]:.1f}, {c.w2_ci[1]:.1f}]"
                        f" -> favoured: {edge}")
    return out


#: This module's flags whose job runs on `--backend ray` (the others run in the calling process).
BACKEND_FLAGS = ("solve_deals", "solve_from", "solve_threads", "regret_players")


def add_arguments(parser: argparse._ActionsContainer) -> None:
    """`--reproduce [--tables ...]`, `--solve-deals N`."""
    parser.add_argument(
        "--reproduce",
        action="store_true",
        help="replay the seed's Tables IV-XV side by side (--games caps games per cell)",
    )
    parser.add_argument(
        "--tables", type=str, default=",".join(GROUPS), help=f"table groups for --reproduce, from {','.join(GROUPS)}"
    )
    parser.add_argument("--claims", action="store_true",
                        help="first/second-player edge in self-play of rand, greedy_rand, minimax_4..6 "
                             "(--games per cell, default 1000)")
    parser.add_argument(
        "--solve-deals",
        type=positive_int(low=0),
        default=0,
        metavar="N",
        help="solve N random 2-player deals exactly (use --option version=, cards_per_player=)",
    )
    parser.add_argument(
        "--solve-from",
        type=positive_int(low=0),
        default=0,
        metavar="K",
        help="with --solve-deals, start at deal K of the seeded sequence (split a study across processes)",
    )
    parser.add_argument(
        "--solve-threads",
        type=int,
        default=1,
        choices=(1, 2),
        help="threads per solve (2 = lazy SMP: two searches sharing one table)",
    )
    parser.add_argument(
        "--merge-solves",
        nargs="+",
        default=None,
        metavar="JSON",
        help="join --solve-deals --json results of disjoint deal ranges and print the study",
    )
    parser.add_argument(
        "--regret-players",
        type=str,
        default="greedy_rand,minimax_2,minimax_4",
        help="players whose regret --solve-deals measures",
    )
    backends.add_arguments(parser)  # --backend ray [--address ...]: --solve-deals' deals as Ray tasks


def reproduce_groups(tables: str) -> list[str]:
    """The table groups named in a comma-separated `--tables` value; ValueError naming the allowed ones."""
    keys = [k.strip() for k in tables.split(",") if k.strip()]
    bad = [k for k in keys if k not in GROUPS]
    if bad:
        raise ValueError(f"unknown table group(s) {bad}; choose from {list(GROUPS)}")
    return keys


def run(args: argparse.Namespace) -> bool:
    """Handle `--reproduce` / `--solve-deals`; otherwise fall through to the tournament."""
    progress = False if getattr(args, "no_progress", False) else None  # the bars of --reproduce and --claims
    if getattr(args, "reproduce", False):
        result = reproduce(reproduce_groups(args.tables), args.games, args.seed, progress=progress)
    elif getattr(args, "claims", False):
        result = claims(args.games or 1000, args.seed, progress=progress)
    elif getattr(args, "merge_solves", None):
        from evaluate.primi_composti.solve import format_study, merge_studies

        parts = []
        for path in args.merge_solves:
            try:  # a regular file only, within a size cap, strict JSON
                parts.append(read_json(path))
            except InputFileError as e:
                raise ValueError(f"--merge-solves: {e}") from None
            if not isinstance(parts[-1], dict):
                raise ValueError(f"--merge-solves: {path!r} is not a --solve-deals --json result (not a JSON object)")
        try:
            result = merge_studies(parts)
        except (KeyError, TypeError) as e:
            raise ValueError(f"--merge-solves: a file is not a --solve-deals --json result (missing {e})") from None
        print(format_study(result))
    elif getattr(args, "solve_deals", 0):
        from evaluate.primi_composti.solve import format_study, solve_study, study_rules

        opts = dict(args.options)
        rules = study_rules(opts)  # before the backend starts: a bad option is one line
        with backends.from_args(args) as backend:
            result = solve_study(
                int(opts.get("version", 1)), int(opts.get("cards_per_player", 12)), args.solve_deals, args.seed,
                [p for p in args.regret_players.split(",") if p], start=args.solve_from, threads=args.solve_threads,
                backend=backend, rules=rules,
            )
        print(format_study(result))
    else:
        return False
    write_report(args.json, result, indent=1)
    return True
