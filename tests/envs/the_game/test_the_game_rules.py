"""Rule unit tests for The Game ("The Game — rules specification" §2 and §4)."""

from __future__ import annotations

import numpy as np
import pytest

from envs.core.game import IllegalActionError, winners
from envs.the_game.rules import (
    END_TURN,
    FLAG_HOLD,
    FLAG_NONE,
    FLAG_OK,
    NUM_ACTIONS,
    Config,
    State,
    TheGame,
    decode_play,
    fits,
    flag_action,
    play_action,
)

START = ((1,), (1,), (100,), (100,))


def make_state(game: TheGame, hands, deck=(), piles=START, player=0, played=0, placed=None) -> State:
    """A hand-built state; `placed` defaults to the cards on the piles."""
    if placed is None:
        placed = sum(len(p) - 1 for p in piles)
    flags = tuple((0, 0, 0, 0) for _ in range(game.num_players))
    return game._settle(State(tuple(piles), tuple(map(tuple, hands)), tuple(deck), player, played, placed,
                              flags=flags))


# --- set-up -------------------------------------------------------------------------------
@pytest.mark.parametrize("n,hand,deck", [(1, 8, 90), (2, 7, 84), (3, 6, 80), (4, 6, 74), (5, 6, 68)])
def test_deal_hand_and_draw_pile_sizes(n, hand, deck):
    g = TheGame(Config(num_players=n))
    s = g.initial_state(np.random.default_rng(n))
    assert [len(h) for h in s.hands] == [hand] * n
    assert len(s.deck) == deck
    assert s.piles == START
    assert sorted(sum(s.hands, ()) + s.deck) == list(range(2, 100))


def test_deal_follows_the_seed_order():
    """Each round every seat takes the last card of the shuffled deck (rules doc §4 'deal')."""
    g = TheGame(Config(num_players=3, rules="berger2024"))
    s = g.initial_state(np.random.default_rng(5))
    order = [int(x) for x in np.random.default_rng(5).permutation(np.arange(2, 100))]
    deck = list(order)
    hands = [[], [], []]
    for _ in range(6):
        for h in hands:
            h.append(deck.pop())
    assert s.hands == tuple(map(tuple, hands)) and s.deck == tuple(deck)


def test_action_codec_round_trips():
    ids = {play_action(c, p) for c in range(2, 100) for p in range(4)}
    assert ids == set(range(392))
    assert all(decode_play(play_action(c, p)) == (c, p) for c in range(2, 100) for p in range(4))
    assert END_TURN == 392 and flag_action(3, FLAG_OK) == NUM_ACTIONS - 1


# --- placing cards ---------------------------------------------------------------------------
def test_ascending_and_descending_with_backwards_trick():
    # ascending pile, top 30: higher cards, or exactly 10 lower (the trick, official rules only)
    assert fits(40, 0, 30, True) and not fits(30, 0, 30, True) and not fits(25, 0, 30, True)
    assert fits(20, 0, 30, True) and not fits(20, 0, 30, False)
    # descending pile, top 30: lower cards, or exactly 10 higher
    assert fits(20, 2, 30, True) and not fits(31, 2, 30, True) and not fits(35, 2, 30, True)
    assert fits(40, 3, 30, True) and not fits(40, 3, 30, False)


def test_legal_actions_follow_the_piles():
    g = TheGame(Config(num_players=1))
    piles = ((1, 30), (1, 50), (100, 70), (100, 60))
    s = make_state(g, [[20, 35, 55, 80, 65, 40, 45, 90]], deck=(2, 3, 4), piles=piles)
    legal = set(g.legal_actions(s))
    expect = {play_action(c, p) for c in [20, 35, 55, 80, 65, 40, 45, 90] for p in range(4)
              if fits(c, p, piles[p][-1], True)}
    assert legal == expect
    assert play_action(20, 0) in legal  # backwards trick on up0 (30 - 10)
    assert play_action(40, 1) in legal  # backwards trick on up1 (50 - 10)
    assert play_action(80, 2) in legal  # backwards trick on down0 (70 + 10)
    assert END_TURN not in legal  # minimum 2 not yet met


def test_minimum_two_then_end_turn_and_refill():
    g = TheGame(Config(num_players=2))
    s = g.initial_state(np.random.default_rng(0))
    hand = s.hands[0]
    with pytest.raises(IllegalActionError, match="player_0"):
        g.apply(s, END_TURN)
    lo = sorted(hand)
    s1 = g.apply(s, play_action(lo[0], 0))
    assert END_TURN not in g.legal_actions(s1) and s1.player == 0 and s1.played_this_turn == 1
    s2 = g.apply(s1, play_action(lo[1], 0))
    assert END_TURN in g.legal_actions(s2)
    s3 = g.apply(s2, play_action(lo[2], 0))  # more than the minimum is allowed
    s4 = g.apply(s3, END_TURN)
    assert s4.player == 1 and s4.played_this_turn == 0
    assert len(s4.hands[0]) == 7 and len(s4.deck) == len(s.deck) - 3
    assert set(s4.hands[0]) == (set(hand) - set(lo[:3])) | set(s.deck[-3:])


def test_min_cards_per_turn_three_variant():
    g = TheGame(Config(num_players=3, min_cards_per_turn=3))
    s = g.initial_state(np.random.default_rng(1))
    lo = sorted(s.hands[0])
    for k in range(2):
        s = g.apply(s, play_action(lo[k], 0))
        assert END_TURN not in g.legal_actions(s)
    s = g.apply(s, play_action(lo[2], 0))
    assert END_TURN in g.legal_actions(s)


def test_minimum_is_one_once_the_draw_pile_is_empty_and_empty_hands_are_skipped():
    g = TheGame(Config(num_players=3))
    piles = ((1, 10), (1, 20), (100, 90), (100, 80))
    s = make_state(g, [[30], [], [40, 50]], deck=(), piles=piles, placed=93)
    assert g.required(s) == 1
    s = g.apply(s, play_action(30, 0))
    assert END_TURN in g.legal_actions(s)
    s = g.apply(s, END_TURN)
    assert s.player == 2  # player 1 has no cards: skipped
    assert len(s.hands[0]) == 0  # nobody draws from an empty pile


def test_empty_hand_ends_game_reading_ends_at_the_empty_seat():
    """R. Weinmeister's reading (`empty_hand="ends_game"`): the turn comes to the seat with no cards,
    which cannot play the one card owed, so the game ends with the other hands' cards left."""
    g = TheGame(Config(num_players=3, empty_hand="ends_game"))
    piles = ((1, 10), (1, 20), (100, 90), (100, 80))
    s = make_state(g, [[30], [], [40, 50]], deck=(), piles=piles, placed=95)
    s = g.apply(s, play_action(30, 0))
    assert not s.over  # the seat that plays its last card finishes its turn normally
    s = g.apply(s, END_TURN)
    assert s.player == 1 and s.over and not s.won
    assert s.cards_left == 2 and g.legal_actions(s) == () and winners(g, s) == ()


def test_empty_hand_ends_game_reading_still_wins_when_the_last_card_is_placed():
    g = TheGame(Config(num_players=2, empty_hand="ends_game"))
    piles = ((1, 50), (1, 60), (100, 40), (100, 30))
    s = make_state(g, [[99], []], deck=(), piles=piles, placed=97)
    s = g.apply(s, play_action(99, 0))
    assert s.over and s.won and winners(g, s) == (0, 1)


def test_game_ends_when_the_minimum_cannot_be_met_and_placed_cards_count():
    g = TheGame(Config(num_players=1))
    piles = ((1, 60), (1, 70), (100, 38), (100, 39))
    # 61 fits up0; after it nothing else fits: the second (required) card cannot be played.
    s = make_state(g, [[61, 40, 41, 42, 43, 44, 45, 46]], deck=(50, 51), piles=piles)
    assert not s.over
    s = g.apply(s, play_action(61, 0))
    assert s.over and not s.won and s.placed == 5
    assert g.legal_actions(s) == ()
    assert s.cards_left == 93 and g.returns(s) == (5.0,)
    assert winners(g, s) == ()
    with pytest.raises(IllegalActionError, match="over"):
        g.apply(s, END_TURN)


def test_stuck_at_turn_start_ends_the_game_immediately():
    g = TheGame(Config(num_players=2))
    piles = ((1, 98), (1, 97), (100, 3), (100, 4))
    s = make_state(g, [[50, 51, 52, 53, 54, 55, 56], [60, 61, 62, 63, 64, 65, 66]], deck=tuple(range(5, 9)),
                   piles=piles)
    assert s.over and s.cards_left == 98 - 4


def test_win_gives_every_seat_the_bonus_and_all_seats_win():
    g = TheGame(Config(num_players=2, win_bonus=7))
    piles = ((1, 50), (1, 60), (100, 40), (100, 30))
    s = make_state(g, [[99], []], deck=(), piles=piles, placed=97)
    s = g.apply(s, play_action(99, 0))
    assert s.over and s.won and s.cards_left == 0
    assert g.returns(s) == (98 + 7.0, 98 + 7.0)
    assert winners(g, s) == (0, 1)


def test_card_reward_zero_leaves_the_won_game_alone():
    g = TheGame(Config(num_players=2, win_bonus=1, card_reward=0))
    piles = ((1, 50), (1, 60), (100, 40), (100, 30))
    s = make_state(g, [[99], []], deck=(), piles=piles, placed=97)
    assert g.returns(s) == (0.0, 0.0)
    assert g.returns(g.apply(s, play_action(99, 0))) == (1.0, 1.0)
    assert TheGame(Config(card_reward=0.5)).returns(s) == (48.5, 48.5)


def test_apply_never_mutates_and_illegal_play_names_action_and_seat():
    g = TheGame(Config(num_players=2))
    s = g.initial_state(np.random.default_rng(3))
    copy = State(s.piles, s.hands, s.deck, s.player, s.played_this_turn, s.placed, s.over, s.failed, s.flags,
                 s.flags_set)
    not_held = next(c for c in range(2, 100) if c not in s.hands[0])
    with pytest.raises(IllegalActionError) as err:
        g.apply(s, play_action(not_held, 0))
    assert str(play_action(not_held, 0)) in str(err.value) and "player_0" in str(err.value)
    with pytest.raises(IllegalActionError, match="flags need"):
        g.apply(s, flag_action(0, FLAG_HOLD))
    with pytest.raises(IllegalActionError):
        g.apply(s, NUM_ACTIONS)
    g.apply(s, g.legal_actions(s)[0])
    assert s == copy


# --- communication ----------------------------------------------------------------------------
def test_pile_flags_once_per_pile_per_turn_and_cleared_at_next_turn():
    g = TheGame(Config(num_players=2, communication="pile_flags"))
    s = g.initial_state(np.random.default_rng(4))
    legal = g.legal_actions(s)
    assert flag_action(2, FLAG_HOLD) in legal and flag_action(2, FLAG_NONE) not in legal  # must change
    s = g.apply(s, flag_action(2, FLAG_HOLD))
    assert s.flags[0] == (0, 0, 1, 0)
    assert not any(flag_action(2, v) in g.legal_actions(s) for v in range(3))
    with pytest.raises(IllegalActionError, match="already set"):
        g.apply(s, flag_action(2, FLAG_OK))
    lo = sorted(s.hands[0])
    s = g.apply(g.apply(s, play_action(lo[0], 0)), play_action(lo[1], 0))
    s = g.apply(s, END_TURN)
    assert s.player == 1 and s.flags[0] == (0, 0, 1, 0)  # stays public during the partner's turn
    assert s.flags_set == 0
    hi1 = sorted(s.hands[1], reverse=True)
    s = g.apply(g.apply(s, play_action(hi1[0], 2)), play_action(hi1[1], 2))
    s = g.apply(s, END_TURN)
    assert s.player == 0 and s.flags[0] == (0, 0, 0, 0)  # cleared when player 0's turn starts


# --- berger2024 (the seed's engine) -------------------------------------------------------------
def test_berger_every_hand_card_on_every_pile_is_in_the_action_space():
    g = TheGame(Config(num_players=2, rules="berger2024"))
    s = g.initial_state(np.random.default_rng(0))
    assert g.legal_actions(s) == tuple(sorted(play_action(c, p) for c in s.hands[0] for p in range(4)))
    with pytest.raises(IllegalActionError):
        g.apply(s, END_TURN)


def test_berger_one_card_then_draw_then_next_seat():
    g = TheGame(Config(num_players=2, rules="berger2024"))
    s = g.initial_state(np.random.default_rng(0))
    c = min(s.hands[0])
    s1 = g.apply(s, play_action(c, 0))
    assert s1.player == 1 and s1.placed == 1 and s1.hands[0] == tuple(x for x in s.hands[0] if x != c) + (s.deck[-1],)


def test_berger_a_misfit_card_is_lost_and_ends_the_game():
    g = TheGame(Config(num_players=1, rules="berger2024"))
    piles = ((1, 30), (1, 50), (100, 70), (100, 60))
    s = make_state(g, [[20, 35, 55, 80, 65, 40, 45, 90]], deck=(2, 3, 4), piles=piles)
    s2 = g.apply(s, play_action(20, 0))  # a backwards trick is NOT legal in the seed's engine
    assert s2.over and s2.failed and s2.placed == 4 and 20 not in s2.hands[0] and s2.piles == piles
    assert g.returns(s2) == (4.0,) and winners(g, s2) == ()


def test_berger_stops_after_the_pass_in_which_the_deck_empties():
    g = TheGame(Config(num_players=3, rules="berger2024"))
    hands = [[10, 11, 12, 13, 14, 15], [20, 21, 22, 23, 24, 25], [30, 31, 32, 33, 34, 35]]
    s = make_state(g, hands, deck=(40,))
    s = g.apply(s, play_action(10, 0))  # draws the last card
    assert not s.over and s.deck == () and s.hands[0][-1] == 40
    s = g.apply(s, play_action(20, 0))  # the pass goes on without drawing
    assert not s.over and len(s.hands[1]) == 5
    s = g.apply(s, play_action(30, 0))
    assert s.over and not s.failed and s.placed == 3


def test_berger_lucky_deals_play_every_drawn_card_and_then_stop():
    """With cards that always fit, the seed's engine plays exactly the draw pile plus the rest of the
    last pass (rules doc §4: max = 98 − n·h + (n − 1) depending on where the pile runs out)."""
    g1 = TheGame(Config(num_players=1, rules="berger2024"))
    s = make_state(g1, [list(range(2, 10))], deck=tuple(range(99, 9, -1)))
    while not s.over:
        s = g1.apply(s, play_action(min(s.hands[0]), 0))
    assert s.placed == 90 and not s.failed and len(s.hands[0]) == 8
    # 3 players, 80 cards to draw: the pile runs out at seat 1's draw of pass 27, seat 2 still plays.
    g3 = TheGame(Config(num_players=3, rules="berger2024"))
    low = list(range(2, 100))
    hands = [low[0:6], low[6:12], low[12:18]]
    s = make_state(g3, hands, deck=tuple(reversed(low[18:])))
    while not s.over:
        s = g3.apply(s, play_action(min(s.hands[s.player]), 0) if s.player == 0 else
                     play_action(min(s.hands[s.player]), 0 if min(s.hands[s.player]) > s.piles[0][-1] else 1))
    assert s.placed <= 80 + 2


# --- options -------------------------------------------------------------------------------
@pytest.mark.parametrize("bad,match", [
    (dict(num_players=0), "num_players"), (dict(num_players=6), r"1\.\.5"),
    (dict(num_players=8, rules="berger2024"), r"1\.\.7"), (dict(rules="classic"), "rules"),
    (dict(communication="chat"), "communication"), (dict(min_cards_per_turn=0), "min_cards_per_turn"),
    (dict(min_cards_per_turn=9, num_players=2), "min_cards_per_turn"),
    (dict(rules="berger2024", min_cards_per_turn=2), "min_cards_per_turn"),
    (dict(rules="berger2024", communication="pile_flags"), "communication"),
    (dict(hand_size=0), "hand_size"), (dict(num_players=5, hand_size=20), "hand_size"),
    (dict(win_bonus=-1), "win_bonus"), (dict(card_reward=float("nan")), "card_reward"),
    (dict(starter=2, num_players=2), "starter"),
    (dict(empty_hand="pass"), r"empty_hand must be one of \('skip', 'ends_game'\)"),
    (dict(rules="berger2024", empty_hand="ends_game"), "empty_hand"),
])
def test_bad_options_raise_naming_the_range(bad, match):
    with pytest.raises(ValueError, match=match):
        Config(**bad)


def test_starter_option_and_seven_players_under_berger():
    g = TheGame(Config(num_players=3, starter=2))
    assert g.initial_state(np.random.default_rng(0)).player == 2
    g7 = TheGame(Config(num_players=7, rules="berger2024"))
    s = g7.initial_state(np.random.default_rng(0))
    assert len(s.hands) == 7 and len(s.deck) == 98 - 42


def test_render_and_action_names():
    g = TheGame(Config(num_players=2, communication="pile_flags"))
    s = g.initial_state(np.random.default_rng(0))
    assert "player_0" in g.render(s) and "cards left 98" in g.render(s)
    assert g.action_to_string(s, play_action(37, 2)) == "play 37 on down0"
    assert g.action_to_string(s, END_TURN) == "end turn"
    assert g.action_to_string(s, flag_action(1, FLAG_HOLD)) == "flag up1 please_hold"
