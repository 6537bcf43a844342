"""The Game agents: the seed's strategies exactly (berger2024), legality and determinism
under the official rules, and the behaviour the heuristics' docstrings promise."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import agents
from envs.core.game import legal_mask
from envs.the_game.rules import END_TURN, FLAG_BASE, FLAG_HOLD, Config, TheGame, View, flag_action, play_action

IDS = ["the_game/random", "the_game/minimal", "the_game/trick", "the_game/simplest", "the_game/bestplays"]


def view_of(hand, piles, *, played=0, required=2, seat=0, n=1, flags=None, flags_set=0, deck=50) -> View:
    return View(seat, tuple(hand), tuple(tuple(p) for p in piles), deck, (len(hand),) * n, seat, played, required,
                sum(len(p) - 1 for p in piles), False, False, flags or tuple((0, 0, 0, 0) for _ in range(n)), flags_set)


# --- the seed's strategies, re-stated from rules doc §4.1 (pile, hand index) ------------------------
def _strict(card, pile, top):
    return card > top if pile < 2 else card < top


def ref_random(piles, hand, rng):
    valid = [(p, i) for p in range(4) for i, c in enumerate(hand) if _strict(c, p, piles[p][-1])]
    return valid[int(rng.integers(len(valid)))] if valid else (0, 0)


def ref_minimal(piles, hand, rng):
    a, d = min(piles[0][-1], piles[1][-1]), max(piles[2][-1], piles[3][-1])
    lo, hi = sorted(hand)[0], sorted(hand)[-1]
    if abs(a - lo) < abs(d - hi):
        return (0 if piles[0][-1] == a else 1), hand.index(lo)
    return (2 if piles[2][-1] == d else 3), hand.index(hi)


def ref_trick(piles, hand, rng):
    cands = [(p, i) for p in range(4) for placed in piles[p] for i, c in enumerate(hand) if abs(placed - c) == 10]
    if cands:
        return cands[int(rng.integers(len(cands)))]
    for j in range(len(hand)):
        for k in range(j + 1, len(hand)):
            if abs(hand[j] - hand[k]) == 10:
                cands += [(p, hand.index(hand[j])) for p in range(3) if _strict(hand[j], p, piles[p][-1])]
    if cands:
        return cands[int(rng.integers(len(cands)))]
    return ref_random(piles, hand, rng)


REFS = {"random": ref_random, "minimal": ref_minimal, "trick": ref_trick}


@given(name=st.sampled_from(sorted(REFS)), n=st.integers(1, 7), seed=st.integers(0, 2**32 - 1))
def test_seed_strategies_match_the_restated_seed_exactly(name, n, seed):
    """Whole berger2024 games: at every turn the agent's move equals the restated seed function's."""
    game = TheGame(Config(num_players=n, rules="berger2024"))
    agent = agents.make(f"the_game/{name}", game, np.random.default_rng(seed))
    ref_rng = np.random.default_rng(seed)
    s = game.initial_state(np.random.default_rng(seed + 1))
    while not s.over:
        v = game.view(s, s.player)
        a = agent.act(v, legal_mask(game, s))
        p, i = REFS[name]([list(x) for x in v.piles], list(v.hand), ref_rng)
        assert a == play_action(v.hand[i], p)
        s = game.apply(s, a)


def test_seed_minimal_details():
    g = TheGame(Config(num_players=1, rules="berger2024"))
    m = agents.make("the_game/minimal", g, np.random.default_rng(0))
    piles = [(1, 20), (1, 10), (100, 80), (100, 90)]
    # a = 10 (pile 1), d = 90 (pile 3); |10 − 12| = 2 < |90 − 95| = 5 → 12 on pile 1
    assert m.act(view_of([50, 12, 95], piles), None) == play_action(12, 1)
    # equal distances go to the descending side (strict <)
    assert m.act(view_of([50, 15, 95], piles), None) == play_action(95, 3)
    # no fit check: 5 is below every ascending top, yet it is the choice (the game then ends)
    assert m.act(view_of([5, 60, 70], piles), None) == play_action(5, 1)


def test_seed_trick_details():
    g = TheGame(Config(num_players=1, rules="berger2024"))
    t = agents.make("the_game/trick", g, np.random.default_rng(0))
    # the start card counts: 11 is 10 away from the ascending piles' 1 (no fit check needed here)
    assert t.act(view_of([11, 50, 60], [(1,), (1,), (100,), (100,)]), None) in {play_action(11, 0), play_action(11, 1)}
    # step 2 skips pile 3: the pair (70, 80) has 70 fitting only pile 3, so there is no step-2
    # candidate (which would always be 70 on pile 3) and the choice is random among fitting plays
    piles = [(1, 95), (1, 96), (100, 65), (100, 85)]
    acts = {t.act(view_of([70, 80, 97], piles), None) for _ in range(40)}
    assert acts <= {play_action(97, 0), play_action(97, 1), play_action(70, 3), play_action(80, 3)}
    assert acts & {play_action(97, 0), play_action(97, 1)}  # misses with probability 2^-40


def test_seed_random_without_a_fitting_card_returns_pile_0_first_card():
    g = TheGame(Config(num_players=1, rules="berger2024"))
    r = agents.make("the_game/random", g, np.random.default_rng(0))
    piles = [(1, 98), (1, 97), (100, 3), (100, 4)]
    assert r.act(view_of([50, 40, 60], piles), None) == play_action(50, 0)


# --- official rules ----------------------------------------------------------------------------
@pytest.mark.parametrize("agent_id", IDS)
@pytest.mark.parametrize("cfg", [Config(num_players=1), Config(num_players=3),
                                 Config(num_players=2, communication="pile_flags"),
                                 Config(num_players=4, min_cards_per_turn=3, communication="pile_flags")])
def test_official_agents_are_legal_and_deterministic(agent_id, cfg):
    game = TheGame(cfg)

    def run(seed):
        seats = [agents.make(agent_id, game, r) for r in np.random.default_rng(seed).spawn(cfg.num_players)]
        s = game.initial_state(np.random.default_rng(seed))
        trace = []
        while not s.over:
            mask = legal_mask(game, s)
            a = seats[s.player].act(game.view(s, s.player), mask)
            assert mask[a] == 1
            trace.append(a)
            s = game.apply(s, a)
        return trace

    for seed in range(2):
        assert run(seed) == run(seed)


def test_official_heuristics_refuse_the_seed_rules():
    g = TheGame(Config(num_players=2, rules="berger2024"))
    for aid in ("the_game/simplest", "the_game/bestplays"):
        with pytest.raises(ValueError, match="official"):
            agents.make(aid, g, np.random.default_rng(0))


def test_official_adaptations_play_the_minimum_then_end_the_turn():
    g = TheGame(Config(num_players=1))
    piles = [(1, 20), (1, 30), (100, 80), (100, 70)]
    hand = [10, 25, 50, 60, 65, 90, 85, 40]
    for aid in ("the_game/random", "the_game/minimal", "the_game/trick"):
        a = agents.make(aid, g, np.random.default_rng(1))
        assert a.act(view_of(hand, piles, played=2), None) == END_TURN
    m = agents.make("the_game/minimal", g, np.random.default_rng(1))
    assert m.act(view_of(hand, piles), None) == play_action(10, 0)  # backwards trick counts −10
    t = agents.make("the_game/trick", g, np.random.default_rng(1))
    assert t.act(view_of(hand, piles), None) == play_action(10, 0)  # the only backwards trick
    # no trick but a set-up: 50 on an ascending pile then 40 is a trick there
    hand2 = [50, 40, 91, 92, 93, 94, 95, 96]
    piles2 = [(1, 20), (1, 30), (100, 60), (100, 70)]
    assert t.act(view_of(hand2, piles2), None) in {play_action(50, 0), play_action(50, 1), play_action(40, 2),
                                                   play_action(40, 3)}


def test_bestplays_prefers_tricks_and_chains_and_stops_when_plays_get_expensive():
    g = TheGame(Config(num_players=1))
    b = agents.make("the_game/bestplays", g, np.random.default_rng(0))
    piles = [(1, 20), (1, 30), (100, 80), (100, 70)]
    assert b.act(view_of([10, 21, 50, 60], piles), None) == play_action(10, 0)  # trick beats +1
    # chain: 45 on up1 (+15) then 35 as a trick = net +5 over two cards, better than 60's +40
    assert b.act(view_of([45, 35, 99, 98], piles, played=0), None) == play_action(45, 1)
    # minimum met and the best play skips 8 live cards (> limit 1): end the turn
    assert b.act(view_of([29, 50, 98], piles, played=2), None) == END_TURN
    # still owed: play the best even if expensive
    assert b.act(view_of([29, 50, 98], piles, played=1), None) == play_action(29, 0)
    # card counting: 29 on up0 (gap 9) skips no live card once 21..28 lie on another pile, so it beats
    # 75 on down0 (gap 5, but 76..79 are still live)
    counted = [(1, 20), (1, 30), (100, 80), (100, 70) + tuple(range(28, 20, -1))]
    assert b.act(view_of([29, 75, 98], counted, played=1), None) == play_action(29, 0)
    assert b.act(view_of([29, 75, 98], piles, played=1), None) == play_action(75, 2)


def test_bestplays_flags_please_hold_and_respects_others_flags():
    g = TheGame(Config(num_players=2, communication="pile_flags"))
    b = agents.make("the_game/bestplays", g, np.random.default_rng(0))
    piles = [(1, 20), (1, 30), (100, 80), (100, 70)]
    # turn done, holding 22 (skips one live card on up0: above the extra-play limit 1, within hold_gap 2):
    # flag up0 please_hold, then end
    v = view_of([22, 61, 98], piles, played=2, n=2)
    assert b.act(v, None) == flag_action(0, FLAG_HOLD)
    done = view_of([22, 61, 98], piles, played=2, n=2, flags=((1, 0, 0, 0), (0, 0, 0, 0)), flags_set=1)
    assert b.act(done, None) == END_TURN
    # the partner asked to hold up0: 21 (+1 there) is avoided for 79 (+1 on down0)
    other = view_of([21, 79, 98], piles, played=0, n=2, flags=((0, 0, 0, 0), (1, 0, 0, 0)))
    assert b.act(other, None) == play_action(79, 2)
    assert FLAG_BASE not in (b.act(other, None),)
