"""How many distinct positions a 2-player deal has, version 1 against version 2.

    python -m evaluate.primi_composti.positions --cards 6 --deals 3

Walks the whole game graph of random deals and counts positions under two keys: full (both hands and, in
version 1, the four tops; in version 2 the four stacks in order) and, in version 2, reduced (each stack cut to the
part its owner's opponent can still uncover). Version 1's count is what `retrograde_v1` evaluates.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from envs.primi_composti import fast
from envs.primi_composti.rules import Config, PrimiCompostiGame


def count_positions(game: PrimiCompostiGame, state) -> tuple[int, int]:
    """Distinct positions reachable from `state` (including it and the end): (full key, reduced key)."""
    v1 = game.version == 1

    def full(s):
        if v1:
            return frozenset(s.hands[0]), frozenset(s.hands[1]), tuple(x[-1] if x else 0 for x in s.stacks)
        return frozenset(s.hands[0]), frozenset(s.hands[1]), s.stacks

    def reduced(s):
        if v1:
            return full(s)
        cut = tuple(x[-(len(s.hands[1 - i // 2]) + 1):] for i, x in enumerate(s.stacks))
        return frozenset(s.hands[0]), frozenset(s.hands[1]), cut

    seen, seen_reduced = set(), set()
    todo = [state]
    while todo:
        s = todo.pop()
        k = full(s)
        if k in seen:
            continue
        seen.add(k)
        seen_reduced.add(reduced(s))
        if not game.is_terminal(s):
            todo.extend(game.apply(s, a) for a in game.legal_actions(s))
    return len(seen), len(seen_reduced)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m evaluate.primi_composti.positions", description=__doc__.split("\n\n")[0]
    )
    ap.add_argument("--cards", type=int, default=5, help="cards per player (1..7; 6 takes about a minute)")
    ap.add_argument("--deals", type=int, default=3)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args(argv)
    if not 1 <= args.cards <= 7:
        ap.error(f"--cards must be 1..7 (the graph grows ~25x a card), got {args.cards}")
    if args.deals < 1:
        ap.error(f"--deals must be >= 1, got {args.deals}")
    decks = fast.random_decks(np.random.default_rng(args.seed), args.deals, args.cards)
    for version in (1, 2):
        game = PrimiCompostiGame(Config(version=version, cards_per_player=args.cards))
        counts = np.array([count_positions(game, game.deal(d)) for d in decks])
        print(
            f"version {version}, {args.cards} cards each, {args.deals} deals: distinct positions median "
            f"{np.median(counts[:, 0]):.0f}"
            + ("" if version == 1 else f", stacks cut to what can surface {np.median(counts[:, 1]):.0f}")
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
