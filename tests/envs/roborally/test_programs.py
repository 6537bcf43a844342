"""Equivalence classes, reduced programs and the three numberings (seed §1.1, Algorithm 2)."""

from itertools import permutations
from math import perm

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from envs.roborally.cards import DECK
from envs.roborally.programs import (
    count_programs,
    equivalence_classes,
    lsb_number,
    lsb_unnumber,
    printed_number,
    program_cards,
    rank,
    reduced_programs,
    unrank,
)

SEED_HAND = (11, 83, 57, 49, 35, 21, 3, 50, 4)


def test_seed_hand_classes_and_count():
    classes = equivalence_classes(SEED_HAND)
    assert classes == ((3, 4), (11, 21, 35), (49, 50), (57,), (83,))
    assert tuple(len(c) for c in classes) == (2, 3, 2, 1, 1)
    mults = [len(c) for c in classes]
    progs = list(reduced_programs(mults, 5))
    assert len(progs) == len(set(progs)) == count_programs(mults, 5) == 1250
    assert perm(9, 5) == 15120


def test_seed_hand_reduced_programs_are_the_distinct_card_programs_up_to_class():
    # Every ordered 5-card program maps onto exactly one reduced program.
    classes = equivalence_classes(SEED_HAND)
    of = {c: j for j, cl in enumerate(classes) for c in cl}
    images = {tuple(of[c] for c in p) for p in permutations(SEED_HAND, 5)}
    assert images == set(reduced_programs([len(c) for c in classes], 5))


def test_translation_runs_need_consecutive_numbers_of_one_kind():
    # 48 (back up) and 49 (move 1) are consecutive but of different kinds; 51 is not next to 49.
    assert equivalence_classes((48, 49, 51, 52, 66, 67)) == ((48,), (49,), (51, 52), (66,), (67,))
    # Rotations of one kind are one class whatever their numbers (classic: odd = right).
    assert equivalence_classes((7, 9, 41, 8, 2)) == ((2,), (7, 9, 41), (8,))


def test_printed_algorithm_is_not_injective_smallest_counterexample():
    mults = (2, 1)  # classes {A x2, B x1}
    assert printed_number(mults, (0, 1)) == printed_number(mults, (1, 0)) == 1
    assert lsb_number(mults, (0, 1)) != lsb_number(mults, (1, 0))


def test_seed_hand_numberings():
    mults = (2, 3, 2, 1, 1)
    progs = list(reduced_programs(mults, 5))
    printed = {printed_number(mults, p) for p in progs}
    lsb = [lsb_number(mults, p) for p in progs]
    assert len(printed) < len(progs)  # collisions
    assert len(set(lsb)) == len(progs) and max(lsb) < 5**5
    assert [rank(mults, p) for p in progs] == list(range(len(progs)))


def test_program_cards_canonical_assignment():
    classes = equivalence_classes(SEED_HAND)
    assert program_cards(classes, (1, 1, 0, 2, 1)) == (11, 21, 3, 49, 35)


def test_bad_programs_raise():
    with pytest.raises(ValueError):
        rank((1, 1), (0, 0))
    with pytest.raises(ValueError):
        unrank((1, 1), 2, 2)
    with pytest.raises(ValueError):
        lsb_unnumber((1, 1), 2, 3)


@st.composite
def hands(draw):
    """A random hand of 1..9 cards (9 − damage) and its free registers min(5, n) − locked extra."""
    n = draw(st.integers(1, 9))
    seed = draw(st.integers(0, 2**32 - 1))
    hand = tuple(int(c) for c in np.random.default_rng(seed).choice(DECK, size=n, replace=False))
    k = draw(st.integers(0, min(5, n)))
    return hand, k


@given(hands())
def test_rank_unrank_bijection(hk):
    hand, k = hk
    mults = [len(c) for c in equivalence_classes(hand)]
    total = count_programs(mults, k)
    progs = list(reduced_programs(mults, k))
    assert len(progs) == total
    assert sorted(rank(mults, p) for p in progs) == list(range(total))
    for r in range(total):
        assert rank(mults, unrank(mults, k, r)) == r


@given(hands())
def test_lsb_form_injective_and_decodes(hk):
    hand, k = hk
    mults = [len(c) for c in equivalence_classes(hand)]
    codes = set()
    for p in reduced_programs(mults, k):
        code = lsb_number(mults, p)
        assert code < len(mults) ** k or k == 0
        assert lsb_unnumber(mults, k, code) == p
        codes.add(code)
    assert len(codes) == count_programs(mults, k)


def test_lsb_form_is_not_contiguous_on_the_seed_hand():
    mults = (2, 3, 2, 1, 1)
    codes = {lsb_number(mults, p) for p in reduced_programs(mults, 5)}
    assert len(codes) == 1250 and max(codes) + 1 > len(codes)  # gaps below the largest code
