"""Play any game in the terminal against (or, in The Game, with) registered agents.

    python -m evaluate play simple_poker --seat 1 --opponents simple_poker/nash
    python -m evaluate play lama --seat 0 --opponents lama/third,lama/first,random
    python -m evaluate play the_game --seat 0 --opponents the_game/trick --option num_players=2
    python -m evaluate play primi_composti --seat 0 --opponents primi_composti/minimax_4
    python -m evaluate play roborally --seat 0 --opponents roborally/random --png board.png

Seats are 0-based (seat 0 is `player_0`). Each of your turns shows what your
seat may know — built from the game's view of your seat, never from the whole
state, so no other seat's hidden cards — then the legal moves numbered 1..k with
their names; answer with a number or a name. `?` explains the move names, `q`
quits, and the end of input ends the game. RoboRally also writes a picture of
the board to a PNG (the path is printed each turn). At the end: the result,
the whole table, and the offer to replay the same deal with the seats shifted
by one (you take the next seat, every agent moves along with you).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

import agents as agent_registry
import envs
from agents import expand_agent_ids
from envs.core.game import winners
from envs.core.options import parse_options
from envs.core.play import play_out
from evaluate.cli import Parser, check_outputs

#: What the move names mean, per game (shown on `?`).
MOVE_HELP: dict[str, str] = {
    "simple_poker": "pass: check (first player) or fold (second player); bet: put the bet in (first player) "
                    "or call it (second player). The higher card wins a showdown.",
    "lama": "play V / play llama: lay that card on the discard pile (same value as the top card or the next one; "
            "a llama follows a 6, a 1 follows a llama); draw: take a card from the draw pile; quit: leave the "
            "round and score the cards you hold.",
    "the_game": "play C on upK / downK: lay card C on ascending pile K (higher card, or exactly 10 lower) or "
                "descending pile K (lower card, or exactly 10 higher); end turn: stop once you have laid the "
                "required number of cards; flag PILE VALUE: tell the team about a pile without naming cards.",
    "primi_composti": "play C: lay card C on your prime or composite stack; if it equals the sum, difference, "
                      "product or quotient of two visible top cards you take them (the operation: with "
                      "steal_choice=player the name says which pair; 'no operation' takes nothing).",
    "roborally": "register R: CARD puts that program card in register R (M1/M2/M3 move, B back up, L/R turn, "
                 "U U-turn; the number is its priority); a whole program lists the cards of every free register; "
                 "NOOP: no choice to make; POWER_DOWN: announce a power-down for the next turn.",
}
#: Games whose moves every seat sees (announced when an agent makes them); others only say who moved.
PUBLIC_MOVES = frozenset({"simple_poker", "lama", "the_game", "primi_composti"})


def _lama_cards(counts: tuple[int, ...]) -> str:
    names = [("llama" if v == 0 else str(v)) for v in (*range(1, len(counts)), 0) for _ in range(counts[v])]
    return " ".join(names) or "-"


def describe(game_name: str, game: Any, view: Any) -> str:
    """What the seat of `view` may know, as text (only the view's contents)."""
    me = view.seat
    if game_name == "simple_poker":
        words = [("pass", "bet"), ("pass", "call")]
        hist = ", ".join(f"player_{i} {words[i][a]}" for i, a in enumerate(view.history)) or "nothing yet"
        return f"your card: {view.card} (cards 1..{game.n}); so far: {hist}"
    if game_name == "lama":
        top = "llama" if view.top == 0 else str(view.top)
        lines = [f"round {view.round + 1}: top of the discard pile {top}, draw pile {view.draw_size} cards"]
        for s in range(len(view.hand_sizes)):
            who = "you" if s == me else f"player_{s}"
            state = "in the round" if view.active[s] else "out of the round"
            lines.append(f"  {who:>8}: {view.hand_sizes[s]} cards, {state}, total {view.totals[s]}")
        lines.append(f"  your hand: {_lama_cards(view.hand)}")
        return "\n".join(lines)
    if game_name == "the_game":
        names = ("up0", "up1", "down0", "down1")
        piles = ", ".join(f"{n} {p[-1]}" for n, p in zip(names, view.piles))
        lines = [f"piles: {piles}; draw pile {view.deck_size}; cards on the piles {view.placed}",
                 f"  hands: {', '.join(f'player_{s} {k}' for s, k in enumerate(view.hand_sizes))}"]
        if view.player == me:
            lines.append(f"  laid this turn {view.played_this_turn}, at least {view.required} required")
        if any(any(f) for f in view.flags):
            lines.append(f"  flags: {view.flags}")
        lines.append(f"  your hand: {' '.join(map(str, sorted(view.hand)))}")
        return "\n".join(lines)
    if game_name == "primi_composti":
        lines = [f"turn {view.turn + 1}"]
        for s, score in enumerate(view.scores):
            who = "you" if s == me else f"player_{s}"
            primes, comps = view.stacks[2 * s], view.stacks[2 * s + 1]
            lines.append(f"  {who:>8}: score {score:>3} | primes {list(primes) or '-'} | composites {list(comps) or '-'}"
                         f" | {view.hand_sizes[s]} cards")
            if s != me and view.hands[s] is not None:
                lines.append(f"            hand {sorted(view.hands[s])}")
        lines.append(f"  your hand: {sorted(view.hands[me])}")
        return "\n".join(lines)
    if game_name == "roborally":
        from envs.roborally import render
        from envs.roborally.cards import card_name

        lines = [f"turn {view.turn + 1}, step {view.step}", render.ansi(game.board, view.robots)]
        for s, r in enumerate(view.robots):
            who = "you" if s == me else f"player_{s}"
            lines.append(f"  {who:>8}: damage {r.damage}, lives {r.lives}, next flag {r.next_flag + 1}"
                         f"{', powered down' if r.powered_down else ''}{', out' if r.eliminated else ''}")
        lines.append(f"  your registers: {view.registers}; your hand: {' '.join(card_name(c, game.numbering) for c in view.hand)}")
        return "\n".join(lines)
    return repr(view)


def write_picture(game: Any, view: Any, path: str) -> None:
    """A PNG of the RoboRally board and robots (public) as `view` sees them."""
    from PIL import Image

    from envs.roborally import render

    folder = os.path.dirname(path)
    if folder:
        os.makedirs(folder, exist_ok=True)
    Image.fromarray(render.rgb_array(game.board, view.robots)).save(path)


class QuitRequestError(Exception):
    """The user asked to stop (q or end of input)."""


def ask_move(game_name: str, game: Any, state: Any, ask: Callable[[str], str], say: Callable[[str], None]) -> int:
    """A legal action chosen by the user (number or name); raises QuitRequestError on q / end of input."""
    legal = list(game.legal_actions(state))
    names = [game.action_to_string(state, a) for a in legal]
    say("\n".join(f"  {i}. {name}" for i, name in enumerate(names, 1)))
    by_name = {" ".join(n.lower().split()): a for n, a in zip(names, legal)}
    while True:
        try:
            text = ask(f"your move (1..{len(legal)}, a name, ? for help, q to quit): ")
        except EOFError:
            raise QuitRequestError from None
        key = " ".join(text.lower().split())
        if key in ("q", "quit", "exit"):
            raise QuitRequestError
        if key == "?":
            say(MOVE_HELP.get(game_name, "the names are the game's own move names"))
            continue
        if key.isdigit():
            k = int(key)
            if 1 <= k <= len(legal):
                return legal[k - 1]
            say(f"{k} is not a move number: type 1..{len(legal)}")
            continue
        if key in by_name:
            return by_name[key]
        say(f"'{text.strip()}' is not a legal move: type its number 1..{len(legal)} or its name as listed")


class _Recorder:
    """Wraps an agent to remember its last action (to announce it)."""

    def __init__(self, agent: Any):
        self.agent = agent
        self.last: int | None = None

    def reset(self) -> None:
        reset = getattr(self.agent, "reset", None)
        if reset is not None:
            reset()

    def act(self, view: Any, mask: np.ndarray) -> int:
        self.last = int(self.agent.act(view, mask))
        return self.last


def play_deal(
    game_name: str, game: Any, start: Any, seat: int, bots: dict[int, Any], ask: Callable[[str], str],
    say: Callable[[str], None], png: str | None = None,
) -> tuple[float, ...] | None:
    """Play one deal from `start` with the user at `seat`; the returns, or None if the user quit."""
    n = game.num_players
    recorders = {s: _Recorder(b) for s, b in bots.items()}
    for r in recorders.values():
        r.reset()
    seated: list[Any] = [recorders.get(s) for s in range(n)]
    state = start
    while not game.is_terminal(state):
        mover = game.current_player(state)
        if mover == seat:
            view = game.view(state, seat)
            say(describe(game_name, game, view))
            if png is not None:
                write_picture(game, view, png)
                say(f"  board picture: {png}")
            try:
                action = ask_move(game_name, game, state, ask, say)
            except QuitRequestError:
                say("game ended (quit)")
                return None
            say(f"you: {game.action_to_string(state, action)}")
            state = game.apply(state, action)
            continue
        before = state
        state, _ = play_out(game, seated, state, max_turns=1)
        move = game.action_to_string(before, recorders[mover].last) if game_name in PUBLIC_MOVES else "moved"
        say(f"player_{mover}: {move}")
    returns = tuple(game.returns(state))
    won = winners(game, state)
    say("--- game over ---")
    say(game.render(state))
    say("returns: " + ", ".join(f"{'you' if s == seat else f'player_{s}'} {r:g}" for s, r in enumerate(returns)))
    if game_name == "the_game":
        say("the team won" if won else "the team lost")
    else:
        say("draw" if not won else ("you win" if seat in won else f"{', '.join(f'player_{w}' for w in won)} won"))
    return returns


def play_session(
    game_name: str, seat: int, opponents: list[str], options: dict[str, Any] | None = None, seed: int = 0,
    ask: Callable[[str], str] = input, say: Callable[[str], None] = print, png: str | None = None,
) -> list[tuple[float, ...] | None]:
    """Play a deal, then replay it with the seats shifted as long as the user says yes.

    `opponents` are the agents of the other seats in seat order (one id is repeated).
    Returns each deal's returns (None for a deal the user quit).
    """
    game = envs.make_game(game_name, **(options or {}))
    n = game.num_players
    if not 0 <= seat < n:
        raise ValueError(f"seat must be in 0..{n - 1} for {game_name} with these options, got {seat}")
    ids = expand_agent_ids(opponents)
    if len(ids) == 1:
        ids = ids * (n - 1)
    if len(ids) != n - 1:
        raise ValueError(f"{game_name} with these options needs {n - 1} opponent ids (or one, repeated), got {ids}")
    built = [agent_registry.make(i, game, np.random.default_rng([seed, k]), game_name=game_name) for k, i in enumerate(ids)]
    start = game.initial_state(np.random.default_rng(seed))
    results = []
    while True:
        others = [s for s in range(n) if s != seat]
        bots = dict(zip(others, built))
        say(f"{game_name}: you are player_{seat}; " + ", ".join(f"player_{s}: {ids[k]}" for k, s in enumerate(others)))
        res = play_deal(game_name, game, start, seat, bots, ask, say, png)
        results.append(res)
        if res is None:
            return results
        try:
            again = ask("replay this deal with the seats shifted (you take the next seat)? [y/N] ")
        except EOFError:
            return results
        if again.strip().lower() not in ("y", "yes"):
            return results
        seat = (seat + 1) % n


def main(argv: list[str] | None = None) -> int:
    """`python -m evaluate play GAME --seat N --opponents ID,...`"""
    p = Parser(prog="python -m evaluate play", description="Play a game in the terminal against agents.")
    p.add_argument("game", help=f"one of: {', '.join(envs.available_games())}")
    p.add_argument("--seat", type=int, default=0, help="your seat, 0-based (default 0)")
    p.add_argument("--opponents", default="random", help="agent ids of the other seats in seat order (one id: every seat)")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="game option, repeatable")
    p.add_argument("--seed", type=int, default=None, help="deal seed (default: a random one, printed)")
    p.add_argument("--png", default=None, help="RoboRally: where to write the board picture (default results/roborally/play.png)")
    args = p.parse_args(argv)
    if args.game not in envs.available_games():
        p.error(f"unknown or unavailable game {args.game!r}; available: {', '.join(envs.available_games())}")
    try:
        check_outputs(args)
        options = parse_options(envs.config_class(args.game), args.option)
        envs.make_game(args.game, **options)
    except ValueError as e:
        p.error(str(e))
    seed = args.seed if args.seed is not None else int(np.random.default_rng().integers(2**31))
    png = (args.png or os.path.join("results", "roborally", "play.png")) if args.game == "roborally" else None
    print(f"seed {seed} (replay this deal with --seed {seed})")
    try:
        play_session(args.game, args.seat, args.opponents.split(","), options, seed, png=png)
    except ValueError as e:
        p.error(str(e))
    return 0


if __name__ == "__main__":
    sys.exit(main())
