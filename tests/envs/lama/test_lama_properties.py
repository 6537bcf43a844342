"""Property tests (hypothesis) of the L.A.M.A. engine over random play."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from envs.lama.encoding import LamaEncoder
from envs.lama.rules import NUM_ACTIONS, VALUES, Config, LamaGame

OPTION_SETS = [
    dict(num_players=2),
    dict(num_players=5),
    dict(num_players=6, empty_deck="reshuffle"),
    dict(num_players=4, rules="seed2022"),
    dict(num_players=8, rules="seed2022"),
    dict(num_players=3, rules="seed2022", last_player_continues=True, round_starter="ender", scoring="distinct"),
]


def composition(state) -> np.ndarray:
    c = np.zeros(VALUES, int)
    for h in state.hands:
        c += h
    c += np.bincount(np.asarray(state.draw_pile + state.discard, dtype=int), minlength=VALUES)
    return c


def random_states(game: LamaGame, seed: int, max_steps: int = 3000):
    """The states of one game under uniformly random legal play (bounded)."""
    rng = np.random.default_rng(seed)
    s = game.initial_state(rng)
    yield s
    for _ in range(max_steps):
        if game.is_terminal(s):
            return
        la = game.legal_actions(s)
        s = game.apply(s, int(la[rng.integers(len(la))]))
        yield s


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(OPTION_SETS), st.integers(0, 2**31))
def test_conservation_and_masks(opts, seed):
    game = LamaGame(Config(**opts))
    for s in random_states(game, seed):
        comp = composition(s)
        assert comp.sum() == 56
        assert tuple(comp) == s.stock
        if game.config.empty_deck != "reshuffle_seed":
            assert comp.tolist() == [8] * VALUES
        mask = game.legal_mask(s)
        la = game.legal_actions(s)
        assert list(la) == sorted(set(la))
        assert np.flatnonzero(mask).tolist() == list(la)
        assert mask.shape == (NUM_ACTIONS,)
        assert s.game_over or (sum(s.active) >= 1 and s.active[s.current])
        assert all(t >= 0 for t in s.totals)


@settings(max_examples=15, deadline=None)
@given(st.sampled_from(OPTION_SETS), st.integers(0, 2**31))
def test_random_play_terminates(opts, seed):
    # Strategy-like play (play if possible, else draw) must end the game; the
    # 3000-step bound is generous (a 4-player game takes about 100 steps).
    game = LamaGame(Config(**opts))
    rng = np.random.default_rng(seed)
    s = game.initial_state(rng)
    for _ in range(3000):
        if game.is_terminal(s):
            break
        la = game.legal_actions(s)
        plays = [a for a in la if a < 7]
        s = game.apply(s, plays[0] if plays else la[0])
    assert game.is_terminal(s)
    assert max(s.totals) >= game.target_points
    assert sum(game.returns(s)) == len(game.winners(s)) >= 1


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(OPTION_SETS), st.integers(0, 2**31), st.integers(0, 400))
def test_views_hide_others_cards_and_sampling_is_consistent(opts, seed, steps):
    game = LamaGame(Config(**opts))
    enc = LamaEncoder(game)
    states = list(random_states(game, seed, max_steps=steps))
    s = states[-1]
    rng = np.random.default_rng(seed + 1)
    for seat in range(game.num_players):
        v = game.view(s, seat)
        for _ in range(3):
            t = game.sample_state(v, rng)
            # consistent: the seat sees exactly the same thing in the sample ...
            assert game.view(t, seat) == v
            assert np.array_equal(enc.encode(game.view(t, seat)), enc.encode(v))
            # ... which is a valid state
            assert tuple(composition(t)) == t.stock
            assert [sum(h) for h in t.hands] == [sum(h) for h in s.hands]
            assert game.legal_actions(t) == game.legal_actions(s) or seat != s.current or s.game_over


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**31), st.integers(0, 200))
def test_other_seats_hidden_cards_do_not_change_view(seed, steps):
    # Swap hidden cards between an opponent's hand and the draw pile: no other
    # seat's view or observation may change.
    game = LamaGame(Config(num_players=4, rules="seed2022"))
    enc = LamaEncoder(game)
    s = list(random_states(game, seed, max_steps=steps))[-1]
    if not s.draw_pile:
        return
    rng = np.random.default_rng(seed)
    owner = int(rng.integers(4))
    held = [v for v in range(VALUES) if s.hands[owner][v]]
    if not held:
        return
    give = held[0]
    take = s.draw_pile[-1]
    h = list(s.hands[owner])
    h[give] -= 1
    h[take] += 1
    hands = s.hands[:owner] + (tuple(h),) + s.hands[owner + 1 :]

    t = s._replace(hands=hands, draw_pile=s.draw_pile[:-1] + (give,), seed=s.seed ^ 12345)
    for seat in range(4):
        if seat == owner:
            continue
        assert game.view(t, seat) == game.view(s, seat)
        assert np.array_equal(enc.encode(game.view(t, seat)), enc.encode(game.view(s, seat)))
