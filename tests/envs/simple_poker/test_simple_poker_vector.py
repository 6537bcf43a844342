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
            assert info["tabletop_episode"]["r"][i] == rew[i] and info["tabletop_episode"]["l"][i] == 1
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


@pytest.mark.parametrize("opts", [{}, dict(n=5, ante=1.0, bet=3.0)])
def test_all_seats_tables_replay_in_the_plain_engine(opts):
    """control="all_seats": the seat to move acts at every table; each hand replays from its deal seed with the same
    observations, seats to move, per-seat rewards and ends (random actions, some refused)."""
    from envs.simple_poker.vector import vector_env

    game = SimplePokerGame(Config(**opts))
    enc = SimplePokerEncoder(game)
    venv = vector_env(64, seed=5, control="all_seats", **opts)
    obs, info = venv.reset()
    rng = np.random.default_rng(1)
    states = [game.deal(int(d)) for d in info["deal_seed"]]
    ends = refusals = 0
    for _ in range(300):
        for i, s in enumerate(states):
            seat = game.current_player(s)
            assert info["current_player"][i] == seat == info["seat"][i]
            np.testing.assert_array_equal(obs[i], enc.encode(game.view(s, seat)))
        acts = rng.integers(0, 2, venv.num_envs)
        acts[rng.random(venv.num_envs) < 0.02] = 7  # refused: the hand ends, the actor gets illegal_reward
        obs, reward, term, trunc, info = venv.step(acts)
        for i, s in enumerate(states):
            seat = game.current_player(s)
            if acts[i] == 7:
                refusals += 1
                want = np.zeros(2)
                want[seat] = -1.0
                assert term[i] and info["illegal_action"][i] == 7
            else:
                s = game.apply(s, int(acts[i]))
                want = np.array(game.returns(s)) if game.is_terminal(s) else np.zeros(2)
                assert term[i] == game.is_terminal(s)
            np.testing.assert_allclose(info["rewards"][i], want)
            assert reward[i] == want[seat] and not trunc[i]
            if term[i]:
                ends += 1
                assert info["final_info"]["current_player"][i] == seat and info["tabletop_episode"]["r"][i] == want[0]
                states[i] = game.deal(int(info["deal_seed"][i]))
            else:
                states[i] = s
    assert ends > 5000 and refusals > 100


def test_all_seats_refuses_opponents_and_cleanrl_self_play_improves_it():
    import torch

    from agents.simple_poker.strategies import exploitability
    from envs.simple_poker.vector import vector_env
    from train.cleanrl_ppo import train

    with pytest.raises(ValueError, match="give no opponents and no seat"):
        vector_env(4, control="all_seats", opponents=[agents.vector.resolve_opponents("simple_poker", ["random"])[0]])
    with pytest.raises(ValueError, match="control must be one of 'one_seat', 'all_seats'"):
        vector_env(4, opponents=[], control="every_seat")
    game = SimplePokerGame(Config(n=3))
    enc = SimplePokerEncoder(game)

    def exploit(policy) -> float:
        class Greedy:
            def action_probs(self, view, mask):
                with torch.no_grad():
                    logits = policy.logits(torch.as_tensor(enc.encode(view)[None]), torch.ones(1, 2, dtype=torch.bool))
                return torch.softmax(logits[0].double(), -1).numpy()
        return exploitability(game, behaviour_of(Greedy(), game)).total

    kw = dict(n_steps=16, minibatch=2048, epochs=4, hidden=(64, 64), seed=0, log=None, anneal_lr=False)
    policy, _ = train(vector_env(512, seed=0, control="all_seats", n=3), total_steps=512 * 16, **kw)
    start = exploit(policy)
    seen = []
    train(vector_env(512, seed=1, control="all_seats", n=3), total_steps=512 * 16 * 30,
          callback=lambda entry, p: seen.append(exploit(p)) if len(seen) < 30 else None, **kw)
    # last-iterate PPO self-play falls fast, then cycles around 0.03-0.1 (docs/training.md): an average of
    # snapshots is what converges
    assert min(seen) < start / 5 and np.mean(seen[-10:]) < start / 2
