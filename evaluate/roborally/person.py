"""RoboRally moves typed by a person: any card of the hand by its name (`M1/560`, `m1/560` or `/560`).

The mask offers the lowest unused card of each card class (`envs.roborally.programs`; every card with
`card_classes=False`); a person may name any card of the hand, and a card behind an interchangeable one goes in as
that one (terminal play says so). In `action_mode="program"` a whole program is typed as its cards in register order
(`U/10 R/190 M1/530 M1/560 M2/720`, with `POWER_DOWN` at the end to announce a power down where that is legal).
Used by terminal play through its evaluate part's `read_move` (`python -m evaluate play roborally`).
"""

from __future__ import annotations

import re
from typing import Any

from envs.roborally.cards import SHORT_NAMES, card_kind, card_name, priority
from envs.roborally.programs import class_index
from envs.roborally.rules import NOOP, NUM_PROGRAMS, PROGRAM_TUPLES, free_registers

#: A card as a person writes it: optional kind, a slash, the priority ("M1/560", "/560").
_CARD = re.compile(r"^([a-z0-9]*)/(\d+)$")


def _tokens(text: str) -> list[str]:
    return [t for t in re.split(r"[\s,]+", text.strip().lower()) if t]


def _find(game: Any, hand: tuple[int, ...], used: int, token: str) -> int:
    """The card of `hand` that `token` names (ValueError naming the cards left otherwise)."""
    m = _CARD.match(token)
    kind, prio = m.group(1), int(m.group(2))
    numbering = game.numbering
    shown = " ".join(card_name(c, numbering) for j, c in enumerate(hand) if not used >> j & 1) or "empty"
    for c in hand:
        if priority(c, numbering) == prio:
            if kind and kind != SHORT_NAMES[card_kind(c, numbering)].lower():
                raise ValueError(
                    f"{token.upper()}: the card of priority {prio} in your hand is {card_name(c, numbering)}"
                )
            return c
    raise ValueError(f"no card of priority {prio} in your hand ({shown})")


def read_move(game: Any, state: Any, text: str) -> tuple[int, str] | None:
    """The action of the cards a person typed for the seat to act, and a note when a card goes in as another
    of its class; None when `text` names no card; `ValueError` (saying why) when the cards cannot be played now.
    """
    tokens = _tokens(text)
    power = bool(tokens) and tokens[-1] in ("power_down", "+power_down")
    cards = tokens[:-1] if power else tokens
    if not cards or not all(_CARD.match(t) for t in cards):
        return None
    seat = game.current_player(state)
    hand = tuple(state.hands[seat])
    chosen = [_find(game, hand, state.used[seat], t) for t in cards]
    if len(set(chosen)) < len(chosen):
        raise ValueError("a card can go in one register only")
    legal = list(game.legal_actions(state))
    if game.config.action_mode == "program":
        return _read_program(game, state, seat, hand, chosen, power, legal)
    if power or len(chosen) > 1:
        raise ValueError("one card at a time: this round fills one register")
    if legal == [NOOP] or all(a >= len(hand) for a in legal):
        raise ValueError("you place no card this round: " + " or ".join(game.action_to_string(state, a) for a in legal))
    card = chosen[0]
    slot = hand.index(card)
    if state.used[seat] >> slot & 1:
        register = state.registers[seat].index(card) + 1
        raise ValueError(f"{card_name(card, game.numbering)} is in register {register} already")
    cls = class_index(hand, game.numbering, game.config.card_classes)
    stand_in = min((j for j in legal if j < len(hand) and cls[hand[j]] == cls[card]), default=None)
    if stand_in is None:  # every card of the class is placed, which the check above rules out
        raise ValueError(f"{card_name(card, game.numbering)} cannot be placed now")
    return stand_in, _note([card], [hand[stand_in]], game.numbering)


def _read_program(game: Any, state: Any, seat: int, hand: tuple[int, ...], chosen: list[int], power: bool,
                  legal: list[int]) -> tuple[int, str]:
    """A whole program (program mode): the legal program with the same card classes in the same registers."""
    k = min(free_registers(state.robots[seat].damage), len(hand))
    if len(chosen) != k:
        raise ValueError(f"a program here is {k} cards (your free registers), got {len(chosen)}")
    cls = class_index(hand, game.numbering, game.config.card_classes)
    want = tuple(cls[c] for c in chosen)
    for action in legal:
        if action >= 2 * NUM_PROGRAMS or (action >= NUM_PROGRAMS) != power:
            continue
        slots = PROGRAM_TUPLES[action % NUM_PROGRAMS][:k]
        if tuple(cls[hand[s]] for s in slots) == want:
            return action, _note(chosen, [hand[s] for s in slots], game.numbering)
    raise ValueError("POWER_DOWN cannot be announced now" if power else "that program cannot be played now")


def _note(typed: list[int], placed: list[int], numbering: str) -> str:
    """What a person is told when a typed card goes in as another card of its class."""
    swaps = [f"{card_name(t, numbering)} as {card_name(p, numbering)}" for t, p in zip(typed, placed) if t != p]
    if not swaps:
        return ""
    return (f"playing {', '.join(swaps)}: cards of one class have the same effect this turn (the seed's card classes), "
            f"and the lowest one is the one placed")

