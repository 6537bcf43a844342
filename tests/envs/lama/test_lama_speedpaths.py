"""The engine's fast paths equal their plain references (see also test_lama_golden)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from envs.lama.encoding import LamaEncoder, _f32
from envs.lama.rules import _MASKS, Config, LamaGame, State, View


def test_f32_bytes_equal_numpy():
    rng = np.random.default_rng(1)
    values = [c / 8.0 for c in range(60)] + [c / 56 for c in range(60)] + list(rng.normal(size=500) * 1e3)
    values += [0.1, 1 / 3, 2.0**-140, 3.4e38, -0.0, 1e-45]
    for v in values:
        assert _f32([v]) == np.array([v], dtype=np.float32).tobytes()
    assert _f32(values) == np.array(values, dtype=np.float32).tobytes()


def _random_states(game: LamaGame, seed: int, count: int):
    rng = np.random.default_rng(seed)
    s = game.initial_state(rng)
    out = []
    while len(out) < count:
        out.append(s)
        legal = game.legal_actions(s)
        s = game.apply(s, legal[rng.integers(len(legal))])
        if s.game_over:
            out.append(s)
            s = game.initial_state(rng)
    return out


@pytest.mark.parametrize(
    "opts", [dict(num_players=2), dict(num_players=5, reward="dense"), dict(num_players=8, rules="seed2022")]
)
def test_tables_and_encoder_equal_plain(opts):
    game = LamaGame(Config(**opts))
    enc = LamaEncoder(game)
    for s in _random_states(game, 3, 1500):
        fresh = LamaGame(game.config)  # no remembered facts
        legal = fresh._legal_plain(s)
        assert game.legal_actions(s) == legal
        mask = np.zeros(9, dtype=np.int8)
        mask[list(legal)] = 1
        assert np.array_equal(game.legal_mask(s), mask)
        for seat in range(game.num_players):
            v = game.view(s, seat)
            assert v == fresh.view(s, seat)
            got, ref = enc.encode(v), enc._encode_plain(v)
            assert got.dtype == ref.dtype and got.shape == ref.shape and got.tobytes() == ref.tobytes()
            assert got.flags.owndata and got.flags.writeable


def test_odd_views_and_states_take_the_reference_path():
    game = LamaGame(Config(num_players=3))
    enc = LamaEncoder(game)
    s = game.new_game(7)
    v = game.view(s, 1)
    odd = [
        dataclasses.replace(v, seat=np.int64(1)),
        dataclasses.replace(v, hand_sizes=(70, 3, 2)),
        dataclasses.replace(v, unseen=tuple(-x for x in v.unseen)),
        dataclasses.replace(v, totals=(1.5, 2, 3)),
        dataclasses.replace(v, active=(np.True_, False, 1)),
        dataclasses.replace(v, hand_sizes=list(v.hand_sizes), totals=list(v.totals)),  # unhashable: fallback
    ]
    for w in odd:
        assert enc.encode(w).tobytes() == enc._encode_plain(w).tobytes()
    with pytest.raises(IndexError):
        enc.encode(dataclasses.replace(v, seat=5))
    # a top card outside 0..6 uses the plain legal-action rule
    t = s._replace(discard=(np.int64(6),))
    assert game.legal_actions(t) == LamaGame(game.config)._legal_plain(t)
    assert isinstance(v, View) and isinstance(s, State) and _MASKS is not None
