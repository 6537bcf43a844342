"""The Game: the seed's Monte Carlo table and the official-rules baselines.

    python -m evaluate the_game --reproduce                 # both studies, 1000 games per cell
    python -m evaluate the_game --reproduce --games 200 --reproduce-part berger2024

The parts: `berger2024`, the seed's experiment (L. Berger, 2024; rules doc §4.2–4.3) and its line plot;
`official`, every baseline under the published rules beside R. Weinmeister's simulation (rules doc §6); and
`weinmeister`, his table under both readings of the end rule (`Config.empty_hand`) with a verdict a cell.
"""

from __future__ import annotations

import argparse
import math
import os
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

import agents as agent_registry
from envs.core.play import play_out
from envs.the_game.rules import EMPTY_HAND_RULES, END_TURN, Config, State, TheGame
from evaluate.cli import positive_int
from evaluate.jsonio import figure, write_json
from evaluate.stats import Z95, mean_interval, two_sample_tolerance, wilson_interval
from evaluate.tournament import progress_bar

#: Seed table (rules doc §4.3): players -> strategy -> (mean, sd, max) of cards played, 1000 games each.
BERGER2024_TABLE: dict[int, dict[str, tuple[float, float, int]]] = {
    1: {"random": (12.20, 2.92, 23), "minimal": (7.77, 3.78, 24), "trick": (5.74, 3.94, 19)},
    2: {"random": (12.68, 3.01, 21), "minimal": (7.55, 3.91, 31), "trick": (5.04, 3.28, 18)},
    3: {"random": (12.71, 3.08, 24), "minimal": (6.68, 3.25, 26), "trick": (5.02, 2.97, 20)},
    4: {"random": (13.02, 3.00, 22), "minimal": (6.05, 3.17, 27), "trick": (4.84, 2.75, 20)},
    5: {"random": (13.16, 3.28, 26), "minimal": (5.59, 2.68, 20), "trick": (4.62, 2.37, 13)},
    6: {"random": (13.26, 3.44, 29), "minimal": (5.43, 2.52, 17), "trick": (4.64, 2.40, 14)},
    7: {"random": (13.26, 3.24, 27), "minimal": (5.41, 2.47, 19), "trick": (4.70, 2.35, 13)},
}
BERGER2024_GAMES = 1000
SEED_STRATEGY_NAMES = ("random", "minimal", "trick")

#: R. Weinmeister's simulation (rules doc §6), 10 000 games per cell:
#: ruleset -> (mean cards left, excellent %, perfect %) per player count 1..5.
WEINMEISTER_TABLE: dict[str, dict[str, tuple[float, ...]]] = {
    "simplest, no communication": {
        "mean": (22.0, 13.8, 17.9, 13.2, 11.2), "excellent": (12, 44, 32, 47, 53), "perfect": (1, 3, 1, 1, 0)},
    "simplest + trick-announcing": {
        "mean": (23.4, 11.7, 14.5, 10.0, 8.7), "excellent": (10, 53, 44, 62, 68), "perfect": (1, 4, 1, 1, 1)},
    "best plays, no communication": {
        "mean": (16.4, 9.0, 13.2, 9.9, 9.2), "excellent": (31, 65, 49, 63, 63), "perfect": (5, 6, 1, 1, 0)},
    "best plays + simple communication": {
        "mean": (17.1, 5.5, 7.0, 4.9, 5.2), "excellent": (28, 82, 79, 91, 90), "perfect": (5, 14, 6, 5, 3)},
}
WEINMEISTER_GAMES = 10_000

#: Official-rules baselines: (label, agent id, communication, matching Weinmeister ruleset or None).
OFFICIAL_BASELINES: tuple[tuple[str, str, str, str | None], ...] = (
    ("random", "the_game/random", "none", None),
    ("minimal", "the_game/minimal", "none", None),
    ("trick", "the_game/trick", "none", None),
    ("simplest", "the_game/simplest", "none", "simplest, no communication"),
    ("simplest+flags", "the_game/simplest", "pile_flags", "simplest + trick-announcing"),
    ("bestplays", "the_game/bestplays", "none", "best plays, no communication"),
    ("bestplays+flags", "the_game/bestplays", "pile_flags", "best plays + simple communication"),
)


def play_with(game: Any, agent_id: str, rng: np.random.Generator, agent_game: TheGame | None = None) -> State:
    """One game with `agent_id` in every seat (each its own child generator of `rng`); returns the final
    state. `agent_game` (default `game`) is the engine the agents are built for."""
    state = game.initial_state(rng)
    built_for = agent_game if agent_game is not None else game
    seats = [agent_registry.make(agent_id, built_for, r, game_name="the_game") for r in rng.spawn(game.num_players)]
    return play_out(game, seats, state)[0]


def _results(finals: list[State]) -> dict[str, np.ndarray]:
    return {
        "placed": np.array([s.placed for s in finals], dtype=np.int64),
        "cards_left": np.array([s.cards_left for s in finals], dtype=np.int64),
        "won": np.array([s.won for s in finals], dtype=bool),
    }


def simulate(game: TheGame, agent_id: str, games: int, seed: int,
             agent_game: TheGame | None = None) -> dict[str, np.ndarray]:
    """`games` games of `agent_id` (all seats); per game: `placed`, `cards_left`, `won`."""
    root = np.random.default_rng(seed)
    return _results([play_with(game, agent_id, r, agent_game) for r in root.spawn(games)])


class _EndsGameWatch:
    """The `empty_hand="skip"` engine, noting where the `"ends_game"` engine would have ended the same
    game: both reach the same states until the first `END_TURN` after which `"ends_game"` ends it."""

    def __init__(self, skip: TheGame, ends: TheGame):
        self.skip, self.ends = skip, ends
        self.ended: State | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.skip, name)

    def apply(self, state: State, action: int) -> State:
        """The skip engine's move; the first time the other reading would end the game there, its state."""
        nxt = self.skip.apply(state, action)
        if self.ended is None:
            if int(action) == END_TURN:
                alt = self.ends.apply(state, action)
                if alt.over:
                    self.ended = alt
            if self.ended is None and nxt.over:
                self.ended = nxt
        return nxt


def simulate_both_readings(config: Config, agent_id: str, games: int, seed: int) -> dict[str, dict[str, np.ndarray]]:
    """`simulate` under `empty_hand="skip"` and `"ends_game"` at once, each deal played once (`_EndsGameWatch`):
    reading -> per-game results, game for game those of `simulate` under that reading (tests compare them).
    The agents are built for `config` itself (a student for the game it was trained on)."""
    skip = TheGame(Config(**{**asdict(config), "empty_hand": "skip"}))
    ends = TheGame(Config(**{**asdict(config), "empty_hand": "ends_game"}))
    built_for = TheGame(config)
    finals: dict[str, list[State]] = {"skip": [], "ends_game": []}
    for r in np.random.default_rng(seed).spawn(games):
        watch = _EndsGameWatch(skip, ends)
        final = play_with(watch, agent_id, r, built_for)
        finals["skip"].append(final)
        finals["ends_game"].append(watch.ended if watch.ended is not None else final)
    return {k: _results(v) for k, v in finals.items()}


@dataclass(frozen=True)
class BergerCell:
    """One cell of the seed's table: ours (mean, 95% interval, sd, max) beside the paper's."""

    players: int
    strategy: str
    games: int
    mean: float
    low: float
    high: float
    sd: float
    max: int
    paper_mean: float
    paper_sd: float
    paper_max: int

    @property
    def z(self) -> float:
        """Two-sample z statistic of our mean against the paper's (1000 games)."""
        se = np.sqrt(self.sd**2 / self.games + self.paper_sd**2 / BERGER2024_GAMES)
        return float((self.mean - self.paper_mean) / se)


def reproduce_berger2024(
    games: int = 1000, seed: int = 0, players: tuple[int, ...] = tuple(range(1, 8)),
    strategies: tuple[str, ...] = SEED_STRATEGY_NAMES, progress: bool | None = None,
) -> list[BergerCell]:
    """The seed's experiment (rules doc §4.2): cards played per (players, strategy) under `berger2024`; `progress`:
    a bar of the cells (`None`: only on a terminal)."""
    cells = []
    with progress_bar(len(players) * len(strategies), "The Game, berger2024 table", progress, unit="cell") as bar:
        for n in players:
            game = TheGame(Config(num_players=n, rules="berger2024"))
            for k, strat in enumerate(strategies):
                placed = simulate(game, f"the_game/{strat}", games, seed * 1000 + n * 10 + k)["placed"]
                bar.update(1)
                cells.append(BergerCell(n, strat, games, *mean_interval(placed),
                                        float(placed.std(ddof=1)) if games > 1 else 0.0, int(placed.max()),
                                        *BERGER2024_TABLE[n][strat]))
    return cells


def format_berger2024(cells: list[BergerCell]) -> str:
    """Terminal table: ours (95% interval) [max] beside the seed's mean (sd) [max]."""
    lines = ["The Game, rules='berger2024' — mean cards played (seed: Berger 2024, 1000 games per cell)", ""]
    strategies = list(dict.fromkeys(c.strategy for c in cells))
    head = f"{'players':>7}" + "".join(
        f" | {s + ' ours (95% CI) [max]':>30} {'seed (sd) [max]':>19}" for s in strategies
    )
    lines += [head, "-" * len(head)]
    for n in sorted({c.players for c in cells}):
        row = f"{n:>7}"
        for s in strategies:
            c = next(c for c in cells if c.players == n and c.strategy == s)
            ours = f"{c.mean:.2f} ({c.low:.2f}-{c.high:.2f}) [{c.max}]"
            row += f" | {ours:>30} {f'{c.paper_mean:.2f} ({c.paper_sd:.2f}) [{c.paper_max}]':>19}"
        lines.append(row)
    g = cells[0].games if cells else 0
    lines += ["", f"ours: {g} games per cell; z = (ours − seed)/SE of the difference: "
              + ", ".join(f"{c.players}{c.strategy[0]} {c.z:+.1f}" for c in cells)]
    return "\n".join(lines)


def plot_berger2024(cells: list[BergerCell], path: str) -> str:
    """The seed's line plot (mean cards played vs players, one line per strategy, 95% bands) plus the seed's means."""
    with figure(path, (8, 4), dpi=120) as (_, ax):
        for k, s in enumerate(dict.fromkeys(c.strategy for c in cells)):
            cs = sorted((c for c in cells if c.strategy == s), key=lambda c: c.players)
            x = [c.players for c in cs]
            color = f"C{k}"
            ax.plot(x, [c.mean for c in cs], "-o", color=color, label=f"{s} (ours)")
            ax.fill_between(x, [c.low for c in cs], [c.high for c in cs], color=color, alpha=0.2)
            ax.plot(x, [c.paper_mean for c in cs], "x--", color=color, alpha=0.7, label=f"{s} (seed)")
        ax.set_xlabel("num_players")
        ax.set_ylabel("cards_played")
        ax.set_title("The Game, berger2024 rules: mean cards played (95% band)")
        ax.legend(fontsize=8, ncol=2)
    return path


@dataclass(frozen=True)
class OfficialCell:
    """One (baseline, players) cell under the official rules, with 95% intervals."""

    label: str
    agent: str
    communication: str
    players: int
    games: int
    mean_left: float
    mean_low: float
    mean_high: float
    excellent: float
    excellent_low: float
    excellent_high: float
    win: float
    win_low: float
    win_high: float
    published: str | None
    paper_mean: float | None
    paper_excellent: float | None
    paper_win: float | None
    empty_hand: str = "skip"
    sd: float = float("nan")

    def paper_text(self) -> tuple[str, str, str]:
        """The published cards left, <10-left % and win % as printed ("-" where none)."""
        return (f"{self.paper_mean:.1f}" if self.paper_mean is not None else "-",
                f"{100 * self.paper_excellent:.0f}" if self.paper_excellent is not None else "-",
                f"{100 * self.paper_win:.0f}" if self.paper_win is not None else "-")

    def agreement(self, paper_games: int = WEINMEISTER_GAMES, z: float = Z95) -> dict[str, bool] | None:
        """Whether each of our figures is within the 95% tolerance (`z`) of the published one (None without one).

        His figures are rounded (cards left to 0.1, the shares to whole percent), so each stands for an
        interval: 13.8 for [13.75, 13.85], 1 % for [0.5 %, 1.5 %], 0 % for [0 %, 0.5 %]. Ours agrees when
        its distance to that interval is at most the two-sample tolerance at both sample sizes:
        z·sd·sqrt(1/n + 1/n_paper) for cards left (our sd stands in for his, which is not published),
        z·sqrt(p(1−p)(1/n + 1/n_paper)) for a share, p pooled from ours and the middle of his interval.
        """
        if self.paper_mean is None or self.paper_excellent is None or self.paper_win is None:
            return None
        n, m = self.games, paper_games

        def share_agrees(ours: float, paper: float) -> bool:
            lo, hi = max(0.0, paper - 0.005), paper + 0.005
            pooled = (n * ours + m * (lo + hi) / 2) / (n + m)
            return max(0.0, lo - ours, ours - hi) <= two_sample_tolerance(pooled, n, m, z)

        mean_tol = z * self.sd * math.sqrt(1 / n + 1 / m)
        return {
            "mean": max(0.0, abs(self.mean_left - self.paper_mean) - 0.05) <= mean_tol,
            "excellent": share_agrees(self.excellent, self.paper_excellent),
            "win": share_agrees(self.win, self.paper_win),
        }


def official_cell(label: str, agent: str, communication: str, players: int, left: np.ndarray,
                  ruleset: str | None, empty_hand: str = "skip") -> OfficialCell:
    """The statistics of one cell from its games' cards left (a win is 0 left), beside `ruleset`'s figures."""
    games = len(left)
    exc = int((left < 10).sum())
    wins = int((left == 0).sum())
    pub = WEINMEISTER_TABLE.get(ruleset) if ruleset else None
    return OfficialCell(
        label, agent, communication, players, games, *mean_interval(left), exc / games, *wilson_interval(exc, games),
        wins / games, *wilson_interval(wins, games), ruleset,
        pub["mean"][players - 1] if pub else None, pub["excellent"][players - 1] / 100 if pub else None,
        pub["perfect"][players - 1] / 100 if pub else None, empty_hand,
        float(np.std(left, ddof=1)) if games > 1 else float("nan"),
    )


def reproduce_official(
    games: int = 1000, seed: int = 0, players: tuple[int, ...] = (1, 2, 3, 4, 5),
    baselines: tuple[tuple[str, str, str, str | None], ...] = OFFICIAL_BASELINES, progress: bool | None = None,
    **options: Any,
) -> list[OfficialCell]:
    """Every baseline under the official rules: cards left, share < 10 left, wins (rules doc §6); `progress`: a bar
    of the cells (`None`: only on a terminal)."""
    cells = []
    bar = progress_bar(len(baselines) * len(players), "The Game, official-rules baselines", progress, unit="cell")
    labels = [b[0] for b in OFFICIAL_BASELINES]
    for pos, (label, aid, comm, ruleset) in enumerate(baselines):
        # the deals of a baseline do not depend on which other baselines are run
        k = labels.index(label) if label in labels else len(labels) + pos
        for n in players:
            cfg = Config(num_players=n, rules="official", communication=comm, **options)
            r = simulate(TheGame(cfg), aid, games, seed * 1000 + n * 10 + k)
            cells.append(official_cell(label, aid, comm, n, r["cards_left"], ruleset, cfg.empty_hand))
            bar.update(1)
    bar.close()
    return cells


def format_official(cells: list[OfficialCell]) -> str:
    """Terminal table of `reproduce_official`, with Weinmeister's figures where a ruleset matches."""
    g = cells[0].games if cells else 0
    lines = [f"The Game, official rules — {g} games per cell (Weinmeister: 10 000 games per cell, rules doc §6)", ""]
    head = (f"{'baseline':<16}{'n':>2} | {'cards left (95% CI)':>20} {'RW':>5} | {'<10 left % (CI)':>17} {'RW':>4}"
            f" | {'win % (CI)':>16} {'RW':>4}")
    lines += [head, "-" * len(head)]
    for c in cells:
        pm, pe, pw = c.paper_text()
        lines.append(
            f"{c.label:<16}{c.players:>2} | {f'{c.mean_left:.1f} ({c.mean_low:.1f}-{c.mean_high:.1f})':>20} {pm:>5} | "
            f"{f'{100 * c.excellent:.0f} ({100 * c.excellent_low:.0f}-{100 * c.excellent_high:.0f})':>17} {pe:>4} | "
            f"{f'{100 * c.win:.1f} ({100 * c.win_low:.1f}-{100 * c.win_high:.1f})':>16} {pw:>4}"
        )
    lines += ["", "RW = R. Weinmeister's ruleset matched to the baseline: simplest ~ 2.1 / 2.2 (announcing tricks),",
              "bestplays ~ 2.3 / 2.4 (this project's own best-plays design, not his code)."]
    return "\n".join(lines)


#: Strategies set beside Weinmeister's rows under both readings: (label, agent id, his ruleset). The id
#: `learned` stands for the shipped student of the player count (`the_game/learned` solo, else `learned-<n>p`).
WEINMEISTER_AGENTS: tuple[tuple[str, str, str], ...] = (
    ("simplest", "the_game/simplest", "simplest, no communication"),
    ("bestplays", "the_game/bestplays", "best plays, no communication"),
    ("learned", "learned", "best plays, no communication"),
)


def reproduce_weinmeister(
    games: int = WEINMEISTER_GAMES, seed: int = 0, players: tuple[int, ...] = (1, 2, 3, 4, 5),
    learned_games: int = 300, agents: tuple[tuple[str, str, str], ...] = WEINMEISTER_AGENTS,
    readings: tuple[str, ...] = EMPTY_HAND_RULES, progress: bool | None = None,
) -> list[OfficialCell]:
    """Weinmeister's no-communication rows against ours under each reading of the end rule:
    compiled strategies play `games` games per cell, the students `learned_games` on the plain engine; cell (agent,
    n) uses the deals of seed `seed * 1000 + n * 10 + k` under every reading."""
    from agents.the_game.fast import KERNELS, cards_left

    labels = [a[0] for a in WEINMEISTER_AGENTS]
    cells = []
    bar = progress_bar(len(agents) * len(players), "The Game, Weinmeister's table", progress, unit="cell")
    for pos, (label, aid, ruleset) in enumerate(agents):
        k = labels.index(label) if label in labels else len(labels) + pos
        for n in players:
            agent = aid if aid != "learned" else "the_game/learned" if n == 1 else f"the_game/learned-{n}p"
            cell_seed = seed * 1000 + n * 10 + k
            if agent in KERNELS:
                lefts = {r: cards_left(agent, Config(num_players=n, empty_hand=r), games, cell_seed) for r in readings}
            else:
                both = simulate_both_readings(Config(num_players=n), agent, learned_games, cell_seed)
                lefts = {r: both[r]["cards_left"] for r in readings}
            cells += [official_cell(label, agent, "none", n, lefts[r], ruleset, r) for r in readings]
            bar.update(1)
    bar.close()
    return cells


def format_weinmeister(cells: list[OfficialCell]) -> str:
    """Terminal table of `reproduce_weinmeister`: ours under each reading beside his row, with the verdicts
    (= within the 95% tolerance of his rounded figure at his 10 000 games, x = outside)."""
    lines = ["The Game, official rules, no communication: both readings of the end rule beside R. Weinmeister's",
             "no-communication rows (10 000 games per cell). empty_hand: skip = the rulebook's reading,",
             "ends_game = his simulation's. '=' within the 95% tolerance of his rounded figure, 'x' outside.", ""]
    head = (f"{'agent':<20}{'n':>2} {'empty_hand':<10}{'games':>6} | {'cards left (95% CI)':>20} {'RW':>5}  | "
            f"{'<10 left % (CI)':>18} {'RW':>3}  | {'win % (CI)':>17} {'RW':>3}")
    lines += [head, "-" * len(head)]
    for c in cells:
        agr = c.agreement() or {}
        mark = {k: ("=" if agr[k] else "x") if k in agr else " " for k in ("mean", "excellent", "win")}
        pm, pe, pw = c.paper_text()
        lines.append(
            f"{c.agent:<20}{c.players:>2} {c.empty_hand:<10}{c.games:>6} | "
            f"{f'{c.mean_left:.2f} ({c.mean_low:.2f}-{c.mean_high:.2f})':>20} {pm:>5} {mark['mean']} | "
            f"{f'{100 * c.excellent:.1f} ({100 * c.excellent_low:.1f}-{100 * c.excellent_high:.1f})':>18} {pe:>3} "
            f"{mark['excellent']} | {f'{100 * c.win:.2f} ({100 * c.win_low:.2f}-{100 * c.win_high:.2f})':>17} {pw:>3} "
            f"{mark['win']}")
    lines += ["", "RW: simplest ~ his ruleset 2.1; bestplays (this project's design) and the students are set beside",
              "his best no-communication search (2.3)."]
    return "\n".join(lines)


def add_arguments(parser: argparse._ActionsContainer) -> None:
    """`--reproduce` (the seed's table + plot and the official-rules baselines)."""
    parser.add_argument("--reproduce", action="store_true",
                        help="the seed's 1-7 players x 3 strategies table (berger2024) and the "
                             "official-rules baselines vs published simulations")
    parser.add_argument("--reproduce-part", choices=["both", "berger2024", "official", "weinmeister"], default="both",
                        help="which part of --reproduce to run (default both = berger2024 and official; "
                             "weinmeister: his table under both readings of the end rule, --games default 10000)")
    parser.add_argument("--learned-games", type=positive_int(10**6, low=2), default=300,
                        help="games per cell of the shipped students in --reproduce-part weinmeister "
                             "(plain engine, slow; default 300)")


def run(args: argparse.Namespace) -> bool:
    """Handle `--reproduce`; otherwise fall through to the generic tournament."""
    if not getattr(args, "reproduce", False):
        return False
    part = getattr(args, "reproduce_part", "both")
    games = args.games or (WEINMEISTER_GAMES if part == "weinmeister" else 1000)
    seed = args.seed if args.seed is not None else 0
    out = getattr(args, "out", None) or "results/the_game"
    report: dict[str, Any] = {"games_per_cell": games, "seed": seed}
    progress = False if getattr(args, "no_progress", False) else None
    if part == "weinmeister":
        learned_games = getattr(args, "learned_games", 300)
        wcells = reproduce_weinmeister(games, seed, learned_games=learned_games, progress=progress)
        print(format_weinmeister(wcells))
        report["learned_games_per_cell"] = learned_games
        report["weinmeister"] = [asdict(c) | {"agreement": c.agreement()} for c in wcells]
    if part in ("both", "berger2024"):
        cells = reproduce_berger2024(games, seed, progress=progress)
        print(format_berger2024(cells))
        png = plot_berger2024(cells, os.path.join(out, "the_game_berger2024.png"))
        print(f"\nwrote {png}\n")
        report["berger2024"] = [asdict(c) | {"z": c.z} for c in cells]
    if part in ("both", "official"):
        opts = {k: v for k, v in (args.options or {}).items() if k in ("min_cards_per_turn", "win_bonus", "empty_hand")}
        ocells = reproduce_official(games, seed, progress=progress, **opts)
        print(format_official(ocells))
        report["official"] = [asdict(c) for c in ocells]
    if args.json:
        write_json(args.json, report)
        print(f"\nwrote {args.json}")
    return True

