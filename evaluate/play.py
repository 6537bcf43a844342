"""Play any game in the terminal against (or, in The Game, with) registered agents.

    python -m evaluate play simple_poker --seat 1 --opponents simple_poker/nash
    python -m evaluate play lama --seat 0 --opponents lama/third,lama/first,random
    python -m evaluate play the_game --seat 0 --opponents the_game/trick --option num_players=2
    python -m evaluate play roborally --seat 0 --opponents roborally/random --png board.png

Seats are 0-based (seat 0 is `player_0`). Each of your turns shows what your
seat may know — built from the game's view of your seat, never from the whole
state, so no other seat's hidden cards — then the legal moves numbered 1..k with
their names; answer with a number or a name (or, where the game reads one (`read_move`), a move in its own
notation: in RoboRally any card of your hand by name, `M1/560`, even one the card-class reduction does not
list, which then goes in as the interchangeable card listed, and you are told so; `--option card_classes=false`
lists every card). `?` explains the goal and the move
names, `:exit` leaves (after a confirmation; no move name starts with ":"), and the
end of input ends the game. A game with rounds says how each round ended (its `round_summary`: L.A.M.A.'s
round scores; RoboRally's turn, register by register: the cards that ran by
priority and where each robot ended). RoboRally also writes a picture of
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
from envs.core.play import play_out, reset_agent
from envs.core.spec import entry_point
from evaluate import games
from evaluate.cli import Parser, apply_agent_options, check_games, check_outputs

#: The word that leaves terminal play (asked to confirm). No game's move starts with ":", so it never collides
#: with a move name (L.A.M.A.'s "quit" is a move: it leaves the round, not the program).
LEAVE = ":exit"


def describe(game_name: str, game: Any, view: Any) -> str:
    """What the seat of `view` may know, as text (the game's `describe_view`; else the view itself)."""
    describe_view = games.part(game_name).describe_view
    return describe_view(game, view) if describe_view is not None else repr(view)


def write_picture(game_name: str, game: Any, view: Any, path: str, labels: list[str] | None = None) -> None:
    """A PNG of what `view` sees, where the game draws one (its evaluate part's `write_picture`); `labels[s]` names who
    plays seat s ("you", an agent id)."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    games.part(game_name).write_picture(game, view, path, labels)


class QuitRequestError(Exception):
    """The user asked to leave (`:exit`, confirmed) or the input ended."""


def help_text(game_name: str) -> str:
    """What `?` shows: the game's goal, its move names, and how to leave."""
    part = games.part(game_name)
    parts = [f"goal: {part.goal}" if part.goal else "", part.move_help or "the names are the game's own move names",
             f"type a move's number or its name as listed; {LEAVE} leaves the game"]
    return "\n".join(p for p in parts if p)


def menu(names: list[str], group: Callable[[str], tuple[str, str] | None] | None = None) -> tuple[list[int], list[str]]:
    """The numbered menu of the moves `names`: the order in which it numbers them (indices into `names`) and its
    lines. With `group` (the game's `move_group`), the moves of one group share a line under its heading, numbered
    along it (The Game's `on up0: 1. 19  2. 31 ...`, a pile a line, instead of a line per card and pile); a move
    of no group keeps a line of its own, in its place."""
    # a line per heading, at its first move, and per move of no group (keyed by its index): (heading, indices, labels)
    rows: dict[Any, tuple[str | None, list[int], list[str]]] = {}
    for i, name in enumerate(names):
        heading, label = (group(name) if group is not None else None) or (None, name)
        row = rows.setdefault(i if heading is None else heading, (heading, [], []))
        row[1].append(i)
        row[2].append(label)
    width = max((len(h) for h, _, _ in rows.values() if h is not None), default=0)
    order: list[int] = []
    lines = []
    for heading, indices, labels in rows.values():
        numbered = [f"{len(order) + k}. {label}" for k, label in enumerate(labels, 1)]
        order += indices
        lines.append(
            f"  {numbered[0]}" if heading is None else f"  {heading + ':':<{width + 1}} " + "  ".join(numbered)
        )
    return order, lines


def ask_move(game_name: str, game: Any, state: Any, ask: Callable[[str], str], say: Callable[[str], None]) -> int:
    """A legal action chosen by the user (number, listed name, or the game's own notation where its evaluate part
    reads one, `GameEvaluation.read_move`); raises QuitRequestError on a confirmed `:exit` or the end of input."""
    legal = list(game.legal_actions(state))
    names = [game.action_to_string(state, a) for a in legal]
    part = games.part(game_name)
    read_move = None if part.read_move is None else entry_point(part.read_move)
    order, lines = menu(names, part.move_group)
    legal, names = [legal[i] for i in order], [names[i] for i in order]
    say("\n".join(lines))
    by_name = {" ".join(n.lower().split()): a for n, a in zip(names, legal)}
    while True:
        try:
            text = ask(f"your move (1..{len(legal)} or a name; ? for help; {LEAVE} to leave): ")
        except EOFError:
            raise QuitRequestError from None
        key = " ".join(text.lower().split())
        if key.isdigit():
            k = int(key)
            if 1 <= k <= len(legal):
                return legal[k - 1]
            say(f"{k} is not a move number: type 1..{len(legal)}")
            continue
        if key in by_name:
            return by_name[key]
        try:
            read = read_move(game, state, text) if read_move is not None else None
        except ValueError as e:
            say(f"'{text.strip()}': {e}")
            continue
        if read is not None:
            action, note = read
            if note:
                say(note)
            return action
        if key == LEAVE:
            try:
                sure = ask("leave the game? [y/N] ")
            except EOFError:
                raise QuitRequestError from None
            if sure.strip().lower() in ("y", "yes"):
                raise QuitRequestError
            continue
        if key == "?":
            say(help_text(game_name))
            continue
        hint = f"; to leave the game type {LEAVE}" if key in ("q", "quit", "exit") else ""
        say(f"'{text.strip()}' is not a legal move: type its number 1..{len(legal)} or its name as listed{hint}")


class _Recorder:
    """Wraps an agent to remember its last action (to announce it)."""

    def __init__(self, agent: Any):
        self.agent = agent
        self.last: int | None = None

    def reset(self) -> None:
        reset_agent(self.agent)

    def act(self, view: Any, mask: np.ndarray) -> int:
        self.last = int(self.agent.act(view, mask))
        return self.last


def play_deal(
    game_name: str, game: Any, start: Any, seat: int, bots: dict[int, Any], ask: Callable[[str], str],
    say: Callable[[str], None], png: str | None = None, labels: list[str] | None = None,
) -> tuple[float, ...] | None:
    """Play one deal from `start` with the user at `seat`; the returns, or None if the user quit.

    `labels[s]` names who plays seat s (the picture's legend); the game's `round_summary` is said when a
    round ends, and the picture (where the game draws one) is drawn again at the end."""
    spec, part = envs.spec(game_name), games.part(game_name)
    n = game.num_players
    names = ["you" if s == seat else part.seat_name(s) for s in range(n)]
    recorders = {s: _Recorder(b) for s, b in bots.items()}
    for r in recorders.values():
        r.reset()
    seated: list[Any] = [recorders.get(s) for s in range(n)]
    state = start
    while not game.is_terminal(state):
        mover = game.current_player(state)
        before = state
        forced = game.legal_actions(state) if mover == seat else ()
        if len(forced) == 1:  # nothing to decide (RoboRally's sub-step after register 5, a locked register)
            say(f"you: {game.action_to_string(state, forced[0])} (your only move)")
            state = game.apply(state, forced[0])
        elif mover == seat:
            view = game.view(state, seat)
            say(describe(game_name, game, view))
            if png is not None:
                write_picture(game_name, game, view, png, labels)
                say(f"  board picture: {png}")
            try:
                action = ask_move(game_name, game, state, ask, say)
            except QuitRequestError:
                say("game ended (you left)")
                return None
            say(f"you: {game.action_to_string(state, action)}")
            state = game.apply(state, action)
        else:
            state, _ = play_out(game, seated, state, max_turns=1)
            move = game.action_to_string(before, recorders[mover].last) if spec.public_moves else "moved"
            say(f"{names[mover]}: {move}")
        if part.round_summary is not None:
            summary = part.round_summary(game, before, state, names)
            if summary:
                say(summary)
    returns = tuple(game.returns(state))
    won = winners(game, state)
    say("--- game over ---")
    say(game.render(state))
    if png is not None:  # drawn again after the last move, the winners marked
        final = [f"{lab} (won)" if s in won else lab for s, lab in enumerate(labels or names)]
        write_picture(game_name, game, game.view(state, seat), png, final)
        say(f"  final board picture: {png}")
    say("returns: " + ", ".join(f"{names[s]} {r:g}" for s, r in enumerate(returns)))
    if spec.cooperative:
        say("the team won" if won else "the team lost")
    elif not won:
        say("no winner")
    elif seat in won:
        say("you win" if len(won) == 1 else "you share the win with " + _and([names[w] for w in won if w != seat]))
    else:
        say(f"{_and([names[w] for w in won])} {'wins' if len(won) == 1 else 'share the win'}")
    return returns


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def seat_opponents(game_name: str, num_players: int, seat: int, opponents: list[str]) -> list[str]:
    """The agent ids of the seats other than `seat`, in seat order (one id fills them all).

    Raises:
        ValueError: `seat` is not a seat of the game, or the ids do not fill the other seats (one line each).
    """
    n = num_players
    if not 0 <= seat < n:
        raise ValueError(f"seat must be in 0..{n - 1} for {game_name} with these options, got {seat}")
    ids = expand_agent_ids(opponents)
    if n == 1 and ids:
        raise ValueError(f"{game_name} with these options has one seat, yours: no seat for --opponents "
                         f"{', '.join(ids)} (leave --opponents out to play alone)")
    if len(ids) == 1:
        ids = ids * (n - 1)
    if len(ids) != n - 1:
        raise ValueError(f"{game_name} with these options has {n} seats: --opponents needs {n - 1} agent ids for the "
                         f"other seats (or one, for all of them), got {len(ids)}: {', '.join(ids)}")
    return ids


def play_session(
    game_name: str, seat: int, opponents: list[str], options: dict[str, Any] | None = None, seed: int = 0,
    ask: Callable[[str], str] = input, say: Callable[[str], None] = print, png: str | None = None,
) -> list[tuple[float, ...] | None]:
    """Play a deal, then replay it with the seats shifted as long as the user says yes.

    `opponents` are the agents of the other seats in seat order (one id is repeated; none where the game
    seats you alone). The deal's seed is said first, once every agent is built (a bad id raises `ValueError`
    before anything is said). Returns each deal's returns (None for a deal the user quit).
    """
    spec, part = envs.spec(game_name), games.part(game_name)
    game = envs.make_game(game_name, **(options or {}))
    n = game.num_players
    ids = seat_opponents(game_name, n, seat, opponents)
    built = [
        agent_registry.make(i, game, np.random.default_rng([seed, k]), game_name=game_name) for k, i in enumerate(ids)
    ]
    start = game.initial_state(np.random.default_rng(seed))
    say(f"seed {seed} (replay this deal with --seed {seed})")
    results = []
    while True:
        others = [s for s in range(n) if s != seat]
        bots = dict(zip(others, built))
        labels = ["you" if s == seat else ids[others.index(s)] for s in range(n)]
        who = ", ".join(f"{part.seat_name(s)}: {ids[k]}" for k, s in enumerate(others)) or "you play alone"
        say(f"{spec.title}: you are {part.seat_name(seat)} (seat {seat}); {who}; ? explains the moves, {LEAVE} leaves")
        res = play_deal(game_name, game, start, seat, bots, ask, say, png, labels)
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
    p.add_argument("--opponents", default=None, help="agent ids of the other seats in seat order (one id: every seat; "
                   "default random)")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="game option, repeatable")
    p.add_argument("--seed", type=int, default=None, help="deal seed (default: a random one, printed)")
    p.add_argument(
        "--png",
        default=None,
        help="games that draw a picture (a board): where to write it (default results/GAME/play.png)",
    )
    args = p.parse_args(argv)
    check_games(p, args.game)
    named = args.opponents.split(",") if args.opponents is not None else []
    try:
        check_outputs(args)
        options = parse_options(envs.config_class(args.game), args.option)
        options = apply_agent_options(args.game, expand_agent_ids(named), options)
        game = envs.make_game(args.game, **options)
        opponents = named if args.opponents is not None or game.num_players == 1 else ["random"]
        seat_opponents(args.game, game.num_players, args.seat, opponents)
    except ValueError as e:
        p.error(str(e))
    seed = args.seed if args.seed is not None else int(np.random.default_rng().integers(2**31))
    png = (args.png or os.path.join("results", args.game, "play.png")) if games.part(args.game).write_picture else None
    try:  # the agents are built before the seed line: a bad id is one line, said alone
        play_session(args.game, args.seat, opponents, options, seed, png=png)
    except ValueError as e:
        p.error(str(e))
    return 0


if __name__ == "__main__":
    sys.exit(main())
