"""Play any game in the terminal against (or, in The Game, with) registered agents.

    python -m evaluate play simple_poker --seat 1 --opponents simple_poker/nash
    python -m evaluate play lama --seat 0 --opponents lama/third,lama/first,random
    python -m evaluate play the_game --seat 0 --opponents the_game/trick --option num_players=2
    python -m evaluate play primi_composti --seat 0 --opponents primi_composti/minimax?depth=4
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


def describe(game_name: str, game: Any, view: Any) -> str:
    """What the seat of `view` may know, as text (the game's `describe_view`; else the view itself)."""
    describe_view = envs.spec(game_name).describe_view
    return describe_view(game, view) if describe_view is not None else repr(view)


def write_picture(game_name: str, game: Any, view: Any, path: str) -> None:
    """A PNG of what `view` sees, where the game draws one (its spec's `write_picture`)."""
    folder = os.path.dirname(path)
    if folder:
        os.makedirs(folder, exist_ok=True)
    envs.spec(game_name).write_picture(game, view, path)


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
            say(envs.spec(game_name).move_help or "the names are the game's own move names")
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
                write_picture(game_name, game, view, png)
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
        move = game.action_to_string(before, recorders[mover].last) if envs.spec(game_name).public_moves else "moved"
        say(f"player_{mover}: {move}")
    returns = tuple(game.returns(state))
    won = winners(game, state)
    say("--- game over ---")
    say(game.render(state))
    say("returns: " + ", ".join(f"{'you' if s == seat else f'player_{s}'} {r:g}" for s, r in enumerate(returns)))
    if envs.spec(game_name).cooperative:
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
    p.add_argument("--png", default=None, help="games that draw a picture (a board): where to write it (default results/GAME/play.png)")
    args = p.parse_args(argv)
    if args.game not in envs.available_games():
        p.error(f"unknown or unavailable game {args.game!r}; available: {', '.join(envs.available_games())}")
    try:
        check_outputs(args)
        options = parse_options(envs.config_class(args.game), args.option)
        options, notes = agent_registry.resolve_options(args.game, expand_agent_ids(args.opponents), options)
        for note in notes:
            print(note, file=sys.stderr)
        envs.make_game(args.game, **options)
    except ValueError as e:
        p.error(str(e))
    seed = args.seed if args.seed is not None else int(np.random.default_rng().integers(2**31))
    png = (args.png or os.path.join("results", args.game, "play.png")) if envs.spec(args.game).write_picture else None
    print(f"seed {seed} (replay this deal with --seed {seed})")
    try:
        play_session(args.game, args.seat, args.opponents.split(","), options, seed, png=png)
    except ValueError as e:
        p.error(str(e))
    return 0


if __name__ == "__main__":
    sys.exit(main())
