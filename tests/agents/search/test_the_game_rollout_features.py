"""The Game's student features: shapes, legal rows, the ablation, and a distilled student that plays."""

from __future__ import annotations

import numpy as np

from agents.learned import feature_set
from agents.the_game.strategies import BestPlaysStrategy
from envs.the_game.rules import END_TURN, NUM_ACTIONS, Config, TheGame


def test_features_mark_every_legal_action_and_only_those():
    game = TheGame(Config(num_players=2))
    full, ablation = feature_set("the_game"), feature_set("the_game_noscore")
    rng = np.random.default_rng(3)
    bp = BestPlaysStrategy(game, rng)
    state = game.initial_state(rng)
    seen_end = False
    while not state.over:
        view, mask = game.view(state, state.player), game.legal_mask(state)
        ctx, per = full(view, mask)
        ctx0, per0 = ablation(view, mask)
        assert per.shape == (NUM_ACTIONS, per0.shape[1] + 3) and ctx.shape[0] == ctx0.shape[0] + 1
        assert np.array_equal(np.abs(per).sum(1) > 0, mask > 0)
        assert np.isfinite(ctx).all() and np.isfinite(per).all()
        a = bp.act(view, mask)
        if a != END_TURN:
            assert per[a, 15] == 1.0 and per[:, 15].sum() == 1.0  # bestplays' choice is flagged
        seen_end |= bool(mask[END_TURN])
        state = game.apply(state, a)
    assert seen_end


def test_shipped_student_plays():
    import agents
    from evaluate.the_game.reproduce import simulate

    game = TheGame(Config(num_players=1))
    agent = agents.make("the_game/learned", game, np.random.default_rng(0), game_name="the_game")
    assert agent.student.features == "the_game"
    left = simulate(game, "the_game/learned", 2, seed=8)["cards_left"]
    assert ((0 <= left) & (left < 98)).all()
