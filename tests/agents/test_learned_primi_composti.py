"""Primi Composti's teacher and student features (agents/primi_composti/teacher.py,
agents/primi_composti/features.py), and a tiny distillation run."""

from __future__ import annotations

import numpy as np
import pytest

import agents
from agents.learned import feature_set
from agents.primi_composti.solvers import ReferenceSolver, card_values
from agents.primi_composti.strategies import SeedPlayer
from agents.primi_composti.teacher import PrimiTeacher, depth_values
from envs.core.game import legal_mask
from envs.primi_composti.rules import Config, PrimiCompostiGame


def _positions(game, n_deals, seed=0):
    """Every position of `n_deals` random games (random play)."""
    rng = np.random.default_rng(seed)
    for _ in range(n_deals):
        s = game.initial_state(rng)
        while not game.is_terminal(s):
            yield s
            legal = np.flatnonzero(legal_mask(game, s))
            s = game.apply(s, int(legal[rng.integers(len(legal))]))


@pytest.mark.parametrize("version", [1, 2])
def test_teacher_values_are_the_exact_card_values(version):
    game = PrimiCompostiGame(Config(version=version, cards_per_player=4))
    teacher = PrimiTeacher(game, np.random.default_rng(0), exact_cards=8)
    ref = ReferenceSolver(version)
    for s in _positions(game, 6):
        seat = game.current_player(s)
        mask = legal_mask(game, s)
        v = teacher.action_values(game.view(s, seat), mask, np.random.default_rng(0))
        exact = card_values(game, s, ref)
        assert np.isnan(v[mask == 0]).all()
        assert {game.card_of(a): int(v[a]) for a in np.flatnonzero(mask)} == exact


def test_v2_fallback_is_the_depth_value_and_its_first_best_card_is_minimax():
    game = PrimiCompostiGame(Config(version=2, cards_per_player=5))
    teacher = PrimiTeacher(game, np.random.default_rng(0), exact_cards=2, fallback_depth=3)
    player = SeedPlayer(game, None, "minimax_3")
    for s in _positions(game, 5, seed=1):
        seat = game.current_player(s)
        view = game.view(s, seat)
        if sum(view.hand_sizes) <= 2:
            continue
        vals = teacher.card_values(view)
        assert vals == depth_values(2, view, 3)
        best = max(vals.values())
        assert next(c for c in s.hands[seat] if vals[c] == best) == player.card(s)


def test_features_mark_the_hand_and_are_deterministic():
    game = PrimiCompostiGame(Config(version=1, cards_per_player=5))
    fn = feature_set("primi_composti")
    for s in _positions(game, 3, seed=2):
        seat = game.current_player(s)
        mask = legal_mask(game, s)
        ctx, per = fn(game.view(s, seat), mask)
        again = fn(game.view(s, seat), mask)
        np.testing.assert_array_equal(per, again[1])
        np.testing.assert_array_equal(per[:, 0], mask)
        assert (per[mask == 0] == 0).all() and ctx.shape == (4,)


def test_teacher_is_an_agent_that_plays_perfectly():
    game = PrimiCompostiGame(Config(version=1, cards_per_player=4))
    teacher = agents.make("primi_composti/teacher", game, rng=np.random.default_rng(0))
    ref = ReferenceSolver(1)
    for s in _positions(game, 4, seed=3):
        seat = game.current_player(s)
        exact = card_values(game, s, ref)
        card = game.card_of(teacher.act(game.view(s, seat), legal_mask(game, s)))
        assert exact[card] == max(exact.values())


def test_a_tiny_primi_distillation_reaches_the_teacher(tmp_path):
    from train.distill import DistillConfig, distill

    cfg = DistillConfig(game="primi_composti", teacher="primi_composti/teacher", options={"cards_per_player": 3},
                        rounds=2, games_per_round=40, epochs=20, hidden=[16],
                        eval_opponents=["primi_composti/greedy_rand"], eval_games=20, final_eval_games=0,
                        out=str(tmp_path / "run"))
    summary = distill(cfg, verbose=False)
    assert summary["kind"] == "action_scorer" and summary["features"] == "primi_composti"
    assert summary["curve"][-1]["train_agreement"] > 0.7


@pytest.mark.parametrize("agent_id,version", [("primi_composti/learned", 1), ("primi_composti/learned-v2", 2)])
def test_shipped_students_load_and_play_legal_moves(agent_id, version):
    from envs.core.play import play_game

    game = PrimiCompostiGame(Config(version=version))
    student = agents.make(agent_id, game, rng=np.random.default_rng(0), game_name="primi_composti")
    greedy = agents.make("primi_composti/greedy_rand", game, rng=np.random.default_rng(1))
    _, _, turns = play_game(game, [student, greedy], game.initial_state(np.random.default_rng(4)))
    assert turns == game.num_cards
    with pytest.raises(ValueError, match="does not play this game"):
        agents.make(agent_id, PrimiCompostiGame(Config(version=version, cards_per_player=6)),
                    rng=np.random.default_rng(0))


def test_a_tiny_official_distillation_learns_cards_and_pairs(tmp_path):
    # Version 2's official options: the teacher values every card-and-pair action, the bound features give each
    # its own gains, and the saved student plays the official game's actions.
    from envs.core.play import play_game
    from train.distill import DistillConfig, distill

    opts = {"version": 2, "cards_per_player": 3, "steal_choice": "player", "allow_revealed_operand": True}
    cfg = DistillConfig(game="primi_composti", teacher="primi_composti/teacher", options=opts,
                        features="primi_composti_v2", rounds=2, games_per_round=40, epochs=20, hidden=[16],
                        eval_opponents=["primi_composti/greedy_rand"], eval_games=20, final_eval_games=0,
                        out=str(tmp_path / "run"))
    summary = distill(cfg, verbose=False)
    assert summary["curve"][-1]["train_agreement"] > 0.7
    game = PrimiCompostiGame(Config(**opts))
    student = agents.make(f"learned:{summary['student']}", game, rng=np.random.default_rng(0),
                          game_name="primi_composti")
    greedy = agents.make("primi_composti/greedy_rand", game, rng=np.random.default_rng(1))
    for seed in range(3):
        returns, _, moves = play_game(game, [student, greedy], game.initial_state(np.random.default_rng(seed)))
        assert moves == game.num_cards and len(returns) == 2  # every card played, no illegal action
