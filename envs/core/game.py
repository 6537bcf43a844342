"""The rules-engine protocol every game implements, and the errors it raises.

A game is a stateless rulebook object (`Game`) over explicit states. The
engine never imports PettingZoo or Gymnasium: the adapters in `envs.core`
bind any `Game` to those APIs, and agents, search, tournaments and exact
analysis talk to the engine directly.

Vocabulary (never swapped): a *state* is the whole truth, a *view* is what one
seat may know (its information set), an *observation* is a view encoded as a
tensor.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, TypeVar, runtime_checkable

import numpy as np

S = TypeVar("S")
V = TypeVar("V")


class IllegalActionError(ValueError):
    """An action that the rules do not allow in the current state.

    Raised by `Game.apply` (and so by every `raw_env.step`) before anything is
    changed: the state the action was applied to stays valid.

    Attributes:
        action: the action id that was refused.
        seat: the seat (0-based) that tried it.
    """

    def __init__(self, action: Any, seat: int, reason: str = "", *, legal: Sequence[int] | None = None):
        self.action = action
        self.seat = seat
        self.reason = reason
        self.legal = tuple(legal) if legal is not None else None
        msg = f"illegal action {action!r} for seat {seat} (player_{seat})"
        if reason:
            msg += f": {reason}"
        if self.legal is not None:
            msg += f"; legal actions are {list(self.legal)}"
        super().__init__(msg)


@runtime_checkable
class Game(Protocol[S, V]):
    """A turn-based game with explicit, non-mutated states.

    Optional methods the adapters and tools use when present: `winners(state)` (default: the best return, nobody on a
    draw), `legal_mask(state)` (a fast int8 mask), `public_info(state)` (copied into each seat's `infos`),
    `deal_key(rng)` (what `initial_state` draws before it deals, from which a compiled runner replays the deal), and
    `max_game_length` (where the rules let a game go on for ever: the move at which envs truncate and tournaments cut a
    game unless `max_turns` is set). Options live in a frozen `config` dataclass, randomness in explicit
    `np.random.Generator` arguments, and chance after the deal comes from the state itself, so `apply` is a pure
    function.
    """

    config: Any
    num_players: int
    num_actions: int

    def initial_state(self, rng: np.random.Generator) -> S:
        """A freshly dealt state."""

    def current_player(self, state: S) -> int:
        """The seat to act (only meaningful when the state is not terminal)."""

    def legal_actions(self, state: S) -> Sequence[int]:
        """Sorted, unique action ids legal in `state` (empty iff terminal)."""

    def apply(self, state: S, action: int) -> S:
        """The state after the current player plays `action`.

        Never mutates `state`. Raises `IllegalActionError` naming the action and
        the seat when the action is not legal.
        """

    def is_terminal(self, state: S) -> bool:
        """Whether the game is over."""

    def returns(self, state: S) -> Sequence[float]:
        """Cumulative payoff of every seat so far (final payoffs at a terminal)."""

    def view(self, state: S, seat: int) -> V:
        """What `seat` may know: a hashable, ==-comparable information set."""

    def sample_state(self, view: V, rng: np.random.Generator) -> S:
        """A full state consistent with `view`, hidden parts drawn at random."""

    def action_to_string(self, state: S, action: int) -> str:
        """A short human-readable name of `action` in `state`."""

    def render(self, state: S) -> str:
        """A text picture of the whole state."""


def default_max_turns(game: Game, max_turns: int | None) -> int | None:
    """`max_turns` where given, else the game's own `max_game_length` (None: every game of it ends)."""
    return max_turns if max_turns is not None else getattr(game, "max_game_length", None)


def check_move_limit(max_turns: Any) -> None:
    """Raise `ValueError` unless `max_turns` is None or a positive integer."""
    if max_turns is not None and (isinstance(max_turns, bool) or not isinstance(max_turns, (int, np.integer))
                                  or max_turns < 1):
        raise ValueError(f"max_turns must be a positive integer or None, got {max_turns!r}")


def at_move_limit(moves: Any, max_turns: int | None) -> Any:
    """Whether a game of `moves` moves reached the move limit `max_turns` (None: no limit) and was cut: a bool,
    or a bool array for an array of move counts."""
    if max_turns is None:
        return np.zeros(np.shape(moves), dtype=bool) if np.ndim(moves) else False
    return np.asarray(moves) >= max_turns if np.ndim(moves) else moves >= max_turns


def winners(game: Game, state: Any) -> tuple[int, ...]:
    """The seats that won a finished game.

    A game may define its own `winners(state)` (L.A.M.A.'s shared wins, The
    Game's cooperative win); otherwise the seats with the highest return win,
    and nobody wins when every seat has the same return (a draw).
    """
    own = getattr(game, "winners", None)
    if own is not None:
        return tuple(own(state))
    r = game.returns(state)
    best = max(r)
    if all(x == best for x in r):
        return ()
    return tuple(i for i, x in enumerate(r) if x == best)


def legal_mask(game: Game, state: Any) -> np.ndarray:
    """The legal actions of `state` as an int8 0/1 vector of length `num_actions`."""
    own = getattr(game, "legal_mask", None)
    if own is not None:
        return own(state)
    mask = np.zeros(game.num_actions, dtype=np.int8)
    mask[list(game.legal_actions(state))] = 1
    return mask


def unchecked_constructor(cls: type) -> Any:
    """A positional constructor of the frozen dataclass `cls` that skips `__init__` (engines build a
    state and a view every step, where `object.__setattr__` per field costs about twice the object): the object is
    `cls(*fields)` without `__post_init__` or defaults."""
    import dataclasses

    names = [f.name for f in dataclasses.fields(cls)]
    slotted = "__slots__" in cls.__dict__
    env: dict[str, Any] = {"_new": object.__new__, "_cls": cls}
    lines = [f"def make({', '.join(names)}):", "    o = _new(_cls)"]
    if slotted:
        for i, name in enumerate(names):
            env[f"_s{i}"] = getattr(cls, name).__set__
            lines.append(f"    _s{i}(o, {name})")
    else:
        lines.append("    d = o.__dict__")
        lines += [f"    d[{name!r}] = {name}" for name in names]
    lines.append("    return o")
    exec("\n".join(lines), env)  # generated once per class: unrolled, as fast as hand-written code
    make = env["make"]
    make.__doc__ = f"`{cls.__name__}(...)` without the frozen dataclass's per-field setattr (speed)."
    return make


def info_state_string(view: Any, player: int) -> str:
    """The information-state string of a seat's view (`repr` of the view; before the deal, `p<seat> dealing`):
    the key of OpenSpiel's information states in the export (`envs.openspiel`) and of a policy table played as
    one of our agents (`agents.openspiel`)."""
    return f"p{player} dealing" if view is None else repr(view)
