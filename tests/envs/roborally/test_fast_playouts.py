"""The compiled playout policies and the playout kernel (agents.roborally.fast) against the plain code."""

import numpy as np
import pytest

from agents.roborally.fast import FastPlayouts, sample_world
from agents.roborally.mc import DefaultValue
from agents.roborally.strategies import SoloSimulator
from agents.roborally.strategies import greedy_program as plain_greedy
from envs.roborally.cards import NUM_CARDS
from envs.roborally.fast import FastEngine, rng_seed
from envs.roborally.rules import REGISTERS, Config, RoboRallyGame, free_registers


def _setup(board="race_easy", n=2, seed=0, **options):
    game = RoboRallyGame(Config(board=board, num_robots=n, **options))
    fe = FastEngine(game)
    return game, fe, FastPlayouts(fe), game.initial_state(np.random.default_rng(seed))


def test_random_program_is_uniform_over_reduced_programs():
    game, fe, fp, state = _setup()
    hand = (3, 4, 11, 21, 35, 49, 50)  # classes: U-turns {3, 4}, right turns {11, 21, 35}, moves {49, 50}
    options = [tuple(r) for r in fe.reduced_programs(hand, 3).tolist()]
    counts = dict.fromkeys(options, 0)
    draws = 200 * len(options)
    fs = fe.pack(state)
    fs.robots[0, 3] = 6  # damage 6: two registers locked, three free
    for s in range(draws):
        counts[tuple(fp.random(fs, 0, hand, seed=s).tolist())] += 1
    expected = draws / len(options)
    chi2 = sum((c - expected) ** 2 / expected for c in counts.values())
    # Under uniformity chi2 ~ chi-square with len(options) - 1 degrees of freedom: mean df, sd sqrt(2 df).
    df = len(options) - 1
    assert chi2 < df + 5 * (2 * df) ** 0.5, (chi2, df)


@pytest.mark.parametrize("board", ["race_easy", "race_hard", "arena", "belts", "random:3", "random:8", "gears_pushers"])
def test_greedy_matches_the_plain_flag_seeker(board):
    game, fe, fp, state = _setup(board=board, n=2, crushers=True, seed=1)
    sim = SoloSimulator(game)
    rng = np.random.default_rng(2)
    compared = 0
    for _ in range(25):
        if game.is_terminal(state):
            state = game.initial_state(rng)
        fs = fe.pack(state)
        for i, hand in enumerate(state.hands):
            if not hand:
                continue
            want = plain_greedy(sim, hand, state.robots[i], state.registers[i], game.numbering)
            got = fp.greedy(fs, i, hand)
            k = min(free_registers(state.robots[i].damage), len(hand))
            assert tuple(got[:k].tolist()) == tuple(want), (board, i, hand)
            compared += 1
        progs = []
        for i, hand in enumerate(state.hands):
            options = fe.reduced_programs(hand, min(free_registers(state.robots[i].damage), len(hand))) if hand \
                else np.zeros((1, REGISTERS), np.int32)
            progs.append(options[rng.integers(len(options))])
        state = game.execute_turn(state, progs)
    assert compared >= 25


def test_world_deals_only_unseen_cards_and_programs_from_them():
    game, fe, fp, state = _setup(n=4)
    fs = fe.pack(state)
    unseen = np.array([c for c in range(1, NUM_CARDS + 1) if c not in state.hands[0]], np.int32)
    rng = np.zeros(1, np.uint64)
    rng_seed(rng, 5, 0)
    deck = np.zeros(NUM_CARDS, np.int32)
    meta = fs.meta.copy()
    programs = np.zeros((4, REGISTERS), np.int64)
    hands = sample_world(fe.board, fs.robots, fs.registers, 0, unseen, np.array([9, 9, 9, 9]), 0, rng, deck, meta,
                         programs)
    assert not hands[0].any() and not programs[0].any()
    dealt = hands[1:].ravel().tolist()
    assert len(set(dealt)) == 27 and set(dealt) <= set(unseen.tolist())
    assert sorted(dealt + deck[:meta[2]].tolist()) == sorted(unseen.tolist())
    for i in (1, 2, 3):
        assert set(programs[i].tolist()) <= set(hands[i].tolist()) and programs[i].all()


def test_depth_one_playout_value_equals_the_plain_turn_when_opponents_have_no_cards():
    game, fe, fp, state = _setup(board="race_medium", n=3)
    value = DefaultValue(SoloSimulator(game))
    fs = fe.pack(state)
    hand = state.hands[0]
    cands = fe.reduced_programs(hand, 5)[::97]
    unseen = [c for c in range(1, NUM_CARDS + 1) if c not in hand]
    mean, var = fp.playouts(fs, 0, cands, unseen, [0, 0, 0], depth=1, n_per_candidate=3, seed=9)
    for p, cards in enumerate(cands):
        after = game.execute_turn(state, [cards, (), ()])
        assert mean[p] == pytest.approx(value.state(after, 0, state.robots[0].lives))
        assert var[p] == pytest.approx(0.0)


@pytest.mark.parametrize("policy,depth", [("random", 1), ("random", 3), ("greedy", 2)])
def test_playouts_use_common_random_numbers(policy, depth):
    game, fe, fp, state = _setup(board="race_easy", n=4, seed=3)
    fs = fe.pack(state)
    hand = state.hands[1]
    cands = fe.reduced_programs(hand, 5)[:40:3]
    unseen = [c for c in range(1, NUM_CARDS + 1) if c not in hand]
    args = dict(depth=depth, n_per_candidate=6, policy=policy, seed=11)
    mean, var = fp.playouts(fs, 1, cands, unseen, [9, 9, 9, 9], **args)
    again = fp.playouts(fs, 1, cands[::-1], unseen, [9, 9, 9, 9], **args)
    # Each candidate meets the same worlds whatever the others are: the results only move with the order.
    assert np.array_equal(mean, again[0][::-1]) and np.array_equal(var, again[1][::-1])
    other = fp.playouts(fs, 1, cands, unseen, [9, 9, 9, 9], **{**args, "seed": 12})
    assert not np.array_equal(mean, other[0])
    assert np.all(var >= 0) and np.all(np.abs(mean) <= 10_000)


def test_bad_options_raise():
    game, fe, fp, state = _setup()
    fs = fe.pack(state)
    with pytest.raises(ValueError, match="policy must be one of"):
        fp.playouts(fs, 0, np.zeros((1, 5)), [1], [9, 9], policy="smart")
    with pytest.raises(ValueError, match="eval must be one of"):
        fp.playouts(fs, 0, np.zeros((1, 5)), [1], [9, 9], eval="best")
    with pytest.raises(ValueError, match="needs the table"):
        fp.playouts(fs, 0, np.zeros((1, 5)), [1], [9, 9], eval="turns")


@pytest.mark.slow  # builds the expected-turns table of a board
def test_turns_evaluation_equals_the_plain_turns_value():
    from agents.roborally.mc import TurnsValue

    game, fe, _, state = _setup(board="tiny", n=2, seed=4)
    value = TurnsValue(SoloSimulator(game))
    fp = FastPlayouts(fe, value.table[:len(game.board.flags)])
    hand = state.hands[0]
    cands = fe.reduced_programs(hand, 5)[::53]
    unseen = [c for c in range(1, NUM_CARDS + 1) if c not in hand]
    mean, _ = fp.playouts(fe.pack(state), 0, cands, unseen, [0, 0], depth=1, n_per_candidate=2, eval="turns")
    for p, cards in enumerate(cands):
        after = game.execute_turn(state, [cards, ()])
        assert mean[p] == pytest.approx(value.state(after, 0, state.robots[0].lives))


def test_playouts_on_a_board_without_flags(tmp_path):
    path = tmp_path / "flagless.rrb"
    path.write_text("name: flagless\nsize: 4 3\ngrid:\n.   .   .   .\n.   X   .   .\nS1N S2N .   .\n")
    game = RoboRallyGame(Config(board=str(path)))
    fe = FastEngine(game)
    state = game.initial_state(np.random.default_rng(0))
    hand = state.hands[0]
    cands = fe.reduced_programs(hand, 5)[:20]
    unseen = [c for c in range(1, NUM_CARDS + 1) if c not in hand]
    mean, _ = FastPlayouts(fe).playouts(fe.pack(state), 0, cands, unseen, [0, 0], depth=1, n_per_candidate=2)
    lives = state.robots[0].lives
    for p, cards in enumerate(cands):
        r = game.execute_turn(state, [cards, ()]).robots[0]
        # No flag to measure: v̂ is the spec's damage and lives terms only (the loss once eliminated).
        want = -10_000 if r.eliminated else -2.0 * r.damage - 50.0 * (lives - r.lives)
        assert mean[p] == want
