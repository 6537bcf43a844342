"""Play Primi Composti in the terminal against any registered agent.

    python -m evaluate.primi_composti.play --opponent primi_composti/minimax?depth=4
    python -m evaluate.primi_composti.play --opponent primi_composti/greedy_rand --option version=2 --seat 2

Shows the stacks (top card last), your hand, the opponents' hands where the
rules make them known (2 players), and the score; asks for a card (and, with
`steal_choice=player`, for the operation); rejects bad input with a clear
message and asks again. Type `q` to quit. Every game, this one included, is
also played with `python -m evaluate play GAME --seat N --opponents ID,...`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

import numpy as np

import agents
from envs import make_game
from envs.core.options import parse_options
from envs.primi_composti.rules import Config, PrimiCompostiGame, State


def _cards(cards) -> str:
    return " ".join(map(str, cards)) or "-"


def describe(game: PrimiCompostiGame, state: State, me: int) -> str:
    """The table as `me` sees it."""
    lines = [f"--- turn {state.turn + 1}/{game.num_cards} ---"]
    for s in range(game.num_players):
        who = "you" if s == me else f"P{s + 1}"
        primes, comps = state.stacks[2 * s], state.stacks[2 * s + 1]
        lines.append(
            f"  {who:>4}: score {state.scores[s]:>3} | primes {_cards(primes)} (top {primes[-1] if primes else '-'})"
            f" | composites {_cards(comps)} (top {comps[-1] if comps else '-'})"
        )
        if s != me and game.num_players == 2:
            lines.append(f"        hand {_cards(sorted(state.hands[s]))}")
    lines.append(f"  your hand: {_cards(sorted(state.hands[me]))}")
    return "\n".join(lines)


def ask_action(
    game: PrimiCompostiGame, state: State, ask: Callable[[str], str], say: Callable[[str], None]
) -> int | None:
    """Read a legal action from the user (None on quit / end of input)."""
    me = game.current_player(state)
    hand = state.hands[me]
    while True:
        try:
            text = ask("your card (q to quit): ").strip()
        except EOFError:
            return None
        if text.lower() in ("q", "quit", "exit"):
            return None
        if not text.isdigit():
            say(f"'{text}' is not a card number: type one of {_cards(sorted(hand))}")
            continue
        card = int(text)
        if card not in hand:
            say(f"{card} is not in your hand: type one of {_cards(sorted(hand))}")
            continue
        if not game.player_choice:
            return game.action_of(card)
        options = [game.action_of(card, 0)] + [
            game.action_of(card, k + 1) for k in game.valid_pairs(state.stacks, card)
        ]
        if len(options) == 1:
            return options[0]
        for i, a in enumerate(options):
            say(f"  {i}: {game.action_to_string(state, a)}")
        while True:
            try:
                t = ask("which operation? ").strip()
            except EOFError:
                return None
            if t.isdigit() and int(t) < len(options):
                return options[int(t)]
            say(f"'{t}' is not one of 0..{len(options) - 1}")


def play(
    opponent: str,
    options: dict,
    seat: int,
    seed: int,
    ask: Callable[[str], str] = input,
    say: Callable[[str], None] = print,
) -> tuple[int, ...] | None:
    """One game, the human in `seat` (0-based); returns the final scores (None if quit)."""
    game = make_game("primi_composti", **options)
    rng = np.random.default_rng(seed)
    bots = {
        s: agents.make(opponent, game, np.random.default_rng(seed + 1 + s), game_name="primi_composti")
        for s in range(game.num_players)
        if s != seat
    }
    state = game.initial_state(rng)
    say(
        f"Primi Composti version {game.version}: you are P{seat + 1}"
        + (" and hold card 2: you start" if state.first == seat else "")
    )
    while not game.is_terminal(state):
        mover = game.current_player(state)
        if mover == seat:
            say(describe(game, state, seat))
            a = ask_action(game, state, ask, say)
            if a is None:
                say("bye")
                return None
        else:
            a = bots[mover].act(game.view(state, mover), game.legal_mask(state))
        before = state
        state = game.apply(state, a)
        who = "you" if mover == seat else f"P{mover + 1}"
        gain = state.scores[mover] - before.scores[mover]
        taken = state.last[2] if state.last else ()
        say(f"{who} played {game.card_of(a)} (+{gain})" + (f", taking {_cards(taken)}" if taken else ""))
    say(describe(game, state, seat))
    w = game.winners(state)
    say("tie!" if not w else ("you win!" if seat in w else f"P{w[0] + 1} wins"))
    return state.scores


def main(argv: list[str] | None = None) -> int:
    """Entry point."""
    p = argparse.ArgumentParser(
        prog="python -m evaluate.primi_composti.play", description="Play Primi Composti against an agent."
    )
    p.add_argument(
        "--opponent", default="primi_composti/greedy_rand", help="agent id (e.g. primi_composti/minimax?depth=4)"
    )
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="game option (version=2, ...)")
    p.add_argument("--seat", type=int, default=None, help="your seat, 1-based (default: random)")
    p.add_argument("--seed", type=int, default=None, help="deal seed (default: random)")
    args = p.parse_args(argv)
    try:
        options = parse_options(Config, args.option)
        n = PrimiCompostiGame(Config(**options)).num_players
    except ValueError as e:
        p.error(str(e))
    seed = args.seed if args.seed is not None else int(np.random.default_rng().integers(2**31))
    seat = (args.seat - 1) if args.seat is not None else int(np.random.default_rng(seed).integers(n))
    if not 0 <= seat < n:
        p.error(f"--seat must be in 1..{n}")
    try:
        play(args.opponent, options, seat, seed)
    except ValueError as e:
        p.error(str(e))
    return 0


if __name__ == "__main__":
    sys.exit(main())
