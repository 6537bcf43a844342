"""`TheGame.deal_from(order)`: the start `initial_state` deals from the same shuffled order; bad orders refused."""

from __future__ import annotations

import numpy as np
import pytest

from envs.the_game.rules import Config, TheGame


@pytest.mark.parametrize("opts", [dict(), dict(num_players=5), dict(rules="berger2024", num_players=7)])
def test_deal_from_the_shuffled_order_is_initial_state(opts):
    game = TheGame(Config(**opts))
    for seed in range(5):
        order = np.random.default_rng(seed).permutation(np.arange(2, 100)).tolist()
        assert game.deal_from(order) == game.initial_state(np.random.default_rng(seed))


@pytest.mark.parametrize("bad", [list(range(2, 99)), list(range(2, 99)) + [2], list(range(1, 99))])
def test_deal_from_refuses_what_is_not_a_deck(bad):
    with pytest.raises(ValueError, match="permutation of the cards 2..99"):
        TheGame(Config()).deal_from(bad)
