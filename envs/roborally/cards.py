"""The 84 program cards of classic RoboRally: numbers, kinds and priorities.

Cards are the integers 1..84. Under the default `card_numbering="classic"`
(the 2005 Avalon Hill card list) card k has priority 10·k:

| cards | kind | count |
|---|---|---|
| 1–6 | U-turn | 6 |
| 7–42, odd k | rotate right | 18 |
| 7–42, even k | rotate left | 18 |
| 43–48 | back up | 6 |
| 49–66 | move 1 | 18 |
| 67–78 | move 2 | 12 |
| 79–84 | move 3 | 6 |

`card_numbering="roborace"` (the RoboRace course variant): 1–18 rotate right,
19–36 rotate left, 37–42 U-turn, the translations as above, priority = k.
In both numberings a higher card number means a higher priority (moves first),
so the engine orders robots by card number.
"""

from __future__ import annotations

#: Card kinds.
U_TURN, RIGHT, LEFT, BACK_UP, MOVE_1, MOVE_2, MOVE_3 = range(7)
SHORT_NAMES = ("U", "R", "L", "B", "M1", "M2", "M3")
#: Quarter turns clockwise of each kind (0 for translations).
TURN = (2, 1, 3, 0, 0, 0, 0)
#: Signed steps of each kind (0 for rotations; back up = one step backwards).
STEPS = (0, 0, 0, -1, 1, 2, 3)
#: The deck size and the highest rotation card (the seed: cards h <= 42 rotate).
NUM_CARDS = 84
LAST_ROTATION = 42
NUMBERINGS = ("classic", "roborace")
DECK = tuple(range(1, NUM_CARDS + 1))


def _translation_kind(k: int) -> int:
    if k <= 48:
        return BACK_UP
    if k <= 66:
        return MOVE_1
    if k <= 78:
        return MOVE_2
    return MOVE_3


def _kind(k: int, numbering: str) -> int:
    if k > LAST_ROTATION:
        return _translation_kind(k)
    if numbering == "classic":
        if k <= 6:
            return U_TURN
        return RIGHT if k % 2 == 1 else LEFT
    if k <= 18:
        return RIGHT
    return LEFT if k <= 36 else U_TURN


#: KINDS[numbering][k] = kind of card k (index 0 unused, -1).
KINDS: dict[str, tuple[int, ...]] = {n: (-1,) + tuple(_kind(k, n) for k in DECK) for n in NUMBERINGS}


def _check(card: int, numbering: str) -> None:
    if numbering not in KINDS:
        raise ValueError(f"card_numbering must be one of {list(NUMBERINGS)}, got {numbering!r}")
    if not 1 <= card <= NUM_CARDS:
        raise ValueError(f"a card is an integer in 1..{NUM_CARDS}, got {card!r}")


def card_kind(card: int, numbering: str = "classic") -> int:
    """The kind (U_TURN .. MOVE_3) of `card` (1..84) under `numbering`."""
    _check(card, numbering)
    return KINDS[numbering][card]


def priority(card: int, numbering: str = "classic") -> int:
    """The printed priority of `card`: 10·k (classic) or k (RoboRace)."""
    _check(card, numbering)
    return 10 * card if numbering == "classic" else card


def card_name(card: int, numbering: str = "classic") -> str:
    """A short name such as `M2/700` (kind / priority)."""
    return f"{SHORT_NAMES[card_kind(card, numbering)]}/{priority(card, numbering)}"
