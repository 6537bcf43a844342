"""Paired comparison of agents: same seat, same deals, same opponents.

    python -m evaluate simple_poker --paired simple_poker/nash,random --against simple_poker/nash --games 2000
    python -m evaluate lama --paired lama/first,lama/second,lama/third --against 'lama/first*3'   # A - B and A - C
    python -m evaluate the_game --option num_players=2 --paired the_game/bestplays,the_game/simplest --against self

Each deal is played k·n times for k focal agents: for every focal seat f, each focal agent in turn sits at f with
the same opponents, every generator seeded by (seed, deal, focal seat, seat), so only the focal agent differs
between the replays ("Learning from teachers", section 6); A's games do not depend on who else is compared.
`against="self"` seats a copy of the focal agent everywhere (a cooperative game's team). The unit is the deal
(the difference of A's and the other's score, pooled over seats; normal 95% interval). Engines and `decks` as for
tournaments (`evaluate.tournament`).
"""

from __future__ import annotations

import functools
import uuid
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np

import agents as agent_registry
import envs
from agents import expand_agent_ids
from envs.core.game import at_move_limit, default_max_turns
from envs.core.play import play_game, reseed_agent
from evaluate.backends import LocalBackend, forget, per_process
from evaluate.stats import interval_text, mean_interval
from evaluate.tournament import (
    DealSettings,
    Seated,
    Watch,
    check_decks,
    collect_blocks,
    compiled_runner,
    cut_games_line,
    deal_blocks,
    deal_keys,
    deal_start,
    progress_bar,
    seat_streams,
)

#: Spawn-key tags that keep the deal, opponent and focal generators apart (deal d's generator is the tournament's,
#: `evaluate.tournament.deal_rng`: tag 0, so deal d of a seed is the same deal in both).
_DEAL, _OPPONENT, _FOCAL = 0, 1, 2

#: The `against` value that seats a copy of the focal agent at every other seat (the self-team protocol).
SELF = "self"


@dataclass
class PairedFigures:
    """A's and B's figures over one set of games (one seat, or pooled)."""

    seat: int | None  # None: pooled over every seat
    deals: int
    mean_score_a: float
    mean_score_b: float
    win_rate_a: float
    win_rate_b: float
    diff: float  # mean score of A minus B
    diff_ci95: tuple[float, float]
    win_diff: float  # win rate of A minus B
    win_diff_ci95: tuple[float, float]


@dataclass
class PairedResult:
    """Everything a paired comparison of A with B measured (JSON-serialisable with `to_dict`); `against` is
    `["self"]` under the self-team protocol."""

    game: str
    options: dict[str, Any]
    seed: int
    a: str
    b: str
    against: list[str]
    deals: int
    pooled: PairedFigures
    per_seat: list[PairedFigures]
    #: "python" (the agents' `act`, move by move) or "compiled" (the game's compiled whole-game runner).
    engine: str = "python"
    #: The move limit games were cut at (`max_turns`, or the game's `max_game_length`), None: none.
    max_turns: int | None = None
    #: A's and B's games that reached it (cut with no winner, unless that move ended them), of `deals` x seats
    #: each (`deals` under the self-team protocol).
    at_move_limit: tuple[int, int] = (0, 0)
    #: Stopped (Ctrl-C, SIGTERM, a Ray worker lost on every retry) after `deals` of `planned_deals`.
    partial: bool = False
    planned_deals: int = 0

    @property
    def variant(self) -> envs.Variant:
        """The game and options played."""
        return envs.Variant(self.game, self.options)

    @property
    def team(self) -> bool:
        """Whether every seat held a copy of the focal agent (`against="self"`)."""
        return self.against == [SELF]

    def to_dict(self) -> dict[str, Any]:
        """Plain dict for JSON (`max_turns` and `at_move_limit` only where a move limit was set)."""
        d = asdict(self)
        if self.max_turns is None:
            del d["max_turns"], d["at_move_limit"]
        if not self.partial:
            del d["partial"], d["planned_deals"]
        return d


def _figures(seat: int | None, sa: np.ndarray, sb: np.ndarray, wa: np.ndarray, wb: np.ndarray) -> PairedFigures:
    d, lo, hi = mean_interval(sa - sb)
    wd, wlo, whi = mean_interval(wa - wb)
    return PairedFigures(seat, len(sa), float(sa.mean()), float(sb.mean()), float(wa.mean()), float(wb.mean()),
                         d, (lo, hi), wd, (wlo, whi))  # mean_interval's figures are floats already


@dataclass(frozen=True)
class PairedSpec:
    """What a task needs to play any deal of a paired comparison (picklable: a Ray task rebuilds the agents)."""

    game_name: str
    options: tuple[tuple[str, Any], ...]
    focal: tuple[str, ...]  # A first
    against: tuple[str, ...]  # empty under the self-team protocol
    team: bool
    seed: int
    max_turns: int | None
    run: str = ""  # run and decks: as in `evaluate.tournament.TournamentSpec`
    decks: tuple[tuple[int, ...], ...] | None = None


_SLOT = "paired"  # the per-process slot of a comparison's game and agents (`evaluate.backends.per_process`)


def _agents_for(spec: PairedSpec) -> tuple[Any, list[list[Any]], list[Any]]:
    """The game, the focal agents (n copies of each under the self-team protocol, else one) and the opponents
    of `spec`, built once per process (every game re-seeds them, so reusing them across deals changes nothing)."""
    def build_all() -> tuple[Any, list[list[Any]], list[Any]]:
        game = envs.make_game(spec.game_name, **dict(spec.options))

        def build(agent_id: str) -> Any:
            return agent_registry.make(agent_id, game, np.random.default_rng(spec.seed), game_name=spec.game_name)

        copies = game.num_players if spec.team else 1
        return game, [[build(i) for _ in range(copies)] for i in spec.focal], [build(i) for i in spec.against]

    return per_process(_SLOT, spec, build_all)


def paired_seatings(n: int, k: int = 2, team: bool = False) -> np.ndarray:
    """The line-ups of one deal over the entrants (focal agents 0..k−1, then the opponents): (k, n)
    under self-team (`team`), else (k·n, n) with row k·f + i seating focal agent i at seat f."""
    if team:
        return np.repeat(np.arange(k, dtype=np.int64)[:, None], n, axis=1)
    rows = []
    for f in range(n):
        seated = [k + s - (s > f) for s in range(n)]  # opponent j at the j-th seat other than f
        rows += [seated[:f] + [i] + seated[f + 1:] for i in range(k)]
    return np.array(rows, np.int64).reshape(k * n, n)


def _spawn_key(deal: int, row: np.ndarray, seat: int, k: int) -> tuple[int, ...]:
    """The spawn key of the generator of the agent at `seat` of line-up `row` in deal `deal`."""
    if row[seat] < k:
        return (_FOCAL, deal, seat)
    return (_OPPONENT, deal, int(np.flatnonzero(row < k)[0]), seat)


def play_paired_compiled_deals(spec: PairedSpec, deals: range) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """`play_paired_deals`' figures for `deals`, played on the game's compiled runner (built in this process,
    `compiled_runner`) from the same deals."""
    game, focal, opponents = _agents_for(spec)
    play = compiled_runner(spec.game_name, game, [*spec.focal, *spec.against], "compiled", spec.max_turns, None,
                           [copies[0] for copies in focal] + list(opponents))
    n, k, team, seed = game.num_players, len(spec.focal), spec.team, spec.seed
    seatings = paired_seatings(n, k, team)
    streams = None
    if play.sampled:  # a sampling network's moves follow from its Python generator's spawn key
        tags = [_spawn_key(d, row, s, k) for d in deals for row in seatings for s in range(n)]
        streams = seat_streams(seed, tags).reshape(len(deals), len(seatings), n)
    returns, winners, turns = play(deal_keys(game, seed, deals, spec.decks), seatings, streams)
    limited = at_move_limit(turns, spec.max_turns)
    seats = np.arange(n)
    out = []
    for g in range(len(deals)):
        if team:  # row i: agent i's team; seat s's figures from that one game
            scores, wins = returns[g].astype(np.float64), winners[g].astype(np.float64)
            cut = limited[g].astype(np.int64)
        else:  # row k·f + i: agent i at focal seat f
            scores = np.stack([returns[g, k * seats + i, seats] for i in range(k)]).astype(np.float64)
            wins = np.stack([winners[g, k * seats + i, seats] for i in range(k)]).astype(np.float64)
            cut = np.array([limited[g, k * seats + i].sum() for i in range(k)], np.int64)
        out.append((scores, wins, cut))
    return out


def play_paired_deals(spec: PairedSpec, deals: range, watch: Watch | None = None
                      ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Deals number `deals`, each played k·n times (k under self-team): the line-ups of `paired_seatings`, focal
    agent by focal agent. Per deal: scores[focal agent, seat], wins[focal agent, seat] and cut[focal agent] (games at
    the move limit)."""
    game, focal, opponents = _agents_for(spec)
    n, k = game.num_players, len(focal)
    rows = sorted(paired_seatings(n, k, spec.team), key=min)  # focal agent i's rows together, seat by seat
    out = []
    for d in deals:
        scores, wins, cut = np.zeros((k, n)), np.zeros((k, n)), np.zeros(k, np.int64)
        start = deal_start(game, spec.seed, d, spec.decks)
        for row in rows:
            seated = [focal[e][s if spec.team else 0] if e < k else opponents[e - k] for s, e in enumerate(row)]
            for s, agent in enumerate(seated):
                key = _spawn_key(d, row, s, k)
                reseed_agent(agent, np.random.default_rng(np.random.SeedSequence(spec.seed, spawn_key=key)))
            ret, won, moves = play_game(game, seated if watch is None else [Seated(a, watch) for a in seated], start,
                                        max_turns=spec.max_turns)
            if watch is not None:
                watch.game_over()
            mine = [s for s in range(n) if row[s] < k]  # the focal agent's seats: one, or every seat of its team
            i = row[mine[0]]
            scores[i, mine] = [ret[s] for s in mine]
            wins[i, mine] = [1.0 if s in won else 0.0 for s in mine]
            cut[i] += at_move_limit(moves, spec.max_turns)
        out.append((scores, wins, cut))
    return out


def run_paired(
    game_name: str | envs.Variant,
    a_id: str,
    b_id: str,
    against: Sequence[str] | str,
    **kwargs: Any,
) -> PairedResult:
    """Compare agents `a_id` and `b_id` on the same deals: `run_paired_many` of the two (its keyword arguments)."""
    return run_paired_many(game_name, [a_id, b_id], against, **kwargs)[0]


def _opponents(game_name: str, n: int, against: Sequence[str] | str) -> list[str]:
    """The n − 1 opponent ids that `against` names ([] for `"self"`).

    Raises:
        ValueError: one line naming what `against` may be.
    """
    ids = expand_agent_ids(against)
    if SELF in ids:
        if ids != [SELF]:
            raise ValueError(f"against: {SELF!r} (a copy of the focal agent in every other seat) stands alone, "
                             f"got {ids}")
        return []
    if len(ids) == 1 and n > 2:
        ids = ids * (n - 1)
    if len(ids) != n - 1:
        raise ValueError(
            f"{game_name} with these options seats {n} players: --against needs {n - 1} agent ids "
            f"(or one, repeated; or {SELF!r}: copies of the focal agent), got {len(ids)}: {ids}"
        )
    return ids


@dataclass(frozen=True)
class PairedSettings(DealSettings):
    """How a paired comparison is played (`run_paired_many`): the `DealSettings` (no progress bar unless asked; a
    stopped comparison is marked `partial`) and

    Attributes:
        decks: explicit deck orders, deal d dealt from `decks[d]`; None: the deals of `seed`.
    """

    progress: bool | None = False
    decks: Any = None


def run_paired_many(game_name: str | envs.Variant, ids: Sequence[str], against: Sequence[str] | str,
                    settings: PairedSettings | None = None, *, options: dict[str, Any] | None = None,
                    **changes: Any) -> list[PairedResult]:
    """Compare the first of `ids` (A) with each of the others on `settings.games` deals against
    the opponents `against` (n − 1 ids, one id repeated, or `"self"`); `**changes` replace fields of `settings`.

    Returns:
        One `PairedResult` per agent after the first: A minus that agent.

    Raises:
        TypeError: a keyword that names no field of `PairedSettings`.
        ValueError: a setting out of range, an unknown game, option or agent id, or the wrong number of ids.
    """
    run = replace(settings or PairedSettings(), **changes)
    games, seed, max_turns, backend, engine, decks = (run.games, run.seed, run.max_turns, run.backend, run.engine,
                                                       run.decks)
    ids = list(ids)
    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    if len(ids) < 2:
        raise ValueError(f"a paired comparison needs at least two agent ids (A first), got {ids}")
    if SELF in ids:
        raise ValueError(f"{SELF!r} names the teammates (against={SELF!r}), not a focal agent")
    game_name, options = envs.resolve(game_name, options)
    game = envs.make_game(game_name, **options)
    max_turns = default_max_turns(game, max_turns)
    n, k = game.num_players, len(ids)
    opp_ids = _opponents(game_name, n, against)
    team = n > 1 and not opp_ids

    decks = check_decks(game_name, game, decks, games)
    spec = PairedSpec(game_name, tuple(options.items()), tuple(ids), tuple(opp_ids), team, seed, max_turns,
                      uuid.uuid4().hex, decks)
    per_game = k if team else k * n  # games a deal
    bar = progress_bar(games * per_game, f"{game_name} paired", run.progress)  # from the first second
    try:
        _, focal, opponents = _agents_for(spec)  # a bad agent id fails here, before any task starts
        play = compiled_runner(game_name, game, [*ids, *opp_ids], engine, max_turns, backend,
                               [copies[0] for copies in focal] + list(opponents))
        parts = deal_blocks(games, backend or LocalBackend(), play, functools.partial(play_paired_deals, spec),
                            functools.partial(play_paired_compiled_deals, spec), bar)
        per_deal = collect_blocks(parts, play, game_name, bar, per_game, run.stop_on_interrupt)
    finally:
        bar.close()
        forget(_SLOT)
    return _paired_results(spec, options, n, per_deal, games, "python" if play is None else "compiled")


def _paired_results(spec: PairedSpec, options: dict[str, Any], n: int, per_deal: list[Any], games: int,
                    engine: str) -> list[PairedResult]:
    """`run_paired_many`'s comparisons (A minus each other focal agent) from the finished deals' `per_deal`."""
    ids, k = list(spec.focal), len(spec.focal)
    scores = np.stack([r[0] for r in per_deal], axis=1)  # [agent, deal, seat]
    wins = np.stack([r[1] for r in per_deal], axis=1)
    cut = np.sum([r[2] for r in per_deal], axis=0)  # [agent]
    against_ids = [SELF] if spec.team else list(spec.against)
    out = []
    for i in range(1, k):
        sa, sb, wa, wb = scores[0], scores[i], wins[0], wins[i]
        pooled = _figures(None, sa.mean(axis=1), sb.mean(axis=1), wa.mean(axis=1), wb.mean(axis=1))
        per_seat = [_figures(f, sa[:, f], sb[:, f], wa[:, f], wb[:, f]) for f in range(n)]
        out.append(PairedResult(spec.game_name, options, spec.seed, ids[0], ids[i], against_ids, len(per_deal),
                                pooled, per_seat, engine=engine, max_turns=spec.max_turns,
                                at_move_limit=(int(cut[0]), int(cut[i])), partial=len(per_deal) < games,
                                planned_deals=games))
    return out


def format_paired(result: PairedResult) -> str:
    """The terminal table of a paired comparison."""
    opts = " ".join(f"{k}={v}" for k, v in result.options.items()) or "default options"
    against = ("self (copies of the focal agent in every seat)" if result.team
               else ", ".join(result.against) or "(none: one seat)")
    lines = [
        f"{result.game} ({opts}) — paired: A = {result.a}, B = {result.b}, against {against}; "
        f"{result.deals} deals x {len(result.per_seat)} seats, seed {result.seed}, {result.engine} engine",
        f"{'seat':<8}{'score A':>10}{'score B':>10}{'A - B':>10}{'95% CI':>22}"
        f"{'win A':>8}{'win B':>8}{'A - B':>9}{'95% CI':>20}",
    ]
    for fig in [*result.per_seat, result.pooled]:
        name = "pooled" if fig.seat is None else str(fig.seat)
        lines.append(
            f"{name:<8}{fig.mean_score_a:>10.4f}{fig.mean_score_b:>10.4f}{fig.diff:>10.4f}"
            f"{interval_text(*fig.diff_ci95, digits=4):>22}{fig.win_rate_a:>8.3f}{fig.win_rate_b:>8.3f}"
            f"{fig.win_diff:>9.3f}{interval_text(*fig.win_diff_ci95):>20}"
        )
    lo, hi = result.pooled.diff_ci95
    verdict = ("A scores more than B" if lo > 0 else "B scores more than A" if hi < 0
               else "no difference detected (the interval contains 0)")
    lines.append(f"pooled mean score: {verdict}, at 95% confidence")
    if any(result.at_move_limit):
        games = result.deals * (1 if result.team else len(result.per_seat))
        lines.append(cut_games_line(f"{result.at_move_limit[0]} of A's {games} games and "
                                    f"{result.at_move_limit[1]} of B's", result.max_turns))
    return "\n".join(lines)

