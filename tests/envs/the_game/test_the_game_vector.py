"""The Game's vector env against the plain engine: every table replays alone, action for action, from its deal seed;
the `actions="slot"` head against the card head; the shared contract (`tests/envs/vector_contract.py`) on The Game."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import agents
from agents.base import make
from envs.the_game.encoding import TheGameEncoder
from envs.the_game.rules import NUM_ACTIONS, Config, TheGame, deal_order, slot_num_actions

sys.path.append(str(Path(__file__).parents[1]))  # tests/envs (after the installed packages), for the shared contract
from vector_contract import RandomMirror, VectorCase, VectorContract  # noqa: E402

CASE = VectorCase(
    "the_game", ["random", "the_game/bestplays"],
    not_kernels="the_game/rollout", allowed="random, the_game/simplest, the_game/bestplays", num_actions=NUM_ACTIONS,
    options=dict(num_players=3), heads=(dict(actions="card"), dict(actions="slot")),
    refused=((["random"], dict(num_players=2, rules="berger2024"), "official"),
             (["random"], dict(num_players=2, communication="pile_flags"), "communication"),
             (["random"], dict(num_players=2, actions="cards"), "actions must be one of"),
             (["random"], dict(num_players=2, control="all_seats"), "all_seats")),
    # over the six option sets, about 3,000 episodes replayed move for move; the random seat
    # (`envs.the_game.fast.random_move`) picks the same move in either head
    random_replays=(dict(num_players=1), dict(num_players=1, actions="slot"),
                    dict(num_players=3, actions="slot", min_cards_per_turn=1),
                    dict(num_players=2, hand_size=3, empty_hand="ends_game", win_bonus=0.0),
                    dict(num_players=4, actions="slot", empty_hand="ends_game", starter=2),
                    dict(num_players=5, hand_size=2, actions="slot", card_reward=0.25, win_bonus=3.0)),
    replay_size=(16, 200, 150), sb3=([], dict(num_players=1, actions="slot"), 16, 32, 600),
    redeals=True, return_tol=1e-3)  # a deal that ends before the learner's first decision is dealt again


class TestVectorContract(VectorContract):
    case = CASE


def test_deal_order_twins_and_deal():
    from envs.the_game import fast

    out = np.zeros(98, np.int64)
    for seed in (0, 1, 2**63 - 1, 12345678901234567):
        fast.deal_order(np.uint64(seed), out)
        assert out.tolist() == deal_order(seed)
        assert sorted(out.tolist()) == list(range(2, 100))
    g = TheGame(Config(num_players=3))
    assert g.deal(7) == g.deal_from(deal_order(7)) and g.deal(7) != g.deal(8)


@pytest.mark.parametrize("ids,opts", [
    (["the_game/bestplays"], dict(num_players=2)),
    (["the_game/simplest", "random", "the_game/bestplays"], dict(num_players=4, actions="slot")),
    (["the_game/bestplays"] * 2, dict(num_players=3, empty_hand="ends_game", actions="slot")),
])
def test_kernel_teammates_move_as_the_python_agents(ids, opts):
    game = TheGame(Config(**opts))

    def lineup(shared):
        return [RandomMirror(shared) if i == "random" else make(i, game, np.random.default_rng(0)) for i in ids]

    venv = agents.vector_env("the_game", 4, opponents=ids, seed=3, **opts)
    assert CASE.replay(venv, game, 3, lineup, 200, np.random.default_rng(1)) >= 4


def test_fixed_seat():
    opts = dict(num_players=3, actions="slot")
    venv = agents.vector_env("the_game", 3, opponents=["the_game/simplest"] * 2, seed=2, seat=1, **opts)
    game = TheGame(Config(**opts))
    _, info = venv.reset()
    assert (info["seat"] == 1).all()
    CASE.replay(venv, game, 2, lambda shared: [make("the_game/simplest", game, np.random.default_rng(0))] * 2, 100,
            np.random.default_rng(2), fixed_seat=1)


def test_slot_head_moves_as_the_card_head():
    """The same random-legal choices (k-th legal action) under both heads: the same tables, move for move."""
    card = agents.vector_env("the_game", 6, opponents=["the_game/bestplays"], seed=5)
    slot = agents.vector_env("the_game", 6, opponents=["the_game/bestplays"], seed=5, actions="slot")
    assert card.single_action_space.n == NUM_ACTIONS and slot.single_action_space.n == slot_num_actions(7) == 41
    assert agents.vector_env("the_game", 1, opponents=[], num_players=1, actions="slot").single_action_space.n == 45
    o1, _ = card.reset()
    o2, _ = slot.reset()
    rng = np.random.default_rng(0)
    for _ in range(300):
        np.testing.assert_array_equal(o1, o2)
        m1, m2 = card.action_masks(), slot.action_masks()
        assert (m1.sum(axis=1) == m2.sum(axis=1)).all()
        k = [rng.integers(c) for c in m1.sum(axis=1)]
        a1 = np.array([np.flatnonzero(m1[i])[k[i]] for i in range(6)])
        a2 = np.array([np.flatnonzero(m2[i])[k[i]] for i in range(6)])
        o1, r1, t1, _, _ = card.step(a1)
        o2, r2, t2, _, _ = slot.step(a2)
        np.testing.assert_array_equal(r1, r2)
        np.testing.assert_array_equal(t1, t2)


def test_all_seats_plays_whoever_is_to_move():
    opts = dict(num_players=3, actions="slot")
    game = TheGame(Config(**opts))
    enc = TheGameEncoder(game)
    venv = agents.vector_env("the_game", 3, opponents=[], seed=8, control="all_seats", **opts)
    obs, info = venv.reset()
    states = [game.deal(int(d)) for d in info["deal_seed"]]
    rng = np.random.default_rng(3)
    done = 0
    for _ in range(300):
        for i, s in enumerate(states):
            assert info["current_player"][i] == s.player
            np.testing.assert_array_equal(obs[i], enc.encode(game.view(s, s.player)))
            np.testing.assert_array_equal(info["action_mask"][i], game.legal_mask(s))
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in venv.action_masks()])
        obs, rew, term, _, info = venv.step(acts)
        assert info["rewards"].shape == (3, 3) and (info["rewards"] == rew[:, None]).all()
        for i in range(3):
            before = game.returns(states[i])[0]
            states[i] = game.apply(states[i], int(acts[i]))
            assert rew[i] == np.float32(game.returns(states[i])[0] - before)
            assert term[i] == states[i].over
            if term[i]:
                done += 1
                states[i] = game.deal(int(info["deal_seed"][i]))
    assert done >= 3


def test_max_turns_truncates_counting_every_seats_moves():
    opts = dict(num_players=3, actions="slot")
    game = TheGame(Config(**opts))
    ids = ["the_game/bestplays", "random"]
    venv = agents.vector_env("the_game", 6, opponents=ids, seed=6, max_turns=9, **opts)

    def lineup(shared):
        return [make(ids[0], game, np.random.default_rng(0)), RandomMirror(shared)]

    assert CASE.replay(venv, game, 6, lineup, 150, np.random.default_rng(4), max_turns=9) >= 30


def test_one_buffers_class_for_every_game():
    """numba types a named tuple's arguments by their arrays, not by its class: a second look-alike `Buffers` class
    in the process sent every kernel call of one game down numba's slow typing path, so there is one of each shape:
    `Buffers`, and `SeatBuffers` (with the all-seat fields) for the games whose kernels write them."""
    from envs.core.vector import Buffers, SeatBuffers
    from envs.lama import fast as lama_fast
    from envs.primi_composti import fast as primi_fast
    from envs.roborally import fast as roborally_fast
    from envs.the_game import fast

    assert fast.Buffers is Buffers
    assert (
        lama_fast.Buffers is SeatBuffers and primi_fast.Buffers is SeatBuffers and roborally_fast.Buffers is SeatBuffers
    )


@pytest.mark.parametrize("actions", ["card", "slot"])
def test_action_keys_are_each_plays_gap_and_backwards_trick_partner(actions):
    """`TheGameEncoder.action_keys` (what `--action-table` looks logits up by), read back from observations, against
    the rules: a play's key is dir·(card − top) + 100, plus 201 where the card ∓10 is held; other actions have none."""
    import envs
    from envs.the_game.rules import decode_play

    game = envs.make_game("the_game", num_players=2, actions=actions)
    enc = envs.make_encoder("the_game", game)
    rng = np.random.default_rng(3)
    partners = set()
    for deal in range(6):
        state = game.initial_state(np.random.default_rng(deal))
        while not game.is_terminal(state):
            keys = enc.action_keys(enc.encode(game.view(state, state.player))[None])[0]
            assert keys.shape == (game.num_actions,)
            hand = state.hands[state.player]
            for a in range(game.num_actions):
                card_action = game.to_card_action(state, a)
                if card_action is None or card_action >= 392:
                    assert keys[a] == enc.num_action_keys
                    continue
                card, pile = decode_play(card_action)
                if card not in hand:
                    continue
                top, up = state.piles[pile][-1], pile < 2
                partner = (card - 10 if up else card + 10) in hand
                partners.add(partner)
                assert keys[a] == ((card - top) if up else (top - card)) + 100 + 201 * partner, (a, card, pile)
            state = game.apply(state, int(rng.choice(game.legal_actions(state))))
    assert partners == {False, True}
