"""Paired comparison of The Game's agents on the same deals (cards left, lower is better).

    python benchmarks/the_game_paired.py --players 1 --games 100 --seed 12345 \
        --agents the_game/bestplays,the_game/rollout [--option actions=slot] [--out results.json]

Every agent plays every seat of the same `games` deals (`evaluate.the_game.reproduce.simulate`
with one seed, so deal g is the same for all agents); the table gives each agent's
mean cards left, wins and seconds per game, and each agent's per-deal difference
from the first one with its normal 95% interval (`evaluate.stats.mean_interval`).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from envs.core.options import make_config, parse_options
from envs.the_game.rules import Config, TheGame
from evaluate.stats import mean_interval
from evaluate.the_game.reproduce import simulate


def paired(players: int, agents: list[str], games: int, seed: int, options: dict | None = None) -> dict:
    """Per-agent cards left on the same deals, seconds per game and the paired differences from `agents[0]`
    (`options`: more game options, e.g. `actions="slot"` for a policy trained on that head)."""
    game = TheGame(make_config(Config, {**(options or {}), "num_players": players}))
    rows = {}
    for a in agents:
        t = time.perf_counter()
        left = simulate(game, a, games, seed)["cards_left"]
        rows[a] = {"cards_left": left.tolist(), "s_per_game": (time.perf_counter() - t) / games}
    base = np.array(rows[agents[0]]["cards_left"], dtype=float)
    for a in agents:
        x = np.array(rows[a]["cards_left"], dtype=float)
        m, lo, hi = mean_interval(x - base)
        rows[a].update(mean=float(x.mean()), wins=float((x == 0).mean()), diff=m, diff_low=lo, diff_high=hi)
    return {"players": players, "options": dict(options or {}), "games": games, "seed": seed, "agents": rows}


def main() -> None:
    """Command line (module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--players", type=int, default=1)
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--seed", type=int, default=12345)
    ap.add_argument("--agents", default="the_game/bestplays,the_game/rollout")
    ap.add_argument("--option", action="append", default=[], help="KEY=VALUE game option (repeatable)")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    try:
        options = parse_options(Config, args.option)
    except ValueError as e:
        ap.error(str(e))
    res = paired(args.players, args.agents.split(","), args.games, args.seed, options)
    for a, r in res["agents"].items():
        print(f"{args.players}p {a:32s} {r['mean']:6.2f} cards  wins {r['wins']:.0%}  "
              f"diff {r['diff']:+.2f} [{r['diff_low']:+.2f}, {r['diff_high']:+.2f}]  {r['s_per_game']:.2f} s/game")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
