"""The L.A.M.A. observation: named fields hold what the docs say."""

from __future__ import annotations

import numpy as np
import pytest

from envs.lama.encoding import LamaEncoder
from envs.lama.rules import VALUES, Config, LamaGame


@pytest.mark.parametrize("opts", [dict(num_players=3), dict(num_players=8, rules="seed2022")])
def test_fields(opts):
    game = LamaGame(Config(**opts))
    enc = LamaEncoder(game)
    n = game.num_players
    rng = np.random.default_rng(1)
    s = game.initial_state(rng)
    for step in range(400):
        if game.is_terminal(s):
            break
        seat = step % n
        v = game.view(s, seat)
        obs = enc.encode(v)
        assert obs.shape == enc.observation_space.shape and enc.observation_space.contains(obs)
        f = enc.layout.split(obs)
        assert np.allclose(f["hand"] * 8, s.hands[seat])
        assert f["top"].argmax() == s.discard[-1] and f["top"].sum() == 1
        assert np.allclose(f["discard"] * 8, np.bincount(np.array(s.discard), minlength=VALUES))
        hidden = np.bincount(np.array(s.draw_pile, dtype=int), minlength=VALUES) + sum(
            np.array(h) for i, h in enumerate(s.hands) if i != seat
        )
        assert np.allclose(f["unseen"] * 8, hidden)
        order = [(seat + k) % n for k in range(n)]
        assert np.allclose(f["hand_sizes"] * 56, [sum(s.hands[i]) for i in order])
        assert np.allclose(f["totals"] * game.target_points, [s.totals[i] for i in order])
        assert f["to_act"].argmax() == (s.current - seat) % n
        assert f["draw_size"][0] * 56 == pytest.approx(len(s.draw_pile))
        la = game.legal_actions(s)
        s = game.apply(s, la[0] if la[0] < 7 else la[-2] if len(la) > 1 else la[0])
