"""Tournaments for every game: seat rotation, duplicate deals, 95% intervals.

With `seating="rotate"` (default) every deal is replayed once per rotation of the entrants around the table
(entrant i at seat (i + r) mod n in rotation r); with `"fixed"` entrant i always sits at seat i. The independent
unit is the deal (rotate) or the game (fixed): win rates take the normal interval over deals, never narrower than
Wilson's over all games; mean scores the normal interval.

Everything random in deal d follows from (seed, d) alone (`play_deal`), so deals replay alone and give the same
result on every backend (`evaluate.backends`). An agent's random choices must come from its `rng` attribute or a
`reseed(rng)` hook. With `engine="auto"` a line-up plays on the game's compiled runner when every entrant has a
deterministic kernel or is a saved network the runner seats (`compiled_runner`), else in Python; for
deterministic entrants both engines give the same games.
"""

from __future__ import annotations

import contextlib
import csv
import functools
import inspect
import math
import time
import uuid
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np

import agents as agent_registry
import envs
from agents import expand_agent_ids, labels_for
from envs.core.game import at_move_limit, check_move_limit, default_max_turns
from envs.core.play import play_game, reseed_agent, reset_agent
from envs.core.spec import entry_point
from evaluate.backends import Backend, LocalBackend, WorkerLostError, blocks, forget, per_process
from evaluate.stats import interval_text, mean_interval, plural, wilson_interval


@dataclass
class SeatFigures:
    """One entrant's results from one seat."""

    seat: int
    games: int
    win_rate: float
    mean_score: float


@dataclass
class AgentFigures:
    """One entrant's results over the whole tournament."""

    label: str
    id: str
    games: int
    wins: float
    win_rate: float
    ci95: tuple[float, float]
    mean_score: float
    score_ci95: tuple[float, float]
    per_seat: list[SeatFigures] = field(default_factory=list)


@dataclass
class GameRecord:
    """One game of a tournament (`run_tournament(..., records=True)`): its deal and rotation, the entrants
    that won it (indices into the line-up; none for a game cut or without a winner) and the moves played."""

    deal: int
    rotation: int
    winners: tuple[int, ...]
    moves: int


@dataclass
class TournamentResult:
    """Everything a tournament measured (JSON-serialisable with `to_dict`)."""

    game: str
    options: dict[str, Any]
    seed: int
    seating: str
    deals: int
    games: int
    mean_turns: float
    agents: list[AgentFigures]
    partial: bool = False
    planned_deals: int = 0
    #: "python" (the agents' `act`, move by move) or "compiled" (the game's compiled whole-game runner).
    engine: str = "python"
    #: Every game played (`records=True`), else None.
    records: list[GameRecord] | None = None
    #: Per entrant [seconds, calls] of its `act` (`timing=True`), else None.
    decision_time: list[list[float]] | None = None
    #: The move limit games were cut at (`max_turns`, or the game's `max_game_length`), None: none.
    max_turns: int | None = None
    #: Games that reached it (cut with no winner, unless that move ended them).
    at_move_limit: int = 0

    @property
    def variant(self) -> envs.Variant:
        """The game and options played."""
        return envs.Variant(self.game, self.options)

    def to_dict(self) -> dict[str, Any]:
        """Plain dict for JSON (`partial` and `planned_deals` only for an interrupted tournament)."""
        d = asdict(self)
        if not self.partial:
            del d["partial"], d["planned_deals"]
        for key in ("records", "decision_time", "max_turns"):
            if d[key] is None:
                del d[key]
        if self.max_turns is None:
            del d["at_move_limit"]
        return d


#: The values of `run_tournament`'s `engine` (and the CLI's `--engine`).
ENGINES = ("auto", "python", "compiled")

#: Spawn-key tags of `SeedSequence(seed)`: deal d's initial state is drawn from (DEAL, d); entrant e's
#: generator in rotation r of deal d is (AGENT, d, r, e); entrant e is built with (BUILD, e).
_DEAL, _AGENT, _BUILD = 0, 1, 2


@dataclass(frozen=True)
class TournamentSpec:
    """What every task of a tournament needs to play any of its deals: small and picklable (a Ray
    task rebuilds the game and the agents from it in its own process)."""

    game_name: str
    options: tuple[tuple[str, Any], ...]
    ids: tuple[str, ...]
    seed: int
    rotations: int
    max_turns: int | None
    #: One per run: a process reuses its built agents within a run, never across runs (a learned
    #: agent's file may have changed in between).
    run: str = ""
    #: Explicit deck orders (deal d is `decks[d]`), or None: the seeded deals.
    decks: tuple[tuple[int, ...], ...] | None = None
    #: Time every entrant's `act` (`Seated`).
    timing: bool = False


_SLOT = "tournament"  # the per-process slot of a tournament's game and entrants (`evaluate.backends.per_process`)
#: Most deals per call of a compiled runner in this process (a few tenths of a second of kernels' games).
COMPILED_BLOCK = 1024
#: Deals in the first call (`compiled_blocks`, with the runner's first-call set-up): a slow line-up shows its rate soon.
FIRST_BLOCK = 2


def seated_for(spec: TournamentSpec) -> tuple[Any, list[Any]]:
    """The game and the entrants of `spec`, built once per process and run and reused for every block
    of its deals (every game re-seeds and resets them)."""
    def build() -> tuple[Any, list[Any]]:
        game = envs.make_game(spec.game_name, **dict(spec.options))
        built = [agent_registry.make(a, game, np.random.default_rng(np.random.SeedSequence(spec.seed,
                                                                                           spawn_key=(_BUILD, e))),
                                     game_name=spec.game_name) for e, a in enumerate(spec.ids)]
        for a, agent in zip(spec.ids, built):
            check_reseedable(agent, a)
        return game, built

    return per_process(_SLOT, spec, build)  # one tournament's agents at a time


def check_reseedable(agent: Any, agent_id: str) -> None:
    """Raise `ValueError` for an agent that keeps a generator a tournament cannot re-seed per game (not
    in an `rng` attribute, no `reseed(rng)` method): its games would depend on the ones before."""
    if callable(getattr(agent, "reseed", None)) or isinstance(getattr(agent, "rng", None), np.random.Generator):
        return
    hidden = [k for k, v in getattr(agent, "__dict__", {}).items() if isinstance(v, np.random.Generator)]
    if hidden:
        raise ValueError(f"agent {agent_id!r} keeps a generator in {hidden[0]!r}, which a tournament cannot re-seed "
                         "before each game: keep it in `rng` or give the agent a `reseed(rng)` method")


class Watch:
    """The progress bar's view of the games played in this process: a tick a finished game, and the game in
    play's decisions so far as the postfix (at most twice a second)."""

    #: Seconds between two showings of the game in play.
    every = 0.5

    def __init__(self, bar: Any):
        self.bar, self.moves, self.shown = bar, 0, -math.inf

    def moved(self) -> None:
        self.moves += 1
        now = time.monotonic()
        if now - self.shown >= self.every:
            self.shown = now
            self.bar.set_postfix_str(f"decision {self.moves:,} of the game in play")

    def game_over(self) -> None:
        self.moves = 0
        self.bar.set_postfix_str("", refresh=False)
        self.bar.update(1)


class Seated:
    """An entrant seated for a game with its `act` calls counted by a `Watch` and/or timed into `clock[e]` (seconds,
    calls); `reset` is passed on (`play_game` calls nothing else)."""

    __slots__ = ("agent", "watch", "clock", "e")

    def __init__(self, agent: Any, watch: Watch | None = None, clock: np.ndarray | None = None, e: int = 0):
        self.agent, self.watch, self.clock, self.e = agent, watch, clock, e

    def reset(self) -> None:
        reset_agent(self.agent)

    def act(self, view: Any, mask: Any) -> int:
        if self.watch is not None:
            self.watch.moved()
        if self.clock is None:
            return self.agent.act(view, mask)
        t = time.perf_counter()
        try:
            return self.agent.act(view, mask)
        finally:
            self.clock[self.e, 0] += time.perf_counter() - t
            self.clock[self.e, 1] += 1


#: What a deal gives: wins[rotation, entrant], scores[rotation, entrant], moves[rotation] and, when timed, the
#: entrants' [seconds, calls] of `act` (else None).
DealFigures = tuple[np.ndarray, np.ndarray, np.ndarray, "np.ndarray | None"]


def play_deal(game: Any, built: list[Any], rotations: int, max_turns: int | None, seed: int,
              deal: int, decks: tuple[tuple[int, ...], ...] | None = None, timing: bool = False,
              watch: Watch | None = None) -> DealFigures:
    """Deal number `deal` of the tournament seeded `seed`, played once per rotation, everything random
    following from (`seed`, `deal`) (with `decks`, dealt from `decks[deal]`).

    Returns:
        wins[rotation, entrant] (1 or 0), scores[rotation, entrant], the moves of each rotation's game and, with
        `timing`, each entrant's [seconds, calls] of `act` (else None).
    """
    n = game.num_players
    wins = np.zeros((rotations, n))
    scores = np.zeros((rotations, n))
    turns = np.zeros(rotations, np.int64)
    clock = np.zeros((n, 2)) if timing else None
    start = deal_start(game, seed, deal, decks)
    for r in range(rotations):
        seated = [None] * n
        for e in range(n):
            reseed_agent(built[e], np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(_AGENT, deal, r, e))))
            seated[(e + r) % n] = built[e] if clock is None and watch is None else Seated(built[e], watch, clock, e)
        ret, won, t = play_game(game, seated, start, max_turns)
        if watch is not None:
            watch.game_over()
        turns[r] = t
        seats = (np.arange(n) + r) % n  # entrant e's seat in this rotation
        scores[r], wins[r] = np.asarray(ret, np.float64)[seats], np.isin(seats, list(won))
    return wins, scores, turns, clock


def deal_rng(seed: int, deal: int) -> np.random.Generator:
    """The generator of deal number `deal` of the tournament seeded `seed`: its initial state is
    `game.initial_state` of it (Python engine), or the game of `game.deal_key` of it (compiled engine)."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(_DEAL, deal)))


def check_decks(game_name: str, game: Any, decks: Any, deals: int) -> tuple[tuple[int, ...], ...] | None:
    """`decks` as a tuple of deck orders (None stays None), checked against the game and `deals`.

    Raises:
        ValueError: one line naming what is wrong (the games that take decks, the count, the bad deck).
    """
    if decks is None:
        return None
    if not _deals_decks(game):
        raise ValueError(f"decks: {game_name}'s deals are not deck orders (its deal is a seed); explicit decks are "
                         f"dealt in {', '.join(sorted(deck_games()))}")
    out = tuple(tuple(int(c) for c in d) for d in decks)
    if len(out) < deals:
        raise ValueError(f"decks: {deals} deals need {deals} deck orders, got {len(out)}")
    for i, d in enumerate(out[:deals]):
        try:
            game.deal_from(d)
        except ValueError as e:
            raise ValueError(f"decks[{i}]: {e}") from None
    return out[:deals]


def _deals_decks(game: Any) -> bool:
    """Whether the game's deal is a deck order (`deal_key` gives a list, `deal_from` deals it)."""
    key = getattr(game, "deal_key", None)
    return callable(key) and hasattr(game, "deal_from") and isinstance(key(np.random.default_rng(0)), list)


def deck_games() -> list[str]:
    """The registered games whose deal is a deck order."""
    return [g for g in envs.available_games() if _deals_decks(envs.make_game(g))]


def deal_start(game: Any, seed: int, deal: int, decks: tuple[tuple[int, ...], ...] | None = None) -> Any:
    """The initial state of deal number `deal`: `game.initial_state(deal_rng(seed, deal))`, or
    `game.deal_from(decks[deal])` with explicit decks."""
    return game.initial_state(deal_rng(seed, deal)) if decks is None else game.deal_from(decks[deal])


def deal_keys(game: Any, seed: int, deals: range, decks: tuple[tuple[int, ...], ...] | None = None) -> list[Any]:
    """What a compiled runner replays deals `deals` from: `game.deal_key` of their generators, the
    initial states themselves (a game without `deal_key`), or the explicit deck orders."""
    if decks is None:
        if not hasattr(game, "deal_key"):
            return [deal_start(game, seed, d) for d in deals]
        return [game.deal_key(deal_rng(seed, d)) for d in deals]
    return [list(decks[d]) for d in deals]


def compiled_runner(game_name: str, game: Any, ids: list[str], engine: str = "auto", max_turns: int | None = None,
                    backend: Backend | None = None, built: list[Any] | None = None) -> Any:
    """The game's compiled `play(keys, seatings[, streams])` for the entrants `ids`, or None where
    the tournament plays in Python (`engine="python"`, or `"auto"` when the game, an entrant, the options or
    `max_turns` has no compiled path). `play.sampled`: a seated network samples its moves (`play` takes `streams`).

    Raises:
        ValueError: an unknown `engine`; `engine="compiled"` where it cannot run (naming why).
    """
    from envs.core.spec import NoKernelError

    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    if engine == "python":
        return None
    forced = engine == "compiled"
    where = agent_registry.part(game_name).compiled_games
    if where is None:
        if forced:
            with_one = [g for g in envs.available_games() if agent_registry.part(g).compiled_games]
            raise ValueError(f"--engine compiled: {game_name} has no compiled tournament runner; games with one: "
                             f"{', '.join(with_one)}")
        return None
    runner = entry_point(where)
    policies = _seat_policies(ids, built) if "policies" in inspect.signature(runner).parameters else None
    try:
        play = runner(game, ids, max_turns, policies=policies) if policies else runner(game, ids, max_turns)
    except NoKernelError:
        if forced:
            raise
        return None
    return CompiledPlay(play, any(p is not None and p.sample for p in policies or ()))


class CompiledPlay:
    """A compiled runner's `play(keys, seatings)`; `sampled`: a seated network samples its moves, and `play` takes
    the keys of its streams too (`streams`, uint64 (deals, rows, n): one per game and seat, `seat_streams`)."""

    def __init__(self, play: Any, sampled: bool):
        self.play, self.sampled = play, bool(sampled)

    def __call__(self, keys: Any, seatings: Any, streams: Any = None) -> Any:
        return self.play(keys, seatings, streams) if self.sampled else self.play(keys, seatings)


def _seat_policies(ids: list[str], built: list[Any] | None) -> list[Any] | None:
    """Each entrant's network as an `agents.vector.SeatPolicy` (None for an entrant without one); None: none has."""
    if built is None:
        return None
    from agents.vector import seat_policy

    out: list[Any] = []
    for agent, agent_id in zip(built, ids):  # entrants of one id play one network: one forward for all their seats
        out.append(out[ids.index(agent_id)] if agent_id in ids[:len(out)] else seat_policy(agent, agent_id))
    return out if any(p is not None for p in out) else None


def seat_streams(seed: int, tags: list[tuple[int, ...]]) -> np.ndarray:
    """uint64 keys of the SplitMix64 streams a seated network samples from, one per spawn key of
    `tags` under `seed` (the spawn key of the Python engine's generator of the same game and seat)."""
    return np.array([np.random.SeedSequence(seed, spawn_key=t).generate_state(1, np.uint64)[0] for t in tags],
                    np.uint64)


def play_compiled_deals(spec: TournamentSpec, deals: range) -> list[DealFigures]:
    """`play_deal`'s figures for each deal number in `deals`, played on the game's compiled runner (built in this
    process, `compiled_runner`) with the same deals and seating as the Python engine."""
    game, built = seated_for(spec)
    play = compiled_runner(spec.game_name, game, list(spec.ids), "compiled", spec.max_turns, None, built)
    n, rotations, seed = game.num_players, spec.rotations, spec.seed
    seatings = np.array([[(seat - r) % n for seat in range(n)] for r in range(rotations)], np.int64)
    streams = None
    if play.sampled:
        tags = [(_AGENT, d, r, int(seatings[r, s])) for d in deals for r in range(rotations) for s in range(n)]
        streams = seat_streams(seed, tags).reshape(len(deals), rotations, n)
    returns, winners, turns = play(deal_keys(game, seed, deals, spec.decks), seatings, streams)
    # by seat -> by entrant: entrant e sat at seat (e + r) mod n in rotation r
    by_entrant = (np.arange(rotations)[:, None] + np.arange(n)[None, :]) % n
    rows = np.arange(rotations)[:, None]
    return [(winners[k][rows, by_entrant].astype(np.float64), returns[k][rows, by_entrant].astype(np.float64),
             np.asarray(turns[k], np.int64).reshape(rotations), None) for k in range(len(deals))]


def compiled_blocks(deals: int, play_block: Any, start: int = 0, target: float = 1.0) -> Any:
    """`play_block(range)` of consecutive blocks covering deals `start` .. `start + deals - 1`: a
    first block of `FIRST_BLOCK` deals, then blocks sized to take about `target` seconds (1 to `COMPILED_BLOCK`
    deals), so the bar moves about every second."""
    a, size = 0, FIRST_BLOCK
    while a < deals:
        part = range(start + a, start + min(a + size, deals))
        t0 = time.perf_counter()
        out = play_block(part)
        took = time.perf_counter() - t0
        a += len(part)
        size = int(min(COMPILED_BLOCK, max(1, len(part) * target / max(took, 1e-6))))
        yield out


def deal_blocks(deals: int, backend: Backend, play: Any, python_task: Any, compiled_task: Any, bar: Any,
                start: int = 0, watched: bool = True) -> Any:
    """The played blocks of deals `start` .. `start + deals - 1`, in order: `python_task(range)` on `backend` where
    the runner `play` is None (in this process, a shown bar `watched`: `watch=Watch(bar)` moves it game by game),
    else `compiled_task(range)` on `backend` (in this process in `compiled_blocks`, so that the bar moves and Ctrl-C
    keeps the finished ones)."""
    if play is not None and not backend.remote:
        return compiled_blocks(deals, compiled_task, start)
    parts = [range(b.start + start, b.stop + start) for b in blocks(deals, backend)]
    if play is None and watched and not backend.remote and not bar.disable:
        python_task = functools.partial(python_task, watch=Watch(bar))
    return backend.imap(python_task if play is None else compiled_task, parts)


def collect_blocks(results: Any, play: Any, game_name: str, bar: Any, games_a_deal: int,
                   stop_on_interrupt: bool) -> list[Any]:
    """The figures of every deal in the played blocks `results`, the bar at `games_a_deal` games a deal (a watched
    block has moved it already) and saying so while a kernel compiles; on Ctrl-C or a Ray worker lost on every
    retry, the finished deals where `stop_on_interrupt` (else, or with none, it raises)."""
    done: list[Any] = []
    try:  # on the Python engine an entrant compiles its own kernels at its first decision (a Monte-Carlo search)
        with compiling_note(bar, game_name):
            for block in compiling_first(results, play, game_name, bar):
                done.extend(block)
                if games_a_deal * len(done) > bar.n:
                    bar.update(games_a_deal * len(done) - bar.n)
    except (KeyboardInterrupt, WorkerLostError):
        if not stop_on_interrupt or not done:
            raise
    finally:
        close = getattr(results, "close", None)
        if close is not None:
            close()  # stops collecting; a local Ray instance the run started is shut down after
    return done


def play_deals(spec: TournamentSpec, deals: range, watch: Watch | None = None) -> list[DealFigures]:
    """`play_deal` for each deal number in `deals` (one task of a backend: a block of consecutive deals; `watch`: the
    progress bar's, in this process)."""
    game, built = seated_for(spec)
    return [play_deal(game, built, spec.rotations, spec.max_turns, spec.seed, d, spec.decks, spec.timing, watch)
            for d in deals]


@dataclass(frozen=True)
class DealSettings:
    """What every job played on deals takes besides the game and the entrants (`TournamentSettings`,
    `evaluate.paired.PairedSettings` and `evaluate.league.LeagueSettings` add their own).

    Attributes:
        games: how many games (tournament), deals (paired comparison) or deals per pair of agents (league).
        seed: root seed of the deals and of every agent's generator.
        max_turns: cut a game after this many turns (no winner); None: in a tournament and a paired comparison the
            game's `max_game_length`, if any.
        progress: show a progress bar (`None`: only on a terminal).
        backend: where the deals are played (`evaluate.backends`; default this process).
        stop_on_interrupt: on Ctrl-C, SIGTERM or a lost Ray worker, keep the finished deals (the result says so).
        engine: `"auto"`, `"python"` or `"compiled"` (`compiled_runner`).
    """

    games: int = 1000
    seed: int = 0
    max_turns: int | None = None
    progress: bool | None = None
    backend: Backend | None = None
    stop_on_interrupt: bool = False
    engine: str = "auto"


@dataclass(frozen=True)
class TournamentSettings(DealSettings):
    """How a tournament is played (`run_tournament`): the `DealSettings` (with rotation the games are grouped in
    deals of n games; a stopped tournament is marked `partial`) and

    Attributes:
        seating: `"rotate"` or `"fixed"`.
        decks: explicit deck orders, one a deal (`check_decks`); None: the deals of `seed`.
        start_deal: the first deal's number.
        records: keep every game (`TournamentResult.records`).
        timing: time every entrant's `act` (`TournamentResult.decision_time`; Python engine only).
    """

    seating: str = "rotate"
    decks: Any = None
    start_deal: int = 0
    records: bool = False
    timing: bool = False


def run_tournament(game_name: str | envs.Variant, agent_ids: list[str] | str,
                   settings: TournamentSettings | None = None, *, options: dict[str, Any] | None = None,
                   **changes: Any) -> TournamentResult:
    """Play `settings.games` games of `game_name` (an id or an `envs.Variant`) between `agent_ids`
    (one a seat, `"id*k"` repeats), `**changes` replacing fields of `settings`.

    Raises:
        TypeError: a keyword that names no field of `TournamentSettings`.
        ValueError: a setting out of range, an unknown game, option or agent id, or the wrong number of ids.
    """
    run = replace(settings or TournamentSettings(), **changes)
    games, seed, seating, max_turns = run.games, run.seed, run.seating, run.max_turns
    backend, engine, decks, start_deal, timing = run.backend, run.engine, run.decks, run.start_deal, run.timing
    _check_arguments(seating, games, max_turns, start_deal, timing, engine)
    game_name, options = envs.resolve(game_name, options)
    game = envs.make_game(game_name, **options)
    max_turns = default_max_turns(game, max_turns)
    n = game.num_players
    ids = expand_agent_ids(agent_ids)
    if len(ids) != n:
        raise ValueError(
            f"{game_name} with these options seats {n} players; give {n} agent ids (got {len(ids)}: {', '.join(ids)}); "
            f"known agents: {', '.join(agent_registry.known_ids(game_name))}"
        )
    rotations = n if seating == "rotate" else 1
    planned = math.ceil(games / rotations)
    start = int(start_deal)
    decks = check_decks(game_name, game, decks, start + planned)
    spec = TournamentSpec(game_name, tuple(options.items()), tuple(ids), seed, rotations, max_turns, uuid.uuid4().hex,
                          decks, bool(timing))
    bar = progress_bar(planned * rotations, f"{game_name} tournament", run.progress)  # from the first second
    try:
        _, built = seated_for(spec)  # a bad agent id fails here, as a ValueError, before any task starts
        play = compiled_runner(game_name, game, ids, "python" if timing else engine, max_turns, backend, built)
        results = deal_blocks(planned, backend or LocalBackend(), play, functools.partial(play_deals, spec),
                              functools.partial(play_compiled_deals, spec), bar, start)
        done = collect_blocks(results, play, game_name, bar, rotations, run.stop_on_interrupt)
    finally:
        bar.close()
        forget(_SLOT)
    return _tournament_result(spec, options, seating, done, planned, start, "python" if play is None else "compiled",
                              run.records)


def _tournament_result(spec: TournamentSpec, options: dict[str, Any], seating: str, done: list[DealFigures],
                       planned: int, start: int, engine: str, records: bool) -> TournamentResult:
    """`run_tournament`'s result from the finished deals' figures `done` (deals `start`, `start` + 1, ...)."""
    rotations, max_turns, ids = spec.rotations, spec.max_turns, list(spec.ids)
    deals = len(done)
    total_turns = int(sum(d[2].sum() for d in done))
    at_limit = int(sum(at_move_limit(d[2], max_turns).sum() for d in done))
    count = deals * rotations
    figures = entrant_figures(np.stack([d[0] for d in done]), np.stack([d[1] for d in done]), labels_for(ids), ids)
    kept = [GameRecord(start + k, r, tuple(int(e) for e in np.flatnonzero(d[0][r])), int(d[2][r]))
            for k, d in enumerate(done) for r in range(rotations)] if records else None
    clock = [[float(x) for x in row] for row in sum(d[3] for d in done)] if spec.timing else None
    return TournamentResult(spec.game_name, options, spec.seed, seating, deals, count, total_turns / count, figures,
                            partial=deals < planned, planned_deals=planned, engine=engine, records=kept,
                            decision_time=clock, max_turns=max_turns, at_move_limit=at_limit)


def _check_arguments(seating: str, games: int, max_turns: int | None, start_deal: Any, timing: bool,
                     engine: str) -> None:
    """Raise `ValueError` naming the first of `run_tournament`'s arguments that is out of range."""
    if seating not in ("rotate", "fixed"):
        raise ValueError(f"seating must be 'rotate' or 'fixed', got {seating!r}")
    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    check_move_limit(max_turns)
    if isinstance(start_deal, bool) or not isinstance(start_deal, (int, np.integer)) or start_deal < 0:
        raise ValueError(f"start_deal must be an integer >= 0, got {start_deal!r}")
    if timing and engine == "compiled":
        raise ValueError("timing times the agents' own moves: it plays in Python (engine 'auto' or 'python'), "
                         "not on the compiled runner")


def entrant_figures(wins: np.ndarray, scores: np.ndarray, labels: list[str], ids: list[str]) -> list[AgentFigures]:
    """Each entrant's figures from wins[deal, rotation, entrant] and scores[deal, rotation, entrant] (one rotation:
    fixed seating), with the intervals of the module docstring."""
    deals, rotations, n = wins.shape
    count = deals * rotations
    figures = []
    for e in range(n):
        w = wins[:, :, e]
        s = scores[:, :, e]
        plo, phi = wilson_interval(float(w.sum()), count)
        if rotations > 1:
            wr, wlo, whi = mean_interval(w.mean(axis=1))
            # The deal-level normal interval collapses when every deal gives the
            # same share (0 wins in 9 games is not "exactly 0"): never report
            # narrower than Wilson's interval over all games.
            wlo, whi = max(0.0, min(wlo, plo)), min(1.0, max(whi, phi))
        else:
            wr, wlo, whi = float(w.mean()), plo, phi
        sm, slo, shi = mean_interval(s.mean(axis=1))  # one rotation: each game's own score
        # (rotation, seat): entrant e sits at seat (e + r) mod n in rotation r; with fixed seating at seat e only
        seats = [((seat - e) % n, seat) for seat in range(n)] if rotations > 1 else [(0, e)]
        per_seat = [SeatFigures(seat, deals, float(w[:, r].mean()), float(s[:, r].mean())) for r, seat in seats]
        figures.append(AgentFigures(labels[e], ids[e], count, float(w.sum()), float(wr), (float(wlo), float(whi)),
                                    float(sm), (float(slo), float(shi)), per_seat))
    return figures


def progress_bar(total: int, desc: str, progress: bool | None, unit: str = "game") -> Any:
    """A tqdm bar of `total` games (or other `unit`s: a recorded race's turns), rate and ETA, shown at once;
    `progress` None: only on a terminal."""
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit=unit, disable=(not progress) if progress is not None else None,
                leave=False, mininterval=0.5)


def uncompiled(kernels: Any) -> bool:
    """Whether a call of one of the numba `kernels` will compile it (neither compiled in this process nor in
    numba's cache for its present source)."""
    for kernel in kernels:
        if getattr(kernel, "signatures", None):
            continue
        try:
            if not kernel._cache._cache_file._load_index():  # numba's index of this source's cached overloads
                return True
        except (AttributeError, OSError):
            return True
    return False


def compiling_first(blocks_of: Any, play: Any, game_name: str, bar: Any) -> Any:
    """`blocks_of`, the bar saying "compiling <game> kernels, first run only, ~N s" until its
    first block is in, where the runner `play` is about to compile its `kernels`."""
    if bar.disable:
        yield from blocks_of
        return
    kernels = getattr(getattr(play, "play", None), "kernels", ())
    desc = bar.desc
    if kernels and uncompiled(kernels):
        bar.set_description_str(compiling_text(game_name, agent_registry.part(game_name).compile_seconds))
    for k, block in enumerate(blocks_of):
        if k == 0:
            bar.set_description_str(desc, refresh=False)
        yield block


def compiling_text(game_name: str, seconds: float | None = None) -> str:
    """What a bar says while a first run compiles: "compiling <game> kernels, first run only[, ~N s]"."""
    about = f", ~{seconds:.0f} s" if seconds else ""
    return f"compiling {envs.spec(game_name).title} kernels, first run only{about}"


@contextlib.contextmanager
def compiling_note(bar: Any, game_name: str, seconds: float | None = None) -> Iterator[None]:
    """Within the block, while numba compiles a kernel in this process (a cache miss), `bar` says
    `compiling_text(game_name, seconds)`, then its own description again; a bar already saying so, or disabled, is
    left alone."""
    if bar.disable:
        yield
        return
    from numba.core import event

    class Note(event.Listener):
        depth, desc = 0, None

        def on_start(self, ev: Any) -> None:
            self.depth += 1
            # the outermost compile (a kernel compiles the kernels it calls inside its own)
            if self.depth == 1 and not bar.desc.startswith("compiling "):
                self.desc = bar.desc
                bar.set_description_str(compiling_text(game_name, seconds))

        def on_end(self, ev: Any) -> None:
            self.depth -= 1
            if self.depth == 0 and self.desc is not None:
                bar.set_description_str(self.desc)
                self.desc = None

    with event.install_listener("numba:compile", Note()):
        yield


def format_table(result: TournamentResult) -> str:
    """The terminal table of a tournament."""
    opts = " ".join(f"{k}={v}" for k, v in result.options.items()) or "default options"
    head = (f"{result.game} ({opts}) — {plural(result.games, 'game')} ({plural(result.deals, 'deal')}, seating "
            f"{result.seating}), seed {result.seed}, {result.mean_turns:.1f} turns/game, {result.engine} engine")
    w = max(12, max(len(a.label) for a in result.agents) + 2)
    lines = [head, f"{'agent':<{w}}{'win rate':>10}{'95% CI':>18}{'mean score':>12}{'95% CI':>22}   per seat win rate"]
    for a in result.agents:
        seats = " ".join(f"{s.seat}:{s.win_rate:.3f}" for s in a.per_seat)
        lines.append(
            f"{a.label:<{w}}{a.win_rate:>10.3f}{interval_text(*a.ci95):>18}{a.mean_score:>12.3f}"
            f"{interval_text(*a.score_ci95):>22}   {seats}"
        )
    if result.at_move_limit:
        lines.append(cut_games_line(f"{result.at_move_limit} of {result.games} games", result.max_turns))
    return "\n".join(lines)


def cut_games_line(counted: str, max_turns: int | None) -> str:
    """The line under a results table that says how many games (`counted`, e.g. "3 of 200 games") were cut."""
    return (f"{counted} reached the move limit ({max_turns:,} moves) and were cut, with no winner "
            "(--max-turns sets the limit)")


def write_csv(result: TournamentResult, path: str) -> None:
    """Write one row per agent (and per seat) as CSV; the last two columns, the deals played and planned, tell a
    tournament that was stopped (fewer played) from a whole one."""
    planned = result.planned_deals if result.partial else result.deals
    with open(path, "w", newline="", encoding="utf-8") as f:
        wr = csv.writer(f)
        wr.writerow(["game", "label", "agent", "seat", "games", "win_rate", "ci95_low", "ci95_high", "mean_score",
                     "score_ci95_low", "score_ci95_high", "deals", "planned_deals"])
        for a in result.agents:
            wr.writerow([result.game, a.label, a.id, "all", a.games, a.win_rate, a.ci95[0], a.ci95[1], a.mean_score,
                         a.score_ci95[0], a.score_ci95[1], result.deals, planned])
            for s in a.per_seat:
                wr.writerow([result.game, a.label, a.id, s.seat, s.games, s.win_rate, "", "", s.mean_score, "", "",
                             result.deals, planned])
