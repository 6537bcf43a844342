"""Paired comparison of L.A.M.A. agents in one seat on the same games (win rate, shared wins count 1).

    python benchmarks/lama_paired.py --agents lama/first,lama/pimc --against lama/first*3 \
        --games 400 --seed 900001 [--option rules=seed2022] [--out results.json]

Game g is `LamaGame.new_game(seed_g)` (every round's deal and reshuffle follow
from seed_g) with the focal seat g mod n, the other seats the `--against`
line-up in order; every agent plays the focal seat of the same games. The
table gives each agent's win rate and seconds per game, and each agent's
per-game difference from the first one with its normal 95% interval
(`evaluate.stats.mean_interval`). Seeds come from `evaluate.lama.reproduce.game_seeds`
(stream `--seed`), apart from any used to train or select a student.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import agents
from envs.core.options import make_config, parse_options
from envs.core.play import play_out
from envs.lama.rules import Config, LamaGame
from evaluate.jsonio import write_json
from evaluate.lama.reproduce import game_seeds
from evaluate.stats import mean_interval

#: Moves after which a game is cut, counted as a loss for the focal seat: a student can make a seed2022 game
#: endless (docs/lama.md, "Learned policies").
MAX_MOVES = 100_000


def focal_wins(game: LamaGame, agent_id: str, against: list[str], seeds: np.ndarray, rng_seed: int) -> np.ndarray:
    """1 where `agent_id` in seat g mod n of game g is among the winners, else 0 (also for a game cut at
    `MAX_MOVES`, which is reported)."""
    n = game.num_players
    rng = np.random.default_rng(rng_seed)
    focal = agents.make(agent_id, game, rng=rng, game_name="lama")
    others = [agents.make(a, game, rng=rng, game_name="lama") for a in against]
    wins = np.zeros(len(seeds))
    for g, seed in enumerate(seeds):
        seat = g % n
        end, _ = play_out(game, _seat(focal, others, seat, n), game.new_game(int(seed)), max_turns=MAX_MOVES)
        if not game.is_terminal(end):
            print(f"{agent_id}: game {g} cut after {MAX_MOVES:,} moves (a loss for the focal seat)", flush=True)
            continue
        wins[g] = float(game.returns(end)[seat])
    return wins


def _seat(focal, others: list, seat: int, n: int) -> list:
    """The line-up with `focal` at `seat` and the others clockwise after it."""
    out = [None] * n
    out[seat] = focal
    for j, a in enumerate(others):
        out[(seat + 1 + j) % n] = a
    return out


def paired(cfg: Config, ids: list[str], against: list[str], games: int, seed: int) -> dict:
    """Per-agent win rates on the same games, seconds per game and the paired differences from `ids[0]`."""
    game = LamaGame(cfg)
    seeds = game_seeds(games, seed)
    rows = {}
    for a in ids:
        t = time.perf_counter()
        w = focal_wins(game, a, against, seeds, seed)
        rows[a] = {"wins": w.tolist(), "s_per_game": (time.perf_counter() - t) / games}
    base = np.array(rows[ids[0]]["wins"])
    for a in ids:
        x = np.array(rows[a]["wins"])
        m, lo, hi = mean_interval(x - base)
        wm, wlo, whi = mean_interval(x)
        rows[a].update(win_rate=wm, win_low=wlo, win_high=whi, diff=m, diff_low=lo, diff_high=hi)
    return {"config": vars(cfg), "against": against, "games": games, "seed": seed, "agents": rows}


def main() -> None:
    """Command line (module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--agents", default="lama/first,lama/pimc")
    ap.add_argument("--against", default="lama/first*3")
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--seed", type=int, default=900001)
    ap.add_argument("--option", action="append", default=[], help="KEY=VALUE game option (repeatable)")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    cfg = make_config(Config, parse_options(Config, args.option))
    against = agents.expand_agent_ids(args.against)
    if len(against) != cfg.num_players - 1:
        ap.error(f"--against needs {cfg.num_players - 1} agents, got {len(against)}")
    res = paired(cfg, args.agents.split(","), against, args.games, args.seed)
    for a, r in res["agents"].items():
        print(f"{a:28s} win {r['win_rate']:.3f} [{r['win_low']:.3f}, {r['win_high']:.3f}]  "
              f"diff {r['diff']:+.3f} [{r['diff_low']:+.3f}, {r['diff_high']:+.3f}]  {r['s_per_game']:.3f} s/game")
    if args.out:
        write_json(args.out, res)


if __name__ == "__main__":
    main()
