"""Rule unit tests for L.A.M.A. ("L.A.M.A. — rules specification" §2–§3)."""

from __future__ import annotations

import numpy as np
import pytest

from envs.core.game import IllegalActionError
from envs.core.options import parse_options
from envs.lama.rules import (
    DRAW,
    LLAMA,
    PRESETS,
    QUIT,
    Config,
    LamaGame,
    State,
    hand_points,
    next_card,
    shuffle_key,
    shuffled,
)


def counts(*cards: int) -> tuple[int, ...]:
    h = [0] * 7
    for c in cards:
        h[c] += 1
    return tuple(h)


def make_state(
    game: LamaGame, hands, discard=(3,), draw_pile=(1, 2, 3), current=0, active=None, totals=None, **kw
) -> State:
    n = game.num_players
    return State(
        seed=kw.pop("seed", 12345),
        round=kw.pop("round", 0),
        reshuffles=kw.pop("reshuffles", 0),
        hands=tuple(counts(*h) for h in hands),
        draw_pile=tuple(draw_pile),
        discard=tuple(discard),
        stock=kw.pop("stock", (8,) * 7),
        active=tuple(active) if active is not None else (True,) * n,
        current=current,
        starter=kw.pop("starter", 0),
        totals=tuple(totals) if totals is not None else (0,) * n,
        rounds_won=(0,) * n,
        last_scores=(0,) * n,
    )


# --- options ----------------------------------------------------------------------------
def test_presets_fill_every_switch():
    for rules, preset in PRESETS.items():
        c = Config(rules=rules)
        for k, v in preset.items():
            assert getattr(c, k) == v


def test_explicit_options_override_preset():
    c = Config(rules="seed2022", scoring="distinct", empty_deck="reshuffle", target_points=5000)
    assert (c.scoring, c.empty_deck, c.target_points) == ("distinct", "reshuffle", 5000)
    assert c.return_chip is False and c.round_starter == "player0"
    c = Config(rules="official", return_chip=False, last_player_continues=False)
    assert c.return_chip is False and c.last_player_continues is False and c.scoring == "distinct"


@pytest.mark.parametrize(
    "opts",
    [
        dict(num_players=1),
        dict(num_players=7),
        dict(num_players=9, rules="seed2022"),
        dict(num_players=2.0),
        dict(rules="house"),
        dict(scoring="max"),
        dict(empty_deck="refill"),
        dict(round_starter="youngest"),
        dict(return_chip="yes"),
        dict(last_player_continues=1),
        dict(target_points=0),
        dict(target_points=True),
        dict(reward="score"),
    ],
)
def test_bad_options_raise(opts):
    with pytest.raises(ValueError):
        Config(**opts)


def test_player_ranges_per_preset():
    assert Config(num_players=6).num_players == 6
    assert Config(num_players=8, rules="seed2022").num_players == 8
    with pytest.raises(ValueError, match="2..6"):
        Config(num_players=8)


def test_cli_options_parse_to_types():
    opts = parse_options(Config, ["rules=seed2022", "num_players=5", "return_chip=true", "empty_deck=reshuffle"])
    assert opts == {"rules": "seed2022", "num_players": 5, "return_chip": True, "empty_deck": "reshuffle"}
    assert Config(**opts).return_chip is True


# --- deal ---------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 4, 6])
def test_deal(n):
    g = LamaGame(Config(num_players=n))
    s = g.initial_state(np.random.default_rng(n))
    assert all(sum(h) == 6 for h in s.hands)
    assert len(s.discard) == 1 and len(s.draw_pile) == 56 - 1 - 6 * n
    total = np.zeros(7, int)
    for h in s.hands:
        total += h
    total += np.bincount(s.draw_pile + s.discard, minlength=7)
    assert total.tolist() == [8] * 7
    assert s.current == 0 and all(s.active)


def test_shuffle_is_a_permutation_and_depends_on_key():
    deck = [v for v in range(7) for _ in range(8)]
    a = shuffled(deck, shuffle_key(1, 0, 0))
    b = shuffled(deck, shuffle_key(1, 1, 0))
    assert sorted(a) == deck and sorted(b) == deck and a != b
    assert a == shuffled(deck, shuffle_key(1, 0, 0))


def test_same_seed_same_game():
    g = LamaGame(Config(rules="seed2022"))
    assert g.initial_state(np.random.default_rng(7)) == g.initial_state(np.random.default_rng(7))


# --- legal moves ---------------------------------------------------------------------------
def test_next_card_cycle():
    assert [next_card(v) for v in range(7)] == [1, 2, 3, 4, 5, 6, LLAMA]


@pytest.mark.parametrize(
    "top,hand,plays",
    [
        (3, (3, 4, 5, 1), [3, 4]),
        (3, (5, 6, LLAMA), []),
        (6, (6, LLAMA, 1), [LLAMA, 6]),
        (LLAMA, (LLAMA, 1, 2), [LLAMA, 1]),
        (LLAMA, (6, 2), []),
        (5, (6, 6), [6]),
    ],
)
def test_same_or_next(top, hand, plays):
    g = LamaGame(Config())
    s = make_state(g, [hand, (1,), (1,), (1,)], discard=(top,))
    la = g.legal_actions(s)
    assert [a for a in la if a < 7] == plays
    assert DRAW in la and QUIT in la


def test_illegal_actions_raise_naming_action_and_seat():
    g = LamaGame(Config())
    s = make_state(g, [(1,), (5, 5), (1,), (1,)], discard=(3,), current=1)
    for a in (5, 2, 9, -1, "draw", None):
        with pytest.raises(IllegalActionError) as e:
            g.apply(s, a)
        assert e.value.seat == 1 and e.value.action == a
        assert "player_1" in str(e.value)


def test_apply_does_not_mutate():
    g = LamaGame(Config())
    s = g.initial_state(np.random.default_rng(0))
    before = (s.hands, s.draw_pile, s.discard)
    g.apply(s, DRAW)
    assert (s.hands, s.draw_pile, s.discard) == before


# --- drawing -------------------------------------------------------------------------------
def test_draw_takes_top_of_draw_pile_and_passes_turn():
    g = LamaGame(Config())
    s = make_state(g, [(1,), (2,), (2,), (2,)], discard=(4,), draw_pile=(5, 6))
    t = g.apply(s, DRAW)
    assert t.hands[0] == counts(1, 6) and t.draw_pile == (5,) and t.current == 1


def test_official_no_draw_from_empty_pile():
    g = LamaGame(Config(rules="official"))
    s = make_state(g, [(1,), (2,), (2,), (2,)], discard=(4, 5, 4), draw_pile=())
    assert DRAW not in g.legal_actions(s)
    with pytest.raises(IllegalActionError):
        g.apply(s, DRAW)


def test_official_last_player_cannot_draw_and_continues():
    g = LamaGame(Config(rules="official"))
    s = make_state(g, [(1,), (4, 4), (2,), (2,)], discard=(4,), active=(True, True, False, False), current=0)
    t = g.apply(s, QUIT)
    assert t.round == 0 and t.current == 1 and sum(t.active) == 1
    assert g.legal_actions(t) == (4, QUIT)
    t = g.apply(t, 4)
    t = g.apply(t, 4)  # empties the hand: round ends, seat 1 starts the next
    assert t.round == 1 and t.starter == 1 and t.current == 1


def test_seed_round_ends_when_one_player_left():
    g = LamaGame(Config(rules="seed2022"))
    s = make_state(g, [(1,), (4, 4), (2, 3), (2,)], discard=(4,), active=(True, True, True, False), current=2)
    t = g.apply(s, QUIT)
    assert t.round == 0 and sum(t.active) == 2
    t = g.apply(t, QUIT)  # seat 0 quits; seat 1 is the only one left
    assert t.round == 1 and t.rounds_won == (0, 1, 0, 0)
    # sum_all scoring of every hand, quit or not; seat 0 starts again (player0)
    assert t.totals == (1, 8, 5, 2) and t.current == 0


def test_reshuffle_keeps_top_card():
    g = LamaGame(Config(rules="official", empty_deck="reshuffle"))
    s = make_state(g, [(1,), (2,), (2,), (2,)], discard=(1, 2, 3, 4), draw_pile=())
    t = g.apply(s, DRAW)
    assert t.discard == (4,) and t.reshuffles == 1 and len(t.draw_pile) == 2
    drawn = [v for v in range(7) if t.hands[0][v] > s.hands[0][v]]
    assert sorted(list(t.draw_pile) + drawn) == [1, 2, 3]
    assert t.stock == s.stock


def test_seed_reshuffle_quirk_restarts_pile_from_llama():
    """Class_Table.shuffleDeck: the pile below the top becomes the draw pile, the top
    card is lost and the discard pile is a single llama."""
    g = LamaGame(Config(rules="seed2022"))
    s = make_state(g, [(1,), (2,), (2,), (2,)], discard=(1, 2, 3, 4), draw_pile=())
    t = g.apply(s, DRAW)
    assert t.discard == (LLAMA,) and t.reshuffles == 1
    expect = shuffled([1, 2, 3], shuffle_key(s.seed, s.round, 1))
    assert t.draw_pile == tuple(expect[:-1]) and t.hands[0] == counts(1, expect[-1])
    assert t.stock[4] == 7 and t.stock[LLAMA] == 9
    # the player after can now play a llama or a 1 on the phantom llama
    assert 1 in g.legal_actions(t._replace(hands=(counts(1),) * 4))


def test_reshuffle_impossible_with_single_discard():
    for rules in ("seed2022", "official"):
        g = LamaGame(Config(rules=rules, empty_deck="reshuffle_seed"))
        s = make_state(g, [(1,), (2,), (2,), (2,)], discard=(4,), draw_pile=())
        assert DRAW not in g.legal_actions(s)


# --- scoring and end of round / game --------------------------------------------------------
def test_hand_points():
    h = counts(3, 3, 5, LLAMA)
    assert hand_points(h, "sum_all") == 21
    assert hand_points(h, "distinct") == 18
    assert hand_points(counts(5, 5, 5), "distinct") == 5
    assert hand_points(counts(LLAMA, LLAMA), "distinct") == 10
    assert hand_points(counts(LLAMA, LLAMA), "sum_all") == 20
    assert hand_points(counts(*range(7)), "distinct") == 31


def test_official_round_end_scoring_and_chip_return():
    g = LamaGame(Config(rules="official"))
    s = make_state(g, [(4,), (6, 6, LLAMA), (2, 2), (1, 3)], discard=(4,), totals=(15, 3, 0, 0), current=0)
    t = g.apply(s, 4)
    # seat 0 emptied: returns a black chip (15 -> 5); others score distinct values
    assert t.totals == (5, 19, 2, 4) and t.round == 1 and t.starter == 0
    assert t.rounds_won == (1, 0, 0, 0) and t.last_scores == (0, 16, 2, 4)
    s = make_state(g, [(4,), (6,), (2,), (1,)], discard=(4,), totals=(7, 0, 0, 0))
    assert g.apply(s, 4).totals[0] == 6  # a white chip
    s = make_state(g, [(4,), (6,), (2,), (1,)], discard=(4,), totals=(0, 0, 0, 0))
    assert g.apply(s, 4).totals[0] == 0  # nothing to return


def test_official_all_quit_last_quitter_starts():
    g = LamaGame(Config(rules="official"))
    s = make_state(g, [(1,), (2,), (3,), (4, 5)], discard=(6,), active=(False, False, False, True), current=3)
    t = g.apply(s, QUIT)
    assert t.round == 1 and t.starter == 3 and t.current == 3 and t.rounds_won == (0, 0, 0, 0)
    assert t.totals == (1, 2, 3, 9)


def test_turn_skips_players_who_quit():
    g = LamaGame(Config(rules="official"))
    s = make_state(g, [(1,), (2,), (3,), (4, 5)], discard=(6,), active=(True, False, True, False), current=0)
    assert g.apply(s, DRAW).current == 2
    s = s._replace(current=2)
    assert g.apply(s, DRAW).current == 0


def test_game_ends_at_target_and_shared_wins():
    g = LamaGame(Config(rules="seed2022"))
    s = make_state(g, [(4,), (6, 6, LLAMA), (2,), (2,)], discard=(4,), totals=(9, 20, 9, 9))
    t = g.apply(s, 4)
    assert g.is_terminal(t) and t.totals == (9, 42, 11, 11)
    assert g.winners(t) == (0,) and g.returns(t) == (1.0, 0.0, 0.0, 0.0)
    assert g.legal_actions(t) == ()
    s = make_state(g, [(4,), (6, 6, LLAMA), (2,), (1,)], discard=(4,), totals=(10, 20, 8, 9))
    t = g.apply(s, 4)
    assert t.totals == (10, 42, 10, 10) and g.winners(t) == (0, 2, 3)
    assert g.returns(t) == (1.0, 0.0, 1.0, 1.0)
    with pytest.raises(IllegalActionError):
        g.apply(t, QUIT)


def test_dense_reward_is_minus_points():
    g = LamaGame(Config(rules="official", reward="dense"))
    s = make_state(g, [(4,), (6, 6, LLAMA), (2, 2), (1, 3)], discard=(4,), totals=(15, 3, 0, 0))
    assert g.returns(g.apply(s, 4)) == (-5.0, -19.0, -2.0, -4.0)


def test_target_points_option():
    g = LamaGame(Config(rules="seed2022", target_points=100))
    s = make_state(g, [(4,), (6, 6, LLAMA), (2,), (2,)], discard=(4,), totals=(9, 20, 9, 9))
    assert not g.is_terminal(g.apply(s, 4))


def test_render_mentions_every_player():
    g = LamaGame(Config(num_players=3))
    text = g.render(g.initial_state(np.random.default_rng(1)))
    assert all(f"player_{i}" in text for i in range(3)) and "top" in text


def test_engine_views_equal_plain_dataclass_views():
    # view() skips the dataclass __init__ for speed: it must still be an ordinary,
    # equal and equally hashed View.
    import dataclasses

    from envs.lama.rules import View

    g = LamaGame(Config(num_players=3))
    s = g.initial_state(np.random.default_rng(4))
    v = g.view(s, 1)
    w = View(**{f.name: getattr(v, f.name) for f in dataclasses.fields(View)})
    assert v == w and hash(v) == hash(w) and repr(v) == repr(w)
    assert v != g.view(s, 2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        v.seat = 0
    m = g.legal_mask(s)
    m[:] = 0
    assert g.legal_mask(s).sum() == len(g.legal_actions(s))  # a fresh array each call


def test_ender_starts_when_round_ends_with_one_left():
    # round_starter="ender" with last_player_continues=False: the seat whose quit
    # ended the round (the last to take a turn) starts the next one.
    g = LamaGame(Config(rules="seed2022", round_starter="ender"))
    s = make_state(g, [(1,), (4, 4), (2, 3), (2,)], discard=(4,), active=(False, True, True, False), current=2)
    t = g.apply(s, QUIT)
    assert t.round == 1 and t.starter == 2 and t.current == 2 and t.rounds_won == (0, 1, 0, 0)
