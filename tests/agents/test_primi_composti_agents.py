"""Primi Composti players: legality, determinism, the seed's exact semantics, fast path == plain."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import agents
from agents.primi_composti import fast as strategies
from agents.primi_composti.strategies import SIMPLE, SeedPlayer, alphabeta, greedy_card, minimax_card, score_difference
from envs.primi_composti import fast
from envs.primi_composti.rules import Config, PrimiCompostiGame, State

IDS = [f"primi_composti/{p}" for p in SIMPLE] + ["primi_composti/minimax?depth=2", "primi_composti/minimax?depth=3"]


def play(game, players, rng):
    s = game.initial_state(rng)
    while not game.is_terminal(s):
        seat = game.current_player(s)
        a = players[seat].act(game.view(s, seat), game.legal_mask(s))
        assert a in game.legal_actions(s)
        s = game.apply(s, a)
    return s


@pytest.mark.parametrize(
    "kw",
    [{}, {"version": 2}, {"version": 2, "steal_choice": "player", "allow_revealed_operand": True}, {"num_players": 3},
     {"cards_per_player": 6}],
)
def test_every_player_is_legal_and_deterministic(kw):
    game = PrimiCompostiGame(Config(**kw))
    ids = IDS if game.num_players == 2 else IDS[:6]
    for aid in ids:
        ends = []
        for _ in range(2):
            players = [agents.make(aid, game, np.random.default_rng(1), game_name="primi_composti")
                       for _ in range(game.num_players)]
            ends.append(play(game, players, np.random.default_rng(5)))
        assert ends[0] == ends[1]


def test_minimax_needs_two_players():
    with pytest.raises(ValueError):
        agents.make("primi_composti/minimax?depth=3", PrimiCompostiGame(Config(num_players=3)),
                    np.random.default_rng(0))
    with pytest.raises(ValueError):
        agents.make("primi_composti/minimax?depth=0", PrimiCompostiGame(Config()), np.random.default_rng(0))
    # its kernel too: no vector env seat and no compiled tournament beyond 2 players
    from envs.core.spec import NoKernelError

    with pytest.raises(ValueError, match="num_players=2"):
        strategies.opponent_kernel("primi_composti/minimax?depth=2", {"num_players": 4})
    with pytest.raises(NoKernelError):
        strategies.tournament_games(PrimiCompostiGame(Config(num_players=3)), ["primi_composti/minimax?depth=2"] * 3)


def _state(hand0, stacks, hand1=(20, 21, 22, 24, 25)):
    return State((tuple(hand0), tuple(hand1)), tuple(tuple(s) for s in stacks), (0, 0), 4, 0)


def test_simple_players():
    game = PrimiCompostiGame(Config())
    s = _state((9, 4, 17), [[], [], [], []])
    assert [SeedPlayer(game, None, p, fast=False).card(s) for p in ("asc", "desc", "rand")] == [4, 17, 9]


def test_greedy_tie_breaks():
    """Visible 2 and 3: 5 (=2+3) and 6 (=2·3) both combine; 5 scores 6, 6 scores 5;
    8 and 10 score 1 (no operation), 7 and 11 score 2."""
    game = PrimiCompostiGame(Config(version=1))
    s = _state((10, 8, 11, 7), [[2], [], [3], []])
    assert greedy_card(game, s, "asc") == 7
    assert greedy_card(game, s, "desc") == 11
    assert greedy_card(game, s, "rand") == 11
    s = _state((6, 10, 5), [[2], [], [3], []])
    for rule in ("asc", "desc", "rand"):
        assert greedy_card(game, s, rule) == 5
    for p in ("greedy_asc", "greedy_desc", "greedy_rand"):
        assert strategies.choose_card(game, _state((10, 8, 11, 7), [[2], [], [3], []]), p) == greedy_card(
            game, _state((10, 8, 11, 7), [[2], [], [3], []]), p[7:]
        )


def test_minimax_1_is_greedy_rand_in_version_1():
    game = PrimiCompostiGame(Config(version=1))
    rng = np.random.default_rng(3)
    for _ in range(5):
        s = game.initial_state(rng)
        while not game.is_terminal(s):
            assert minimax_card(game, s, 1) == greedy_card(game, s, "rand")
            s = game.apply(s, game.action_of(
                s.hands[game.current_player(s)][int(rng.integers(len(s.hands[game.current_player(s)])))]))


def _plain_minimax(game, s, depth):
    if depth == 0 or game.is_terminal(s):
        return score_difference(s)
    mover = game.current_player(s)
    vals = [_plain_minimax(game, game.apply(s, game.action_of(c)), depth - 1) for c in s.hands[mover]]
    return max(vals) if mover == s.first else min(vals)


@pytest.mark.parametrize("version", [1, 2])
def test_alphabeta_matches_full_minimax(version):
    """Alpha-beta returns the full-tree minimax value, and the chosen card is the
    first (dealt order) child of best value."""
    game = PrimiCompostiGame(Config(version=version, cards_per_player=4))
    rng = np.random.default_rng(version)
    for _ in range(8):
        s = game.initial_state(rng)
        for _ in range(int(rng.integers(0, 3))):
            s = game.apply(s, game.action_of(s.hands[game.current_player(s)][0]))
        for depth in (2, 3, 8):
            assert alphabeta(game, s, depth, -np.inf, np.inf) == _plain_minimax(game, s, depth)
            mover = game.current_player(s)
            vals = [_plain_minimax(game, game.apply(s, game.action_of(c)), depth - 1) for c in s.hands[mover]]
            best = max(vals) if mover == s.first else min(vals)
            expect = s.hands[mover][vals.index(best)]
            assert minimax_card(game, s, depth) == expect
            assert strategies.choose_card(game, s, f"minimax_{depth}") == expect


@pytest.mark.parametrize("version", [1, 2])
@pytest.mark.parametrize("k", [12, 6])
def test_fast_path_equals_plain_engine(version, k):
    """Same deals -> the same cards played and the same final scores."""
    game = PrimiCompostiGame(Config(version=version, cards_per_player=k))
    rng = np.random.default_rng(10 * version + k)
    decks = fast.random_decks(rng, 4, k)
    pairs = [("asc", "desc"), ("rand", "greedy_asc"), ("greedy_desc", "greedy_rand"), ("minimax_3", "minimax_2"),
             ("greedy_rand", "minimax_4")]
    for p0, p1 in pairs:
        scores, moves = strategies.simulate(version, k, p0, p1, decks)
        players = [SeedPlayer(game, None, p0, fast=False), SeedPlayer(game, None, p1, fast=False)]
        for d in range(len(decks)):
            s = game.deal(decks[d])
            cards = []
            while not game.is_terminal(s):
                c = players[game.current_player(s)].card(s)
                cards.append(c)
                s = game.apply(s, game.action_of(c))
            assert cards == moves[d].tolist(), (p0, p1, d)
            assert s.scores == tuple(scores[d].tolist())


OFFICIAL = {"steal_choice": "player", "allow_revealed_operand": True}


@pytest.mark.parametrize("n,version,opts", [(3, 1, {}), (3, 2, {}), (4, 2, {}), (6, 1, {}), (6, 2, {}),
                                            (2, 2, {"allow_revealed_operand": True}), (2, 2, OFFICIAL),
                                            (3, 2, {"steal_choice": "player"}), (4, 2, OFFICIAL)])
def test_compiled_moves_and_greedy_players_equal_the_plain_engine_at_n_players(n, version, opts):
    """More than 2 players, and version 2's official options: the greedy kernels (`SeedPlayer`'s fast path) pick the
    plain players' cards, `do_move` (the seed's pair, or under `steal_choice="player"` a drawn legal operand choice)
    leaves the plain engine's stacks and scores, and `undo_move` restores the position, at every move."""
    from envs.primi_composti.rules import VALID, VALUE

    game = PrimiCompostiGame(Config(num_players=n, version=version, cards_per_player=5, seat0_holds_two=False, **opts))
    revealed = game.config.allow_revealed_operand
    rng = np.random.default_rng(n + 10 * version)
    twice = 0
    for g in range(3 if n > 2 else 12):
        s = game.deal(int(rng.integers(2**63)))
        while not game.is_terminal(s):
            policy = ("greedy_rand", "greedy_asc", "greedy_desc")[(s.turn + g) % 3]
            c = SeedPlayer(game, None, policy, fast=False).card(s)
            assert SeedPlayer(game, None, policy).card(s) == c
            a = game.action_of(c) if not game.player_choice else int(rng.choice(game.legal_actions(s)))
            c = game.card_of(a)
            hands, alive, stacks, heights, scores = fast.state_arrays(game, s)
            before = (s.stacks, s.scores)
            mover = game.current_player(s)
            choice = game.choice_of(a) if game.player_choice else -1
            undo, bonus = fast.do_move(version, c, mover, stacks, heights, scores, VALUE, VALID, revealed, choice)
            twice += undo >= 1 << fast.UNDO_TWICE
            s = game.apply(s, a)
            assert tuple(tuple(stacks[i, : heights[i]].tolist()) for i in range(2 * n)) == s.stacks
            assert tuple(scores.tolist()) == s.scores
            fast.undo_move(version, c, mover, stacks, heights, scores, undo, bonus, VALUE)
            assert (tuple(tuple(stacks[i, : heights[i]].tolist()) for i in range(2 * n)),
                    tuple(scores.tolist())) == before
    assert twice or not revealed  # some move took two cards of one stack


def test_registry_lists_players():
    ids = agents.known_ids("primi_composti")
    for p in SIMPLE:
        assert f"primi_composti/{p}" in ids
    assert "primi_composti/minimax?depth=<positive integer>" in ids


def test_a_view_without_the_own_hand_is_refused():
    game = PrimiCompostiGame(Config(num_players=3))
    s = game.initial_state(np.random.default_rng(0))
    view = game.view(s, 0)
    blind = dataclasses.replace(view, hands=tuple(None for _ in view.hands))
    player = SeedPlayer(game, None, "greedy_rand")
    with pytest.raises(ValueError, match="seat 0 does not show its own hand"):
        player.act(blind, game.legal_mask(s))
