"""PettingZoo conformance, seeding, encoding and property tests for Primi Composti."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pettingzoo
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import envs  # noqa: F401 (registers tabletop/primi_composti-v0)
from envs import primi_composti_v0
from envs.primi_composti.encoding import PrimiCompostiEncoder
from envs.primi_composti.rules import VALUE, Config, PrimiCompostiGame, State

sys.path.append(str(Path(__file__).parents[1]))  # tests/envs (after the installed packages), for the shared helpers
from aec_play import conformance, play, random_legal  # noqa: E402

CONFIGS = [
    {},
    {"version": 2},
    {"version": 2, "steal_choice": "player", "allow_revealed_operand": True},
    {"num_players": 3, "version": 2},
    {"num_players": 4, "cards_per_player": 5},
    {"num_players": 6, "version": 2, "seat0_holds_two": False, "cards_per_player": 3},
    {"observation_hints": True, "version": 2},
]

# Run again on the oldest supported PettingZoo (.ci/run): these tests exercise the PettingZoo-facing API.
pytestmark = pytest.mark.pettingzoo_api


@pytest.mark.parametrize("kw", CONFIGS)
def test_api_and_seed(kw):
    conformance(primi_composti_v0, kw, cycles=60, seed_cycles=60)


@pytest.mark.pettingzoo_registry
def test_pettingzoo_make_and_rewards():
    env = pettingzoo.make("aec", "tabletop/primi_composti-v0", version=2)
    total, _ = play(env, random_legal(np.random.default_rng(0)), seed=3)
    st_ = env.unwrapped.game_state
    diff = st_.scores[0] - st_.scores[1]
    assert total["player_0"] == pytest.approx(diff + (1 if diff > 0 else -1))
    assert total["player_1"] == pytest.approx(-total["player_0"])


def _random_play(game, rng, steps=None):
    s = game.initial_state(rng)
    states = [s]
    while not game.is_terminal(s) and (steps is None or len(states) <= steps):
        la = game.legal_actions(s)
        s = game.apply(s, la[int(rng.integers(len(la)))])
        states.append(s)
    return states


config_st = st.fixed_dictionaries(
    {
        "version": st.sampled_from([1, 2]),
        "num_players": st.integers(2, 6),
        "cards_per_player": st.integers(1, 12),
    }
).flatmap(
    lambda d: st.just(d)
    | st.just({**d, "version": 2, "steal_choice": "player"})
    | st.just({**d, "version": 2, "allow_revealed_operand": True, "steal_choice": "player"})
    | st.just({**d, "seat0_holds_two": False})
)


@settings(max_examples=40, deadline=None)
@given(config_st, st.integers(0, 2**32 - 1))
def test_invariants_random_play(kw, seed):
    game = PrimiCompostiGame(Config(**kw))
    enc = PrimiCompostiEncoder(game)
    rng = np.random.default_rng(seed)
    states = _random_play(game, rng)
    assert len(states) == game.num_cards + 1 and game.is_terminal(states[-1])
    assert game.legal_actions(states[-1]) == ()
    for s in states:
        cards = [c for h in s.hands for c in h] + [c for stck in s.stacks for c in stck]
        assert sorted(cards) == list(game.cards)  # conservation
        for i, stck in enumerate(s.stacks):  # stacks hold their own type
            assert all((VALUE[c] == 2) == (i % 2 == 0) for c in stck)
        if game.version == 2:
            assert sum(s.scores) == sum(VALUE[c] for stck in s.stacks for c in stck)
        r = game.returns(s)
        assert abs(sum(r)) < 1e-9
        if not game.is_terminal(s):
            mask = game.legal_mask(s)
            assert np.flatnonzero(mask).tolist() == list(game.legal_actions(s))
        for seat in range(game.num_players):
            v = game.view(s, seat)
            obs = enc.encode(v)
            assert obs.shape == enc.observation_space.shape and enc.observation_space.contains(obs)
            sampled = game.sample_state(v, rng)
            assert game.view(sampled, seat) == v
            assert sorted(c for h in sampled.hands for c in h) == sorted(c for h in s.hands for c in h)


@settings(max_examples=30, deadline=None)
@given(st.integers(3, 6), st.sampled_from([1, 2]), st.integers(0, 2**32 - 1), st.integers(0, 30))
def test_no_hidden_information_leak(n, version, seed, steps):
    """With 3+ players, states that differ only in the others' hands look the same."""
    game = PrimiCompostiGame(Config(version=version, num_players=n, cards_per_player=4))
    enc = PrimiCompostiEncoder(game)
    rng = np.random.default_rng(seed)
    s = _random_play(game, rng, steps)[-1]
    seat = int(rng.integers(n))
    others = [c for i, h in enumerate(s.hands) if i != seat for c in h]
    perm = [int(x) for x in rng.permutation(np.array(others, dtype=np.int64))] if others else []
    hands, pos = [], 0
    for i, h in enumerate(s.hands):
        if i == seat:
            hands.append(h)
        else:
            hands.append(tuple(perm[pos : pos + len(h)]))
            pos += len(h)
    s2 = State(tuple(hands), s.stacks, s.scores, s.turn, s.first, s.last)
    assert game.view(s, seat) == game.view(s2, seat)
    assert np.array_equal(enc.encode(game.view(s, seat)), enc.encode(game.view(s2, seat)))


def test_same_seed_same_episode():
    for kw in CONFIGS:
        game = PrimiCompostiGame(Config(**kw))
        a = _random_play(game, np.random.default_rng(11))
        b = _random_play(game, np.random.default_rng(11))
        assert a == b


def test_encoding_fields():
    game = PrimiCompostiGame(Config())
    enc = PrimiCompostiEncoder(game)
    s = game.initial_state(np.random.default_rng(2))
    s = game.apply(s, game.action_of(s.hands[0][0]))
    obs = enc.layout.split(enc.encode(game.view(s, 1)))
    assert obs["own_hand"].sum() == 12 and obs["other_hands"].sum() == 11 and obs["unseen"].sum() == 11
    played = s.hands and [c for c in game.cards if c not in s.hands[0] + s.hands[1]][0]
    # Seat 1 sees the card on seat 0's (relative seat 1) stack, as its top.
    k = 2 * 1 + (0 if VALUE[played] == 2 else 1)
    assert obs["stack_top"][k * 24 + played - 2] == 1 and obs["stack_member"].sum() == 1


def test_render_ansi():
    env = primi_composti_v0.raw_env(render_mode="ansi", version=2)
    env.reset(seed=0)
    text = env.render()
    assert "P1" in text and "hand" in text and "primes" in text


def test_hand_gain_hint():
    game = PrimiCompostiGame(Config(observation_hints=True))
    enc = PrimiCompostiEncoder(game)
    rng = np.random.default_rng(9)
    s = _random_play(game, rng, 7)[-1]
    seat = game.current_player(s)
    obs = enc.layout.split(enc.encode(game.view(s, seat)))
    for c in game.cards:
        expect = game.immediate_score(s, c) / 8 if c in s.hands[seat] else 0.0
        assert obs["hand_gain"][c - 2] == pytest.approx(expect)
