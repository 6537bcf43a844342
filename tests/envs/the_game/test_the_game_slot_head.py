"""The `actions="slot"` head of the plain engine against the card head: the same legal moves in the same order,
the same states after them, the strategies' moves translated, refusals in the slot head's ids."""

from __future__ import annotations

import numpy as np
import pytest

from agents.base import make
from envs.core.game import IllegalActionError
from envs.the_game.rules import END_TURN, Config, TheGame, play_action


@pytest.mark.parametrize("opts", [dict(num_players=1), dict(num_players=3, communication="pile_flags"),
                                  dict(num_players=2, rules="berger2024"), dict(num_players=4, hand_size=3)])
def test_slot_head_is_the_card_head_renamed(opts):
    slot, card = TheGame(Config(actions="slot", **opts)), TheGame(Config(**opts))
    hs = slot.hand_size
    assert slot.num_actions == 4 * hs + 13 and card.num_actions == 405
    rng = np.random.default_rng(0)
    for seed in range(40):
        s = slot.deal(seed)
        while not s.over:
            ls, lc = slot.legal_actions(s), card.legal_actions(s)
            assert [slot.to_card_action(s, a) for a in ls] == list(lc)  # same moves, same order
            assert np.flatnonzero(slot.legal_mask(s)).tolist() == list(ls)
            assert [slot.from_card_action(s.hands[s.player], a) for a in lc] == list(ls)
            k = int(rng.integers(len(ls)))
            assert slot.action_to_string(s, ls[k]) == card.action_to_string(s, lc[k])
            nxt = slot.apply(s, ls[k])
            assert nxt == card.apply(s, lc[k])
            s = nxt


def test_slot_refusals_name_slot_ids():
    g = TheGame(Config(num_players=1, actions="slot", hand_size=4))
    s = g.deal(3)
    s = g.apply(s, g.legal_actions(s)[0])  # three cards left: slot 3 is empty
    with pytest.raises(IllegalActionError, match="hand slot 3 holds no card") as e:
        g.apply(s, 12)
    assert e.value.legal == g.legal_actions(s)
    with pytest.raises(IllegalActionError, match="end turn"):
        g.apply(s, 16)  # one card played, two owed
    with pytest.raises(IllegalActionError, match=r"0\.\.28"):
        g.apply(s, 29)
    assert g.action_to_string(None, 5) == "play slot 1 on up1" and g.action_to_string(None, 16) == "end turn"
    with pytest.raises(ValueError, match="actions must be one of"):
        Config(actions="cards")


@pytest.mark.parametrize("agent_id", ["the_game/bestplays", "the_game/simplest", "the_game/random",
                                      "the_game/minimal", "the_game/trick"])
def test_strategies_play_the_same_moves_in_either_head(agent_id):
    official_only = agent_id in ("the_game/bestplays", "the_game/simplest")
    for opts in (dict(num_players=2), dict(num_players=3, communication="pile_flags") if official_only
                 else dict(num_players=3, rules="berger2024")):
        slot, card = TheGame(Config(actions="slot", **opts)), TheGame(Config(**opts))
        a_slot, a_card = make(agent_id, slot, np.random.default_rng(1)), make(agent_id, card, np.random.default_rng(1))
        for seed in range(10):
            s = slot.deal(seed)
            while not s.over:
                v = slot.view(s, s.player)
                a, b = a_slot.act(v, slot.legal_mask(s)), a_card.act(v, card.legal_mask(s))
                assert slot.to_card_action(s, a) == b
                s = slot.apply(s, a)


def test_card_head_ids_unchanged():
    g = TheGame(Config())
    assert g.num_actions == 405 and g.end_turn == END_TURN and g.from_card_action((5,), play_action(5, 2)) == 14
