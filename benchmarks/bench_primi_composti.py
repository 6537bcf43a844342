"""Primi Composti speed, as ratios measured in one process.

(a) `primi_composti_v0.env()` steps/s under random legal play vs PettingZoo's
    `tictactoe_v3.env()` (goal ≥ 2×);
(b) tournament games/s of greedy_rand vs rand (v1): the numba path
    `agents.primi_composti.fast` vs the plain engine + `agents.primi_composti.strategies`
    (the seed's own code plays about 2,000 such games/s; goal ≥ 20,000);
(c) minimax_5 time per decision, fast path and plain engine (seed ≈ 0.4 s;
    goal ≤ 4 ms);
(d) exact solve of random deals, median and worst time per deal at the given
    cards per player: the reference solver (`ReferenceSolver`), the alpha-beta
    searches (`AlphaBetaV1` / `AlphaBetaV2`) and, for version 1, the
    retrograde solver (`RetrogradeV1`, what `make_solver(1)` gives) on the same deals,
    and their ratios;
(e) the fast solvers with two threads (`threads=2`: v1 splits each retrograde
    layer's rows, v2 runs two searches sharing the table, "lazy SMP") vs one, per
    version, wall clock on the same deals (needs two free cores; `--smp-deals 0`
    skips it);
(f) `--full-deals K`: K full 12-card version-1 deals, the retrograde solver
    (`RetrogradeV1`) against the alpha-beta search (`AlphaBetaV1`), one thread each.

    python benchmarks/bench_primi_composti.py [--seconds 1] [--solve-cards 8] [--smp-cards 10 --smp-deals 5]
    python benchmarks/bench_primi_composti.py --smp-cards 12 --smp-deals 5 --smp-versions 1 --full-deals 3
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # run as a script from anywhere
from benchmarks.common import compare, tictactoe_env  # noqa: E402


def plain_minimax_ms(version: int, decisions: int = 3) -> float:
    """Milliseconds per minimax_5 decision of the plain engine over the first
    `decisions` moves of a deal (the largest trees: a pessimistic mean)."""
    from agents.primi_composti.strategies import minimax_card
    from envs.primi_composti.rules import Config, PrimiCompostiGame

    game = PrimiCompostiGame(Config(version=version))
    s = game.initial_state(np.random.default_rng(3))
    t = time.perf_counter()
    for _ in range(decisions):
        s = game.apply(s, game.action_of(minimax_card(game, s, 5)))
    return (time.perf_counter() - t) / decisions * 1000


def plain_games_per_sec(p0: str, p1: str, games: int, version: int = 1) -> float:
    """Games/s of the plain engine with the seed's players (no fast path)."""
    from agents.primi_composti.strategies import SeedPlayer
    from envs.primi_composti.rules import Config, PrimiCompostiGame

    game = PrimiCompostiGame(Config(version=version))
    players = [SeedPlayer(game, None, p0, fast=False), SeedPlayer(game, None, p1, fast=False)]
    rng = np.random.default_rng(0)
    t = time.perf_counter()
    for _ in range(games):
        s = game.initial_state(rng)
        while not game.is_terminal(s):
            s = game.apply(s, game.action_of(players[game.current_player(s)].card(s)))
    return games / (time.perf_counter() - t)


def fast_games_per_sec(p0: str, p1: str, games: int, version: int = 1) -> float:
    """Games/s of the numba path (deals drawn outside the timed region)."""
    from agents.primi_composti import fast as strategies
    from envs.primi_composti import fast

    decks = fast.random_decks(np.random.default_rng(0), games, 12)
    strategies.simulate(version, 12, p0, p1, decks[:10])  # compile / load cache
    t = time.perf_counter()
    strategies.simulate(version, 12, p0, p1, decks)
    return games / (time.perf_counter() - t)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--solve-cards", type=int, default=8)
    ap.add_argument("--solve-deals", type=int, default=10)
    ap.add_argument("--smp-cards", type=int, default=10, help="(e): cards per player of the deals")
    ap.add_argument("--smp-deals", type=int, default=5, help="(e): number of deals (0: skip)")
    ap.add_argument(
        "--smp-versions",
        default="1,2",
        help="(e): versions to time (e.g. 1 for full 12-card deals: v2 takes minutes a deal)",
    )
    ap.add_argument(
        "--full-deals",
        type=int,
        default=0,
        help="(f): full 12-card v1 deals, retrograde vs search (~45 s a deal for the search; 0: skip)",
    )
    args = ap.parse_args()
    from envs import primi_composti_v0

    r = compare(lambda: primi_composti_v0.env(), tictactoe_env, rounds=3, seconds=args.seconds)
    print(f"(a) env steps/s: primi_composti {r['ours_steps_per_s']:.0f}, tictactoe_v3 {r['peer_steps_per_s']:.0f}: "
          f"ratio {r['ratio']:.2f}x (goal >= 2x)")

    fast_gps = fast_games_per_sec("greedy_rand", "rand", 200_000)
    plain_gps = plain_games_per_sec("greedy_rand", "rand", 300)
    print(f"(b) greedy_rand vs rand games/s: fast {fast_gps:,.0f}, plain {plain_gps:,.0f} "
          f"(fast/plain {fast_gps / plain_gps:.0f}x); "
          f"vs the seed's ~2,000: {fast_gps / 2000:.0f}x (goal >= 20,000 games/s)")

    from agents.primi_composti import fast as strategies
    from envs.primi_composti import fast

    for version in (1, 2):
        decks = fast.random_decks(np.random.default_rng(1), 20, 12)
        strategies.simulate(version, 12, "minimax_5", "minimax_5", decks[:1])
        t = time.perf_counter()
        strategies.simulate(version, 12, "minimax_5", "minimax_5", decks)
        ms = (time.perf_counter() - t) / (20 * 24) * 1000
        plain = plain_minimax_ms(version)
        print(f"(c) v{version} minimax_5 per decision (mean over 20 self-play games): fast {ms:.2f} ms; "
              f"plain engine {plain:.0f} ms on the first 3 (largest) decisions; "
              f"(seed ~400 ms: {400 / ms:.0f}x faster; goal <= 4 ms)")

    from agents.primi_composti.solvers import AlphaBetaV1, make_solver, solve_deal
    from envs.primi_composti.rules import Config, PrimiCompostiGame

    for version in (1, 2):
        game = PrimiCompostiGame(Config(version=version, cards_per_player=args.solve_cards))
        decks = fast.random_decks(np.random.default_rng(2), args.solve_deals + 1, args.solve_cards)
        medians, values = {}, {}
        solvers = [("reference", make_solver(version, fast=False))]
        if version == 1:
            solvers += [("search", AlphaBetaV1(tt_bits=22)), ("retrograde", make_solver(1))]
        else:
            solvers += [("search", make_solver(2))]
        for label, solver in solvers:
            solve_deal(game, game.deal(decks[0]), solver)  # compile / load the machine code
            runs = [solve_deal(game, game.deal(d), solver) for d in decks[1:]]
            times = [r.seconds for r in runs]
            medians[label] = statistics.median(times)
            values[label] = [r.value for r in runs]
            unit = "positions" if label == "retrograde" else "nodes"
            print(f"(d) v{version} exact solve, {args.solve_cards} cards each, {label} solver: "
                  f"median {medians[label] * 1000:.1f} ms, "
                  f"worst {max(times) * 1000:.1f} ms, median {statistics.median(r.nodes for r in runs):.0f} {unit} "
                  f"over {args.solve_deals} deals")
        for label, _ in solvers[1:]:
            if values[label] != values["reference"]:
                raise SystemExit(
                    f"v{version}: the {label} solver's values differ from the reference solver's: {values}"
                )
            print(f"    {label} / reference solver: {medians['reference'] / medians[label]:.1f}x on the median "
                  "(same deals, same values)")
        if version == 1:
            print(f"    retrograde / search: {medians['search'] / medians['retrograde']:.1f}x on the median "
                  "(same deals, same values)")

    if args.full_deals > 0:
        full_deal_v1(args.full_deals)
    if args.smp_deals > 0:
        for version in (int(v) for v in args.smp_versions.split(",")):
            smp_speedup(version, args.smp_cards, args.smp_deals)


def full_deal_v1(deals: int) -> None:
    """(f) Full 12-card version-1 deals: the retrograde solver against the alpha-beta search (one thread each)."""
    from agents.primi_composti.solvers import AlphaBetaV1, RetrogradeV1, solve_deal
    from envs.primi_composti import fast
    from envs.primi_composti.rules import Config, PrimiCompostiGame

    game = PrimiCompostiGame(Config(version=1, cards_per_player=12))
    small = PrimiCompostiGame(Config(version=1, cards_per_player=4))
    decks = fast.random_decks(np.random.default_rng(0), deals, 12)
    retro, search = RetrogradeV1(), AlphaBetaV1(tt_bits=24)
    warm = small.deal(fast.random_decks(np.random.default_rng(0), 1, 4)[0])
    solve_deal(small, warm, retro)
    solve_deal(small, warm, search)
    ratios, times = [], {"retrograde": [], "search": []}
    for d in decks:
        r = solve_deal(game, game.deal(d), retro)
        s = solve_deal(game, game.deal(d), search)
        if r.value != s.value:
            raise SystemExit(f"(f) retrograde {r.value} vs search {s.value}")
        times["retrograde"].append(r.seconds)
        times["search"].append(s.seconds)
        ratios.append(s.seconds / r.seconds)
    g = float(np.exp(np.mean(np.log(ratios))))
    print(f"(f) v1 full 12-card deals ({deals}): retrograde median {statistics.median(times['retrograde']):.2f} s, "
          f"search median {statistics.median(times['search']):.1f} s; retrograde {g:.0f}x faster "
          f"(geometric mean; deals {min(ratios):.0f}-{max(ratios):.0f}x), same values")


def smp_speedup(version: int, cards: int, deals: int) -> None:
    """(e) The fast solver of `version` with two threads against one on the same deals (wall clock)."""
    from agents.primi_composti.solvers import make_solver, solve_deal
    from envs.primi_composti import fast
    from envs.primi_composti.rules import Config, PrimiCompostiGame
    from evaluate.primi_composti.solve import tt_bits_for

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    game = PrimiCompostiGame(Config(version=version, cards_per_player=cards))
    decks = fast.random_decks(np.random.default_rng(0), deals + 1, cards)
    solvers = {t: make_solver(version, tt_bits=tt_bits_for(cards, version), threads=t) for t in (1, 2)}
    ratios, times = [], {1: [], 2: []}
    for solver in solvers.values():
        solve_deal(game, game.deal(decks[0]), solver)  # compile / load the machine code
    for d in decks[1:]:
        runs = {}
        for t, solver in solvers.items():
            solver.clear()
            runs[t] = solve_deal(game, game.deal(d), solver)
            times[t].append(runs[t].seconds)
        if runs[1].value != runs[2].value:
            raise SystemExit(f"(e) two threads gave {runs[2].value}, one thread {runs[1].value}")
        ratios.append(runs[1].seconds / runs[2].seconds)
    g = float(np.exp(np.mean(np.log(ratios))))
    print(f"(e) v{version} fast solver, {cards} cards each, {deals} deals, {cores} cores available: "
          f"median {statistics.median(times[1]):.2f} s with one thread, "
          f"{statistics.median(times[2]):.2f} s with two; speed-up {g:.2f}x "
          f"(geometric mean; deals {min(ratios):.2f}-{max(ratios):.2f}x), same values")


if __name__ == "__main__":
    main()
