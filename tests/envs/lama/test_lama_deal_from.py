"""`LamaGame.deal_from` and `reshuffle_from`: the deal and the reshuffle from an explicit card order (what the
OpenSpiel export's chance nodes drive) are the engine's own, the seeded shuffles being one such order."""

from __future__ import annotations

import numpy as np
import pytest

from envs.lama.rules import DRAW, Config, LamaGame, shuffle_key, shuffled

DECK = [v for v in range(7) for _ in range(8)]


@pytest.mark.parametrize("n", [2, 5])
def test_the_seeded_deal_is_deal_from_its_order(n):
    game = LamaGame(Config(num_players=n))
    for seed in (0, 1, 2**62 + 12345):
        order = shuffled(DECK, shuffle_key(seed, 0, 0))
        assert game.deal_from(order, seed=seed) == game.new_game(seed)
    state = game.deal_from(list(reversed(DECK)))  # 6 6 6 6 6 6 6 6 5 5 ...: the first card starts the discard pile
    assert state.discard == (6,) and state.hands[0] == (0, 0, 0, 0, 0, 0, 6) and state.hands[1] == (0, 0, 0, 0, 0, 5, 1)
    assert len(state.draw_pile) == 56 - 1 - 6 * n and state.draw_pile[-1] == 0  # drawn from the end


def test_a_seeded_reshuffle_is_reshuffle_from_its_order():
    game = LamaGame(Config(num_players=2, rules="seed2022"))
    rng = np.random.default_rng(0)
    checked = 0
    for seed in range(30):
        state = game.new_game(seed)
        while not state.game_over and checked < 5:
            if not state.draw_pile and DRAW in game.legal_actions(state):
                pile = shuffled(state.discard[:-1], shuffle_key(state.seed, state.round, state.reshuffles + 1))
                assert game.apply(state, DRAW) == game.apply(game.reshuffle_from(state, pile), DRAW)
                checked += 1
            legal = game.legal_actions(state)
            state = game.apply(state, DRAW if DRAW in legal and state.draw_pile else int(rng.choice(legal)))
    assert checked == 5


def test_a_wrong_order_is_refused():
    game = LamaGame()
    with pytest.raises(ValueError, match="order must hold the 56 cards, 8 of each value 0..6"):
        game.deal_from(DECK[:-1] + [1])
    state = game.new_game(0)
    with pytest.raises(ValueError, match="pile must be an order of the discard pile below its top card"):
        game.reshuffle_from(state, [3])
