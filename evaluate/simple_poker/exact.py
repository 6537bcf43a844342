"""Exact evaluation of simple poker: payoffs, game value and exploitability by
enumerating the n² deals (no sampling); the analysis itself is `agents.simple_poker.strategies`'s.

    python -m evaluate simple_poker --exact --agents simple_poker/nash,simple_poker/threshold?t=1 --option n=10
"""

from __future__ import annotations

import argparse
from dataclasses import asdict
from typing import Any

import numpy as np

from agents.simple_poker.strategies import behaviour_of, expected_payoff, exploitability, game_value, match_value
from envs.simple_poker.rules import SimplePokerGame
from evaluate.jsonio import write_json
from evaluate.stats import fixed


def exact_report(game: SimplePokerGame, agents: dict[str, Any]) -> dict[str, Any]:
    """Game value, each agent's exploitability and the exact pairwise payoffs."""
    strategies = {name: behaviour_of(agent, game) for name, agent in agents.items()}
    value = game_value(game.n, game.ante, game.bet)
    return {
        "game": "simple_poker",
        "options": {"n": game.n, "ante": game.ante, "bet": game.bet},
        "game_value_player1": value,
        "agents": {name: {"exploitability": asdict(exploitability(game, s))} for name, s in strategies.items()},
        "pairwise": {f"{a} vs {b}": {
            "as_player1": expected_payoff(game.n, game.ante, game.bet, np.array(sa.bet), np.array(sb.call)),
            "mean_over_seats": match_value(game, sa, sb),
        } for a, sa in strategies.items() for b, sb in strategies.items()},
    }


def format_report(report: dict[str, Any]) -> str:
    """A terminal table of `exact_report`."""
    o = report["options"]
    lines = [f"simple poker n={o['n']} ante={o['ante']:g} bet={o['bet']:g}: exact game value for player 1 = "
             f"{fixed(report['game_value_player1'], 6)}", ""]
    w = max(len(n) for n in report["agents"]) + 2
    lines.append(f"{'agent':<{w}}{'exploitability':>16}{'as P1':>12}{'as P2':>12}")
    for name, r in report["agents"].items():
        e = r["exploitability"]
        lines.append(f"{name:<{w}}{fixed(e['total'], 6):>16}{fixed(e['as_player1'], 6):>12}"
                     f"{fixed(e['as_player2'], 6):>12}")
    lines += ["", "exact mean net per hand (row agent vs column agent, both seatings averaged):"]
    names = list(report["agents"])
    labels = [f"[{i}] {a}" for i, a in enumerate(names)]
    w = max(len(lab) for lab in labels) + 2
    lines.append(" " * w + "".join(f"{f'[{i}]':>12}" for i in range(len(names))))
    for a, label in zip(names, labels):
        row = "".join(f"{fixed(report['pairwise'][f'{a} vs {b}']['mean_over_seats'], 4):>12}" for b in names)
        lines.append(f"{label:<{w}}{row}")
    return "\n".join(lines)


def add_arguments(parser: argparse._ActionsContainer) -> None:
    """`--exact`: enumerate deals instead of sampling."""
    parser.add_argument("--exact", action="store_true", help="exact values and exploitabilities (no sampling)")


def run(args: argparse.Namespace) -> bool:
    """Handle `--exact`; otherwise fall through to the tournament."""
    if not getattr(args, "exact", False):
        return False
    import agents as agent_registry
    from envs import make_game

    game = make_game("simple_poker", **args.options)
    rng = np.random.default_rng(args.seed)
    ids = args.agents or ["simple_poker/nash", "random"]
    built = {aid: agent_registry.make(aid, game, rng, game_name="simple_poker") for aid in ids}
    report = exact_report(game, built)
    print(format_report(report))
    if args.json:
        write_json(args.json, report)
        print(f"\nwrote {args.json}")
    return True

