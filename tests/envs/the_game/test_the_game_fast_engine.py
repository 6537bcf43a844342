"""The engine's compiled game loop: the same games as the plain engine, whatever decides."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from envs.core.game import IllegalActionError
from envs.the_game import fast
from envs.the_game.rules import END_TURN, Config, TheGame, play_action


@numba.njit(inline="always")
def _first_fit_minimum(params, hands, seat, sizes, tops, placed, played, required):
    """The first (hand index, then pile) card that fits, only up to the turn's minimum."""
    if played >= required:
        return fast.END_TURN
    for i in range(sizes[seat]):
        for p in range(4):
            if fast.fits(hands[seat, i], tops[p], p):
                return p * fast.MAX_HAND + i
    return fast.END_TURN


@numba.njit(inline="always")
def _end_at_once(params, hands, seat, sizes, tops, placed, played, required):
    return fast.END_TURN


@numba.njit
def _batch_first_fit(orders, n, hand_size, min_cards, skip_empty, params, info):
    for g in range(orders.shape[0]):
        fast.play_game(_first_fit_minimum, orders[g], n, hand_size, min_cards, skip_empty, params, info[g])


@numba.njit
def _batch_end(orders, n, hand_size, min_cards, skip_empty, params, info):
    for g in range(orders.shape[0]):
        fast.play_game(_end_at_once, orders[g], n, hand_size, min_cards, skip_empty, params, info[g])


def _plain_first_fit(game: TheGame, rng: np.random.Generator) -> int:
    s = game.initial_state(rng)
    while not s.over:
        v = game.view(s, s.player)
        mask = game.legal_mask(s)
        action = END_TURN
        if v.played_this_turn < v.required:
            action = next((play_action(c, p) for c in v.hand for p in range(4) if mask[play_action(c, p)]), END_TURN)
        s = game.apply(s, action)
    return s.cards_left


@pytest.mark.parametrize("empty_hand", ["skip", "ends_game"])
@pytest.mark.parametrize("n", [1, 2, 4])
def test_game_loop_equals_engine(n, empty_hand):
    cfg = Config(num_players=n, empty_hand=empty_hand)
    left = fast.play_games(cfg, fast.deal_orders(20, seed=3), _batch_first_fit, np.zeros(1))
    plain = [_plain_first_fit(TheGame(cfg), r) for r in np.random.default_rng(3).spawn(20)]
    assert left.tolist() == plain


def test_illegal_decision_and_unsupported_options_raise():
    with pytest.raises(IllegalActionError, match="illegal action -1 for seat 0") as e:
        fast.play_games(Config(num_players=2), fast.deal_orders(1, seed=0), _batch_end, np.zeros(1))
    assert (e.value.action, e.value.seat) == (fast.END_TURN, 0)
    with pytest.raises(ValueError, match="official"):
        fast.play_games(
            Config(num_players=2, communication="pile_flags"), fast.deal_orders(1, 0), _batch_end, np.zeros(1)
        )
