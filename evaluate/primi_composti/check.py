"""Paired head-to-head and regret of a Primi Composti agent on held-out deals.

    python -m evaluate.primi_composti.check --agent primi_composti/learned --against primi_composti/minimax?depth=6 \
        --deals 200
    python -m evaluate.primi_composti.check --agent learned:runs/primi-ppo --option observation_hints=True --no-regret

Deals are `envs.primi_composti.fast.random_decks(default_rng(seed), start + deals, k)[start:]` (seed 0, deals
0..199: the regret table's in docs/primi_composti.md), each played with the agent holding either hand against the
same opponent (`run_tournament(..., decks=)`); the figure is the mean score difference over the two games with a
normal 95% interval. Regret (version 1) as in `evaluate.primi_composti.solve`.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np


def head_to_head(options: dict[str, Any], a_id: str, b_id: str, decks: Any, seed: int = 0) -> Any:
    """Agent `a_id` against `b_id` on both seats of each deck: the tournament figures of `a_id`, whose mean score
    (its return under `reward="score"`: its final score minus the other's, no win bonus) over the deals, each the
    mean of its two games, is the head-to-head figure."""
    from evaluate.tournament import run_tournament

    result = run_tournament("primi_composti", [a_id, b_id], games=2 * len(decks), seed=seed,
                            options={**options, "reward": "score"}, progress=False, decks=decks)
    return result.agents[0]


def regrets(game: Any, a: Any, decks: Any) -> Any:
    """Per deal and seat: the exact value for the agent's seat minus its final score difference against the solver."""
    from agents.primi_composti.solvers import solver_for
    from evaluate.primi_composti.solve import regret_game

    solver = solver_for(game)
    out = []
    for d in decks:
        s0 = game.deal(d)
        solver.clear()
        out += [regret_game(game, s0, a, seat, solver) for seat in (0, 1)]
    return np.array(out)


def main(argv: list[str] | None = None) -> int:
    """`python -m evaluate.primi_composti.check --agent ID ...`: head-to-head and regret on held-out deals."""
    import agents
    from envs.core.options import make_config, parse_options
    from envs.primi_composti import fast
    from envs.primi_composti.rules import Config, PrimiCompostiGame
    from evaluate.cli import Parser, check_outputs
    from evaluate.jsonio import write_json
    from evaluate.stats import mean_interval

    p = Parser(prog="python -m evaluate.primi_composti.check", description=__doc__.split("\n")[0])
    p.add_argument("--agent", required=True)
    p.add_argument("--against", default="primi_composti/minimax?depth=6", help="comma-separated opponents")
    p.add_argument("--version", type=int, default=1, choices=(1, 2))
    p.add_argument("--cards", type=int, default=12)
    p.add_argument("--deals", type=int, default=200)
    p.add_argument("--start", type=int, default=0)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-regret", action="store_true")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                   help="another game option, repeatable (e.g. observation_hints=True for a policy trained with it)")
    p.add_argument("--json", default="")
    args = p.parse_args(argv)
    try:
        check_outputs(args)
        options = {"version": args.version, "cards_per_player": args.cards, **parse_options(Config, args.option)}
        game = PrimiCompostiGame(make_config(Config, options))
    except ValueError as e:
        p.error(str(e))
    decks = fast.random_decks(np.random.default_rng(args.seed), args.start + args.deals, args.cards)[args.start:]
    try:
        agent = agents.make(args.agent, game, rng=np.random.default_rng(1), game_name="primi_composti")
        against = list(dict.fromkeys(o for o in args.against.split(",") if o))
        for o in against:
            agents.make(o, game, rng=np.random.default_rng(2), game_name="primi_composti")
    except ValueError as e:
        p.error(str(e))
    result: dict[str, Any] = {"agent": args.agent, "version": args.version, "cards_per_player": args.cards,
                              "options": {k: v for k, v in options.items() if k not in ("version", "cards_per_player")},
                              "deals": args.deals, "start": args.start, "seed": args.seed, "head_to_head": {}}
    for name in against:
        t = time.time()
        fig = head_to_head(options, args.agent, name, decks, seed=args.seed)
        m, (lo, hi) = fig.mean_score, fig.score_ci95
        result["head_to_head"][name] = {"mean_difference": m, "ci": (lo, hi), "seconds": time.time() - t,
                                        "games": fig.games, "win_rate": fig.win_rate}
        print(f"{args.agent} vs {name}: {m:+.3f} [{lo:+.3f}, {hi:+.3f}] points per deal (mean of both seats), "
              f"{args.deals} deals, {time.time() - t:.0f} s", flush=True)
    if not args.no_regret:
        t = time.time()
        r = regrets(game, agent, decks)
        m, lo, hi = mean_interval(r)
        result["regret"] = {"mean": m, "ci": (lo, hi), "perfect_share": float(np.mean(r == 0)),
                            "seconds": time.time() - t}
        print(f"regret of {args.agent} vs perfect play: {m:.2f} [{lo:.2f}, {hi:.2f}] points/game, perfect in "
              f"{np.mean(r == 0):.1%}, {time.time() - t:.0f} s", flush=True)
    if args.json:
        write_json(args.json, result)
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main())
