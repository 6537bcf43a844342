"""The Gymnasium single-agent adapter: seats, masks, reward attribution."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import agents
import envs
from envs.core.single_agent import OpponentEnv
from envs.simple_poker import BET, PASS, Config, SimplePokerGame


class Fixed:
    """Always plays one action."""

    def __init__(self, action):
        self.action = action

    def act(self, view, mask):
        return self.action


def make(opponent, **kw):
    game = SimplePokerGame(Config(n=2, ante=1, bet=2))
    return OpponentEnv(game, envs.make_encoder("simple_poker", game), [opponent], **kw)


def test_passes_gymnasium_env_checker():
    game = SimplePokerGame(Config(n=5))
    env = OpponentEnv(
        game, envs.make_encoder("simple_poker", game), [agents.make("random", game, np.random.default_rng(0))], seed=0
    )
    check_env(env, skip_render_check=True)


def test_learner_seat_is_random_and_reward_is_its_own():
    env = make(Fixed(BET), seed=1)
    seats = set()
    for _ep in range(200):
        obs, info = env.reset()
        seat = info["seat"]
        seats.add(seat)
        assert obs[env.encoder.layout["seat"]][seat] == 1
        mask = env.action_masks()
        assert mask.dtype == bool and mask.all()
        _, reward, term, trunc, _ = env.step(BET)
        assert term and not trunc
        c = env.game_state.cards
        p1 = 0.0 if c[0] == c[1] else (3.0 if c[0] > c[1] else -3.0)
        assert reward == (p1 if seat == 0 else -p1)  # both bet/call: the showdown
    assert seats == {0, 1}


def test_reward_includes_outcome_of_opponents_move():
    env = make(Fixed(PASS), seat=0, seed=2)
    env.reset()
    _, reward, term, _, _ = env.step(BET)  # opponent (seat 1) folds
    assert term and reward == 1.0


def test_learner_who_never_acts_gets_a_new_deal():
    env = make(Fixed(PASS), seat=1, seed=3)  # player 1 always passes: seat 1 never decides
    with pytest.raises(RuntimeError, match="before the learner"):
        env.reset()


def test_wrong_number_of_opponents():
    game = SimplePokerGame()
    with pytest.raises(ValueError, match="needs 1 opponents"):
        OpponentEnv(game, envs.make_encoder("simple_poker", game), [])


def test_action_masks_under_subproc_vec_env():
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.vec_env import SubprocVecEnv

    def thunk(i):
        def f():
            game = SimplePokerGame(Config(n=3))
            return OpponentEnv(
                game,
                envs.make_encoder("simple_poker", game),
                [agents.make("random", game, np.random.default_rng(i))],
                seed=i,
            )

        return f

    vec = SubprocVecEnv([thunk(0), thunk(1)], start_method="spawn")
    try:
        vec.reset()
        masks = get_action_masks(vec)
        assert masks.shape == (2, 2) and masks.dtype == bool
    finally:
        vec.close()
