"""The engine's compiled game loop: the same games as the plain engine, whatever decides."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from envs.core.game import IllegalActionError
from envs.lama import fast
from envs.lama.rules import DRAW, LLAMA, QUIT, Config, LamaGame


@numba.njit(inline="always")
def _draw_else_quit(code, params, hands, seat, sizes, top, can_draw):
    return DRAW if can_draw else QUIT


@numba.njit(inline="always")
def _always_llama(code, params, hands, seat, sizes, top, can_draw):
    return LLAMA


@numba.njit
def _batch_draw(seeds, codes, params, switches, totals, won, info, budget):
    for k in range(seeds.shape[0]):
        fast.play_game(_draw_else_quit, seeds[k], codes[k], params[k], switches, totals[k], won[k], info[k], budget)


@numba.njit
def _batch_llama(seeds, codes, params, switches, totals, won, info, budget):
    for k in range(seeds.shape[0]):
        fast.play_game(_always_llama, seeds[k], codes[k], params[k], switches, totals[k], won[k], info[k], budget)


class DrawElseQuit:
    def act(self, view, mask):
        return DRAW if mask[DRAW] else QUIT


@pytest.mark.parametrize("opts", [dict(rules="seed2022", target_points=60), dict(rules="official", num_players=3),
                                  dict(rules="official", num_players=5, empty_deck="reshuffle")])
def test_game_loop_equals_engine(opts):
    cfg = Config(**opts)
    game = LamaGame(cfg)
    seeds = np.arange(12, dtype=np.uint64)
    res = fast.play_games(cfg, seeds, _batch_draw, [0] * cfg.num_players)
    agent = DrawElseQuit()
    for k, seed in enumerate(seeds):
        s = game.new_game(int(seed))
        steps = 0
        while not game.is_terminal(s):
            s = game.apply(s, agent.act(None, game.legal_mask(s)))
            steps += 1
        assert tuple(res.totals[k]) == s.totals
        assert tuple(res.rounds_won[k]) == s.rounds_won
        assert (res.rounds[k], res.steps[k]) == (s.round + 1, steps)


def test_illegal_decision_raises_naming_seat_and_action():
    cfg = Config(rules="seed2022")
    s = LamaGame(cfg).new_game(0)
    assert LLAMA not in LamaGame(cfg).legal_actions(s)  # so seat 0's first move is illegal
    with pytest.raises(IllegalActionError) as e:
        fast.play_games(cfg, np.arange(1, dtype=np.uint64), _batch_llama, [0] * 4)
    assert e.value.action == LLAMA and e.value.seat == 0


def test_bad_shapes():
    cfg = Config(rules="seed2022")
    with pytest.raises(ValueError, match="codes"):
        fast.play_games(cfg, np.arange(3, dtype=np.uint64), _batch_draw, [0] * 3)
