"""A league: round robin of a game's agents on duplicate deals, with Bradley–Terry ratings and 95% intervals.

    python -m evaluate primi_composti --league --games 100 --json league.json --out results/primi_composti
    python -m evaluate.league --docs docs/leaderboard.md     # regenerate the leaderboard of every game

The line-ups, duplicate scoring and the fit are described in docs/leaderboard.md. Ratings are on the Elo scale
(400 / ln 10 per unit, mean 0); intervals are percentiles of refits on deals resampled with replacement, seeded by
`seed`.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import itertools
import json
import math
import os
import re
import sys
import textwrap
import time
import uuid
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import choix
import numpy as np

import agents as agent_registry
import envs
from envs.core.options import make_config
from envs.core.play import play_game, reseed_agent
from envs.core.spec import entry_point
from evaluate import backends
from evaluate.backends import LocalBackend, forget, per_process
from evaluate.cli import Parser, check_games, check_outputs, stopped_exit
from evaluate.games import part as evaluation_part
from evaluate.jsonio import figure, write_json, write_report, write_text
from evaluate.stats import fixed
from evaluate.tournament import (
    DealSettings,
    collect_blocks,
    compiled_runner,
    deal_blocks,
    deal_keys,
    progress_bar,
    seat_streams,
)

#: Elo points per Bradley–Terry unit.
ELO = 400 / math.log(10)
#: Regularisation of the rating fit (choix's `alpha`): enough to keep a clean sweep finite, too little to move
#: a rating with data on both sides (benchmarks/league_fit.py measures it).
FIT_ALPHA = 0.01


@dataclass
class Rating:
    """One agent's line of the league table."""

    id: str
    rating: float  # Elo scale, mean 0 over the league
    ci95: tuple[float, float]
    score: float  # share of comparisons won (draws half)
    mean_return: float  # mean return per seat it held
    games: int  # games it took part in


@dataclass
class LeagueResult:
    """Everything a league measured (JSON-serialisable with `to_dict`)."""

    game: str
    options: dict[str, Any]
    seed: int
    deals: int
    lineups: str
    ratings: list[Rating]  # best first
    head_to_head: dict[str, dict[str, float]]  # share of i's comparisons against j that i won
    exact_head_to_head: dict[str, dict[str, float]] | None = None
    bootstrap: int = 0
    extra: dict[str, Any] = field(default_factory=dict)
    #: every option of the game with the value this league used (given or default)
    all_options: dict[str, Any] = field(default_factory=dict)
    #: registered agents that a default league did not enter, each with the reason
    left_out: dict[str, str] = field(default_factory=dict)
    #: each agent's exact exploitability where the game's agents can compute it (`exploitability`)
    exploitability: dict[str, float | None] | None = None
    #: 95% bootstrap interval of each rating's lead over the next one down, best first (one fewer than ratings)
    gaps: list[tuple[float, float, float]] = field(default_factory=list)
    #: what a reader must know to read the table right: ties, clean sweeps, identical figures explained
    notes: list[str] = field(default_factory=list)
    #: wall and CPU seconds of this run: not part of the result (the same league gives the same result on
    #: every backend and machine), so `to_dict` leaves it out
    timing: dict[str, float] = field(default_factory=dict, compare=False)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LeagueResult:
        """The result `to_dict` (or a league JSON file) holds; `all_options` resolved again from `options`."""
        d = dict(data)
        d["ratings"] = [Rating(**{**r, "ci95": tuple(r["ci95"])}) for r in d["ratings"]]
        d["gaps"] = [tuple(g) for g in d.get("gaps", [])]
        d["all_options"] = resolved_options(d["game"], d["options"])
        return cls(**d)

    def to_dict(self, timing: bool = False) -> dict[str, Any]:
        """Plain dict for JSON (with `timing` only when asked)."""
        d = asdict(self)
        if not timing:
            d.pop("timing")
        return d


def league_entrants(
    game_name: str, game: Any = None, options: dict[str, Any] | None = None
) -> tuple[list[str], dict[str, str]]:
    """The agents a default league enters (every registered agent plus the evaluate part's
    `league_members`), and every registered agent it leaves out with the reason (a pattern, `league_skip`, trained on
    other options, or not buildable for `game`)."""
    from agents.options import resolve_options  # the options a trained agent declares

    part = evaluation_part(game_name)  # what a default league leaves out (searches, copies) and adds (family members)
    options = dict(options or {})
    ids, left_out = [], {}
    for i in agent_registry.known_ids(game_name):
        if set("<:?") & set(i):
            family = i.split("?")[0]
            members = [m for m in part.league_members if m.split("?")[0] == family]
            left_out[i] = "a pattern, not one agent" + (f" (entered: {', '.join(members)})" if members else "")
        elif i in part.league_skip:
            left_out[i] = part.league_skip[i]
        else:
            ids.append(i)
    ids += [i for i in part.league_members if i not in ids]
    if game is None:
        return ids, left_out
    playable = []
    for i in ids:
        try:
            wanted, _ = resolve_options(game_name, [i], options)
            if wanted != options:  # trained on options this league does not play
                flags = " ".join(f"--option {k}={v}" for k, v in wanted.items() if options.get(k) != v)
                raise ValueError(f"trained on other options than this league's: enters a league run with {flags}")
            agent_registry.make(i, game, np.random.default_rng(0), game_name=game_name)
        except ValueError as e:
            # the agent's own words, without the engine's full Config repr
            left_out[i] = re.split(r",? not \w*Config\(", str(e).splitlines()[0])[0]
            continue
        playable.append(i)
    return playable, left_out


def _cmp(x: float, y: float) -> float:
    return 1.0 if x > y else (0.5 if x == y else 0.0)


def fit_bradley_terry(wins: np.ndarray, alpha: float | None = None) -> np.ndarray:
    """Bradley–Terry strengths (natural units, mean 0) from `wins[i, j]`, i's wins over j (draws
    as halves): choix's `ilsr_pairwise_dense`, regularised by `alpha` (default `FIT_ALPHA`) so a clean sweep stays
    finite."""
    r = choix.ilsr_pairwise_dense(np.asarray(wins, dtype=float), alpha=FIT_ALPHA if alpha is None else alpha,
                                  max_iter=10_000, tol=1e-10)
    return r - r.mean()


def _exact(hook: str, game_name: str, game: Any, ids: list[str], built: dict[str, Any]) -> dict[str, Any] | None:
    """What the function the game's agents name for `hook` (`exact_values`: the exact head-to-head table,
    `exploitability`: each agent's exact exploitability) returns for the entrants, None where they name none."""
    where = getattr(agent_registry.part(game_name), hook)
    return None if where is None else entry_point(where)(game, ids, built)


def resolved_options(game_name: str, options: dict[str, Any]) -> dict[str, Any]:
    """Every declared option of the game with the value it takes under `options`: given, else its default,
    with what a rules preset fills in (the engine's `Config` after its checks)."""
    spec = envs.spec(game_name)
    cfg = make_config(spec.config_class, options)
    return {o.name: getattr(cfg, o.name, options.get(o.name, o.default)) for o in spec.options()}


def options_line(result: LeagueResult) -> str:
    """Every game option of a league with its value (a rules preset's filled in), the given ones named:
    "n=4, ante=1.0, bet=2.0 (given: n; the rest are defaults)"."""
    opts = result.all_options or result.options
    if not opts:
        return "no options"
    given = [k for k in result.options if k in opts]
    note = f"given: {', '.join(given)}; the rest are defaults" if given else "all defaults"
    return ", ".join(f"{k}={v}" for k, v in opts.items()) + f" ({note})"


@dataclass(frozen=True)
class LeagueSpec:
    """What a task needs to play any deal of a league (picklable: a Ray task rebuilds the agents)."""

    game_name: str
    options: tuple[tuple[str, Any], ...]
    ids: tuple[str, ...]
    seed: int
    max_turns: int | None
    run: str = ""  # as `evaluate.tournament.TournamentSpec.run`


_SLOT = "league"  # the per-process slot of a league's game and entrant copies (`evaluate.backends.per_process`)


def _built_for(spec: LeagueSpec) -> tuple[Any, dict[str, list[Any]]]:
    """The league's game and n copies of every entrant (a line-up may seat n − 1 copies of one), built once per
    process and re-seeded before every game, so reusing them across deals changes nothing."""
    def build() -> tuple[Any, dict[str, list[Any]]]:
        game = envs.make_game(spec.game_name, **dict(spec.options))
        return game, {i: [agent_registry.make(i, game, np.random.default_rng(spec.seed), game_name=spec.game_name)
                          for _ in range(game.num_players)] for i in spec.ids}

    return per_process(_SLOT, spec, build)


def play_league_deals(
    spec: LeagueSpec, deals: range
) -> list[tuple[np.ndarray, list[tuple[list[int], tuple[float, ...]]]]]:
    """Deals number `deals` of the league (every line-up of the module docstring). Per deal: wins[i, j]
    (i's comparisons won against j on it) and the games played, as (line-up, returns) in play order.
    Everything follows from (seed, deal) alone."""
    game, copies = _built_for(spec)
    ids, seed, k = spec.ids, spec.seed, len(spec.ids)
    cooperative = envs.spec(spec.game_name).cooperative
    out = []
    for d in deals:
        start = game.initial_state(np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(0, d))))
        played: list[tuple[list[int], tuple[float, ...]]] = []
        for lineup, tag in line_ups(game, k, cooperative):
            seated = [copies[ids[e]][lineup[:s].count(e)] for s, e in enumerate(lineup)]  # an entrant's copies in turn
            for s, agent in enumerate(seated):
                reseed_agent(agent, np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(1, d, *tag, s))))
            ret, _, _ = play_game(game, seated, start, spec.max_turns)
            played.append((list(lineup), tuple(ret)))
        out.append((deal_wins(game.num_players, k, cooperative, played), played))
    return out


def line_ups(game: Any, k: int, cooperative: bool) -> list[tuple[list[int], tuple[int, ...]]]:
    """Every line-up of one deal of a league of `k` entrants, in play order, with its generator tag (seat
    s of deal d plays with the generator of spawn key (1, d, *tag, s))."""
    n = game.num_players
    if cooperative:
        return [([e] * n, (e,)) for e in range(k)]
    out = []
    for a, b in itertools.combinations(range(k), 2):
        for focal, other in [(a, b)] if n == 2 else [(a, b), (b, a)]:
            for f in range(n):
                lineup = [other] * n
                lineup[f] = focal
                out.append((lineup, (focal, other, f)))
    return out


def deal_wins(n: int, k: int, cooperative: bool, played: list[tuple[list[int], tuple[float, ...]]]) -> np.ndarray:
    """wins[i, j] of one deal: i's comparisons won against j, from its games (`line_ups`' order)."""
    wins = np.zeros((k, k))
    if cooperative:
        team = [ret[0] for _, ret in played]
        for a, b in itertools.combinations(range(k), 2):
            wins[a, b] += _cmp(team[a], team[b])
            wins[b, a] += _cmp(team[b], team[a])
        return wins
    games = iter(played)
    for a, b in itertools.combinations(range(k), 2):
        for focal, other in [(a, b)] if n == 2 else [(a, b), (b, a)]:
            mine = theirs = 0.0
            for f in range(n):
                ret = next(games)[1]
                mine += ret[f]
                theirs += (sum(ret) - ret[f]) / (n - 1)
            wins[focal, other] += _cmp(mine, theirs)
            wins[other, focal] += _cmp(theirs, mine)
    return wins


def play_league_compiled_deals(spec: LeagueSpec, deals: range
                               ) -> list[tuple[np.ndarray, list[tuple[list[int], tuple[float, ...]]]]]:
    """`play_league_deals` on the game's compiled runner
    (`evaluate.tournament.compiled_runner`): the same deals, line-ups and, for deterministic entrants, games."""
    game, copies = _built_for(spec)
    ids, n, k = list(spec.ids), game.num_players, len(spec.ids)
    cooperative = envs.spec(spec.game_name).cooperative
    play = compiled_runner(spec.game_name, game, ids, "compiled", spec.max_turns, None, [copies[i][0] for i in ids])
    ups = line_ups(game, k, cooperative)
    seatings = np.array([lineup for lineup, _ in ups], np.int64)
    streams = None
    if play.sampled:
        tags = [(1, d, *tag, s) for d in deals for _, tag in ups for s in range(n)]
        streams = seat_streams(spec.seed, tags).reshape(len(deals), len(ups), n)
    returns, _, _ = play(deal_keys(game, spec.seed, deals), seatings, streams)
    out = []
    for g in range(len(deals)):
        played = [(list(lineup), tuple(float(x) for x in returns[g, row])) for row, (lineup, _) in enumerate(ups)]
        out.append((deal_wins(n, k, cooperative, played), played))
    return out


@dataclass(frozen=True)
class LeagueSettings(DealSettings):
    """How a league is played (`run_league`): the `DealSettings` (`games` deals per pair of agents, each replayed
    over the seats; a stopped league fits the finished deals, `extra["partial"]`) and

    Attributes:
        bootstrap: resamples of the deals for the intervals.
    """

    games: int = 200
    bootstrap: int = 200


def run_league(game_name: str, agent_ids: list[str] | None = None, settings: LeagueSettings | None = None, *,
               options: dict[str, Any] | None = None, **changes: Any) -> LeagueResult:
    """Play the round robin of `agent_ids` (default: `league_entrants`; at least two) and fit the
    ratings; `**changes` replace fields of `settings`.

    Raises:
        TypeError: a keyword that names no field of `LeagueSettings`.
    """
    run = replace(settings or LeagueSettings(), **changes)
    games, seed, max_turns, bootstrap = run.games, run.seed, run.max_turns, run.bootstrap
    backend, engine, stop_on_interrupt, progress = run.backend, run.engine, run.stop_on_interrupt, run.progress
    if games < 2:
        raise ValueError(f"a league needs games >= 2 deals (intervals are over deals), got {games}")
    wall, cpu = time.perf_counter(), time.process_time()
    options = dict(options or {})
    bar = progress_bar(games, f"{game_name} league", progress, unit="deal")  # from the first second
    try:
        game = envs.make_game(game_name, **options)
        n = game.num_players
        # the chosen entrants, or the game's default pool and the agents it leaves out
        ids, left_out = (list(dict.fromkeys(agent_ids)), {}) if agent_ids else league_entrants(game_name, game, options)
        if len(ids) < 2:
            raise ValueError(f"a league needs at least two distinct agents, got {ids}")
        spec = LeagueSpec(game_name, tuple(options.items()), tuple(ids), seed, max_turns, uuid.uuid4().hex)
        _, copies = _built_for(spec)
        k = len(ids)
        cooperative = envs.spec(game_name).cooperative
        play = compiled_runner(game_name, game, ids, engine, max_turns, backend, [copies[i][0] for i in ids])
        blocks_of = deal_blocks(games, backend or LocalBackend(), play, functools.partial(play_league_deals, spec),
                                functools.partial(play_league_compiled_deals, spec), bar, watched=False)
        done = collect_blocks(blocks_of, play, game_name, bar, 1, stop_on_interrupt)
    finally:
        bar.close()
    planned, games = games, len(done)
    wins, (returns_sum, returns_n, games_n), prints = _tally(done, k)

    total = wins.sum(axis=0)
    strength = fit_bradley_terry(total)
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(2,)))
    boot = np.array([fit_bradley_terry(wins[rng.integers(games, size=games)].sum(axis=0)) for _ in range(bootstrap)])
    boot = boot * ELO if bootstrap else np.full((1, k), np.nan)
    lo, hi = np.percentile(boot, [2.5, 97.5], axis=0)
    played = total + total.T
    ratings = [
        Rating(ids[e], float(strength[e] * ELO), (float(lo[e]), float(hi[e])), float(total[e].sum() / played[e].sum()),
               float(returns_sum[e] / returns_n[e]), int(games_n[e]))
        for e in range(k)
    ]
    # equal ratings (identical agents) may differ in the last bits between machines: order them by id
    ratings.sort(key=lambda r: (-round(r.rating, 3), r.id))
    order = [ids.index(r.id) for r in ratings]
    gaps = [(r.rating - nxt.rating, *map(float, np.percentile(boot[:, a] - boot[:, b], [2.5, 97.5])))
            for r, nxt, a, b in zip(ratings, ratings[1:], order, order[1:])]
    h2h = {ids[a]: {ids[b]: float(total[a, b] / played[a, b]) for b in range(k) if b != a} for a in range(k)}
    built = {i: c[0] for i, c in copies.items()}
    exact = _exact("exact_values", game_name, game, ids, built)
    exploit = _exact("exploitability", game_name, game, ids, built)
    forget(_SLOT)
    lineups = "teams of n copies, compared on the same deal" if cooperative else (
        "each pair, both seatings" if n == 2 else "each agent alone against copies of each other, at every seat")
    notes = _notes(ids, total, ratings, prints, exact)
    extra = {"ids": ids, "wins": total.tolist(), "fit": f"choix.ilsr_pairwise_dense(alpha={FIT_ALPHA})",
             **({"partial": {"deals": games, "planned_deals": planned}} if games < planned else {})}
    timing = {"wall_s": time.perf_counter() - wall, "cpu_s": time.process_time() - cpu}
    return LeagueResult(game_name, options, seed, games, lineups, ratings, h2h, exact, bootstrap, extra,
                        resolved_options(game_name, options), left_out, exploit, gaps, notes, timing)


def _tally(done: list[Any], k: int) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray, np.ndarray], Any]:
    """wins[deal, i, j], each entrant's (sum of returns, seats held, games played) and the fingerprints of the
    played deals `done`, summed game by game in play order, as one process would: the same floats on every
    backend."""
    wins = np.array([deal_wins for deal_wins, _ in done]).reshape(len(done), k, k)
    returns_sum, returns_n, games_n = np.zeros(k), np.zeros(k, dtype=int), np.zeros(k, dtype=int)
    prints = _Fingerprints()
    for d, (_, played) in enumerate(done):
        for lineup, ret in played:
            for s, e in enumerate(lineup):
                returns_sum[e] += ret[s]
                returns_n[e] += 1
            for e in set(lineup):
                games_n[e] += 1
            prints.add(d, lineup, ret)
    return wins, (returns_sum, returns_n, games_n), prints


class _Fingerprints:
    """One order-free hash per (agent, the other entrants at its table) of every game's deal, seating
    and returns, the agent's own index blanked: equal hashes mean the same results, game for game."""

    def __init__(self) -> None:
        self.h: dict[tuple[int, tuple[int, ...]], int] = {}

    def add(self, deal: int, lineup: list[int], ret: tuple[float, ...]) -> None:
        """Record one game of deal `deal`: `lineup[s]` sat at seat s and got `ret[s]`."""
        for e in set(lineup):
            others = tuple(sorted(set(lineup) - {e}))
            game = repr((deal, [None if x == e else x for x in lineup], ret)).encode()
            digest = int.from_bytes(hashlib.blake2b(game, digest_size=16).digest(), "little")
            self.h[(e, others)] = (self.h.get((e, others), 0) + digest) % (1 << 128)

    def same_results(self, a: int, b: int) -> bool:
        """Whether a and b met identical returns, game for game, against every other entrant (or as teams)."""
        def of(e: int, other: int) -> dict[tuple[int, ...], int]:
            return {o: h for (x, o), h in self.h.items() if x == e and other not in o}
        return of(a, b) == of(b, a)


def _notes(ids: list[str], total: np.ndarray, ratings: list[Rating], prints: _Fingerprints,
           exact: dict[str, dict[str, float]] | None = None) -> list[str]:
    """What a reader must know to read the table right (see `LeagueResult.notes`)."""
    notes = []
    # a rating above an agent that it does not beat exactly: the lead comes from the rest of the pool
    for x, y in itertools.combinations(ratings, 2):
        if exact and exact[x.id][y.id] <= 1e-9:
            rest = [i for i in ids if i not in (x.id, y.id)]
            others = (f" Exact mean net against the other {len(rest)} agents: `{x.id}` "
                      f"{np.mean([exact[x.id][i] for i in rest]):+.4f}, `{y.id}` "
                      f"{np.mean([exact[y.id][i] for i in rest]):+.4f}." if rest else "")
            notes.append(f"`{x.id}` is rated above `{y.id}`, yet exactly it nets "
                         f"{round(exact[x.id][y.id], 9) + 0.0:+.4f} a game "
                         f"against it: its lead comes from its results against the rest of the pool.{others}")
    # agents that share a figure: explained from the games themselves
    for x, y in itertools.combinations(ratings, 2):
        same_rating = round(x.rating, 1) == round(y.rating, 1)
        same_interval = [round(v, 1) for v in x.ci95] == [round(v, 1) for v in y.ci95]
        if not (same_rating or same_interval):
            continue
        a, b = ids.index(x.id), ids.index(y.id)
        what = "the same rating and interval" if same_rating and same_interval else (
            "the same rating" if same_rating else "the same 95% interval")
        if prints.same_results(a, b) and total[a, b] == total[b, a]:
            why = (f"they met the same returns in every game against every other agent (mean return "
                   f"{x.mean_return:.3f} each) and drew each other evenly: on these deals the league cannot tell "
                   "them apart (two different agents that "
                   "play to the same results, or one agent under two ids)")
        else:
            why = (f"their results differ ({x.id} won {total[a, b] / (total[a, b] + total[b, a]):.3f} of its "
                   f"comparisons against {y.id}); intervals are percentiles of refits, and they coincide when both "
                   "agents are pinned by the same results against the rest (e.g. the same clean sweeps) so that the "
                   "bootstrap moves only the difference between them: the gap column says whether they differ")
        notes.append(f"`{x.id}` and `{y.id}` share {what}: {why}.")
    # clean sweeps: the fit's regularisation, not the data, sets the size of those gaps
    for e in range(len(ids)):
        swept = [ids[o] for o in range(len(ids)) if o != e and total[e, o] > 0 and total[o, e] == 0]
        if swept:
            notes.append(f"`{ids[e]}` won every comparison against {', '.join(f'`{i}`' for i in swept)}: those "
                         "gaps say only 'better', their size is set by the fit's regularisation.")
    return notes


def _exploit_cell(result: LeagueResult, agent: str) -> str:
    v = (result.exploitability or {}).get(agent)
    return "—" if v is None else f"{v:.4f}"


def _gap(result: LeagueResult, rank: int) -> str:
    """The lead of rank `rank` (1-based) over the next one down with its 95% interval ("" for the last)."""
    gap = result.gaps[rank - 1] if rank - 1 < len(result.gaps) else None
    return f"{fixed(gap[0], 1)} [{fixed(gap[1], 1)}, {fixed(gap[2], 1)}]" if gap else ""


def format_league(result: LeagueResult) -> str:
    """The terminal table of a league: ratings, the lead over the next agent, notes and agents left out."""
    w = max(12, max(len(r.id) for r in result.ratings) + 2)
    ex = result.exploitability is not None
    lines = [
        f"{result.game} league — {result.deals} deals per pair ({result.lineups}), seed {result.seed}; "
        f"Bradley–Terry ratings (Elo scale, mean 0) of results within this pool, 95% intervals from "
        f"{result.bootstrap} bootstrap resamples of deals",
        f"options: {options_line(result)}",
        f"{'#':>3}  {'agent':<{w}}{'rating':>9}{'95% CI':>20}{'lead over next [95%]':>28}{'score':>8}"
        f"{'mean return':>13}{'games':>8}" + (f"{'exploitability':>16}" if ex else ""),
    ]
    for rank, r in enumerate(result.ratings, 1):
        lines.append(
            f"{rank:>3}  {r.id:<{w}}{r.rating:>9.1f}{f'[{r.ci95[0]:.1f}, {r.ci95[1]:.1f}]':>20}{_gap(result, rank):>28}"
            f"{r.score:>8.3f}{r.mean_return:>13.3f}{r.games:>8}" + (f"{_exploit_cell(result, r.id):>16}" if ex else "")
        )
    if result.exact_head_to_head:
        lines.append("exact mean net per hand, row against column (both seatings):")
        order = [r.id for r in result.ratings]
        lines.append(" " * w + "".join(f"{c[-12:]:>14}" for c in order))
        lines += [f"{a:<{w}}" + "".join(f"{'':>14}" if a == b else f"{result.exact_head_to_head[a][b]:>14.4f}"
                                        for b in order) for a in order]
    lines += [f"note: {n}".replace("`", "") for n in result.notes]
    lines += [f"left out: {i}: {why}" for i, why in result.left_out.items()]
    return "\n".join(lines)


def leaderboard_markdown(result: LeagueResult, command: str, plot: str | None = None) -> str:
    """A Markdown section for docs/leaderboard.md; `plot` is the ratings PNG's path relative to the page."""
    ex = result.exploitability is not None
    wall, cpu = result.timing.get("wall_s"), result.timing.get("cpu_s")
    timing = (
        f" Ran in one process: {cpu:.0f} s of CPU time, {wall:.0f} s of wall time (the wall time includes waiting "
        "for a CPU shared with other jobs)."
        if wall is not None
        else ""
    )
    lines = [
        f"## {result.game}",
        "",
        f"**Options:** {options_line(result)}.",
        "",
        f"{result.deals} deals per pair ({result.lineups}); seed {result.seed}; {result.bootstrap} bootstrap "
        f"resamples of deals. Command: `{command}`.{timing}",
        "",
    ]
    if plot:
        lines += [f"![{result.game} ratings with 95% intervals]({plot})", ""]
    lines += [
        "| # | agent | rating (Elo scale) | 95% interval | lead over next [95%] | score | mean return |"
        + (" exploitability (exact) |" if ex else ""),
        "|---|---|---|---|---|---|---|" + ("---|" if ex else ""),
    ]
    for rank, r in enumerate(result.ratings, 1):
        lines.append(f"| {rank} | `{r.id}` | {r.rating:.1f} | [{r.ci95[0]:.1f}, {r.ci95[1]:.1f}] | "
                     f"{_gap(result, rank)} | {r.score:.3f} | {r.mean_return:.3f} |"
                     + (f" {_exploit_cell(result, r.id)} |" if ex else ""))
    if ex:
        lines += ["", "Exploitability: what a best response wins against the agent per hand, over the game's value "
                  "(exact, both seats averaged; 0 for an equilibrium). The rating measures results against this pool; "
                  "exploitability measures results against the worst opponent for the agent."]
    if result.exact_head_to_head:
        order = [r.id for r in result.ratings]
        lines += ["", "Exact mean net per hand, row against column (both seatings):", "",
                  "| | " + " | ".join(f"`{c}`" for c in order) + " |", "|---" * (len(order) + 1) + "|"]
        for a in order:
            cells = ["" if a == b else f"{result.exact_head_to_head[a][b]:.4f}" for b in order]
            lines.append(f"| `{a}` | " + " | ".join(cells) + " |")
    if result.notes:
        lines += ["", "Notes (computed from the games):", ""] + [f"- {n}" for n in result.notes]
    lines += ["", "Left out of this league:" if result.left_out else "Left out of this league: none.", ""]
    lines += [f"- `{i}`: {why}" for i, why in result.left_out.items()]
    return "\n".join(lines) + "\n"


def plot_league(result: LeagueResult, path: str) -> None:
    """Ratings with their 95% intervals as a PNG, the game's options in the title."""
    rs = result.ratings[::-1]  # best on top
    y = np.arange(len(rs))
    x = np.array([r.rating for r in rs])
    err = np.array([[r.rating - r.ci95[0] for r in rs], [r.ci95[1] - r.rating for r in rs]])
    title = [f"{result.game} league: {result.deals} deals per pair, seed {result.seed}"]
    title += textwrap.wrap(f"options: {options_line(result)}", 90)
    with figure(path, (8, 0.45 * len(rs) + 1.4 + 0.25 * len(title)), dpi=100) as (_, ax):
        ax.errorbar(x, y, xerr=err, fmt="o", capsize=4)
        ax.set_yticks(y, [r.id for r in rs])
        ax.axvline(0, color="grey", lw=0.5)
        ax.set_xlabel("Bradley–Terry rating (Elo scale, mean 0) within this pool, 95% bootstrap interval")
        ax.set_title("\n".join(title), fontsize=9)


def run_cli(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """`python -m evaluate GAME --league` / `--paired A,B[,C...] --against ...` (parsed by evaluate.__main__)."""
    from evaluate import paired

    if args.league and args.paired:
        parser.error("--league and --paired are separate jobs: give one")
    if args.paired or args.against:
        ids = [p for p in (args.paired or "").split(",") if p]
        if len(ids) < 2:
            parser.error("--paired needs two or more agent ids A,B[,C...] (A compared with each) and --against "
                         f"ID,... (the opponents or teammates; {paired.SELF!r}: copies of the focal agent; none in "
                         "a one-player game)")
        with backends.from_args(args) as backend:  # a ValueError is a usage error (`evaluate.__main__`)
            results = paired.run_paired_many(args.game, ids, args.against or [], games=args.games or 1000,
                                             seed=args.seed, options=args.options, max_turns=args.max_turns,
                                             backend=backend, engine=args.engine,
                                             progress=False if args.no_progress else None,
                                             stop_on_interrupt=True)
        print("\n\n".join(paired.format_paired(r) for r in results))
        write_report(args.json, {"comparisons": [r.to_dict() for r in results]})
        if results[0].partial:  # stopped: the finished deals are kept, and the last line says so
            return stopped_exit(results[0].deals, results[0].planned_deals, [args.json])
        return 0
    with backends.from_args(args) as backend:
        res = run_league(args.game, args.agents, games=args.games or 200, seed=args.seed, options=args.options,
                         max_turns=args.max_turns, backend=backend, stop_on_interrupt=True,
                         progress=False if args.no_progress else None)
    print(format_league(res))
    write_report(args.json, res.to_dict())
    png = os.path.join(args.out, f"league_{args.game}.png")
    plot_league(res, png)
    print(f"wrote {png}")
    partial = res.extra.get("partial")
    if partial:  # stopped: the finished deals are fitted, and the last line says so
        return stopped_exit(partial["deals"], partial["planned_deals"], [args.json, png])
    return 0


def _saved_result(path: str, seed: int) -> tuple[LeagueResult | None, str]:
    """A game's league result saved beside the page, if there is one played with `seed`; else None and why not."""
    try:
        with open(path, encoding="utf-8") as f:
            res = LeagueResult.from_dict(json.load(f))
    except (OSError, ValueError, KeyError, TypeError) as e:
        return None, f"--render-only needs the saved result {path}: {e}"
    return (res, "") if res.seed == seed else (None, f"{path} was played with --seed {res.seed}, not {seed}")


def _page_intro(docs: str, seed: int, games_flag: str, deals_flag: str) -> list[str]:
    """The leaderboard page's opening: what a rating measures, the line-ups, the command that wrote it."""
    return [
        "# Leaderboard",
        "",
        "Every registered agent of every game in one round robin per game, on duplicate deals with seat rotation,",
        "rated by a Bradley–Terry model (Elo scale, mean 0) with 95% intervals from a bootstrap over deals.",
        "",
        "**What a rating measures.** How an agent's results compare with the others' *in this pool*, on these",
        "deals: a rating rises by beating the pool's weak members often, so it is not the agent's strength against",
        "a best response, and adding or removing an agent can reorder the table. Where a game has an exact",
        "measure of that (simple poker: exploitability, 0 for an equilibrium), it is set beside the rating.",
        "\"lead over next\" is the bootstrap interval of the rating difference to the agent below: an interval",
        "that holds 0 means this pool and this many deals do not order the two. Each table lists the agents",
        "it left out and why, and notes (computed from the games) explain shared figures and clean sweeps.",
        "",
        "Line-ups: for every pair of agents and every deal, one agent sits at each seat in turn with copies of",
        "the other at every other seat (with more than two seats, then the other way round). Duplicate scoring:",
        "a line-up on a deal is one comparison, won by the agent whose return summed over its seats beats the",
        "copies' mean return summed the same way (equal: a draw). A cooperative game is rated by teams:",
        "every agent plays each deal as the whole team, and two teams are compared on the same deal.",
        "\"score\" is the share of comparisons won (draws half); \"mean return\" is per seat held.",
        f"The fit is choix's Bradley–Terry maximum likelihood (`choix.ilsr_pairwise_dense`, alpha={FIT_ALPHA});",
        "[league_fit.md](league_fit.md) measures it against the hand-written fit it replaced, on the same data.",
        "",
        "Generated, not written by hand (each game's command, wall time and CPU time are in its section):",
        "",
        f"    python -m evaluate.league --docs {docs} --seed {seed}{games_flag}{deals_flag}",
        "",
        "One game's league with a plot of the ratings: `python -m evaluate GAME --league --games N --out DIR`.",
        "Each game's result, with the comparison matrix its ratings were fitted to, is saved in "
        "`data/league_GAME.json`;",
        "the same command with `--render-only` writes the page and plots again from those files, playing nothing.",
        "",
    ]


def main(argv: list[str] | None = None) -> int:
    """`python -m evaluate.league --docs PATH`: regenerate the leaderboard of every available game, with each
    game's plot (`img/league_GAME.png`) and result (`data/league_GAME.json`) beside the page."""
    p = Parser(prog="python -m evaluate.league", description="Write the leaderboard of every game.")
    p.add_argument("--docs", default="docs/leaderboard.md", help="Markdown file to write (default docs/leaderboard.md)")
    p.add_argument("--games", nargs="*", default=None, help="play only these games (default: every available one); the "
                   "page keeps every other game's section from its saved result")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--deals",
        type=int,
        default=None,
        help="deals per pair for every game (default: each game's `league_deals`, sized to run in minutes on one core)",
    )
    p.add_argument(
        "--render-only",
        action="store_true",
        help="write the page and plots again from the results saved beside it (data/league_GAME.json), playing nothing",
    )
    args = p.parse_args(argv)
    try:
        check_outputs(args)
    except ValueError as e:
        p.error(str(e))
    chosen = args.games or list(envs.available_games())
    check_games(p, *chosen)
    if args.deals is not None and args.deals < 1:
        p.error(f"--deals must be a positive integer, got {args.deals}")
    folder = os.path.dirname(args.docs)
    kept = {g: res for g in envs.available_games() if g not in chosen
            and (res := _saved_result(os.path.join(folder, "data", f"league_{g}.json"), args.seed)[0]) is not None}
    # The page is every game's when the games not played keep their saved sections: the command is then the whole one.
    games_flag = f" --games {' '.join(chosen)}" if len(chosen) + len(kept) < len(envs.available_games()) else ""
    deals_flag = f" --deals {args.deals}" if args.deals else ""
    parts = _page_intro(args.docs, args.seed, games_flag, deals_flag)
    for g in envs.available_games():
        saved, png = os.path.join(folder, "data", f"league_{g}.json"), os.path.join("img", f"league_{g}.png")
        if g not in chosen:  # a game not asked for keeps its section, rendered from its saved result (if any)
            res = kept.get(g)
        elif args.render_only:
            res, why = _saved_result(saved, args.seed)
            if res is None:
                p.error(why)
        else:
            res = run_league(g, games=args.deals or evaluation_part(g).league_deals, seed=args.seed, options={})
            write_json(saved, res.to_dict(timing=True))
        if res is None:
            continue
        if g in chosen:
            print(format_league(res), flush=True)
            plot_league(res, os.path.join(folder, png))
        parts.append(leaderboard_markdown(res, f"python -m evaluate {g} --league --games {res.deals} --seed {res.seed}",
                                          png))
    write_text(args.docs, "\n".join(parts))
    print(f"wrote {args.docs}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
