"""The Game's vector env against the plain engine: every table replays alone, action for action, from its deal seed;
the `actions="slot"` head against the card head."""

from __future__ import annotations

import numpy as np
import pytest

import agents
from agents.base import make
from envs.core.game import IllegalActionError
from envs.core.vector import episode_seeds, next_random
from envs.the_game.encoding import TheGameEncoder
from envs.the_game.rules import NUM_ACTIONS, Config, TheGame, deal_order, slot_num_actions


class RandomMirror:
    """The kernel's random seat (`envs.the_game.fast.random_move`) in Python: the k-th legal action, k = draw mod
    count, from the table's SplitMix64 stream (shared by the table's random seats); the same move in either head."""

    def __init__(self, shared: dict):
        self.shared = shared

    def act(self, view, mask):
        legal = np.flatnonzero(mask).tolist()
        self.shared["rng"], z = next_random(self.shared["rng"])
        return legal[z % len(legal)]


class Shadow:
    """One table replayed in the plain engine (`TheGame` + `TheGameEncoder`), as `OpponentEnv` plays it."""

    def __init__(self, game, seed, table, make_opponents, fixed_seat=None, max_turns=None):
        self.game = game
        self.max_turns = max_turns
        self.enc = TheGameEncoder(game)
        self.seed = seed
        self.table = table
        self.make_opponents = make_opponents
        self.fixed_seat = fixed_seat
        self.episode = 0

    def start(self, deal_seed, seat):
        n = self.game.num_players
        drawn = episode_seeds(self.seed, self.table, self.episode, n)[1]
        while True:  # a deal that ended before the learner's first decision takes the next index, same seat
            d, _, stream = episode_seeds(self.seed, self.table, self.episode, n)
            self.episode += 1
            if d == deal_seed:
                break
            assert self.episode < 10_000
        assert seat == (drawn if self.fixed_seat is None else self.fixed_seat)
        self.seat = seat
        self.shared = {"rng": stream}
        self.seated = [None] * n
        for k, agent in enumerate(self.make_opponents(self.shared)):
            self.seated[(seat + k + 1) % n] = agent
        self.state = self.game.deal(deal_seed)
        self.turns = 0
        self.carry = self._advance(cut=False)  # the vector env never cuts the moves before the first decision
        assert not self.state.over

    def _ret(self):
        return self.game.returns(self.state)[self.seat]

    def _advance(self, cut=True):
        before = self._ret()
        g = self.game
        while not self.state.over and self.state.player != self.seat and not (cut and self.truncated()):
            cur = self.state.player
            self.state = g.apply(self.state, self.seated[cur].act(g.view(self.state, cur), g.legal_mask(self.state)))
            self.turns += 1
        return self._ret() - before

    def truncated(self):
        return self.max_turns is not None and not self.state.over and self.turns >= self.max_turns

    def obs(self):
        return self.enc.encode(self.game.view(self.state, self.seat))

    def step(self, a):
        before = self._ret()
        self.state = self.game.apply(self.state, int(a))
        self.turns += 1
        reward = self._ret() - before + self.carry
        self.carry = 0.0
        reward += self._advance()
        return reward, self.state.over, self.truncated()


def _replay(venv, game, seed, make_opponents, steps, rng, fixed_seat=None, max_turns=None):
    """Step `venv` with random legal actions and check every table against its shadow; returns episodes seen."""
    n_envs = venv.num_envs
    obs, info = venv.reset(seed=seed)
    shadows = [Shadow(game, seed, i, make_opponents, fixed_seat, max_turns) for i in range(n_envs)]
    for i, sh in enumerate(shadows):
        sh.start(int(info["deal_seed"][i]), int(info["seat"][i]))
    returns = np.zeros(n_envs)
    lengths = np.zeros(n_envs, np.int64)
    episodes = 0
    for _ in range(steps):
        masks = venv.action_masks()
        assert masks.dtype == np.bool_ and masks.any(axis=1).all()
        assert np.array_equal(info["action_mask"], masks.astype(np.int8))
        for i, sh in enumerate(shadows):
            np.testing.assert_array_equal(obs[i], sh.obs())
            np.testing.assert_array_equal(info["action_mask"][i], game.legal_mask(sh.state))
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rew, term, trunc, info = venv.step(acts)
        for i, sh in enumerate(shadows):
            r, over, cut = sh.step(acts[i])
            assert np.float32(r) == rew[i], (i, r, rew[i])
            assert over == term[i] and cut == trunc[i]
            returns[i] += np.float32(r)
            lengths[i] += 1
            if over or cut:
                episodes += 1
                assert info["_final_obs"][i] and info["_episode"][i]
                np.testing.assert_array_equal(info["final_obs"][i], sh.obs())
                assert info["final_info"]["seat"][i] == sh.seat
                assert info["episode"]["l"][i] == lengths[i]
                assert info["episode"]["r"][i] == pytest.approx(returns[i], abs=1e-3)
                returns[i] = 0.0
                lengths[i] = 0
                sh.start(int(info["deal_seed"][i]), int(info["seat"][i]))
            else:
                assert "final_obs" not in info or info["final_obs"][i] is None
    return episodes


def test_deal_order_twins_and_deal():
    from envs.the_game import fast

    out = np.zeros(98, np.int64)
    for seed in (0, 1, 2**63 - 1, 12345678901234567):
        fast.deal_order(np.uint64(seed), out)
        assert out.tolist() == deal_order(seed)
        assert sorted(out.tolist()) == list(range(2, 100))
    g = TheGame(Config(num_players=3))
    assert g.deal(7) == g.deal_from(deal_order(7)) and g.deal(7) != g.deal(8)


@pytest.mark.parametrize("opts", [dict(num_players=1), dict(num_players=1, actions="slot"),
                                  dict(num_players=3, actions="slot", min_cards_per_turn=1),
                                  dict(num_players=2, hand_size=3, empty_hand="ends_game", win_bonus=0.0),
                                  dict(num_players=4, actions="slot", empty_hand="ends_game", starter=2),
                                  dict(num_players=5, hand_size=2, actions="slot")])
def test_random_teammates_replay_in_the_plain_engine(opts):
    game = TheGame(Config(**opts))
    n = game.num_players
    venv = agents.vector_env("the_game", 16, opponents=["random"] * (n - 1), seed=11, **opts)
    episodes = _replay(venv, game, 11, lambda shared: [RandomMirror(shared) for _ in range(n - 1)], 200,
                       np.random.default_rng(0))
    assert episodes >= 150  # over the six option sets, about 3,000 episodes replayed move for move


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
    assert _replay(venv, game, 3, lineup, 200, np.random.default_rng(1)) >= 4


def test_fixed_seat():
    opts = dict(num_players=3, actions="slot")
    venv = agents.vector_env("the_game", 3, opponents=["the_game/simplest"] * 2, seed=2, seat=1, **opts)
    game = TheGame(Config(**opts))
    _, info = venv.reset()
    assert (info["seat"] == 1).all()
    _replay(venv, game, 2, lambda shared: [make("the_game/simplest", game, np.random.default_rng(0))] * 2, 100,
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


def test_tables_do_not_depend_on_num_envs():
    small = agents.vector_env("the_game", 2, opponents=["random", "the_game/bestplays"], seed=9, num_players=3)
    big = agents.vector_env("the_game", 7, opponents=["random", "the_game/bestplays"], seed=9, num_players=3)
    o1, i1 = small.reset()
    o2, i2 = big.reset()
    assert np.array_equal(i1["deal_seed"], i2["deal_seed"][:2])
    for _ in range(200):
        np.testing.assert_array_equal(o1, o2[:2])
        a2 = big.action_masks().argmax(axis=1)
        a2[2:] = 404  # the other tables do something else entirely (a refused flag)
        o1, r1, t1, _, i1 = small.step(a2[:2])
        o2, r2, t2, _, i2 = big.step(a2)
        np.testing.assert_array_equal(r1, r2[:2])
        np.testing.assert_array_equal(t1, t2[:2])
        np.testing.assert_array_equal(i1["deal_seed"], i2["deal_seed"][:2])
    assert i1["deal_seed"][0] != agents.vector_env("the_game", 1, opponents=["random"], seed=10).reset()[1][
        "deal_seed"][0]


def _twins(**kw):
    return [agents.vector_env("the_game", 4, opponents=["the_game/bestplays"], seed=1, **kw) for _ in range(2)]


@pytest.mark.parametrize("head", ["card", "slot"])
def test_illegal_action_ends_only_that_tables_episode(head):
    env, twin = _twins(illegal_reward=-3.0, actions=head)
    env.reset()
    twin.reset()
    others = [0, 2, 3]
    A = env.single_action_space.n
    for step in range(60):
        acts = env.action_masks().argmax(axis=1)
        twin_acts = acts.copy()
        twin_acts[1] = twin.action_masks().argmax(axis=1)[1]
        if step in (10, 30):
            acts[1] = np.flatnonzero(~env.action_masks()[1])[-1]
        elif step in (40, 41, 42):
            acts[1] = [A, -1, 10**6][step - 40]
        o, r, t, _, info = env.step(acts)
        o2, r2, t2, _, _ = twin.step(twin_acts)
        if step in (10, 30, 40, 41, 42):
            assert r[1] == -3.0 and t[1] and info["illegal_action"][1] == acts[1] and info["_illegal_action"][1]
            assert not info["_illegal_action"][others].any()
        np.testing.assert_array_equal(o[others], o2[others])
        np.testing.assert_array_equal(r[others], r2[others])
        np.testing.assert_array_equal(t[others], t2[others])
    o, r, t, _, info = env.step(env.action_masks().argmax(axis=1).astype(np.float64))
    assert t.all() and (r == -3.0).all() and (info["illegal_action"] == -1).all()


def test_strict_raises_naming_table_seat_and_legal_actions_and_changes_nothing():
    env, twin = _twins(strict=True, actions="slot")
    _, info = env.reset()
    twin.reset()
    acts = env.action_masks().argmax(axis=1)
    bad = acts.copy()
    bad[3] = np.flatnonzero(~env.action_masks()[3])[-1]
    with pytest.raises(IllegalActionError) as e:
        env.step(bad)
    assert "table 3" in str(e.value) and e.value.seat == info["seat"][3]
    assert list(e.value.legal) == np.flatnonzero(env.action_masks()[3]).tolist()
    o, r, *_ = env.step(acts)
    o2, r2, *_ = twin.step(acts)
    np.testing.assert_array_equal(o, o2)
    np.testing.assert_array_equal(r, r2)


def test_bad_arguments():
    with pytest.raises(ValueError, match="allowed: random, the_game/simplest, the_game/bestplays"):
        agents.vector_env("the_game", 2, opponents=["the_game/rollout"])
    with pytest.raises(ValueError, match="needs 1 opponents"):
        agents.vector_env("the_game", 2, opponents=[])
    with pytest.raises(ValueError, match="official"):
        agents.vector_env("the_game", 2, opponents=["random"], rules="berger2024")
    with pytest.raises(ValueError, match="communication"):
        agents.vector_env("the_game", 2, opponents=["random"], communication="pile_flags")
    with pytest.raises(ValueError, match="actions must be one of"):
        agents.vector_env("the_game", 2, opponents=["random"], actions="cards")
    with pytest.raises(ValueError, match="all_seats"):
        agents.vector_env("the_game", 2, opponents=["random"], control="all_seats")
    with pytest.raises(ValueError, match="num_envs"):
        agents.vector_env("the_game", 0, opponents=["random"])


def test_maskable_ppo_runs_on_to_sb3():
    from sb3_contrib import MaskablePPO

    from envs.core import to_sb3

    venv = to_sb3(agents.vector_env("the_game", 16, opponents=[], seed=0, num_players=1, actions="slot"))
    model = MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=128, n_epochs=1, seed=0, device="cpu")
    model.learn(600)
    assert len(model.ep_info_buffer) > 0
    masks = model.rollout_buffer.action_masks.reshape(-1, 45)
    assert masks.any(axis=1).all() and not masks.all(axis=1).any()



def test_max_turns_truncates_counting_every_seats_moves():
    opts = dict(num_players=3, actions="slot")
    game = TheGame(Config(**opts))
    ids = ["the_game/bestplays", "random"]
    venv = agents.vector_env("the_game", 6, opponents=ids, seed=6, max_turns=9, **opts)

    def lineup(shared):
        return [make(ids[0], game, np.random.default_rng(0)), RandomMirror(shared)]

    assert _replay(venv, game, 6, lineup, 150, np.random.default_rng(4), max_turns=9) >= 30


def test_one_buffers_class_for_every_game():
    """numba types a named tuple's arguments by their arrays, not by its class: a second look-alike `Buffers` class
    in the process sent every kernel call of one game down numba's slow typing path, so there is one."""
    from envs.core.vector import Buffers
    from envs.lama import fast as lama_fast
    from envs.the_game import fast

    assert fast.Buffers is Buffers and lama_fast.Buffers is Buffers
