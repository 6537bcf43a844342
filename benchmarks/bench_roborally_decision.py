"""CPU time of one program decision: RoboRally's program choosers side by side with `roborally/mc`.

Rules engine: the same views (race_easy, 2 robots, program mode, `rules="seed"`; the robots' decisions in flag
seeker races of the deals `--seed`, `--seed` + 1, ...) are handed to every agent in turn, `time.process_time`
around its `act`, in alternating rounds; printed as ms a decision and as a ratio to `mc`'s in the same round.
Compiled runner (learned policies): a tournament of the policy against greedy, CPU seconds minus those of the same
tournament with greedy in both seats, over the policy's decisions (one a turn).

    PYTHONPATH=. python benchmarks/bench_roborally_decision.py [--views 200] [--rounds 2] [--games 200]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import agents
import envs
from evaluate.tournament import run_tournament

OPTIONS = {"rules": "seed", "action_mode": "program", "board": "race_easy", "max_turns": 60}
AGENTS = ("roborally/mc", "roborally/greedy", "roborally/ppo-program", "roborally/ppo-program-joint",
          "roborally/learned-program-joint")


def views(game, count: int, seed: int) -> list[tuple]:
    """(view, mask) of the first `count` program decisions in flag seeker races of deals seed, seed + 1, ..."""
    greedy = agents.make("roborally/greedy", game, rng=np.random.default_rng(0), game_name="roborally")
    out, deal = [], seed
    while len(out) < count:
        state, deal = game.deal(deal), deal + 1
        while not game.is_terminal(state) and len(out) < count:
            view, mask = game.view(state, game.current_player(state)), game.legal_mask(state)
            out.append((view, mask))
            state = game.apply(state, greedy.act(view, mask))
    return out


def engine_ms(game, ids, decisions, rounds: int) -> dict[str, list[float]]:
    """Per agent, its CPU ms a decision over `decisions` in each round (the agents alternate within a round)."""
    made = {i: agents.make(i, game, rng=np.random.default_rng(1), game_name="roborally") for i in ids}
    for a in made.values():
        for view, mask in decisions[:3]:
            a.act(view, mask)  # compiled kernels, the first forward
    out: dict[str, list[float]] = {i: [] for i in ids}
    for _ in range(rounds):
        for i, a in made.items():
            if hasattr(a, "reset"):
                a.reset()
            t = time.process_time()
            for view, mask in decisions:
                a.act(view, mask)
            out[i].append(1000 * (time.process_time() - t) / len(decisions))
    return out


def compiled_ms(policy: str, games: int, seed: int) -> float:
    """CPU ms a decision of `policy` on the compiled runner (greedy-only tables subtracted)."""
    def cpu(ids):
        t = time.process_time()
        r = run_tournament("roborally", ids, games=games, seed=seed, options=OPTIONS, progress=False,
                           engine="compiled")
        return time.process_time() - t, r.mean_turns * r.games

    cpu([policy, "roborally/greedy"])  # warm
    base, _ = cpu(["roborally/greedy", "roborally/greedy"])
    spent, turns = cpu([policy, "roborally/greedy"])
    return 1000 * (spent - base) / turns


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--views", type=int, default=200)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--games", type=int, default=200, help="compiled runner: races of each tournament")
    p.add_argument("--seed", type=int, default=31_000)
    args = p.parse_args()
    game = envs.make_game("roborally", **OPTIONS)
    decisions = views(game, args.views, args.seed)
    ms = engine_ms(game, AGENTS, decisions, args.rounds)
    print(f"rules engine, {len(decisions)} decisions x {args.rounds} rounds (CPU ms a decision; ratio to mc's):")
    for i, v in ms.items():
        ratios = [x / m for x, m in zip(v, ms["roborally/mc"])]
        print(f"  {i:34s} {' '.join(f'{x:7.2f}' for x in v)}   x mc: {' '.join(f'{r:.3f}' for r in ratios)}")
    print(f"compiled runner, {args.games} races against greedy (CPU ms a decision; ratio to mc's last on the "
          "rules engine):")
    for i in AGENTS[2:]:
        x = compiled_ms(i, args.games, args.seed)
        print(f"  {i:34s} {x:7.2f}   x mc: {x / ms['roborally/mc'][-1]:.3f}")


if __name__ == "__main__":
    main()
