"""Simple poker: the seed's game values, the LP equilibrium, exact exploitability."""

from __future__ import annotations

import numpy as np
import pytest

import agents
from agents.simple_poker.strategies import (
    behaviour_of,
    best_response_value,
    expected_payoff,
    exploitability,
    game_value,
    match_value,
    payoff_matrix,
    pure_tactics,
    restricted_value,
    solve,
)
from envs.simple_poker import Config, SimplePokerGame, State

# Rules doc §5: (n, A, B, tactic set, value G for player 1) — the seed's published values.
SEED_TABLE = [
    (2, 1, 1, "all", 0.0),
    (2, 1, 2, "all", -0.25),
    (2, 1, 1.9, "all", -0.225),
    (2, 1, 3, "all", -0.25),
    (3, 1, 1, "all", -1 / 9),
    (3, 1, 2, "all", -1 / 6),
    (3, 1, 2, "thresholds", -1 / 6),
    (10, 1, 1, "thresholds", -0.106667),
    (10, 1, 10, "thresholds", -0.67),
    (10, 1, 100, "thresholds", -0.81),
]


@pytest.mark.parametrize("n, a, b, tactics, value", SEED_TABLE)
def test_seed_game_values(n, a, b, tactics, value):
    g, mix = restricted_value(n, a, b, tactics)
    assert g == pytest.approx(value, abs=5e-7)  # the seed prints 6 decimals
    # the returned mix guarantees G against every row (the mix itself is not unique)
    T = pure_tactics(n) if tactics == "all" else None
    R = payoff_matrix(n, a, b, T) if T is not None else None
    if R is not None:
        assert (R @ mix).min() == pytest.approx(g, abs=1e-9)


@pytest.mark.parametrize("n, a, b, tactics, value", SEED_TABLE)
def test_behaviour_lp_matches_the_seed_table(n, a, b, tactics, value):
    """Over all behaviour strategies the value equals the seed's (thresholds lose nothing)."""
    assert game_value(n, a, b) == pytest.approx(value, abs=5e-7)


def test_seed_payoff_matrix_n2():
    R = payoff_matrix(2, 1, 1, pure_tactics(2))
    expected = np.array([[-1, 0, 0, 1], [-1, -0.25, -0.75, 0], [-1, 0.25, -0.25, 1], [-1, 0, -1, 0]])
    assert np.allclose(R, expected)
    R19 = payoff_matrix(2, 1, 1.9, pure_tactics(2))
    assert np.allclose(R19[:, 3], [1, -0.225, 1.225, 0])


@pytest.mark.parametrize("b, value", [(0.5, -0.04), (0.25, -0.0111), (0.75, -0.0709), (20, -0.81)])
def test_seed_n10_threshold_curve(b, value):
    assert restricted_value(10, 1, b, "thresholds")[0] == pytest.approx(value, abs=5e-5)


@pytest.mark.parametrize("n, a, b", [(2, 1, 1), (3, 1, 2), (10, 1, 2), (25, 1, 3.5), (100, 2, 5)])
def test_equilibrium_is_exactly_unexploitable(n, a, b):
    sol = solve(n, float(a), float(b))
    x, y = np.array(sol.strategy.bet), np.array(sol.strategy.call)
    assert best_response_value(n, a, b, p1_bet=x) == pytest.approx(-sol.value, abs=1e-9)
    assert best_response_value(n, a, b, p2_call=y) == pytest.approx(sol.value, abs=1e-9)
    assert expected_payoff(n, a, b, x, y) == pytest.approx(sol.value, abs=1e-9)


def test_expected_payoff_equals_enumeration_of_deals():
    game = SimplePokerGame(Config(n=4, ante=1, bet=2))
    rng = np.random.default_rng(0)
    x, y = rng.random(4), rng.random(4)
    total = 0.0
    for c1 in range(1, 5):
        for c2 in range(1, 5):
            for a1, p1 in ((0, 1 - x[c1 - 1]), (1, x[c1 - 1])):
                s = game.apply(State((c1, c2)), a1)
                if game.is_terminal(s):
                    total += p1 * game.returns(s)[0]
                    continue
                for a2, p2 in ((0, 1 - y[c2 - 1]), (1, y[c2 - 1])):
                    total += p1 * p2 * game.returns(game.apply(s, a2))[0]
    assert expected_payoff(4, 1, 2, x, y) == pytest.approx(total / 16, abs=1e-12)


def test_nash_agent_exploitability_is_zero_and_always_bet_is_exploitable():
    game = SimplePokerGame(Config(n=10, ante=1, bet=2))
    rng = np.random.default_rng(0)
    nash = agents.make("simple_poker/nash", game, rng)
    always = agents.make("simple_poker/threshold?t=1", game, rng)
    assert exploitability(game, behaviour_of(nash, game)).total == pytest.approx(0.0, abs=1e-9)
    e = exploitability(game, behaviour_of(always, game))
    assert e.total > 0.1 and e.as_player1 > 0 and e.as_player2 > 0
    assert match_value(game, behaviour_of(nash, game), behaviour_of(always, game)) > 0


def test_n100_solution_is_an_equilibrium():
    """At n = 100 (its speed is measured in benchmarks, not here) each seat's strategy is a best response to
    the other's: neither seat can beat the game value against it."""
    solve.cache_clear()
    sol = solve(100, 1.0, 2.0)
    assert best_response_value(100, 1.0, 2.0, p1_bet=np.array(sol.strategy.bet)) == pytest.approx(-sol.value, abs=1e-7)
    assert best_response_value(100, 1.0, 2.0, p2_call=np.array(sol.strategy.call)) == pytest.approx(sol.value, abs=1e-7)


def test_sampled_play_agrees_with_exact_value():
    """A seeded tournament of nash vs random lands within its 99.9% interval of the exact value."""
    from evaluate.tournament import run_tournament

    game = SimplePokerGame(Config(n=3, ante=1, bet=2))
    rng = np.random.default_rng(1)
    exact = match_value(game, behaviour_of(agents.make("simple_poker/nash", game, rng), game),
                        behaviour_of(agents.make("random", game, rng), game))
    res = run_tournament(
        "simple_poker",
        ["simple_poker/nash", "random"],
        games=6000,
        seed=5,
        options=dict(n=3, ante=1, bet=2),
        progress=False,
    )
    a = res.agents[0]
    half = (a.score_ci95[1] - a.score_ci95[0]) / 2
    assert abs(a.mean_score - exact) < half * 3.29 / 1.96


@pytest.mark.parametrize("agent_id", ["simple_poker/nash", "simple_poker/threshold?t=3", "simple_poker/tactic?bet=0111",
                                      "simple_poker/tactic?bet=0011&call=0001", "random"])
def test_agents_play_legal_and_deterministic(agent_id):
    game = SimplePokerGame(Config(n=4))

    def trace(seed):
        a = agents.make(agent_id, game, np.random.default_rng(seed))
        out = []
        rng = np.random.default_rng(seed)
        for _ in range(200):
            s = game.initial_state(rng)
            while not game.is_terminal(s):
                mask = np.ones(2, dtype=np.int8)
                act = a.act(game.view(s, game.current_player(s)), mask)
                assert act in game.legal_actions(s)
                s = game.apply(s, act)
                out.append(act)
        return out

    assert trace(3) == trace(3)


@pytest.mark.parametrize("bad", ["simple_poker/threshold?t=0", "simple_poker/threshold?t=5",
                                 "simple_poker/tactic?bet=01", "simple_poker/bogus", "lama/first"])
def test_bad_agent_ids(bad):
    game = SimplePokerGame(Config(n=4))
    with pytest.raises(ValueError):
        agents.make(bad, game, np.random.default_rng(0), game_name="simple_poker")


def test_agents_need_an_explicit_generator():
    with pytest.raises(TypeError):
        agents.make("random", SimplePokerGame(), None)
