"""Reduced programs: the seed's card equivalence classes and action numbers.

Source: the seed report on a Monte-Carlo strategy for RoboRally, §1.1 "The
action space" and Algorithm 2 "Compute action number".

A hand of n cards fills k free registers: n!/(n−k)! ordered programs. Two cards
of one hand are *equivalent* when swapping them never changes the outcome of
the turn: rotation cards of the same rotation (rotations never interact with
other robots), and translation cards of the same kind joined by a chain of
hand cards with consecutive numbers (no other robot can hold a card between
them, so their priority order against everybody else is the same). The hand
becomes a multiset of classes; a *reduced program* assigns a class to each free
register (class j at most |c_j| times). Classes are ordered by their smallest
card; the cards of a class go to its registers in ascending card order.

Its numberings of the reduced programs (`printed_number`, `lsb_number` / `lsb_unnumber`, `rank` / `unrank`) are
described in docs/roborally.md ("Actions").
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import lru_cache
from math import comb

from envs.roborally.cards import KINDS, LAST_ROTATION


def equivalence_classes(hand: Sequence[int], numbering: str = "classic",
                        card_classes: bool = True) -> tuple[tuple[int, ...], ...]:
    """The equivalence classes of `hand` (seed §1.1), each sorted, ordered by smallest card; with
    `card_classes=False` (the env option that offers every card) each card is a class of its own."""
    if not card_classes:
        return tuple((c,) for c in sorted(hand))
    kinds = KINDS[numbering]
    cards = sorted(hand)
    rotations: dict[int, list[int]] = {}
    classes: list[list[int]] = []
    for c in cards:
        if c <= LAST_ROTATION:
            rotations.setdefault(kinds[c], []).append(c)
    classes.extend(rotations.values())
    run: list[int] = []
    for c in cards:
        if c <= LAST_ROTATION:
            continue
        if run and c == run[-1] + 1 and kinds[c] == kinds[run[-1]]:
            run.append(c)
        else:
            if run:
                classes.append(run)
            run = [c]
    if run:
        classes.append(run)
    classes.sort(key=lambda cl: cl[0])
    return tuple(tuple(cl) for cl in classes)


def class_index(hand: Sequence[int], numbering: str = "classic", card_classes: bool = True) -> dict[int, int]:
    """card -> index of its class in `equivalence_classes(hand, numbering, card_classes)`."""
    return {c: j for j, cl in enumerate(equivalence_classes(hand, numbering, card_classes)) for c in cl}


@lru_cache(maxsize=65536)
def _count(mults: tuple[int, ...], k: int) -> int:
    # Sequences of length k over a multiset: add one class at a time, choosing the
    # positions of its u copies among the t + u slots so far.
    ways = [1] + [0] * k
    for m in mults:
        new = [0] * (k + 1)
        for t in range(k + 1):
            if ways[t]:
                for u in range(min(m, k - t) + 1):
                    new[t + u] += ways[t] * comb(t + u, u)
        ways = new
    return ways[k]


def count_programs(mults: Sequence[int], k: int) -> int:
    """The number of reduced programs: k-sequences from the multiset with multiplicities `mults`."""
    return _count(tuple(sorted(m for m in mults if m > 0)), k)


def reduced_programs(mults: Sequence[int], k: int) -> Iterator[tuple[int, ...]]:
    """Every reduced program (a k-tuple of class indices) in lexicographic (= `rank`) order."""
    left = list(mults)
    prog: list[int] = []

    def rec(i: int) -> Iterator[tuple[int, ...]]:
        if i == k:
            yield tuple(prog)
            return
        for j, m in enumerate(left):
            if m:
                left[j] -= 1
                prog.append(j)
                yield from rec(i + 1)
                prog.pop()
                left[j] += 1

    yield from rec(0)


def program_cards(classes: Sequence[Sequence[int]], program: Sequence[int]) -> tuple[int, ...]:
    """The cards of a reduced program: each class's cards in ascending order, in register order."""
    used = [0] * len(classes)
    out = []
    for j in program:
        out.append(classes[j][used[j]])
        used[j] += 1
    return tuple(out)


def _check(mults: Sequence[int], program: Sequence[int]) -> list[int]:
    left = list(mults)
    for j in program:
        if not 0 <= j < len(left) or left[j] == 0:
            raise ValueError(f"program {tuple(program)} is not a reduced program of multiplicities {tuple(mults)}")
        left[j] -= 1
    return list(mults)


def _digits(mults: Sequence[int], program: Sequence[int]) -> tuple[list[int], list[int]]:
    left = _check(mults, program)
    digits, radices = [], []
    for j in program:
        available = [c for c, m in enumerate(left) if m]
        radices.append(len(available))
        digits.append(available.index(j))
        left[j] -= 1
    return digits, radices


def printed_number(mults: Sequence[int], program: Sequence[int]) -> int:
    """Algorithm 2 as printed: n <- n·radix_i + digit_i for i = 0..k−1 (not injective)."""
    digits, radices = _digits(mults, program)
    n = 0
    for d, r in zip(digits, radices):
        n = n * r + d
    return n


def lsb_number(mults: Sequence[int], program: Sequence[int]) -> int:
    """The intended form: N = d0 + r0·(d1 + r1·(d2 + …)) (injective, codes < m^k)."""
    digits, radices = _digits(mults, program)
    n = 0
    for d, r in zip(reversed(digits), reversed(radices)):
        n = n * r + d
    return n


def lsb_unnumber(mults: Sequence[int], k: int, number: int) -> tuple[int, ...]:
    """The program whose `lsb_number` is `number` (ValueError if none is)."""
    left = list(mults)
    n = number
    prog = []
    for _ in range(k):
        available = [c for c, m in enumerate(left) if m]
        if not available:
            raise ValueError(f"{number} is not the code of a {k}-register program of {tuple(mults)}")
        n, d = divmod(n, len(available))
        j = available[d]
        prog.append(j)
        left[j] -= 1
    if n:
        raise ValueError(f"{number} is not the code of a {k}-register program of {tuple(mults)}")
    return tuple(prog)


def rank(mults: Sequence[int], program: Sequence[int]) -> int:
    """The lexicographic rank of `program` among all reduced programs (0..count−1)."""
    left = _check(mults, program)
    k = len(program)
    r = 0
    for i, j in enumerate(program):
        for c in range(j):
            if left[c]:
                left[c] -= 1
                r += count_programs(left, k - i - 1)
                left[c] += 1
        left[j] -= 1
    return r


def unrank(mults: Sequence[int], k: int, number: int) -> tuple[int, ...]:
    """The reduced program of rank `number` (inverse of `rank`; ValueError out of range)."""
    left = list(mults)
    if not 0 <= number < count_programs(left, k):
        raise ValueError(f"rank {number} is outside 0..{count_programs(left, k) - 1}")
    prog = []
    r = number
    for i in range(k):
        for c, m in enumerate(left):
            if not m:
                continue
            left[c] -= 1
            n = count_programs(left, k - i - 1)
            if r < n:
                prog.append(c)
                break
            r -= n
            left[c] += 1
    return tuple(prog)
