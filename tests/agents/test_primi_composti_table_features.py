"""Primi Composti's student features from the compiled tables (`PrimiFeatures.from_tables`, what the compiled
tournament runner seats a student with) give the Python features of every view, number for number: whole games
played on the Python engine and on the compiled tables side by side (the tables keep the dealt hands with played
positions dead, the views the remaining cards only)."""

from __future__ import annotations

import numpy as np
import pytest

import envs
from agents.learned import feature_set
from agents.primi_composti.fast import _advance_tables, seated_tables
from envs.primi_composti import fast as engine


def _play_both(game, name: str, games: int, seed: int):
    """Play `games` deals with uniformly random legal moves on both engines; yield, at every decision, the Python
    features of the view and the compiled features of the same table (ctx, per each)."""
    fn = feature_set(name).for_game(game)
    rng = np.random.default_rng(seed)
    decks = [game.deal_key(rng) for _ in range(games)]
    T, S = seated_tables(game, np.array(decks, np.int64), np.full((games, 2), engine.BATCH_CODE, np.int64))
    status, bad = np.zeros(1, np.int64), np.zeros(1, np.int64)
    for g, deck in enumerate(decks):
        state, rows = game.deal_from(deck), np.array([g])
        _advance_tables(T, S, rows, np.array([-1]), status, bad)
        while not game.is_terminal(state):
            seat = game.current_player(state)
            assert status[0] == engine.STOP_BATCH and (T.first[g] + T.turn[g]) % 2 == seat
            mask = np.asarray(game.legal_mask(state), np.int8)
            yield fn(game.view(state, seat), mask), fn.from_tables((T, S), rows, np.array([seat]), mask[None] > 0)
            action = int(rng.choice(np.flatnonzero(mask)))
            state = game.apply(state, action)
            _advance_tables(T, S, rows, np.array([action]), status, bad)
        assert tuple(T.scores[g]) == tuple(state.scores)


@pytest.mark.parametrize("name,options", [
    ("primi_composti", {"version": 1}),
    ("primi_composti_v2", {"version": 2}),
    ("primi_composti_v2", {"version": 2, "allow_revealed_operand": True, "steal_choice": "player"}),
], ids=["v1", "v2", "v2-official"])
def test_table_features_are_the_python_features(name, options):
    game = envs.make_game("primi_composti", **options)
    decisions = 0
    for (want_ctx, want_per), (ctx, per) in _play_both(game, name, games=2, seed=11):
        assert np.array_equal(ctx[0], want_ctx) and np.array_equal(per[0], want_per), decisions
        decisions += 1
    assert decisions == 2 * game.num_cards


def _position(T):
    """Copies of what the tables' positions are: hands, live positions, heights, scores, turn, first mover and the
    stacks' cards up to their heights (above them a stack keeps stale cards, which nothing reads)."""
    below = np.arange(T.stacks.shape[2])[None, None, :] < T.heights[:, :, None]
    return [a.copy() for a in (T.hands, T.alive, T.heights, T.scores, T.turn, T.first, np.where(below, T.stacks, 0))]


def test_a_batch_of_tables_gives_each_tables_features():
    """Several tables at once: each row is the features of its own table (the searches leave the tables as
    they were)."""
    game = envs.make_game("primi_composti", version=2)
    fn = feature_set("primi_composti_v2").for_game(game)
    rng = np.random.default_rng(3)
    decks = np.array([game.deal_key(rng) for _ in range(4)], np.int64)
    T, S = seated_tables(game, decks, np.full((4, 2), engine.BATCH_CODE, np.int64))
    rows = np.arange(4)
    _advance_tables(T, S, rows, np.full(4, -1), np.zeros(4, np.int64), np.zeros(4, np.int64))
    masks = np.zeros((4, game.num_actions), np.int8)
    engine.mask_rows(T, rows, S, masks)
    seats = (T.first + T.turn) % 2
    before = _position(T)
    ctx, per = fn.from_tables((T, S), rows, seats, masks > 0)
    assert all(np.array_equal(a, b) for a, b in zip(before, _position(T)))
    for r in rows:
        one_ctx, one_per = fn.from_tables((T, S), np.array([r]), seats[[r]], masks[[r]] > 0)
        state = game.deal_from(decks[r].tolist())
        want_ctx, want_per = fn(game.view(state, int(seats[r])), masks[r])
        assert np.array_equal(one_ctx[0], ctx[r]) and np.array_equal(one_per[0], per[r])
        assert np.array_equal(want_ctx, ctx[r]) and np.array_equal(want_per, per[r])


def test_features_of_another_action_space_are_refused():
    """The seed's features over tables of `steal_choice="player"` (more actions a card) raise, naming `for_game`."""
    game = envs.make_game("primi_composti", version=2, steal_choice="player")
    rng = np.random.default_rng(0)
    T, S = seated_tables(game, np.array([game.deal_key(rng)], np.int64), np.full((1, 2), engine.BATCH_CODE))
    with pytest.raises(ValueError, match="for_game"):
        feature_set("primi_composti_v2").from_tables((T, S), np.array([0]), np.array([0]),
                                                     np.ones((1, game.num_actions), bool))
