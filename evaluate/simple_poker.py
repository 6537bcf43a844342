"""Exact evaluation of simple poker: payoffs, game value and exploitability by
enumerating the n² deals (no sampling).

    python -m evaluate simple_poker --exact --agents simple_poker/nash,simple_poker/threshold-1 --option n=10
"""

from __future__ import annotations

import argparse
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from agents.simple_poker import Behaviour, best_response_value, expected_payoff, game_value, solve
from envs.simple_poker.rules import SimplePokerGame, View
from evaluate.jsonio import write_json


def behaviour_of(agent: Any, game: SimplePokerGame) -> Behaviour:
    """The behaviour strategy an agent plays, read from its `action_probs` (exact).

    Raises:
        TypeError: if the agent cannot state its action probabilities.
    """
    probs = getattr(agent, "action_probs", None)
    if probs is None:
        raise TypeError(f"{type(agent).__name__} has no action_probs(view, mask): exact evaluation needs it")
    mask = np.ones(2, dtype=np.int8)
    bet = tuple(float(probs(View(0, c, ()), mask)[1]) for c in range(1, game.n + 1))
    call = tuple(float(probs(View(1, c, (1,)), mask)[1]) for c in range(1, game.n + 1))
    return Behaviour(bet, call)


@dataclass(frozen=True)
class Exploitability:
    """How much a best responder gains against a strategy, over the game value.

    `as_player1`: player 2's best-response value minus its equilibrium value (−G);
    `as_player2`: player 1's best-response value minus G; `total` is their mean,
    which is 0 exactly for an equilibrium strategy.
    """

    as_player1: float
    as_player2: float
    total: float


def exploitability(game: SimplePokerGame, strategy: Behaviour) -> Exploitability:
    """Exact exploitability of `strategy` (used in both seats)."""
    g = game_value(game.n, game.ante, game.bet)
    e1 = best_response_value(game.n, game.ante, game.bet, p1_bet=np.array(strategy.bet)) - (-g)
    e2 = best_response_value(game.n, game.ante, game.bet, p2_call=np.array(strategy.call)) - g
    return Exploitability(float(e1), float(e2), float((e1 + e2) / 2))


def match_value(game: SimplePokerGame, a: Behaviour, b: Behaviour) -> float:
    """Exact mean net of strategy `a` against `b`, averaged over both seatings."""
    as_p1 = expected_payoff(game.n, game.ante, game.bet, np.array(a.bet), np.array(b.call))
    as_p2 = -expected_payoff(game.n, game.ante, game.bet, np.array(b.bet), np.array(a.call))
    return (as_p1 + as_p2) / 2


def exact_report(game: SimplePokerGame, agents: dict[str, Any]) -> dict[str, Any]:
    """Game value, each agent's exploitability and the exact pairwise payoffs."""
    strategies = {name: behaviour_of(agent, game) for name, agent in agents.items()}
    value = game_value(game.n, game.ante, game.bet)
    report: dict[str, Any] = {
        "game": "simple_poker",
        "options": {"n": game.n, "ante": game.ante, "bet": game.bet},
        "game_value_player1": value,
        "agents": {},
        "pairwise": {},
    }
    for name, s in strategies.items():
        report["agents"][name] = {"exploitability": asdict(exploitability(game, s))}
    for a, sa in strategies.items():
        for b, sb in strategies.items():
            report["pairwise"][f"{a} vs {b}"] = {
                "as_player1": expected_payoff(game.n, game.ante, game.bet, np.array(sa.bet), np.array(sb.call)),
                "mean_over_seats": match_value(game, sa, sb),
            }
    return report


def format_report(report: dict[str, Any]) -> str:
    """A terminal table of `exact_report`."""
    o = report["options"]
    lines = [f"simple poker n={o['n']} ante={o['ante']:g} bet={o['bet']:g}: exact game value for player 1 = {report['game_value_player1']:.6f}", ""]
    w = max(len(n) for n in report["agents"]) + 2
    lines.append(f"{'agent':<{w}}{'exploitability':>16}{'as P1':>12}{'as P2':>12}")
    for name, r in report["agents"].items():
        e = r["exploitability"]
        lines.append(f"{name:<{w}}{e['total']:>16.6f}{e['as_player1']:>12.6f}{e['as_player2']:>12.6f}")
    lines += ["", "exact mean net per hand (row agent vs column agent, both seatings averaged):"]
    names = list(report["agents"])
    lines.append(" " * w + "".join(f"{i:>12}" for i in range(len(names))))
    for i, a in enumerate(names):
        row = "".join(f"{report['pairwise'][f'{a} vs {b}']['mean_over_seats']:>12.4f}" for b in names)
        lines.append(f"{f'[{i}] {a}':<{w}}{row}")
    return "\n".join(lines)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """`--exact`: enumerate deals instead of sampling."""
    parser.add_argument("--exact", action="store_true", help="simple_poker: exact values and exploitabilities (no sampling)")


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


__all__ = ["Exploitability", "behaviour_of", "exact_report", "exploitability", "match_value", "solve"]


def training_metrics(game: SimplePokerGame, agent: Any) -> dict[str, float]:
    """The learning-curve metric of `python -m train simple_poker`: exact exploitability."""
    e = exploitability(game, behaviour_of(agent, game))
    return {"exploitability": e.total}


def exact_match_value(game: SimplePokerGame, a: Any, b: Any) -> float:
    """Exact mean result of agent `a` against `b` over both seatings (for the
    self-play meta-solver of `python -m train`)."""
    return match_value(game, behaviour_of(a, game), behaviour_of(b, game))
