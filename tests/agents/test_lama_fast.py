"""Differential tests: the numba tournament path replays the plain engine exactly."""

from __future__ import annotations

import numpy as np
import pytest

from agents.lama.fast import play_games
from agents.lama.strategies import DEFAULT, TUNED, FirstStrategy, SecondStrategy, ThirdStrategy
from envs.lama.rules import Config, LamaGame

CASES = [
    dict(rules="seed2022"),
    dict(rules="seed2022", num_players=8),
    dict(rules="seed2022", num_players=5, target_points=150),
    dict(rules="official"),
    dict(rules="official", num_players=2),
    dict(rules="official", num_players=6, empty_deck="reshuffle"),
    dict(
        rules="seed2022",
        num_players=7,
        last_player_continues=True,
        round_starter="ender",
        scoring="distinct",
        return_chip=True,
    ),
]


def plain_game(game: LamaGame, seed: int, agents):
    s = game.new_game(seed)
    steps = 0
    while not game.is_terminal(s):
        p = s.current
        s = game.apply(s, agents[p].act(game.view(s, p), game.legal_mask(s)))
        steps += 1
    return s, steps


@pytest.mark.parametrize("opts", CASES)
def test_fast_path_equals_engine(opts):
    cfg = Config(**opts)
    game = LamaGame(cfg)
    n = cfg.num_players
    rng = np.random.default_rng(2024)
    seeds = rng.integers(0, 2**63, size=25)
    params = np.array([TUNED if i % 2 == 0 else DEFAULT for i in range(n)])
    for strat in ([1] * n, [2] * n, [3] + [1] * (n - 1), [3] * n):
        res = play_games(cfg, seeds, strat, params)
        for k, seed in enumerate(seeds):
            agents = [
                {1: FirstStrategy(), 2: SecondStrategy(), 3: ThirdStrategy(params=tuple(params[i]))}[strat[i]]
                for i in range(n)
            ]
            s, steps = plain_game(game, int(seed), agents)
            assert tuple(res.totals[k]) == s.totals
            assert tuple(res.rounds_won[k]) == s.rounds_won
            assert res.rounds[k] == s.round + 1
            assert res.steps[k] == steps
            assert tuple(np.flatnonzero(res.wins[k])) == game.winners(s)


def test_per_game_seating_and_bad_input():
    cfg = Config(rules="seed2022")
    seeds = np.arange(30, dtype=np.uint64)
    strats = np.array([np.roll([3, 1, 1, 1], k % 4) for k in range(30)])
    res = play_games(cfg, seeds, strats, TUNED)
    for k in range(30):
        one = play_games(cfg, seeds[k : k + 1], strats[k], TUNED)
        assert np.array_equal(one.totals[0], res.totals[k])
    with pytest.raises(ValueError):
        play_games(cfg, seeds, [1, 1, 4, 1])
    with pytest.raises(ValueError):
        play_games(cfg, seeds, [1, 1, 1])
