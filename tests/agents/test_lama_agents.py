"""The seed's L.A.M.A. strategies: exact decision rules (rules doc §5), legality, registry."""

from __future__ import annotations

import numpy as np
import pytest

import agents
from agents.lama.strategies import DEFAULT, RETUNED, TUNED, FirstStrategy, SecondStrategy, ThirdStrategy, fold_value
from envs.lama.rules import DRAW, LLAMA, QUIT, Config, LamaGame, State


def counts(*cards):
    h = [0] * 7
    for c in cards:
        h[c] += 1
    return tuple(h)


def state(game, hand, top, others=((1,), (1,), (1,)), draw_pile=(2, 3), active=None):
    n = game.num_players
    hands = (counts(*hand),) + tuple(counts(*o) for o in others)
    hands = hands + (counts(2),) * (n - len(hands))
    return State(
        seed=1, round=0, reshuffles=0, hands=hands[:n], draw_pile=tuple(draw_pile), discard=(top,),
        stock=(8,) * 7, active=tuple(active) if active else (True,) * n, current=0, starter=0,
        totals=(0,) * n, rounds_won=(0,) * n, last_scores=(0,) * n,
    )


def act(agent, game, s):
    return agent.act(game.view(s, 0), game.legal_mask(s))


G4 = LamaGame(Config(rules="seed2022"))


@pytest.mark.parametrize(
    "hand,top,first,second",
    [
        ((6, LLAMA), 6, 6, LLAMA),
        ((LLAMA, 1), LLAMA, LLAMA, 1),
        ((3, 4), 3, 3, 4),
        ((4, 5), 3, 4, 4),
        ((3, 5), 3, 3, 3),
        ((5, 6), 3, DRAW, DRAW),
    ],
)
def test_first_and_second(hand, top, first, second):
    s = state(G4, hand, top)
    assert act(FirstStrategy(), G4, s) == first
    assert act(SecondStrategy(), G4, s) == second


def test_third_plays_like_first_below_seven_players():
    s = state(G4, (6, LLAMA), 6)
    assert act(ThirdStrategy(), G4, s) == 6
    g7 = LamaGame(Config(rules="seed2022", num_players=7))
    s7 = state(g7, (6, LLAMA), 6)
    assert act(ThirdStrategy(), g7, s7) == LLAMA
    assert act(ThirdStrategy(), g7, state(g7, (3, 4), 3)) == 3


def test_fold_value_formula():
    # hand {2, 2}: x = 1, y = 4; smallest hand over all seats = 1 (an opponent)
    s = state(G4, (2, 2), 5, others=((1,), (1, 1), (3, 3, 3)))
    v = G4.view(s, 0)
    a, b, c, d = DEFAULT
    assert fold_value(v, DEFAULT) == pytest.approx(-a + (4 - c) + d * 1)
    # hand {2, 3, llama}: x = 3, y = 15; z includes the decider's own 3 cards
    s = state(G4, (2, 3, LLAMA), 5, others=((1, 1, 1, 1),) * 3)
    a, b, c, d = TUNED
    assert fold_value(G4.view(s, 0), TUNED) == pytest.approx(b * 3 + (15 - c) + d * 3)


def test_third_folds_by_the_sign_of_f():
    # x = 1, y = 2, z = 1: f = -10 + (2 - 4.4) + 1 < 0 -> quit; tuned: also < 0
    s = state(G4, (2,), 5)
    assert act(ThirdStrategy(params=DEFAULT), G4, s) == QUIT
    assert act(ThirdStrategy(), G4, s) == QUIT
    # two distinct values: f > 0 with either set -> draw
    s = state(G4, (2, 3), 5)
    assert act(ThirdStrategy(params=DEFAULT), G4, s) == DRAW
    # f == 0 exactly draws (the code's >=): A = 0, C = y + D z
    s = state(G4, (2,), 5)
    assert act(ThirdStrategy(params=(0.0, 1.0, 3.0, 1.0)), G4, s) == DRAW
    assert act(ThirdStrategy(params=(0.0, 1.0, 3.5, 1.0)), G4, s) == QUIT


def test_no_draw_available_means_quit():
    g = LamaGame(Config(rules="official"))
    s = state(g, (5, 6), 2, draw_pile=())
    for agent in (FirstStrategy(), SecondStrategy(), ThirdStrategy()):
        assert act(agent, g, s) == QUIT


def test_registry():
    game = LamaGame(Config())
    rng = np.random.default_rng(0)
    assert isinstance(agents.make("lama/first", game, rng), FirstStrategy)
    assert isinstance(agents.make("lama/second", game, rng), SecondStrategy)
    assert agents.make("lama/third", game, rng).params == TUNED
    assert agents.make("lama/third-default", game, rng).params == DEFAULT
    assert agents.make("lama/third-retuned", game, rng).params == RETUNED
    assert agents.make("lama/third?a=1&b=2&c=3.5&d=0.5", game, rng).params == (1.0, 2.0, 3.5, 0.5)
    assert "lama/third" in agents.known_ids("lama")
    with pytest.raises(ValueError):
        agents.make("lama/fourth", game, rng)


@pytest.mark.parametrize("opts", [dict(rules="official", num_players=3), dict(rules="seed2022", num_players=7)])
def test_agents_always_legal_and_deterministic(opts):
    game = LamaGame(Config(**opts))
    ids = ["lama/first", "lama/second", "lama/third", "lama/third-default", "random"]
    for agent_id in ids:
        runs = []
        for _ in range(2):
            rng = np.random.default_rng(11)
            seats = [agents.make(agent_id, game, np.random.default_rng(100 + i)) for i in range(game.num_players)]
            s = game.initial_state(rng)
            trace = []
            for _ in range(5000):
                if game.is_terminal(s):
                    break
                p = s.current
                mask = game.legal_mask(s)
                a = seats[p].act(game.view(s, p), mask)
                assert mask[a] == 1
                trace.append(a)
                s = game.apply(s, a)
            assert game.is_terminal(s)
            runs.append(trace)
        assert runs[0] == runs[1]
