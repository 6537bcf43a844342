"""`play_on` (envs.the_game.fast) continues any position exactly as the plain engine does."""

from __future__ import annotations

import numpy as np
import pytest

from agents.the_game.fast import bestplays_cards_left, bestplays_rollouts, kernel_move
from agents.the_game.strategies import BestPlaysStrategy
from envs.core.game import IllegalActionError
from envs.the_game import fast as engine
from envs.the_game.rules import END_TURN, Config, State, TheGame


def _finish(game: TheGame, state: State, first: int | None = None) -> int:
    """Cards left when the plain engine plays bestplays in every seat from `state` (after `first`)."""
    agent = BestPlaysStrategy(game, np.random.default_rng(0))
    if first is not None:
        state = game.apply(state, first)
    while not state.over:
        state = game.apply(state, agent.act(game.view(state, state.player), game.legal_mask(state)))
    return state.cards_left


def _positions(game: TheGame, games: int, seed: int):
    """Mid-game positions (mid-turn ones included) reached by bestplays mixed with random legal moves."""
    rng = np.random.default_rng(seed)
    agent = BestPlaysStrategy(game, rng)
    for _ in range(games):
        state = game.initial_state(rng)
        stops = set(rng.integers(0, 60, size=3).tolist())
        t = 0
        while not state.over:
            if t in stops:
                yield state
            legal = game.legal_actions(state)
            a = int(rng.choice(legal)) if rng.random() < 0.2 else agent.act(game.view(state, state.player), None)
            state = game.apply(state, a)
            t += 1


@pytest.mark.parametrize("options", [dict(num_players=1), dict(num_players=2), dict(num_players=3),
                                     dict(num_players=4, min_cards_per_turn=3),
                                     dict(num_players=3, empty_hand="ends_game")])
def test_play_on_equals_plain_engine(options):
    game = TheGame(Config(**options))
    cfg = game.config
    checked = 0
    for state in _positions(game, 12, seed=5):
        legal = list(game.legal_actions(state))
        firsts = [None] + legal
        moves = [engine.NO_MOVE] + [kernel_move(state.hands[state.player], a) for a in legal]
        fast = bestplays_rollouts(cfg, state, moves)[:, 0]
        plain = [_finish(game, state, a) for a in firsts]
        assert fast.tolist() == plain
        checked += len(firsts)
    assert checked > 100


def test_redealt_rollout_equals_plain_engine_on_the_sampled_state():
    game = TheGame(Config(num_players=3))
    for state in _positions(game, 6, seed=9):
        view = game.view(state, state.player)
        orders = engine.unseen_orders(view, 3, seed=2)
        fast = bestplays_rollouts(game.config, state, [engine.NO_MOVE], orders)[0]
        for k, order in enumerate(orders.tolist()):
            hands, j = [], 0
            for s, h in enumerate(state.hands):
                hands.append(h if s == state.player else tuple(order[j:j + len(h)]))
                j += 0 if s == state.player else len(h)
            dealt = State(state.piles, tuple(hands), tuple(order[j:]), state.player, state.played_this_turn,
                          state.placed, state.over, state.failed, state.flags, state.flags_set)
            hidden = [c for s, h in enumerate(state.hands) if s != state.player for c in h] + list(state.deck)
            assert sorted(order) == sorted(hidden)
            assert fast[k] == _finish(game, dealt)


def test_whole_games_unchanged_and_illegal_first_move_named():
    game = TheGame(Config(num_players=1))
    start = game.initial_state(np.random.default_rng(3).spawn(1)[0])
    assert bestplays_rollouts(game.config, start, [engine.NO_MOVE])[0, 0] == bestplays_cards_left(1, 1, seed=3)[0]
    with pytest.raises(IllegalActionError, match="seat 0"):
        bestplays_rollouts(game.config, start, [kernel_move(start.hands[0], END_TURN)])
