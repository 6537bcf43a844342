"""Each Primi Composti rule's readable home (`envs.primi_composti.rules`) against its compiled twin
(`envs.primi_composti.fast`, same name), and the solvers' bit-board forms of the bonus against the readable rule.

Exhaustive where the inputs are few (an operand's value: every version, seat, stack and card), else over every
position of random games under several option sets (2-4 players, versions 1 and 2, the official options).
"""

from __future__ import annotations

import numpy as np
import pytest

from agents.primi_composti.solvers import alphabeta_v1, alphabeta_v2, retrograde_v1
from envs.primi_composti import fast, rules
from envs.primi_composti.rules import MAX_CARD, MAX_PLAYERS, VALID, VALUE, Config, PrimiCompostiGame

CONFIGS = [
    dict(version=1), dict(version=2), dict(version=1, num_players=3, cards_per_player=5),
    dict(version=2, num_players=4, cards_per_player=4), dict(version=2, allow_revealed_operand=True),
    dict(version=2, steal_choice="player", allow_revealed_operand=True, num_players=3, cards_per_player=5),
]


def positions(game: PrimiCompostiGame, games: int, seed: int):
    """Every non-terminal state of `games` random games (uniform legal actions)."""
    rng = np.random.default_rng(seed)
    for _ in range(games):
        s = game.deal(int(rng.integers(2**63)))
        while not game.is_terminal(s):
            yield s
            legal = game.legal_actions(s)
            s = game.apply(s, int(legal[rng.integers(len(legal))]))


def pair_code(game: PrimiCompostiGame, k: int | None) -> int:
    """The compiled kernels' code of operand pair k (`i·S + j`; i = j for a stack's top and the card below it)."""
    if k is None:
        return -1
    (sa, _), (sb, _) = game.operand_pairs[k]
    return sa * 2 * game.num_players + sb


def test_operand_value_and_is_stolen_every_input():
    for version in (1, 2):
        for seat in range(MAX_PLAYERS):
            for stack in range(2 * MAX_PLAYERS):
                assert rules.is_stolen(seat, stack) == fast.is_stolen(seat, stack)
                for card in range(2, MAX_CARD + 1):
                    want = rules.operand_value(version, seat, stack, card)
                    assert want == fast.operand_value(version, seat, stack, card, VALUE)
                    assert want == (VALUE[card] if version == 1 or stack // 2 != seat else 0)


@pytest.mark.parametrize("options", CONFIGS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_bonus_rules_match_their_compiled_twins(options):
    """best_pair, pair_bonus, valid_pairs (legal_choices), immediate_score and apply (do_move) on every position."""
    game = PrimiCompostiGame(Config(**options))
    revealed = game.config.allow_revealed_operand
    npairs = len(game.operand_pairs)
    checked = 0
    for state in positions(game, 30, seed=len(str(options))):
        hands, alive, stacks, heights, scores = fast.state_arrays(game, state)
        seat = game.current_player(state)
        for card in state.hands[seat]:
            pair, bonus = game.best_pair(state.stacks, seat, card)
            assert fast.best_pair(game.version, card, seat, stacks, heights, VALUE, VALID, revealed) == (
                bonus, pair_code(game, pair))
            gain = game.immediate_score(state, card)
            assert gain == game.card_gain(state.stacks, seat, card) == bonus + VALUE[card]
            assert fast.immediate_score(game.version, card, seat, stacks, heights, VALUE, VALID, revealed) == gain
            valid = game.valid_pairs(state.stacks, card)
            for k in range(npairs):
                got = fast.pair_bonus(game.version, card, k, seat, stacks, heights, VALUE, VALID)
                want = (game.pair_bonus(k, state.stacks, seat), pair_code(game, k)) if k in valid else (-1, -1)
                assert got == want
            if game.version == 2:
                assert fast.legal_choices(card, seat, stacks, heights, npairs) == [0] + [k + 1 for k in valid]
            checked += 1
        for action in game.legal_actions(state):
            after = game.apply(state, action)
            card, choice = game.card_of(action), game.choice_of(action)
            st, h, sc = stacks.copy(), heights.copy(), scores.copy()
            fast.do_move(game.version, card, seat, st, h, sc, VALUE, VALID, revealed,
                         choice if game.player_choice else -1)
            assert [tuple(st[s, :h[s]]) for s in range(len(h))] == list(after.stacks)
            assert tuple(sc) == after.scores
    assert checked > 500


def two_player_positions(version: int, cards: int = 12, games: int = 40):
    game = PrimiCompostiGame(Config(version=version, cards_per_player=cards))
    return game, list(positions(game, games, seed=version))


def test_alphabeta_v1_bonus_classes_are_the_rule():
    """`AlphaBetaV1`'s bonus masks (4 / 3 / 2 from the four tops) give every hand card the readable gain."""
    game, states = two_player_positions(1)
    tab, _prime = alphabeta_v1._tables(game.max_card)
    for state in states:
        tops = [st[-1] if st else 0 for st in state.stacks]
        m4, m3, m2 = alphabeta_v1._bonus_masks(*tops, tab)
        for card in state.hands[game.current_player(state)]:
            assert alphabeta_v1._gain(card, m4, m3, m2, tab) == game.immediate_score(state, card)


def test_alphabeta_v2_steal_classes_are_the_rule():
    """`AlphaBetaV2`'s steal classes (what each hand card steals, from the four tops) are the readable bonus, and
    `_best_gain` is the best card's score-difference gain VALUE(c) + 2·stolen."""
    game, states = two_player_positions(2)
    for state in states:
        _, _, stacks, heights, _ = fast.state_arrays(game, state)
        seat = game.current_player(state)
        hand = state.hands[seat]
        mask = sum(1 << c for c in hand)
        tops = alphabeta_v2._tops(stacks, heights, seat)
        classes = alphabeta_v2._classes(mask, *tops)
        for card in hand:
            assert alphabeta_v2._steal(card, *classes) == game.best_pair(state.stacks, seat, card)[1]
        best = max(VALUE[c] + 2 * game.best_pair(state.stacks, seat, c)[1] for c in hand)
        assert alphabeta_v2._best_gain(mask, *tops) == best


def test_retrograde_v1_gain_is_the_rule():
    game, states = two_player_positions(1, games=10)
    for state in states:
        seat = game.current_player(state)
        own, other = state.stacks[2 * seat:2 * seat + 2], state.stacks[2 - 2 * seat:4 - 2 * seat]
        tops = [st[-1] if st else 0 for st in (*own, *other)]
        for card in state.hands[seat]:
            assert retrograde_v1._gain(card, *tops, VALUE) == game.immediate_score(state, card)
