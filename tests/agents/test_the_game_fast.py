"""The numba fast path plays exactly the plain engine's games of `the_game/bestplays`."""

from __future__ import annotations

import numpy as np
import pytest

from agents.the_game.fast import bestplays_cards_left, cards_left
from envs.the_game.fast import deal_orders
from envs.the_game.rules import Config, TheGame
from evaluate.the_game.reproduce import simulate


@pytest.mark.parametrize("options", [dict(num_players=1), dict(num_players=2), dict(num_players=3),
                                     dict(num_players=4, min_cards_per_turn=3), dict(num_players=5),
                                     dict(num_players=2, hand_size=5), dict(num_players=3, empty_hand="ends_game"),
                                     dict(num_players=5, empty_hand="ends_game")])
def test_fast_path_equals_plain_engine_game_by_game(options):
    fast = bestplays_cards_left(games=60, seed=13, **options)
    plain = simulate(TheGame(Config(**options)), "the_game/bestplays", 60, seed=13)["cards_left"]
    assert np.array_equal(fast, plain)


@pytest.mark.parametrize("options", [dict(num_players=1), dict(num_players=2),
                                     dict(num_players=4, min_cards_per_turn=3),
                                     dict(num_players=3, empty_hand="ends_game"),
                                     dict(num_players=5, empty_hand="ends_game")])
def test_simplest_kernel_equals_plain_engine_game_by_game(options):
    cfg = Config(**options)
    fast = cards_left("the_game/simplest", cfg, 80, seed=17)
    plain = simulate(TheGame(cfg), "the_game/simplest", 80, seed=17)["cards_left"]
    assert np.array_equal(fast, plain)


def test_cards_left_names_the_compiled_agents():
    with pytest.raises(ValueError, match="the_game/bestplays"):
        cards_left("the_game/random", Config(num_players=2), 1)


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
