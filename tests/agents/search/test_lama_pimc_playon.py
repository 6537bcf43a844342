"""Play on from a mid-round state (`envs.lama.fast.play_on`) and PIMC rollouts: the plain engine's games."""

from __future__ import annotations

import numpy as np
import pytest

from agents.lama.fast import FIRST, SECOND, THIRD, determinize, pimc_rollouts, play_on_states
from agents.lama.strategies import TUNED, FirstStrategy, SecondStrategy, ThirdStrategy
from envs.core.game import IllegalActionError
from envs.core.play import play_out
from envs.lama import fast as engine
from envs.lama.rules import DRAW, Config, LamaGame, State

AGENTS = {FIRST: FirstStrategy, SECOND: SecondStrategy, THIRD: lambda: ThirdStrategy(params=TUNED)}
OPTIONS = [
    dict(rules="official"),
    dict(rules="seed2022"),
    dict(rules="official", num_players=3, empty_deck="reshuffle"),
    dict(rules="seed2022", num_players=5, target_points=25),
]


def mid_states(game: LamaGame, count: int, rng: np.random.Generator) -> list[State]:
    """States reached by random legal play (draws favoured, so piles empty and reshuffles happen)."""
    out = []
    while len(out) < count:
        s = game.new_game(int(rng.integers(0, 2**63)))
        for _ in range(int(rng.integers(0, 400))):
            legal = game.legal_actions(s)
            a = DRAW if DRAW in legal and rng.random() < 0.6 else int(rng.choice(legal))
            s = game.apply(s, a)
            if game.is_terminal(s):
                break
        if not game.is_terminal(s):
            out.append(s)
    return out


def play_on_plain(game: LamaGame, s: State, strategies, first: int) -> tuple[State, int]:
    """Play `s` on with the plain engine and the agents of `agents.lama.strategies` (`first` >= 0 forced first); the
    steps."""
    steps = 0
    if first >= 0:
        s, steps = game.apply(s, first), 1
    end, turns = play_out(game, [AGENTS[c]() for c in strategies], s)
    return end, steps + turns


@pytest.mark.parametrize("opts", OPTIONS)
def test_play_on_equals_engine(opts):
    cfg = Config(**opts)
    game = LamaGame(cfg)
    rng = np.random.default_rng(7)
    states = mid_states(game, 40, rng)
    n = cfg.num_players
    strats = rng.integers(1, 4, size=(len(states), n))
    firsts = [int(rng.choice(game.legal_actions(s))) if k % 2 else -1 for k, s in enumerate(states)]
    res = play_on_states(cfg, states, strats, TUNED, firsts)
    for k, s in enumerate(states):
        end, steps = play_on_plain(game, s, strats[k], firsts[k])
        assert tuple(res.totals[k]) == end.totals
        assert tuple(res.rounds_won[k]) == end.rounds_won
        assert (res.rounds[k], res.steps[k]) == (end.round + 1, steps)


def test_play_on_rejects_an_illegal_forced_move_and_a_finished_game():
    cfg = Config()
    game = LamaGame(cfg)
    s = game.new_game(3)
    bad = next(a for a in range(7) if not game.legal_mask(s)[a])
    with pytest.raises(IllegalActionError, match=f"player_{s.current}|{s.current}"):
        play_on_states(cfg, [s], [FIRST] * 4, first_actions=[bad])
    with pytest.raises(ValueError, match="over"):
        engine.pack_state(s._replace(game_over=True))


@pytest.mark.parametrize("opts", OPTIONS[:2])
def test_pimc_rollouts_equal_engine(opts):
    """Each rollout is the plain engine's game from its determinized state, the candidate played, all strategy 1."""
    cfg = Config(**opts)
    game = LamaGame(cfg)
    rng = np.random.default_rng(11)
    n = cfg.num_players
    for s in mid_states(game, 6, rng):
        seat = s.current
        v = game.view(s, seat)
        legal = np.array(game.legal_actions(s), np.int64)
        p = engine.pack_state(s)
        keys = rng.integers(0, 2**63, size=5).astype(np.uint64)
        out = np.zeros((5, len(legal)))
        sizes = np.array(v.hand_sizes, np.int64)
        pimc_rollouts(keys, np.full(n, FIRST, np.int64), np.zeros((n, 4)), engine.config_codes(cfg), seat,
                      np.array(v.hand, np.int64), sizes, p.active, np.array(v.unseen, np.int64), p.disc, p.nd,
                      p.round, p.reshuffles, p.totals, p.rounds_won, legal, out)
        for k, key in enumerate(keys):
            hands = np.zeros((n, 7), np.int64)
            draw = np.zeros(64, np.int64)
            m = determinize(key, seat, np.array(v.hand, np.int64), sizes, np.array(v.unseen, np.int64), hands, draw)
            assert (hands.sum(axis=1) == sizes).all() and m == len(s.draw_pile)
            assert (hands.sum(axis=0) + np.bincount(draw[:m], minlength=7) - np.array(v.hand)
                    == np.array(v.unseen)).all()
            future = int((int(key) * 0x9E3779B97F4A7C15 + 1) % 2**64)
            det = s._replace(seed=future, hands=tuple(tuple(int(x) for x in h) for h in hands),
                             draw_pile=tuple(int(c) for c in draw[:m]))
            for j, a in enumerate(legal):
                end, _ = play_on_plain(game, det, [FIRST] * n, int(a))
                w = game.winners(end)
                assert out[k, j] == (1 / len(w) if seat in w else 0.0)


def test_determinize_is_uniform():
    """Every opponent card is each unseen card equally often (a chi-square-free check on a small deal)."""
    unseen = np.array([2, 1, 0, 0, 0, 0, 1], np.int64)
    sizes = np.array([1, 2, 1], np.int64)
    counts = np.zeros((3, 7))
    for key in range(6000):
        hands = np.zeros((3, 7), np.int64)
        draw = np.zeros(64, np.int64)
        determinize(np.uint64(key * 7919 + 1), 0, np.array([0, 1, 0, 0, 0, 0, 0], np.int64), sizes, unseen, hands,
                    draw)
        counts[1:] += hands[1:]
    expected = sizes[1:, None] * unseen[None, :] / unseen.sum() * 6000
    assert np.abs(counts[1:] - expected).max() < 4 * np.sqrt(expected.max())
