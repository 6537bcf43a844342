"""The 84-card deck: counts per kind, parity, priorities, numberings."""

from collections import Counter

import pytest

from envs.roborally.cards import (
    BACK_UP,
    DECK,
    LEFT,
    MOVE_1,
    MOVE_2,
    MOVE_3,
    NUM_CARDS,
    RIGHT,
    U_TURN,
    card_kind,
    card_name,
    priority,
)

# Counts per kind from the rules (1994 manual and the 2005 card list).
COUNTS = {U_TURN: 6, RIGHT: 18, LEFT: 18, BACK_UP: 6, MOVE_1: 18, MOVE_2: 12, MOVE_3: 6}


@pytest.mark.parametrize("numbering", ["classic", "roborace"])
def test_deck_composition(numbering):
    assert len(DECK) == NUM_CARDS == 84
    assert Counter(card_kind(k, numbering) for k in DECK) == COUNTS


def test_classic_parity_odd_is_right():
    # 2005 card list: priority 70, 90, ... rotate right; 80, 100, ... rotate left.
    assert card_kind(7) == RIGHT and card_kind(8) == LEFT and card_kind(41) == RIGHT and card_kind(42) == LEFT
    assert [card_kind(k) for k in (1, 6)] == [U_TURN, U_TURN]
    assert [card_kind(k) for k in (43, 48, 49, 66, 67, 78, 79, 84)] == [
        BACK_UP, BACK_UP, MOVE_1, MOVE_1, MOVE_2, MOVE_2, MOVE_3, MOVE_3]


def test_roborace_numbering():
    assert card_kind(1, "roborace") == RIGHT and card_kind(18, "roborace") == RIGHT
    assert card_kind(19, "roborace") == LEFT and card_kind(37, "roborace") == U_TURN
    assert priority(37, "roborace") == 37


def test_priorities_and_names():
    assert priority(1) == 10 and priority(84) == 840
    assert card_name(70) == "M2/700"


def test_bad_input():
    with pytest.raises(ValueError, match="classic"):
        card_kind(3, "deluxe")
    with pytest.raises(ValueError, match="1..84"):
        priority(85)
