"""The numba fast path plays exactly the plain engine's games of `the_game/bestplays`."""

from __future__ import annotations

import numpy as np
import pytest

from agents.the_game.fast import bestplays_cards_left
from envs.the_game.fast import deal_orders
from envs.the_game.rules import Config, TheGame
from evaluate.the_game.reproduce import simulate


@pytest.mark.parametrize("options", [dict(num_players=1), dict(num_players=2), dict(num_players=3),
                                     dict(num_players=4, min_cards_per_turn=3), dict(num_players=5),
                                     dict(num_players=2, hand_size=5)])
def test_fast_path_equals_plain_engine_game_by_game(options):
    fast = bestplays_cards_left(games=60, seed=13, **options)
    plain = simulate(TheGame(Config(**options)), "the_game/bestplays", 60, seed=13)["cards_left"]
    assert np.array_equal(fast, plain)


def test_deal_orders_are_the_engine_deals():
    orders = deal_orders(3, seed=4)
    game = TheGame(Config(num_players=2))
    for order, r in zip(orders, np.random.default_rng(4).spawn(3)):
        s = game.initial_state(r)
        deck = list(order)
        hands = [[], []]
        for _ in range(7):
            for h in hands:
                h.append(int(deck.pop()))
        assert s.hands == tuple(map(tuple, hands)) and s.deck == tuple(int(x) for x in deck)
