"""Where a Primi Composti agent loses points against its teacher, by cards left in both hands.

    python benchmarks/primi_phase_loss.py --agent primi_composti/learned-v2 --version 2 \
        --against primi_composti/minimax?depth=6 --start 200 --deals 60 \
        [--teacher primi_composti/teacher] [--json out.json]

The agent plays every deal twice, holding each hand in turn against `--against`. The deals are
`evaluate.primi_composti.check`'s: `random_decks(default_rng(seed), start + deals, cards)[start:]`. At each of the
agent's decisions, the teacher scores every card of its hand (`PrimiTeacher.card_values`: exact values once few cards
are left, depth-limited minimax values before). The agent's loss is the best card's value minus the value of the
card it played. The table gives, for each number of cards left, the mean loss and the share of decisions with a
loss. A loss is measured against the teacher's values, so where those are depth-limited it only means
disagreeing with that depth.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

import agents
from envs.core.play import play_out
from envs.primi_composti import fast
from envs.primi_composti.rules import Config, PrimiCompostiGame
from evaluate.jsonio import write_json


class _Scored:
    """Wraps an agent: records (cards left in both hands, the teacher's loss) at each of its decisions."""

    def __init__(self, agent, teacher, game: PrimiCompostiGame):
        self.agent, self.teacher, self.game = agent, teacher, game
        self.rows: list[tuple[int, float]] = []

    def act(self, view, action_mask: np.ndarray) -> int:
        a = self.agent.act(view, action_mask)
        values = self.teacher.card_values(view)
        self.rows.append((sum(view.hand_sizes), float(max(values.values()) - values[self.game.card_of(a)])))
        return a


def phase_loss(game: PrimiCompostiGame, agent, opponent, teacher, decks: np.ndarray) -> dict[int, dict[str, float]]:
    """Cards left -> {decisions, mean_loss, share_wrong} over both seats of every deal."""
    scored = _Scored(agent, teacher, game)
    for d in decks:
        s = game.deal(d)
        for seat in (0, 1):
            play_out(game, [scored, opponent] if seat == 0 else [opponent, scored], s)
    by: dict[int, list[float]] = {}
    for n, loss in scored.rows:
        by.setdefault(n, []).append(loss)
    return {n: {"decisions": len(x), "mean_loss": float(np.mean(x)), "share_wrong": float(np.mean(np.array(x) > 0))}
            for n, x in sorted(by.items(), reverse=True)}


def main(argv: list[str] | None = None) -> int:
    """Command line (module docstring)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--agent", required=True)
    p.add_argument("--against", default="primi_composti/minimax?depth=6")
    p.add_argument("--teacher", default="primi_composti/teacher")
    p.add_argument("--version", type=int, default=2, choices=(1, 2))
    p.add_argument("--cards", type=int, default=12)
    p.add_argument("--deals", type=int, default=60)
    p.add_argument("--start", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", default="")
    args = p.parse_args(argv)
    if args.deals < 1 or args.start < 0:
        p.error(f"need --deals >= 1 and --start >= 0, got {args.deals} and {args.start}")
    game = PrimiCompostiGame(Config(version=args.version, cards_per_player=args.cards))
    try:
        made = [agents.make(i, game, rng=np.random.default_rng(k), game_name="primi_composti")
                for k, i in enumerate((args.agent, args.against, args.teacher), start=1)]
    except ValueError as e:
        p.error(str(e))
    if not hasattr(made[2], "card_values"):
        p.error(f"--teacher {args.teacher!r} gives no card values; use primi_composti/teacher[_exact<N>_depth<d>]")
    decks = fast.random_decks(np.random.default_rng(args.seed), args.start + args.deals, args.cards)[args.start:]
    table = phase_loss(game, *made, decks)
    print(f"{args.agent} against {args.against}, scored by {args.teacher}; "
          f"deals {args.start}..{args.start + args.deals - 1}")
    for n, r in table.items():
        print(f"  cards left {n:2d}: {r['decisions']:4d} decisions  mean loss {r['mean_loss']:.3f}  "
              f"wrong {r['share_wrong']:.0%}")
    if args.json:
        write_json(args.json, {"agent": args.agent, "against": args.against, "teacher": args.teacher,
                               "version": args.version, "cards": args.cards, "start": args.start,
                               "deals": args.deals, "seed": args.seed, "by_cards_left": table})
    return 0


if __name__ == "__main__":
    sys.exit(main())
