"""Property tests for The Game: conservation, masks, termination, no leak, sample_state,
and the berger2024 engine against an independent re-statement of the seed's loop."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from envs.core.game import legal_mask
from envs.the_game.encoding import TheGameEncoder
from envs.the_game.rules import Config, TheGame, View, decode_play, fits, play_action

CONFIGS = [
    Config(num_players=1), Config(num_players=2), Config(num_players=3, communication="pile_flags"),
    Config(num_players=5, min_cards_per_turn=3), Config(num_players=1, rules="berger2024"),
    Config(num_players=6, rules="berger2024"), Config(num_players=4, empty_hand="ends_game"),
]


def all_cards(state) -> list[int]:
    return sorted(sum(state.hands, ()) + state.deck + sum((p[1:] for p in state.piles), ()))


@given(cfg=st.sampled_from(CONFIGS), seed=st.integers(0, 2**32 - 1), greedy=st.booleans())
def test_random_playouts_keep_every_invariant(cfg, seed, greedy):
    game = TheGame(cfg)
    enc = TheGameEncoder(game)
    rng = np.random.default_rng(seed)
    s = game.initial_state(rng)
    steps = 0
    while not s.over:
        legal = game.legal_actions(s)
        assert legal and list(legal) == sorted(set(legal))
        assert np.flatnonzero(legal_mask(game, s)).tolist() == list(legal)
        # conservation: every card is in a hand, the draw pile or on a pile, exactly once
        assert all_cards(s) == list(range(2, 100))
        assert s.placed == sum(len(p) - 1 for p in s.piles)
        # no leak: a state re-dealt from a seat's view looks the same to that seat
        seat = int(rng.integers(game.num_players))
        v = game.view(s, seat)
        other = game.sample_state(v, rng)
        assert game.view(other, seat) == v
        assert np.array_equal(enc.encode(game.view(other, seat)), enc.encode(v))
        assert all_cards(other) == list(range(2, 100))
        assert enc.observation_space.contains(enc.encode(v))
        if greedy:  # a fitting play when there is one, so games also run long
            fit = [a for a in legal if a < 392 and fits(*decode_play(a), s.piles[decode_play(a)[1]][-1],
                                                       not game.berger)]
            a = fit[int(rng.integers(len(fit)))] if fit else legal[int(rng.integers(len(legal)))]
        else:
            a = legal[int(rng.integers(len(legal)))]
        s = game.apply(s, a)
        steps += 1
        assert steps <= 98 * 6 + 10  # plays + end turns + at most 4 flags a turn
    assert game.legal_actions(s) == ()
    if not s.failed:
        assert all_cards(s) == list(range(2, 100))
    else:  # berger2024: the misfit card is lost
        assert len(all_cards(s)) == 97
    r = game.returns(s)
    assert len(set(r)) == 1 and r[0] == s.placed + (game.win_bonus if s.won else 0)


def seed_loop(num_players: int, deal_rng: np.random.Generator, choose) -> int:
    """The seed's `simulate_game` re-stated from rules doc §4 (lists, pop from the end, passes);
    `choose(piles, hand) -> (pile, index)` is the strategy."""
    hand_size = 8 if num_players == 1 else 7 if num_players == 2 else 6
    piles = [[1], [1], [100], [100]]
    deck = [int(x) for x in deal_rng.permutation(np.arange(2, 100))]
    hands: list[list[int]] = [[] for _ in range(num_players)]
    for _ in range(hand_size):
        for h in hands:
            h.append(deck.pop())
    played, running = 0, True
    while deck and any(hands) and running:
        for h in hands:
            p, i = choose(piles, h)
            card = h.pop(i)
            ok = card > piles[p][-1] if p < 2 else card < piles[p][-1]
            if not ok:
                running = False
                break
            piles[p].append(card)
            played += 1
            if deck:
                h.append(deck.pop())
    return played


@given(n=st.integers(1, 7), seed=st.integers(0, 2**32 - 1))
def test_berger_engine_equals_the_seed_loop(n, seed):
    """Same deal, same choices (a seeded chooser that sometimes picks a misfit) → same cards played."""
    game = TheGame(Config(num_players=n, rules="berger2024"))

    def chooser(rng):
        def choose(piles, hand):
            tops = [p[-1] for p in piles]
            good = [(p, i) for p in range(4) for i, c in enumerate(hand) if fits(c, p, tops[p], False)]
            if good and rng.random() < 0.97:
                return good[int(rng.integers(len(good)))]
            return int(rng.integers(4)), int(rng.integers(len(hand)))
        return choose

    expected = seed_loop(n, np.random.default_rng(seed), chooser(np.random.default_rng(seed + 1)))
    s = game.initial_state(np.random.default_rng(seed))
    choose = chooser(np.random.default_rng(seed + 1))
    while not s.over:
        v: View = game.view(s, s.player)
        p, i = choose([list(x) for x in v.piles], list(v.hand))
        s = game.apply(s, play_action(v.hand[i], p))
    assert s.placed == expected
