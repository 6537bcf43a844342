"""Each game's part of the evaluate layer (its own jobs, how to describe it to a person, its league and
command-line examples), declared by the game's own evaluate package with `declare` (docs/architecture.md,
"evaluate: measuring"); `part(game)` imports that package the first time the game is asked for.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from agents.games import Parts


@dataclass(frozen=True)
class GameEvaluation:
    """What the evaluate layer knows of one game.

    Attributes:
        game: the game id.
        jobs: the module with the game's own evaluation jobs (`add_arguments(parser)`, `run(args)`), or None.
        goal: how the game is won, in a sentence or two for a person (shown on `?` in terminal play).
        move_help: what the move names mean, shown on `?` in terminal play.
        describe_view: `describe_view(game, view) -> str`, what a seat knows as text for a person (terminal play;
            a move is described by the engine's `action_to_string`).
        round_summary: `round_summary(game, before, after, names) -> str | None`, for games played in rounds:
            what a person should be told when the move from state `before` to `after` ended a round; `names[s]`
            is how to call seat s ("you", "player_1"). None otherwise.
        write_picture: `write_picture(game, view, path, labels)`, a PNG of what a seat sees, for games with a
            picture; `labels[s]` says who plays seat s ("you", an agent id).
        seat_label: `seat_label(seat) -> str`, how a person calls a seat (default `player_<seat>`).
        read_move: "module:function" reading a move a person types in the game's own notation, beyond the listed
            numbers and names: `function(game, state, text) -> (action, note) | None`, None where `text` is not
            in that notation; a `ValueError` whose message says why a move so written cannot be played now.
        move_group: `move_group(name) -> (heading, label) | None`, for games with many moves of one kind:
            terminal play lists the moves of one heading on one line, each by its label; None keeps a move on a
            line of its own.
        examples: runnable `python -m evaluate` argument strings, shown in the game's help.
        league_deals: deals per pair of the leaderboard's league.
        league_members: members of parametric agent families that a default league includes.
        league_skip: registered ids a default league leaves out, each with the reason.
        warm_up: `python -m evaluate` argument strings, a game or two each, that compile the kernels of the
            game's search players (the CI's kernel warm-up runs them).
    """

    game: str
    jobs: str | None = None
    goal: str = ""
    move_help: str = ""
    describe_view: Callable[[Any, Any], str] | None = None
    round_summary: Callable[[Any, Any, Any, list[str]], str | None] | None = None
    write_picture: Callable[..., None] | None = None
    seat_label: Callable[[int], str] | None = None
    read_move: str | None = None
    move_group: Callable[[str], tuple[str, str] | None] | None = None
    examples: tuple[str, ...] = ()
    league_deals: int = 50
    league_members: tuple[str, ...] = ()
    league_skip: Mapping[str, str] = field(default_factory=dict)
    warm_up: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for line in self.warm_up:
            if line.split(" ", 1)[0] != self.game:
                raise ValueError(f"{self.game}: a warm_up line is `python -m evaluate {self.game} ...`'s arguments, "
                                 f"starting with the game's id; got {line!r}")

    def seat_name(self, seat: int) -> str:
        """How a person calls `seat` (`seat_label`, else `player_<seat>`)."""
        return self.seat_label(seat) if self.seat_label is not None else f"player_{seat}"


#: The evaluate layer's parts of the games.
PARTS = Parts("evaluate", "evaluate", GameEvaluation)
declare, withdraw, part, module_of = PARTS.declare, PARTS.withdraw, PARTS.part, PARTS.module_of


def jobs(game: str) -> Any:
    """The module of the game's own evaluation jobs (imported only when that game is asked for), or None."""
    name = part(game).jobs
    return importlib.import_module(name) if name is not None else None
