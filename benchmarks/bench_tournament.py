"""`run_tournament` on its two engines: the same tournament played move by move through the agents' Python `act`
and on the game's compiled whole-game runner (`agents.part(game).compiled_games`), timed in the same process.

Line-ups (default options, seating rotate): L.A.M.A. 4 x lama/first, and lama/third-retuned + 3 x lama/first
(`--deals` deals each); The Game 2 x the_game/bestplays (`--deals` / 4 deals); Primi Composti greedy_rand against
greedy_asc. With `--learned` (default) also the saved networks: `lama/ppo`, `the_game/ppo-3p`, `primi_composti/ppo`
and the students `roborally/learned`, `the_game/learned-3p`, `primi_composti/learned` against the baselines
`LEARNED` lists (`--lineup ID` times only the line-ups whose first entrant is ID). Every entrant is deterministic,
so both engines must give the same figures: the script checks that before it prints a ratio. Times are CPU
seconds of this process; the compiled engine's first call (compile or cache load) is timed apart.

    python benchmarks/bench_tournament.py [--deals 2000] [--no-learned | --only-learned] [--lineup ID]
"""

from __future__ import annotations

import argparse
import time

#: (game, line-up, share of `--deals`).
LINE_UPS = (("lama", ["lama/first"] * 4, 1.0), ("lama", ["lama/third-retuned"] + ["lama/first"] * 3, 1.0),
            ("the_game", ["the_game/bestplays"] * 2, 0.25),
            ("primi_composti", ["primi_composti/greedy_rand", "primi_composti/greedy_asc"], 1.0))


#: The saved networks' line-ups: (game, line-up, deals, options, seating).
LEARNED = (("lama", ["lama/ppo"] + ["lama/first"] * 3, 500, {}, "rotate"),
           ("the_game", ["the_game/ppo-3p"] * 3, 1000, {"num_players": 3, "actions": "slot"}, "fixed"),
           ("primi_composti", ["primi_composti/ppo", "primi_composti/minimax?depth=4"], 1000,
            {"observation_hints": True}, "rotate"),
           ("roborally", ["roborally/learned", "roborally/greedy"], 200, {"rules": "seed"}, "rotate"),
           ("the_game", ["the_game/learned-3p"] * 3, 40, {"num_players": 3}, "fixed"),
           ("primi_composti", ["primi_composti/learned", "primi_composti/minimax?depth=4"], 100, {}, "rotate"))


def timed(game: str, ids: list[str], deals: int, engine: str, options: dict | None = None,
          seating: str = "rotate") -> tuple[float, dict]:
    """CPU seconds of one tournament of `deals` deals on `engine`, and its result (without the engine field)."""
    from evaluate.tournament import run_tournament

    t0 = time.process_time()
    games = (len(ids) if seating == "rotate" else 1) * deals
    result = run_tournament(game, ids, games=games, seed=0, progress=False, engine=engine, options=options,
                            seating=seating)
    seconds = time.process_time() - t0
    d = result.to_dict()
    assert d.pop("engine") == engine
    return seconds, d


def main() -> None:
    """Print games per CPU-second on both engines and their ratio, per line-up (the strategies', then the saved
    networks')."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=2000)
    ap.add_argument("--learned", action=argparse.BooleanOptionalAction, default=True,
                    help="also time the saved networks' line-ups (LEARNED)")
    ap.add_argument("--only-learned", action="store_true", help="time the saved networks' line-ups only")
    ap.add_argument("--lineup", help="time only the line-ups whose first entrant is this agent id")
    args = ap.parse_args()
    known = {ids[0] for _, ids, *_ in (*LINE_UPS, *LEARNED)}
    if args.lineup is not None and args.lineup not in known:
        raise SystemExit(f"--lineup must be one of {', '.join(sorted(known))}, got {args.lineup!r}")
    if args.lineup is not None:
        args.only_learned = any(ids[0] == args.lineup for _, ids, *_ in LEARNED)
        args.learned = args.only_learned
    for game in dict.fromkeys(g for g, _, _ in LINE_UPS) if not args.only_learned else ():
        first_call, _ = timed(game, next(ids for g, ids, _ in LINE_UPS if g == game), 1, "compiled")
        print(f"{game}: compiled engine's first call (compile or cache load): {first_call:.2f} CPU-s")
    for game, ids, share in LINE_UPS if not args.only_learned else ():
        if args.lineup not in (None, ids[0]):
            continue
        deals = max(1, round(args.deals * share))
        py_s, py = timed(game, ids, deals, "python")
        cc_s, cc = timed(game, ids, deals, "compiled")
        if py != cc:
            raise SystemExit(f"{ids}: the engines' figures differ")
        games = py["games"]
        report(game, ids, games, py_s, cc_s)
    for game, ids, deals, options, seating in LEARNED if args.learned else ():
        if args.lineup not in (None, ids[0]):
            continue
        first_call, _ = timed(game, ids, 1, "compiled", options, seating)
        print(f"{game} {ids[0]}: compiled engine's first call (compile or cache load, the network): {first_call:.2f} "
              "CPU-s")
        py_s, py = timed(game, ids, deals, "python", options, seating)
        cc_s, cc = timed(game, ids, deals, "compiled", options, seating)
        if py != cc:
            raise SystemExit(f"{ids}: the engines' figures differ")
        report(game, ids, py["games"], py_s, cc_s)


def report(game: str, ids: list[str], games: int, py_s: float, cc_s: float) -> None:
    """One line: games per CPU-second on each engine (and the CPU seconds they took) and their ratio."""
    print(f"{game} {','.join(ids):<58} {games} games, same figures on both engines: "
          f"python {games / py_s:8.1f} games per CPU-s ({py_s:.1f} CPU-s), "
          f"compiled {games / cc_s:10.1f} games per CPU-s ({cc_s:.2f} CPU-s), ratio {py_s / cc_s:6.1f}x")


if __name__ == "__main__":
    main()
