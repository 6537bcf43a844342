"""Rule unit tests for Primi Composti from the project's Primi Composti rules specification."""

from __future__ import annotations

import numpy as np
import pytest

from envs.core.game import IllegalActionError
from envs.core.options import parse_options
from envs.primi_composti.rules import IS_PRIME, VALUE, Config, PrimiCompostiGame, State, combines


def make(**kw) -> PrimiCompostiGame:
    return PrimiCompostiGame(Config(**kw))


def board(stacks, hands, scores=(0, 0), turn=0, first=0) -> State:
    return State(tuple(tuple(h) for h in hands), tuple(tuple(s) for s in stacks), tuple(scores), turn, first)


@pytest.mark.parametrize("n,primes", [(2, 9), (3, 12), (4, 15), (5, 18), (6, 21)])
def test_cards_in_play(n, primes):
    g = make(num_players=n)
    assert g.cards == tuple(range(2, 12 * n + 2))
    assert sum(bool(IS_PRIME[c]) for c in g.cards) == primes
    s = g.initial_state(np.random.default_rng(n))
    assert sorted(c for h in s.hands for c in h) == list(g.cards)
    assert all(len(h) == 12 for h in s.hands)


def test_operations():
    assert combines(5, 2, 3) and combines(5, 15, 10) and combines(5, 15, 3) and combines(5, 10, 2)
    assert combines(6, 2, 3) and combines(4, 2, 8) and not combines(7, 2, 3) and not combines(3, 7, 2)


@pytest.mark.parametrize(
    "c,a,b,points",
    [(4, None, None, 1), (5, None, None, 2), (12, 4, 8, 3), (6, 2, 4, 4), (7, 9, 16, 4), (11, 8, 3, 5), (5, 2, 3, 6)],
)
def test_version1_step_table(c, a, b, points):
    """Official step table: C 1, P 2, C=C#C 3, C=C#P 4, P=C#C 4, P=C#P 5, P=P#P 6."""
    g = make(version=1)
    stacks = [[], [], [], []]
    for x in (a, b):
        if x is not None:
            stacks[(2 if stacks[0] or stacks[1] else 0) + (0 if IS_PRIME[x] else 1)].append(x)
    other = [x for x in range(2, 26) if x not in (a, b, c)]
    s = board(stacks, [[c] + other[:11], other[11:22]])
    s2 = g.apply(s, g.action_of(c))
    assert s2.scores == (points, 0)


def test_paper_example_best_pair():
    """Visible 2, 10, 3, 15 and C = 5: best is 2+3 -> 6 points (rules §2)."""
    g = make(version=1)
    rest = [x for x in range(2, 26) if x not in (2, 10, 3, 15, 5)]
    s = board([[2], [10], [3], [15]], [[5] + rest[:9], rest[9:]], turn=4)
    assert g.immediate_score(s, 5) == 6
    s2 = g.apply(s, g.action_of(5))
    assert s2.scores == (6, 0)
    assert s2.stacks[0] == (2, 5)  # nothing else moves in version 1


def test_version2_max_steal_takes_both_and_places_card_last():
    g = make(version=2)
    # P2's tops 3 (prime) and 4 (composite): 7 = 3 + 4 steals 3 value.
    rest = [x for x in range(2, 26) if x not in (3, 4, 7, 9)]
    s = board([[], [9], [3], [4]], [[7] + rest[:8], rest[8:]], scores=(1, 3), turn=4)
    s2 = g.apply(s, g.action_of(7))
    assert s2.stacks == ((3, 7), (9, 4), (), ())
    assert s2.scores == (2 + 2 + 1 + 1, 0)
    assert g.immediate_score(s, 7) == 5


def test_version2_prefers_most_stolen_value():
    g = make(version=2)
    # C = 6: own 2 * opponent 3 (steals prime, 2) vs own 2 + opponent 4 (steals composite, 1).
    s = board([[2], [], [3], [4]], [[6, 9], [10, 11]], scores=(2, 3), turn=4)
    s2 = g.apply(s, g.action_of(6))
    assert s2.stacks == ((2, 3), (6,), (), (4,))


def test_version2_nothing_moves_without_a_valid_operation():
    g = make(version=2)
    s = board([[2], [], [5], [9]], [[8], [10]], scores=(2, 3), turn=4)
    s2 = g.apply(s, g.action_of(8))  # 8 != 2+5, 5-2, 2*5, 9-2... (9-2=7, 5+2=7) -> none
    assert g.valid_pairs(s.stacks, 8) == [] and g.best_pair(s.stacks, 0, 8) == (None, 0)
    assert s2.stacks[2:] == ((5,), (9,))


def test_version2_total_is_33_no_ties():
    g = make(version=2)
    rng = np.random.default_rng(4)
    for _ in range(20):
        s = g.initial_state(rng)
        while not g.is_terminal(s):
            la = g.legal_actions(s)
            s = g.apply(s, la[rng.integers(len(la))])
        assert sum(s.scores) == 33 and s.scores[0] != s.scores[1]
        assert len(g.winners(s)) == 1


def test_revealed_operand_option():
    """Footnote: 10 = 3 + 7 with 3 on top of 7 in the same stack (official only)."""
    rest = [x for x in range(2, 26) if x not in (3, 7, 10, 4)]
    s = board([[], [4], [7, 3], []], [[10] + rest[:8], rest[8:]], scores=(1, 4), turn=4)
    repo = make(version=2)
    assert repo.apply(s, repo.action_of(10)).stacks[2] == (7, 3)
    off = make(version=2, allow_revealed_operand=True)
    s2 = off.apply(s, off.action_of(10))
    assert s2.stacks[2] == () and s2.stacks[1] == (4, 10)
    assert s2.stacks[0] == (3, 7)  # top taken first, then the uncovered card


def test_player_choice_actions():
    g = make(version=2, steal_choice="player")
    assert g.num_choices == 7 and g.num_actions == 24 * 7
    rest = [x for x in range(2, 26) if x not in (3, 4, 7, 9)]
    s = board([[], [9], [3], [4]], [[7] + rest[:8], rest[8:]], scores=(1, 3), turn=4)
    legal = g.legal_actions(s)
    assert g.action_of(7, 0) in legal
    k_both = g.operand_pairs.index(((2, 0), (3, 0))) + 1
    assert g.action_of(7, k_both) in legal
    # Choosing no operation moves nothing.
    assert g.apply(s, g.action_of(7, 0)).stacks == ((7,), (9,), (3,), (4,))
    # A pair that does not combine is refused before anything changes.
    k_bad = g.operand_pairs.index(((1, 0), (2, 0))) + 1  # 9 and 3: 12, 6, 27, 3 -> not 7
    with pytest.raises(IllegalActionError) as e:
        g.apply(s, g.action_of(7, k_bad))
    assert e.value.seat == 0 and e.value.action == g.action_of(7, k_bad)
    assert sorted(legal) == list(legal) and len(set(legal)) == len(legal)


def test_illegal_card_names_action_and_seat():
    g = make()
    s = g.initial_state(np.random.default_rng(0))
    bad = next(c for c in g.cards if c not in s.hands[0])
    with pytest.raises(IllegalActionError, match=f"illegal action {bad - 2} for seat 0"):
        g.apply(s, g.action_of(bad))
    with pytest.raises(IllegalActionError):
        g.apply(s, 999)


def test_first_player_holds_two():
    rng = np.random.default_rng(1)
    g = make(num_players=3)
    for _ in range(10):
        s = g.initial_state(rng)
        assert 2 in s.hands[0] and g.current_player(s) == 0
    g = make(num_players=3, seat0_holds_two=False)
    firsts = set()
    for _ in range(30):
        s = g.initial_state(rng)
        assert 2 in s.hands[s.first] and g.current_player(s) == s.first
        firsts.add(s.first)
        s = g.apply(s, g.legal_actions(s)[0])
        assert g.current_player(s) == (s.first + 1) % 3
    assert firsts == {0, 1, 2}


def test_seed_deal_swaps_halves():
    g = make()
    deck = list(range(25, 1, -1))  # 2 is in the second half
    s = g.deal(deck)
    assert s.hands[0] == tuple(deck[12:]) and s.hands[1] == tuple(deck[:12])


@pytest.mark.parametrize(
    "kw",
    [
        {"version": 3},
        {"num_players": 1},
        {"num_players": 7},
        {"cards_per_player": 0},
        {"cards_per_player": 13},
        {"steal_choice": "best"},
        {"steal_choice": "player", "version": 1},
        {"allow_revealed_operand": True, "version": 1},
        {"reward": "points"},
        {"seat0_holds_two": "yes"},
    ],
)
def test_config_validation(kw):
    with pytest.raises(ValueError):
        Config(**kw)


def test_parse_options_types():
    opts = parse_options(Config, ["version=2", "num_players=3", "steal_choice=player", "allow_revealed_operand=true"])
    assert opts == {"version": 2, "num_players": 3, "steal_choice": "player", "allow_revealed_operand": True}
    Config(**opts)


def test_returns_zero_sum_and_result():
    g = make(version=1)
    s = board([[], [], [], []], [[], []], scores=(30, 25), turn=24)
    assert g.returns(s) == (6.0, -6.0)
    assert make(version=1, reward="result").returns(s) == (1.0, -1.0)
    assert make(version=1, reward="score").returns(s) == (5.0, -5.0)
    tie = board([[], [], [], []], [[], []], scores=(30, 30), turn=24)
    assert g.returns(tie) == (0.0, 0.0) and g.winners(tie) == ()
    g3 = make(num_players=3, reward="score")
    s3 = State(((), (), ()), ((),) * 6, (10, 4, 4), 36, 0)
    r = g3.returns(s3)
    assert abs(sum(r)) < 1e-9 and r[0] == 6.0


def test_view_two_players_complete_more_players_hidden():
    g = make()
    s = g.initial_state(np.random.default_rng(0))
    v = g.view(s, 1)
    assert v.hands == s.hands and g.state_of_view(v) == s
    g3 = make(num_players=3)
    s3 = g3.initial_state(np.random.default_rng(0))
    v3 = g3.view(s3, 1)
    assert v3.hands[0] is None and v3.hands[2] is None and v3.hands[1] == s3.hands[1]
    with pytest.raises(ValueError):
        g3.state_of_view(v3)


def test_values():
    assert VALUE[2] == 2 and VALUE[4] == 1 and VALUE[23] == 2 and VALUE[25] == 1
