"""Simple poker's vector env against the plain engine: every hand replays alone from its deal seed."""

from __future__ import annotations

import numpy as np
import pytest

import agents
from agents.simple_poker.strategies import behaviour_of
from envs.core.vector import episode_seeds, next_random
from envs.simple_poker.encoding import SimplePokerEncoder
from envs.simple_poker.rules import BET, PASS, Config, SimplePokerGame


def _mirror(agent_id, game):
    """The opponent's choice as the vector env draws it: from the table's stream (random: draw mod 2; a behaviour
    strategy: bet when (draw >> 11) / 2**53 < p), or the Python agent itself when it is deterministic."""
    agent = agents.make(agent_id, game, np.random.default_rng(0))
    b = behaviour_of(agent, game)

    def choose(view, stream):
        p = (b.bet if view.seat == 0 else b.call)[view.card - 1]
        if p in (0.0, 1.0):
            return agent.act(view, np.ones(2, np.int8))  # the Python agent decides alone
        stream[0], z = next_random(stream[0])
        return BET if (z >> 11) * 2.0**-53 < p else PASS

    return choose


def _random_choice(view, stream):
    stream[0], z = next_random(stream[0])
    return z % 2


@pytest.mark.parametrize("agent_id,opts", [("simple_poker/threshold?t=2", {}), ("simple_poker/nash", {}),
                                           ("simple_poker/tactic?bet=01101&call=00111", dict(n=5, ante=1.0, bet=3.0)),
                                           ("random", dict(n=4))])
def test_hands_replay_in_the_plain_engine(agent_id, opts):
    game = SimplePokerGame(Config(**opts))
    enc = SimplePokerEncoder(game)
    choose = _random_choice if agent_id == "random" else _mirror(agent_id, game)
    N = 5
    venv = agents.vector_env("simple_poker", N, opponents=[agent_id], seed=7, **opts)
    obs, info = venv.reset()
    episode = [0] * N
    rng = np.random.default_rng(0)

    def start(i):
        seat = episode_seeds(7, i, episode[i], 2)[1]  # a hand dealt again keeps the seat
        while True:
            d, _, s = episode_seeds(7, i, episode[i], 2)
            episode[i] += 1
            stream = [s]
            state = game.deal(d)
            if seat == 1:
                state = game.apply(state, choose(game.view(state, 0), stream))
            if not game.is_terminal(state):
                assert (d, seat) == (info["deal_seed"][i], info["seat"][i])
                return state, seat, stream

    tables = [start(i) for i in range(N)]
    bets = 0
    for _ in range(300):
        for i, (state, seat, _) in enumerate(tables):
            np.testing.assert_array_equal(obs[i], enc.encode(game.view(state, seat)))
        acts = rng.integers(0, 2, N)
        obs, rew, term, trunc, info = venv.step(acts)
        assert term.all() and not trunc.any() and info["_final_obs"].all()
        for i, (state, seat, stream) in enumerate(tables):
            state = game.apply(state, int(acts[i]))
            if not game.is_terminal(state):
                state = game.apply(state, choose(game.view(state, 1), stream))
                bets += 1
            assert rew[i] == np.float32(game.returns(state)[seat])
            np.testing.assert_array_equal(info["final_obs"][i], enc.encode(game.view(state, seat)))
            assert info["episode"]["r"][i] == rew[i] and info["episode"]["l"][i] == 1
        tables = [start(i) for i in range(N)]
    assert bets > 50


def test_nash_opponent_return_matches_the_exact_value():
    from agents.simple_poker.strategies import expected_payoff, showdown_sign

    game = SimplePokerGame(Config())
    n, ante, bet = game.n, game.ante, game.bet
    venv = agents.vector_env("simple_poker", 4096, opponents=["simple_poker/nash"], seed=3)
    venv.reset()
    nash = behaviour_of(agents.make("simple_poker/nash", game, np.random.default_rng(0)), game)
    rewards = np.concatenate([venv.step(np.ones(4096, np.int64))[1] for _ in range(10)])
    # exact mean of "always bet / always call" against the equilibrium: half the hands as player 1; as player 2
    # only the hands where the equilibrium bets (the others are dealt again), each card weighted by its bet chance
    as_p1 = expected_payoff(n, ante, bet, np.ones(n), np.array(nash.call))
    w = np.array(nash.bet)
    as_p2 = -(ante + bet) * float(w @ showdown_sign(n).sum(axis=1)) / (n * w.sum())
    exact = (as_p1 + as_p2) / 2
    half = 1.96 * rewards.std(ddof=1) / np.sqrt(rewards.size)
    assert abs(rewards.mean() - exact) < half, (rewards.mean(), exact, half)


def test_bad_input_and_ids():
    venv = agents.vector_env("simple_poker", 3, opponents=["simple_poker/nash"], seed=0)
    venv.reset()
    o, r, t, _, info = venv.step(np.array([0, 5, 1]))
    assert r[1] == -1.0 and info["_illegal_action"].tolist() == [False, True, False]
    with pytest.raises(ValueError, match="allowed: random, simple_poker/nash"):
        agents.vector_env("simple_poker", 3, opponents=["lama/first"])
    with pytest.raises(ValueError, match="1 opponent"):
        agents.vector_env("simple_poker", 3, opponents=["random", "random"])
    strict = agents.vector_env("simple_poker", 3, opponents=["random"], seed=0, strict=True)
    strict.reset()
    from envs.core.game import IllegalActionError

    with pytest.raises(IllegalActionError, match="table 2"):
        strict.step(np.array([0, 1, 2]))


def test_tables_do_not_depend_on_num_envs_and_view_is_consistent():
    a = agents.vector_env("simple_poker", 2, opponents=["simple_poker/nash"], seed=1)
    b = agents.vector_env("simple_poker", 9, opponents=["simple_poker/nash"], seed=1)
    oa, ia = a.reset()
    ob, ib = b.reset()
    for _ in range(50):
        np.testing.assert_array_equal(oa, ob[:2])
        acts = np.arange(9) % 2
        oa, ra, *_ = a.step(acts[:2])
        ob, rb, *_ = b.step(acts)
        np.testing.assert_array_equal(ra, rb[:2])
