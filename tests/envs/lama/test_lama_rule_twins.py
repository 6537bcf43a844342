"""Each L.A.M.A. rule's readable home (`envs.lama.rules`) against its compiled twin (`envs.lama.fast`), on every
small input and on the states of many random games."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from envs.lama import fast
from envs.lama.rules import (
    NUM_ACTIONS,
    VALUES,
    Config,
    LamaGame,
    hand_points,
    legal_actions,
    may_draw,
    next_card,
)


def _bits_to_actions(bits: int) -> tuple[int, ...]:
    return tuple(a for a in range(NUM_ACTIONS) if (bits >> a) & 1)


def test_next_card_twins():
    assert [fast.next_card(v) for v in range(VALUES)] == [next_card(v) for v in range(VALUES)]


def test_may_draw_twins_on_every_small_input():
    for lpc, resh, players_in, draw_size, discard_size in itertools.product(
            (False, True), (False, True), range(9), range(4), range(1, 5)):
        assert fast.may_draw(lpc, resh, players_in, draw_size, discard_size) == may_draw(
            lpc, resh, players_in, draw_size, discard_size)


@pytest.mark.parametrize("scoring", sorted(fast.SCORING_CODES))
def test_hand_points_twins_on_random_hands(scoring):
    rng = np.random.default_rng(57)
    hands = rng.integers(0, 9, size=(5_000, VALUES))
    hands[: 2**VALUES] = [[(k >> v) & 1 for v in range(VALUES)] for k in range(2**VALUES)]  # every held set
    code = fast.SCORING_CODES[scoring]
    for hand in hands:
        assert fast.hand_points(hand, code) == hand_points(tuple(int(c) for c in hand), scoring)


def test_legal_actions_twins_on_random_hands():
    rng = np.random.default_rng(58)
    hands = rng.integers(0, 3, size=(500, VALUES))
    for hand in hands:
        for top in range(VALUES):
            for can_draw in (False, True):
                legal = legal_actions(tuple(int(c) for c in hand), top, can_draw)
                assert _bits_to_actions(fast.legal_actions(hand[None, :], 0, top, can_draw)) == legal
                for action in range(-1, NUM_ACTIONS + 1):
                    assert fast.is_legal(hand[None, :], 0, top, can_draw, action) == (action in legal)


@pytest.mark.parametrize("options", [
    {"rules": "official", "num_players": 3},
    {"rules": "seed2022", "num_players": 4},
    {"rules": "official", "num_players": 2, "empty_deck": "reshuffle", "scoring": "sum_all"},
    {"rules": "seed2022", "num_players": 5, "last_player_continues": True, "scoring": "distinct"},
])
def test_twins_agree_on_random_game_states(options):
    game = LamaGame(Config(**options))
    c = game.config
    code = fast.SCORING_CODES[c.scoring]
    rng = np.random.default_rng(59)
    states = empty = 0
    for _ in range(60):
        s = game.initial_state(rng)
        for _move in range(400):
            if s.game_over:
                break
            hands = np.array(s.hands, dtype=np.int64)
            for h, row in zip(s.hands, hands):
                assert fast.hand_points(row, code) == hand_points(h, c.scoring)
            cd = fast.may_draw(c.last_player_continues, c.empty_deck != "no_draw", sum(s.active),
                               len(s.draw_pile), len(s.discard))
            assert cd == game.can_draw(s)
            bits = fast.legal_actions(hands, s.current, s.discard[-1], cd)
            assert _bits_to_actions(bits) == game.legal_actions(s) == LamaGame(c)._legal_plain(s)
            legal = game.legal_actions(s)
            if len(legal) > 1 and rng.random() > 0.05:  # seldom quit: long rounds reach empty draw piles
                legal = legal[:-1]
            s = game.apply(s, legal[int(rng.integers(len(legal)))])
            states += 1
            empty += not s.draw_pile
    assert states > 2_000 and empty > 0
