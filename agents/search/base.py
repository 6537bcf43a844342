"""The protocol every exact solver implements."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

Hands = tuple[tuple[int, ...], ...]
Stacks = tuple[tuple[int, ...], ...]


@runtime_checkable
class Solver(Protocol):
    """An exact solver of a 2-player complete-information game's positions.

    A position is given in the game's own pieces: each seat's hand, the stacks (in
    the engine's order, bottom card first) and the seat to move. Values are from
    the mover's side: its future score-difference gain under perfect play by both.

    Attributes:
        version: the rules version the solver covers.
        threads: how many threads one solve uses.
        nodes: the work done since the solver was made (positions searched or
            evaluated; `clear` does not reset it).
    """

    version: int
    threads: int

    @property
    def nodes(self) -> int:
        """The work done since the solver was made."""
        ...

    def value(self, hands: Hands, stacks: Stacks, mover: int) -> int:
        """Exact value for `mover` of the rest of the game."""
        ...

    def move_values(self, hands: Hands, stacks: Stacks, mover: int) -> dict[int, int]:
        """Exact value for `mover` of playing each card of its hand (its gain now
        minus the opponent's value of the position after it)."""
        ...

    def clear(self) -> None:
        """Forget what earlier solves stored (the values never depend on it)."""
        ...
