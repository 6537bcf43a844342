"""The retrograde version-1 solver against full-tree minimax, the reference solver and the search."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from test_primi_composti_alphabeta_v1 import random_positions
from test_primi_composti_reference import full_minimax

from agents.primi_composti.solvers import (
    AlphaBetaV1,
    ReferenceSolver,
    RetrogradeV1,
    card_values,
    make_solver,
    solve_deal,
    state_value,
)
from envs.primi_composti import fast
from envs.primi_composti.rules import Config, PrimiCompostiGame, is_prime

DATA = Path(__file__).resolve().parents[4] / "tests" / "data" / "primi_composti_solve_v1_12cards.json"


def test_equals_full_minimax():
    rng = np.random.default_rng(21)
    retro = RetrogradeV1()
    for k in (1, 2, 3, 4):
        game = PrimiCompostiGame(Config(version=1, cards_per_player=k))
        for s in random_positions(game, rng, 20, 2 * k - 1):
            assert state_value(game, s, retro) == full_minimax(game, s)


@pytest.mark.parametrize("k", [5, 6, 7])
def test_equals_reference_solver_on_deals_and_midgame_positions(k):
    game = PrimiCompostiGame(Config(version=1, cards_per_player=k))
    rng = np.random.default_rng(100 + k)
    ref = ReferenceSolver(1, tt_bits=18)
    retro = RetrogradeV1()
    for d in fast.random_decks(rng, 12, k):
        s = game.deal(d)
        assert solve_deal(game, s, retro).value == solve_deal(game, s, ref).value
    # Mid-game positions (tops that are no longer hand cards, either seat to move):
    # every card's value, from one pass, against the reference solver's child by child.
    for s in random_positions(game, rng, 12, 2 * k - 2):
        assert card_values(game, s, retro) == card_values(game, s, ref)


def test_two_threads_give_the_same_values():
    game = PrimiCompostiGame(Config(version=1, cards_per_player=8))
    one, two = RetrogradeV1(), RetrogradeV1(threads=2)
    for d in fast.random_decks(np.random.default_rng(8), 6, 8):
        s = game.deal(d)
        assert card_values(game, s, two) == card_values(game, s, one)


def test_counts_the_positions_it_evaluates():
    game = PrimiCompostiGame(Config(version=1, cards_per_player=6))
    s = game.deal(fast.random_decks(np.random.default_rng(1), 1, 6)[0])
    r = solve_deal(game, s, RetrogradeV1())
    assert r.nodes > 6 * 6  # every state of every layer, far more than one line of play


def test_positions_off_the_sequence_of_play_use_the_search():
    # The mover holds two more cards than the opponent: not a position of alternating play.
    hands = ((2, 5, 9), (3,))
    stacks = ((7,), (4,), (), ())
    retro, search = RetrogradeV1(), AlphaBetaV1(tt_bits=12)
    assert retro.value(hands, stacks, 0) == search.value(hands, stacks, 0)
    assert retro.nodes > 0


def test_bad_options_are_refused():
    with pytest.raises(ValueError, match="threads must be 1 or 2"):
        RetrogradeV1(threads=3)
    with pytest.raises(ValueError, match="cards must be 2"):
        RetrogradeV1().value(((2, 99), (3, 4)), ((), (), (), ()), 0)
    with pytest.raises(ValueError, match="mover must be 0 or 1"):
        RetrogradeV1().value(((2,), (3,)), ((), (), (), ()), 2)


def test_make_solver_picks_it_for_version_1():
    assert isinstance(make_solver(1), RetrogradeV1)
    assert make_solver(1, threads=2).threads == 2


def test_full_deals_agree_with_the_stored_search_study():
    """The first full 12-card deals of the stored v1 study (solved by the alpha-beta search)."""
    study = json.loads(DATA.read_text())
    game = PrimiCompostiGame(Config(version=1, cards_per_player=12))
    decks = fast.random_decks(np.random.default_rng(study["seed"]), 2, 12)
    retro = RetrogradeV1()
    for d, rec in zip(decks, study["per_deal"]):
        assert solve_deal(game, game.deal(d), retro).value == rec["value"]


def test_a_whole_game_is_answered_from_one_pass():
    """Later positions of the same deal are lookups in the kept pass, and equal fresh solves."""
    game = PrimiCompostiGame(Config(version=1, cards_per_player=7))
    rng = np.random.default_rng(3)
    ref = ReferenceSolver(1, tt_bits=18)
    for d in fast.random_decks(rng, 4, 7):
        retro = RetrogradeV1()
        s = game.deal(d)
        state_value(game, s, retro)
        after_root = retro.nodes
        while not game.is_terminal(s):
            assert card_values(game, s, retro) == card_values(game, s, ref)
            assert state_value(game, s, retro) == state_value(game, s, ref)
            la = game.legal_actions(s)
            s = game.apply(s, la[int(rng.integers(len(la)))])
        assert retro.nodes == after_root  # nothing solved again
        retro.clear()
        state_value(game, game.deal(d), retro)
        assert retro.nodes == 2 * after_root  # cleared: solved from scratch


def test_positions_the_kept_pass_cannot_answer_are_solved_afresh():
    game = PrimiCompostiGame(Config(version=1, cards_per_player=6))
    rng = np.random.default_rng(4)
    ref = ReferenceSolver(1, tt_bits=16)
    retro = RetrogradeV1()
    d1, d2 = fast.random_decks(rng, 2, 6)
    assert state_value(game, game.deal(d1), retro) == state_value(game, game.deal(d1), ref)
    assert state_value(game, game.deal(d2), retro) == state_value(game, game.deal(d2), ref)  # another deal
    # Two plies into deal 2, move the card seat 1 played onto seat 0's stack of its type:
    # seat 0 now shows a top it never held, so the kept pass (rooted at the deal) has no
    # such state and the position must be solved afresh.
    s = game.deal(d2)
    for _ in range(2):
        s = game.apply(s, game.legal_actions(s)[0])
    y_stack = next(i for i in (2, 3) if s.stacks[i])
    y = s.stacks[y_stack][-1]
    stacks = list(s.stacks)
    stacks[y_stack] = stacks[y_stack][:-1]
    stacks[y_stack - 2] = stacks[y_stack - 2] + (y,)
    assert retro._lookup(s.hands, tuple(stacks), 0) is None
    before = retro.nodes
    assert retro.value(s.hands, tuple(stacks), 0) == ref.value(s.hands, tuple(stacks), 0)
    assert retro.nodes > before


def test_it_evaluates_every_position_of_the_game_graph_once():
    """The retrograde pass evaluates exactly the deal's distinct positions, less the
    final ones (value 0: one for each pair of final tops, i.e. each player's last
    prime and last composite)."""
    from evaluate.primi_composti.positions import count_positions

    game = PrimiCompostiGame(Config(version=1, cards_per_player=4))
    for d in fast.random_decks(np.random.default_rng(9), 5, 4):
        s = game.deal(d)
        r = solve_deal(game, s, RetrogradeV1())
        full, reduced = count_positions(game, s)
        ends = 1
        for hand in s.hands:
            primes = sum(is_prime(c) for c in hand)
            ends *= max(primes, 1) * max(len(hand) - primes, 1)
        assert full == reduced == r.nodes + ends


def test_positions_cli(capsys):
    from evaluate.primi_composti.positions import main

    assert main(["--cards", "3", "--deals", "2"]) == 0
    out = capsys.readouterr().out
    assert "version 1, 3 cards each, 2 deals" in out and "version 2" in out
    with pytest.raises(SystemExit):
        main(["--cards", "9"])


@pytest.mark.parametrize("shape", [(8, 8), (16, 808), (264, 72), (520, 264)])
def test_word_wise_transposes_equal_numpys(shape):
    from agents.primi_composti.solvers.retrograde_v1 import _transpose, _transpose_parallel

    a = np.random.default_rng(sum(shape)).integers(-128, 128, size=shape).astype(np.int8)
    for transpose in (_transpose, _transpose_parallel):
        t = np.full(shape[::-1], 7, dtype=np.int8)
        transpose(a, t)
        assert np.array_equal(t, a.T)
