"""Primi Composti's vector env against the plain engine: every table replays alone, move for move, from its deal seed;
the shared contract (`tests/envs/vector_contract.py`) on Primi Composti."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import numpy as np
import pytest

import agents
from agents.primi_composti.strategies import SeedPlayer
from envs.core.game import IllegalActionError
from envs.primi_composti import fast
from envs.primi_composti.encoding import PrimiCompostiEncoder
from envs.primi_composti.rules import Config, PrimiCompostiGame, shuffled_cards

sys.path.append(str(Path(__file__).parents[1]))  # tests/envs (after the installed packages), for the shared contract
from vector_contract import VectorCase, VectorContract  # noqa: E402

GREEDY = "primi_composti/greedy_rand"


def _same_state(venv, i, shadow):
    """The compiled table's state read back (`venv.state`) is the plain engine's."""
    v, s = venv.state(i), shadow.state
    assert (v.hands, v.stacks, v.scores, v.turn, v.first) == (s.hands, s.stacks, s.scores, s.turn, s.first)


CASE = VectorCase(
    "primi_composti",
    [GREEDY],
    not_kernels="primi_composti/solver",
    allowed="random, primi_composti/asc",
    num_actions=24,
    refused=(
        (["primi_composti/minimax"], {}, "depth"),
        (["primi_composti/minimax?depth=2"] * 2, dict(num_players=3), "num_players=2"),
        ([GREEDY], dict(num_players=3), "3-player game needs 2 opponents"),
        ([GREEDY] * 5, dict(num_players=4), "4-player game needs 3 opponents"),
    ),
    heads=({}, dict(version=2, steal_choice="player", allow_revealed_operand=True)),  # the official operand choice
    # thousands of episodes across the option sets (30 deals a table)
    random_replays=(
        dict(),
        dict(version=2),
        dict(version=2, cards_per_player=5, reward="result", seat0_holds_two=False),
        dict(cards_per_player=3, reward="score", observation_hints=True),
        dict(version=2, cards_per_player=7, observation_hints=True),
        dict(cards_per_player=1),
    ),
    replay_size=(16, lambda game: 30 * game.cards_per_player, 16 * 25),
    sb3=([GREEDY], dict(cards_per_player=6), 16, 16, 512),
    return_tol=1e-9,
    inspect=_same_state,
)  # every deal reaches the learner: episode e is the table's e-th deal


class TestVectorContract(VectorContract):
    case = CASE


#: Version 2's official options (the plain engine's `steal_choice="player"` and `allow_revealed_operand`).
PLAYER, REVEALED = dict(version=2, steal_choice="player"), dict(version=2, allow_revealed_operand=True)
OFFICIAL = dict(PLAYER, allow_revealed_operand=True)


@pytest.mark.parametrize("opts", [PLAYER, REVEALED, OFFICIAL,
                                  dict(OFFICIAL, observation_hints=True, cards_per_player=6),
                                  dict(PLAYER, num_players=3, cards_per_player=6),
                                  dict(REVEALED, num_players=3, cards_per_player=6, reward="score"),
                                  dict(OFFICIAL, num_players=3, cards_per_player=6, seat0_holds_two=False)],
                         ids=["player", "revealed", "both", "both-hints", "3p-player", "3p-revealed", "3p-both"])
def test_official_options_replay_in_the_plain_engine(opts):
    """Random-legal learner against random seats under version 2's official options: the action space is the plain
    engine's (a card and its operand pair), and every table replays action for action in the plain engine (the random
    seats draw the j-th legal action, as `RandomMirror`)."""
    game = PrimiCompostiGame(Config(**opts))
    n = game.num_players
    venv = agents.vector_env("primi_composti", 8, opponents=["random"] * (n - 1), seed=12, **opts)
    assert venv.single_action_space.n == game.num_actions == game.num_cards * game.num_choices
    assert fast.supports(game) and not fast.seed_rules(game)
    episodes = N_CASE.replay(venv, game, 12, N_CASE.random_seats(n - 1), 8 * game.cards_per_player,
                             np.random.default_rng(1))
    assert episodes >= 8 * 7, episodes


def test_an_operand_pair_that_does_not_combine_is_refused_as_other_illegal_actions():
    """`steal_choice="player"`: a card in hand named with an operand pair that does not make it is refused as an
    illegal card is: that table's episode ends with `illegal_reward`, the other tables play on as a twin env's, and
    under `strict` it raises naming the legal actions and changes nothing."""
    opts = dict(OFFICIAL, cards_per_player=6)
    game = PrimiCompostiGame(Config(**opts))
    venv, twin = (agents.vector_env("primi_composti", 4, opponents=[GREEDY], seed=3, illegal_reward=-2.0, **opts)
                  for _ in range(2))
    strict = agents.vector_env("primi_composti", 4, opponents=[GREEDY], seed=3, strict=True, **opts)
    for env in (venv, twin, strict):
        env.reset()
    others = [0, 2, 3]
    refused = 0
    for step in range(40):
        acts, twin_acts = venv.action_masks().argmax(axis=1), twin.action_masks().argmax(axis=1)
        if step % 4 == 1:
            masks = venv.action_masks()
            s = venv.state(1)
            hand = s.hands[game.current_player(s)]
            acts[1] = next(game.action_of(c, q) for c in hand for q in range(1, game.num_choices)
                           if not masks[1, game.action_of(c, q)])
            bad = twin_acts.copy()
            bad[1] = next(game.action_of(c, q) for c in twin.state(1).hands[game.current_player(twin.state(1))]
                          for q in range(1, game.num_choices) if not twin.action_masks()[1, game.action_of(c, q)])
            with pytest.raises(IllegalActionError, match="table 1") as e:
                strict.step(bad)
            assert list(e.value.legal) == np.flatnonzero(twin.action_masks()[1]).tolist()
        o, r, t, _, info = venv.step(acts)
        o2, r2, t2, _, _ = twin.step(twin_acts)
        o3, r3, t3, _, _ = strict.step(twin_acts)  # the strict env refused and changed nothing: it is the twin
        np.testing.assert_array_equal(o3, o2)
        np.testing.assert_array_equal(r3, r2)
        if step % 4 == 1:
            refused += 1
            assert r[1] == -2.0 and t[1] and info["illegal_action"][1] == acts[1] and info["_illegal_action"][1]
            assert not info["_illegal_action"][others].any()
        np.testing.assert_array_equal(o[others], o2[others])
        np.testing.assert_array_equal(r[others], r2[others])
        np.testing.assert_array_equal(t[others], t2[others])
    assert refused == 10


@pytest.mark.parametrize("policy,opts", [
    ("greedy_rand", dict()), ("greedy_rand", dict(version=2, observation_hints=True)),
    ("greedy_rand", dict(OFFICIAL, observation_hints=True, cards_per_player=6)),
    ("greedy_asc", dict(REVEALED, cards_per_player=6)), ("greedy_desc", dict(PLAYER, cards_per_player=6)),
    ("minimax_2", dict(OFFICIAL, cards_per_player=6)), ("minimax_3", dict(REVEALED, cards_per_player=5)),
    ("greedy_asc", dict(version=2, cards_per_player=6)), ("greedy_desc", dict(cards_per_player=6)),
    ("asc", dict(cards_per_player=4)), ("desc", dict(version=2, cards_per_player=4)),
    ("rand", dict(cards_per_player=5, seat0_holds_two=False)),
    ("minimax_3", dict(cards_per_player=5)), ("minimax_2", dict(version=2, cards_per_player=6)),
])
def test_kernel_opponents_move_as_the_python_players(policy, opts):
    """The opponent kernels against the seed players' plain-Python code (`fast=False`), move for move."""
    game = PrimiCompostiGame(Config(**opts))
    agent_id = (f"primi_composti/minimax?depth={policy[8:]}" if policy.startswith("minimax")
                else f"primi_composti/{policy}")
    venv = agents.vector_env("primi_composti", 6, opponents=[agent_id], seed=3, **opts)
    episodes = CASE.replay(venv, game, 3, lambda shared: [SeedPlayer(game, None, policy, fast=False)],
                       8 * game.cards_per_player, np.random.default_rng(1))
    assert episodes >= 6 * 7


#: More than 2 players: returns divide by num_players - 1 (thirds, fifths), so the episode return the kernel sums in
#: float64 differs from the replay's sum of float32 rewards in the last bits.
N_CASE = dataclasses.replace(CASE, return_tol=1e-6)


@pytest.mark.parametrize("line,opts", [
    ([GREEDY, "random"], dict(num_players=3, cards_per_player=4)),
    (["random", GREEDY], dict(OFFICIAL, num_players=3, cards_per_player=4, observation_hints=True)),
    (["random", GREEDY], dict(num_players=3, version=2, cards_per_player=5, seat0_holds_two=False, reward="score")),
    ([GREEDY] * 3, dict(num_players=4, version=2, cards_per_player=4, observation_hints=True)),
    ([GREEDY, "random", GREEDY], dict(num_players=4, cards_per_player=3, reward="result", seat0_holds_two=False)),
    ([GREEDY, "random", GREEDY, "primi_composti/greedy_asc", GREEDY],
     dict(num_players=6, version=2, cards_per_player=3, seat0_holds_two=False, observation_hints=True)),
    (["random"] * 5, dict(num_players=6, cards_per_player=2)),
])
def test_n_players_replay_in_the_plain_engine(line, opts):
    """3 to 6 players, one learner seat: kernel opponents (greedy against the seed players' plain-Python code, random
    against the table's stream) move for move in the plain engine; the hidden hands stay hidden."""
    game = PrimiCompostiGame(Config(**opts))
    venv = agents.vector_env("primi_composti", 6, opponents=line, seed=7, **opts)
    python = {who: (lambda who=who: SeedPlayer(game, None, who.split("/")[1], fast=False)) for who in line
              if who != "random"}
    episodes = N_CASE.replay(venv, game, 7, lambda shared: [N_CASE.twin(game, who, shared, python) for who in line],
                             6 * game.cards_per_player, np.random.default_rng(4))
    assert episodes >= 6 * 5, episodes
    obs = venv.observe(range(6))
    other = venv.encoder.layout.slices["other_hands"]
    assert not obs[:, other].any()  # more than 2 players: the other hands are not in the view


@pytest.mark.parametrize("opts", [dict(num_players=3, cards_per_player=4),
                                  dict(OFFICIAL, num_players=3, cards_per_player=4),
                                  dict(num_players=4, version=2, cards_per_player=3, seat0_holds_two=False,
                                       observation_hints=True),
                                  dict(num_players=6, version=2, cards_per_player=2, reward="result")])
def test_n_players_all_seats_replays_in_the_plain_engine(opts):
    game = PrimiCompostiGame(Config(**opts))
    venv = agents.vector_env("primi_composti", 6, opponents=[], control="all_seats", seed=8, **opts)
    _, info = venv.reset(seed=8)
    assert venv.observe([0]).shape == (1, venv.single_observation_space.shape[0])
    episodes = N_CASE.replay(venv, game, 8, None, 5 * game.num_cards, np.random.default_rng(6), all_seats=True)
    assert episodes >= 6 * 4, episodes
    _, _, _, _, info = venv.step(venv.action_masks().argmax(axis=1))
    assert info["rewards"].shape == (6, game.num_players)


def test_all_seats_replays_in_the_plain_engine():
    for opts in (dict(cards_per_player=4), dict(version=2, cards_per_player=6, seat0_holds_two=False),
                 dict(OFFICIAL, cards_per_player=5)):
        game = PrimiCompostiGame(Config(**opts))
        venv = agents.vector_env("primi_composti", 8, opponents=[], control="all_seats", seed=5, **opts)
        episodes = CASE.replay(venv, game, 5, None, 20 * 2 * game.cards_per_player, np.random.default_rng(2),
                           all_seats=True)
        assert episodes >= 8 * 19


@pytest.mark.parametrize("opts", [{}, dict(num_players=3, cards_per_player=4, observation_hints=True),
                                  dict(num_players=6, version=2, steal_choice="player")])
def test_the_encoders_layout_is_the_one_the_kernels_write(opts):
    """`fast.observe_row` writes the observation at offsets computed from n seats and M cards."""
    game = PrimiCompostiGame(Config(**opts))
    n, m = game.num_players, game.num_cards
    score_at = (5 * n + 2) * m
    want = {"own_hand": 0, "other_hands": m, "unseen": n * m, "stack_member": (n + 1) * m,
            "stack_top": (3 * n + 1) * m, "stack_height": (5 * n + 1) * m, "scores": score_at,
            "hand_sizes": score_at + n, "turn": score_at + 2 * n}
    if game.config.observation_hints:
        want["hand_gain"] = score_at + 2 * n + 1
    assert {name: s.start for name, s in PrimiCompostiEncoder(game).layout.slices.items()} == want


def test_fixed_seat():
    game = PrimiCompostiGame(Config(cards_per_player=4))
    venv = agents.vector_env("primi_composti", 4, opponents=[GREEDY], seed=2, seat=1, cards_per_player=4)
    _, info = venv.reset()
    assert (info["seat"] == 1).all()
    CASE.replay(venv, game, 2, lambda shared: [SeedPlayer(game, None, "greedy_rand", fast=False)], 40,
            np.random.default_rng(2), fixed_seat=1)


@pytest.mark.parametrize("n,k,seat0", [(2, 6, False), (2, 5, True), (3, 4, False), (4, 3, True), (6, 12, False),
                                       (6, 2, True)])
def test_deal_of_a_seed_is_one_meaning(n, k, seat0):
    """`deal(seed)` = `deal_from(shuffled_cards(seed))` = the compiled deal, for every player count; old `deal(deck)`
    callers still work."""
    game = PrimiCompostiGame(Config(num_players=n, cards_per_player=k, seat0_holds_two=seat0))
    order = np.zeros(n * k, np.int64)
    hands = np.zeros((n, k), np.int64)
    z = np.zeros(n, np.int64)
    for seed in (0, 1, 2**63 + 5, 2**64 - 1, 123456789):
        s = game.deal(seed)
        assert (
            s == game.deal_from(shuffled_cards(game.cards, seed)) == game.deal(list(shuffled_cards(game.cards, seed)))
        )
        first = fast.deal_seed(np.uint64(seed), k, seat0, order, hands, z.copy(), np.zeros((2 * n, n * k), np.int64),
                               np.zeros(2 * n, np.int64), z.copy())
        assert order.tolist() == shuffled_cards(game.cards, seed)
        assert first == s.first and tuple(map(tuple, hands.tolist())) == s.hands
    assert sorted(shuffled_cards(game.cards, 7)) == list(game.cards)
    for bad in (-1, 2**64, True):
        with pytest.raises(ValueError):
            game.deal(bad)
    with pytest.raises(ValueError, match="permutation"):
        game.deal_from([2, 3])


def test_max_turns_truncates_as_opponent_env():
    env = agents.vector_env("primi_composti", 3, opponents=[GREEDY], seed=0, seat=0, max_turns=5, cards_per_player=6)
    env.reset()
    for _ in range(2):
        _, _, term, trunc, _ = env.step(env.action_masks().argmax(axis=1))
        assert not (term | trunc).any()
    _, _, term, trunc, info = env.step(env.action_masks().argmax(axis=1))  # the learner's third card: move 5
    assert trunc.all() and not term.any() and (info["tabletop_episode"]["l"] == 3).all()


def test_render_and_observe():
    env = agents.vector_env("primi_composti", 5, opponents=["random"], seed=0)
    obs, _ = env.reset()
    assert "primi composti v1" in env.render(3)
    np.testing.assert_array_equal(env.observe([1, 2]), obs[1:3])
