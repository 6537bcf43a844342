"""`the_game/rollout`: Teacher protocol values, the significance gate, and its agent id."""

from __future__ import annotations

import numpy as np
import pytest

import agents
from agents.search.teacher import Teacher, check_values
from agents.the_game.rollout import RolloutTeacher
from agents.the_game.strategies import BestPlaysStrategy
from envs.the_game.rules import END_TURN, Config, TheGame


def _views(game: TheGame, games: int, seed: int):
    """(view, mask) of the decisions of bestplays' games."""
    rng = np.random.default_rng(seed)
    bp = BestPlaysStrategy(game, rng)
    for _ in range(games):
        state = game.initial_state(rng)
        while not state.over:
            view, mask = game.view(state, state.player), game.legal_mask(state)
            yield view, mask
            state = game.apply(state, bp.act(view, mask))


@pytest.mark.parametrize("players", [1, 3])
def test_values_follow_the_contract_and_a_closed_gate_is_bestplays(players):
    game = TheGame(Config(num_players=players))
    closed = RolloutTeacher(game, np.random.default_rng(0), k=4, gate=1e9)
    bp = BestPlaysStrategy(game, np.random.default_rng(0))
    assert isinstance(closed, Teacher)
    views = list(_views(game, 1, seed=players))[::7]
    for view, mask in views:
        v = check_values(closed.action_values(view, mask, np.random.default_rng(1)), mask)
        assert int(np.nanargmax(v)) == bp.act(view, mask)
    assert closed.decisions > 0 and closed.deviations == 0


def test_open_gate_deviates_and_values_are_reproducible():
    game = TheGame(Config(num_players=1))
    t = RolloutTeacher(game, np.random.default_rng(0), k=16, gate=0.0)
    views = list(_views(game, 1, seed=4))[:40]
    a = [t.action_values(v, m, np.random.default_rng(i)) for i, (v, m) in enumerate(views)]
    b = [t.action_values(v, m, np.random.default_rng(i)) for i, (v, m) in enumerate(views)]
    assert all(np.array_equal(x, y, equal_nan=True) for x, y in zip(a, b))
    assert t.deviations > 0  # with no gate, noise alone makes it leave bestplays somewhere


def test_candidates_and_agent_id():
    game = TheGame(Config(num_players=2))
    view, mask = next(_views(game, 1, seed=2))
    t = agents.make("the_game/rollout?k=8", game, np.random.default_rng(0))
    cands, base = t.candidates(view)
    assert cands[base] == BestPlaysStrategy(game, np.random.default_rng(0)).act(view, mask)
    assert len(cands) == len(set(cands)) and all(mask[a] for a in cands)
    assert END_TURN not in cands  # nothing played yet: the turn cannot end
    assert mask[t.act(view, mask)]
    with pytest.raises(ValueError, match="communication"):
        RolloutTeacher(TheGame(Config(num_players=2, communication="pile_flags")), np.random.default_rng(0))
