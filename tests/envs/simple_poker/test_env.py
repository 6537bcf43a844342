"""Simple poker: rules, env conformance, errors, hidden information."""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import envs
from envs import simple_poker_v0
from envs.core.game import IllegalActionError
from envs.simple_poker import BET, PASS, Config, SimplePokerGame, State

sys.path.append(str(Path(__file__).parents[1]))  # tests/envs (after the installed packages), for the shared helpers
from aec_play import conformance  # noqa: E402

CONFIGS = [dict(n=2, ante=1, bet=1), dict(n=3, ante=1, bet=2), dict(n=10, ante=1, bet=2), dict(n=5, ante=0.5, bet=0)]

# Run again on the oldest supported PettingZoo (.ci/run): these tests exercise the PettingZoo-facing API.
pytestmark = pytest.mark.pettingzoo_api


@pytest.mark.parametrize("kw", CONFIGS)
def test_api_and_seed(kw):
    conformance(simple_poker_v0, kw, cycles=100, seed_cycles=50)


@pytest.mark.pettingzoo_registry
def test_pettingzoo_make_with_options():
    import pettingzoo

    env = pettingzoo.make("aec", "tabletop/simple_poker-v0", n=10, ante=1, bet=2)
    env.reset(seed=0)
    assert env.observation_space("player_0")["observation"].shape == (14,)
    assert env.unwrapped.game.config == Config(10, 1, 2)


@pytest.mark.parametrize(
    "kw, message",
    [(dict(n=1), "n must be an integer >= 2"), (dict(n=2.5), "n must be an integer >= 2"),
     (dict(ante=-1), "ante must be > 0"), (dict(ante=0), "ante must be > 0"), (dict(bet=-0.5), "bet must be >= 0"),
     (dict(colour="red"), "allowed options are: n, ante, bet")],
)
def test_bad_options(kw, message):
    with pytest.raises(ValueError, match=message):
        simple_poker_v0.env(**kw)


@pytest.mark.parametrize(
    "cards, history, p1",
    [((1, 2), (PASS,), -1.0), ((2, 1), (PASS,), -1.0), ((1, 2), (BET, PASS), 1.0), ((2, 1), (BET, BET), 3.0),
     ((1, 2), (BET, BET), -3.0), ((2, 2), (BET, BET), 0.0)],
)
def test_payoffs_from_the_rules(cards, history, p1):
    g = SimplePokerGame(Config(n=2, ante=1, bet=2))
    s = State(cards)
    for a in history:
        s = g.apply(s, a)
    assert g.is_terminal(s)
    assert g.returns(s) == (p1, -p1)


def test_rewards_reach_both_seats_through_the_env():
    env = simple_poker_v0.raw_env(n=2, ante=1, bet=2)
    env.reset(seed=0)
    env._state = State((2, 1))
    env.step(BET)
    env.step(BET)
    assert env.rewards == {"player_0": 3.0, "player_1": -3.0}
    assert all(env.terminations.values())


def test_illegal_action_message_names_action_and_seat():
    env = simple_poker_v0.raw_env()
    env.reset(seed=0)
    env.step(BET)
    with pytest.raises(IllegalActionError, match=r"illegal action 7 for seat 1 \(player_1\)"):
        env.step(7)


def test_deals_are_uniform_and_independent():
    g = SimplePokerGame(Config(n=3))
    rng = np.random.default_rng(0)
    counts = np.zeros((3, 3))
    for _ in range(9000):
        c = g.initial_state(rng).cards
        counts[c[0] - 1, c[1] - 1] += 1
    # chi-square test at 99.9%: 8 degrees of freedom -> 26.12
    chi2 = ((counts - 1000) ** 2 / 1000).sum()
    assert chi2 < 26.12


@given(st.integers(1, 10), st.integers(1, 10), st.sampled_from([(), (BET,)]))
def test_view_hides_opponent_card(c_own, c_other, history):
    g = SimplePokerGame(Config(n=10))
    enc = envs.make_encoder("simple_poker", g)
    seat = len(history)
    a = State((c_own, c_other) if seat == 0 else (c_other, c_own), history)
    b = State((c_own, 1) if seat == 0 else (1, c_own), history)
    assert g.view(a, seat) == g.view(b, seat)
    assert np.array_equal(enc.encode(g.view(a, seat)), enc.encode(g.view(b, seat)))
    sampled = g.sample_state(g.view(a, seat), np.random.default_rng(c_other))
    assert g.view(sampled, seat) == g.view(a, seat)


def test_own_card_changes_the_observation():
    g = SimplePokerGame(Config(n=4))
    enc = envs.make_encoder("simple_poker", g)
    obs = {enc.encode(g.view(State((c, 1)), 0)).tobytes() for c in range(1, 5)}
    assert len(obs) == 4


def test_every_history_terminates_within_two_moves():
    g = SimplePokerGame(Config(n=2))
    for h in itertools.product((PASS, BET), repeat=2):
        s = State((1, 2))
        for a in h:
            if g.is_terminal(s):
                with pytest.raises(IllegalActionError):
                    g.apply(s, a)
                break
            s = g.apply(s, a)
        assert g.is_terminal(s)
        assert g.legal_actions(s) == ()
