"""Beyond the paper: exact values of random 2-player deals, and how far the seed's players are from perfect play.

    python -m evaluate primi_composti --solve-deals 200 --option version=1 --option cards_per_player=8
    python -m evaluate primi_composti --solve-deals 200 --backend ray --option version=2 --option cards_per_player=12

For each random deal (P1 holds card 2 and starts) the exact value is the final score difference P1 − P2 under
perfect play (`agents.primi_composti.solvers`); a listed player's regret is that value for its seat minus its
final score difference against the perfect solver, both seats (`summarize` lists the rest of the report). A study
can be split with `--solve-from K` and joined with `--merge-solves` (docs/primi_composti.md); version 2's official
options are solved on the reference solver.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from agents.primi_composti import fast as strategies
from agents.primi_composti.solvers import Solver, best_action, solve_deal, solver_for, state_value
from agents.primi_composti.strategies import seed_action
from envs.core.game import legal_mask
from envs.primi_composti import fast
from envs.primi_composti.rules import Config, PrimiCompostiGame
from evaluate.backends import Backend, LocalBackend, per_process
from evaluate.stats import mean_interval, wilson_interval


def regret_game(game: PrimiCompostiGame, state, player: Any, seat: int, solver: Solver) -> int:
    """Exact value of `state` for `seat` minus what `player` in `seat` gets against perfect play: one of the seed's
    players by name (its card with the seed's max-steal pair), or an agent (`act(view, mask)`)."""
    v = state_value(game, state, solver)
    value_for_seat = v if seat == state.first else -v
    s = state
    while not game.is_terminal(s):
        if game.current_player(s) != seat:
            a = best_action(game, s, solver)
        elif isinstance(player, str):
            a = seed_action(game, s, strategies.choose_card(game, s, player))
        else:
            a = int(player.act(game.view(s, seat), legal_mask(game, s)))
        s = game.apply(s, a)
    return value_for_seat - (s.scores[seat] - s.scores[1 - seat])


def tt_bits_for(cards_per_player: int, version: int = 2) -> int:
    """Transposition table size (log2 entries) for a deal size (v1: 16 bytes an entry, v2: 24), the
    fastest measured at each size."""
    return min(24, max(16, 2 * cards_per_player + (2 if version == 1 else 4)))


def summarize(version: int, cards_per_player: int, per_deal: list[dict[str, Any]]) -> dict[str, Any]:
    """Statistics of solved deals (records with value, seconds, nodes): the value's
    mean with a 95% interval, P1 wins / ties / P2 wins (Wilson), solve times."""
    vals = np.array([r["value"] for r in per_deal])
    times = [r["seconds"] for r in per_deal]
    n = len(vals)
    m, lo, hi = mean_interval(vals)
    return {
        "version": version,
        "cards_per_player": cards_per_player,
        "deals": n,
        "value_mean": m,
        "value_ci": (lo, hi),
        "p1_wins": float((vals > 0).mean()),
        "p1_wins_ci": wilson_interval(int((vals > 0).sum()), n),
        "ties": float((vals == 0).mean()),
        "ties_ci": wilson_interval(int((vals == 0).sum()), n),
        "p2_wins": float((vals < 0).mean()),
        "p2_wins_ci": wilson_interval(int((vals < 0).sum()), n),
        "solve_seconds_median": float(np.median(times)),
        "solve_seconds_worst": float(np.max(times)),
        "nodes_median": float(np.median([r["nodes"] for r in per_deal])),
        "per_deal": per_deal,
        "regret": {},
    }


#: The options a solve study plays besides `version` and `cards_per_player`: version 2's official rules (the value
#: and the perfect play do not depend on the others: the reward, the observation).
RULES = {"steal_choice": "max", "allow_revealed_operand": False}
_IGNORED = ("reward", "observation_hints")


def study_rules(options: dict[str, Any]) -> dict[str, Any]:
    """The official rules of `options` (`RULES` with the given values; `version` and `cards_per_player` are the
    study's own arguments); ValueError on an option a solve study cannot play (more players, another deal)."""
    out = dict(RULES)
    for key, v in options.items():
        if key in RULES:
            out[key] = v
        elif key not in ("version", "cards_per_player") + _IGNORED and v != getattr(Config(), key, object()):
            raise ValueError(f"a solve study plays 2 players with the seed's deal; it takes the options version, "
                             f"cards_per_player, {', '.join(RULES)}, got {key}={v!r}")
    return out


def _rules_note(rules: dict[str, Any]) -> str:
    """' (steal_choice='player', allow_revealed_operand=True)' where a study plays official rules, else ''."""
    diff = [f"{k}={v!r}" for k, v in rules.items() if v != RULES[k]]
    return f" ({', '.join(diff)})" if diff else ""


def solve_study(version: int, cards_per_player: int, deals: int, seed: int, players: list[str], start: int = 0,
                threads: int = 1, backend: Backend | None = None,
                rules: dict[str, Any] | None = None) -> dict[str, Any]:
    """Solve deals start .. start+deals−1 of the seed's deal sequence exactly and measure the regret of
    `players`, one deal a job of `backend` (every figure but the timings the same on any backend; `merge_studies`
    joins split studies). `rules`: version 2's official options (`RULES`)."""
    if deals < 1 or start < 0:
        raise ValueError(f"need deals >= 1 and start >= 0, got deals={deals}, start={start}")
    rules = study_rules(rules or {})
    Config(version=version, cards_per_player=cards_per_player, **rules)  # a bad value: ValueError naming the allowed
    rng = np.random.default_rng(seed)
    decks = fast.random_decks(rng, start + deals, cards_per_player)[start:]
    study = _DealJob(version, cards_per_player, start, [], tuple(players), threads, len(decks), tuple(rules.items()))
    jobs = [replace(study, index=start + i, deck=[int(c) for c in d]) for i, d in enumerate(decks)]
    results = (backend or LocalBackend()).map(_solve_one, jobs)
    per_deal = [r[0] for r in results]
    out = summarize(version, cards_per_player, per_deal)
    out["seed"] = seed
    out.update(rules)
    for p in players:
        regs = [x for r in results for x in r[1][p]]
        rm, rlo, rhi = mean_interval(regs)
        out["regret"][p] = {"mean": rm, "ci": (rlo, rhi), "perfect_share": float(np.mean(np.array(regs) == 0)),
                            "seconds": sum(r[2][p] for r in results)}
    return out


@dataclass(frozen=True)
class _DealJob:
    """One deal of a study: what a worker needs to solve it and measure the players' regrets."""

    version: int
    cards_per_player: int
    index: int
    deck: list[int]
    players: tuple[str, ...]
    threads: int
    of: int
    rules: tuple[tuple[str, Any], ...] = ()

    def game(self, cards_per_player: int | None = None) -> PrimiCompostiGame:
        """The game of this job's rules (`cards_per_player` defaults to the job's)."""
        return PrimiCompostiGame(
            Config(version=self.version, cards_per_player=cards_per_player or self.cards_per_player, **dict(self.rules))
        )


def _solve_one(job: _DealJob) -> tuple[dict[str, Any], dict[str, list[int]], dict[str, float]]:
    """Solve one deal exactly, then play each player against the solver in both seats:
    (the deal's record, the player's two regrets, the regret games' seconds)."""
    key = (job.version, tt_bits_for(job.cards_per_player, job.version), job.threads, job.rules)
    game = job.game()

    def build() -> Solver:
        solver = solver_for(game, tt_bits=key[1], threads=job.threads)
        _warm_up(job.game(4), solver)
        return solver

    # one solver per process, built and warmed up once (a version-2 table is up to 400 MB)
    solver = per_process("primi_composti solver", key, build)
    s = game.deal(job.deck)
    r = solve_deal(game, s, solver)
    record = {"index": job.index, "value": r.value, "seconds": r.seconds, "nodes": r.nodes}
    # Progress on stderr (one line a deal), so that long studies can be followed and cut short.
    print(
        f"deal {job.index + 1} (of {job.of}): value {r.value:+d}, {r.seconds:.3f} s, {r.nodes} nodes",
        file=sys.stderr,
        flush=True,
    )
    # Right after its solve, so that the solver still holds what it learnt of this deal
    # (the retrograde v1 solver keeps the whole pass: every later position is a lookup).
    regs: dict[str, list[int]] = {}
    secs: dict[str, float] = {}
    for p in job.players:
        t = time.perf_counter()
        regs[p] = [regret_game(game, s, p, 0, solver), regret_game(game, s, p, 1, solver)]
        secs[p] = time.perf_counter() - t
    return record, regs, secs


def _warm_up(game: PrimiCompostiGame, solver) -> None:
    """Compile / load the solver's machine code on a small deal of `game` (4 cards a hand), so that it is not
    timed."""
    solver.clear()
    state_value(game, game.deal(fast.random_decks(np.random.default_rng(0), 1, 4)[0]), solver)
    solver.clear()


def merge_studies(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """Join studies of disjoint deal ranges (same version, size and seed) into one."""
    if not parts:
        raise ValueError("nothing to merge")
    keys = {
        (p["version"], p["cards_per_player"], p.get("seed"), *(p.get(k, v) for k, v in RULES.items())) for p in parts
    }
    if len(keys) != 1:
        raise ValueError(f"studies differ in version / cards_per_player / seed / {' / '.join(RULES)}: "
                         f"{sorted(keys, key=str)}")
    per_deal = sorted((r for p in parts for r in p["per_deal"]), key=lambda r: r["index"])
    idx = [r["index"] for r in per_deal]
    if len(set(idx)) != len(idx):
        raise ValueError("the studies overlap (a deal index appears twice)")
    version, k, seed, *official = keys.pop()
    out = summarize(version, k, per_deal)
    out["seed"] = seed
    out.update(zip(RULES, official))
    return out


def _secs(t: float) -> str:
    """A duration for people: milliseconds below a second, else seconds."""
    return f"{t * 1000:.1f} ms" if t < 1 else f"{t:.1f} s"


def format_study(s: dict[str, Any]) -> str:
    """A short text report of `solve_study`."""
    pct = lambda x: f"{100 * x:.1f}%"  # noqa: E731
    ci = lambda c: f"[{100 * c[0]:.1f}, {100 * c[1]:.1f}]"  # noqa: E731
    lines = [
        f"version {s['version']}, {s['cards_per_player']} cards per player"
        f"{_rules_note({k: s.get(k, v) for k, v in RULES.items()})}: "
        f"{s['deals']} random deals solved exactly",
        f"  value P1 − P2 under perfect play: mean {s['value_mean']:+.2f} "
        f"[{s['value_ci'][0]:+.2f}, {s['value_ci'][1]:+.2f}]",
        f"  perfect play: P1 wins {pct(s['p1_wins'])} {ci(s['p1_wins_ci'])}, ties {pct(s['ties'])} {ci(s['ties_ci'])}, "
        f"P2 wins {pct(s['p2_wins'])} {ci(s['p2_wins_ci'])}",
        f"  solve time: median {_secs(s['solve_seconds_median'])}, worst {_secs(s['solve_seconds_worst'])} "
        f"(median {s['nodes_median']:.0f} nodes)",
    ]
    for p, r in s["regret"].items():
        lines.append(
            f"  regret of {p} vs perfect play: {r['mean']:.2f} points/game [{r['ci'][0]:.2f}, {r['ci'][1]:.2f}], "
            f"perfect in {pct(r['perfect_share'])} of games"
        )
    return "\n".join(lines)
