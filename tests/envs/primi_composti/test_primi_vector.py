"""Primi Composti's vector env against the plain engine: every table replays alone, move for move, from its deal seed."""

from __future__ import annotations

import numpy as np
import pytest

import agents
from agents.primi_composti.strategies import SeedPlayer
from envs.core.game import IllegalActionError
from envs.core.vector import episode_seeds, next_random
from envs.primi_composti import fast
from envs.primi_composti.encoding import PrimiCompostiEncoder
from envs.primi_composti.rules import Config, PrimiCompostiGame, shuffled_cards

GREEDY = "primi_composti/greedy_rand"


class RandomMirror:
    """The kernel's random seat (`fast.random_position`) in Python: the j-th smallest card in hand (the j-th
    legal action), j = draw mod count, from the table's SplitMix64 stream."""

    def __init__(self, shared: dict):
        self.shared = shared

    def act(self, view, mask):
        legal = np.flatnonzero(mask).tolist()
        self.shared["rng"], z = next_random(self.shared["rng"])
        return legal[z % len(legal)]


class Shadow:
    """One table replayed in the plain engine (`PrimiCompostiGame` + `PrimiCompostiEncoder`), as `OpponentEnv`
    plays it: the deal from `game.deal(deal_seed)`, the opponent a Python player (or every seat the policy)."""

    def __init__(self, game, seed, table, make_opponent, fixed_seat=None, all_seats=False):
        self.game = game
        self.enc = PrimiCompostiEncoder(game)
        self.seed, self.table, self.make_opponent = seed, table, make_opponent
        self.fixed_seat, self.all_seats = fixed_seat, all_seats
        self.episode = 0

    def start(self, deal_seed, seat):
        d, drawn, stream = episode_seeds(self.seed, self.table, self.episode, 2)
        self.episode += 1
        self.deal_seed = deal_seed
        assert d == deal_seed  # every deal reaches the learner: episode e is the table's e-th deal
        self.state = self.game.deal(deal_seed)
        if self.all_seats:
            assert seat == self.game.current_player(self.state)
            self.seat = seat
            return
        assert seat == (drawn if self.fixed_seat is None else self.fixed_seat)
        self.seat = seat
        self.opponent = self.make_opponent({"rng": stream, "table": self.table, "episode": self.episode - 1})
        self.carry = self._advance()

    def _ret(self, seat=None):
        return self.game.returns(self.state)[self.seat if seat is None else seat]

    def _advance(self):
        before = self._ret()
        g = self.game
        while not g.is_terminal(self.state) and g.current_player(self.state) != self.seat:
            cur = g.current_player(self.state)
            self.state = g.apply(self.state, self.opponent.act(g.view(self.state, cur), g.legal_mask(self.state)))
        return self._ret() - before

    def obs(self):
        return self.enc.encode(self.game.view(self.state, self.seat))

    def step(self, a):
        """(reward, over, rewards per seat (all_seats))."""
        g = self.game
        if self.all_seats:
            before = g.returns(self.state)
            self.state = g.apply(self.state, int(a))
            after = g.returns(self.state)
            rewards = (after[0] - before[0], after[1] - before[1])
            mover = self.seat
            if not g.is_terminal(self.state):
                self.seat = g.current_player(self.state)
            return rewards[mover], g.is_terminal(self.state), rewards
        before = self._ret()
        self.state = g.apply(self.state, int(a))
        reward = self._ret() - before + self.carry
        self.carry = 0.0
        reward += self._advance()
        return reward, g.is_terminal(self.state), None


def _replay(venv, game, seed, make_opponent, steps, rng, fixed_seat=None, all_seats=False):
    """Step `venv` with random legal actions and check every table against its shadow; returns episodes seen."""
    n_envs = venv.num_envs
    obs, info = venv.reset(seed=seed)
    shadows = [Shadow(game, seed, i, make_opponent, fixed_seat, all_seats) for i in range(n_envs)]
    for i, sh in enumerate(shadows):
        sh.start(int(info["deal_seed"][i]), int(info["seat"][i]))
    returns = np.zeros(n_envs)
    lengths = np.zeros(n_envs, np.int64)
    episodes = 0
    for _ in range(steps):
        masks = venv.action_masks()
        assert masks.dtype == np.bool_ and masks.any(axis=1).all()
        assert np.array_equal(info["action_mask"], masks.astype(np.int8))
        if all_seats:
            assert np.array_equal(info["current_player"], [sh.seat for sh in shadows])
        for i, sh in enumerate(shadows):
            v = venv.state(i)
            assert (v.hands, v.stacks, v.scores, v.turn, v.first) == (
                sh.state.hands, sh.state.stacks, sh.state.scores, sh.state.turn, sh.state.first)
            np.testing.assert_array_equal(obs[i], sh.obs())
            np.testing.assert_array_equal(info["action_mask"][i], game.legal_mask(sh.state))
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rew, term, trunc, info = venv.step(acts)
        assert not trunc.any()
        for i, sh in enumerate(shadows):
            seat_before = sh.seat
            r, over, rewards = sh.step(acts[i])
            assert np.float32(r) == rew[i], (i, r, rew[i])
            assert over == term[i]
            if all_seats:
                np.testing.assert_array_equal(info["rewards"][i], np.float32(rewards))
                returns[i] += rewards[0]
            else:
                returns[i] += r
            lengths[i] += 1
            if over:
                episodes += 1
                assert info["_final_obs"][i] and info["_episode"][i]
                if all_seats:
                    assert info["final_info"]["current_player"][i] == seat_before
                    sh.seat = seat_before
                np.testing.assert_array_equal(info["final_obs"][i], sh.obs())
                assert info["final_info"]["deal_seed"][i] == sh.deal_seed
                assert info["final_info"]["seat"][i] == (0 if all_seats else sh.seat)
                assert info["episode"]["l"][i] == lengths[i]
                assert info["episode"]["r"][i] == pytest.approx(returns[i], abs=1e-9)
                returns[i] = 0.0
                lengths[i] = 0
                sh.start(int(info["deal_seed"][i]), int(info["seat"][i]))
            else:
                assert "final_obs" not in info or info["final_obs"][i] is None
    return episodes


OPTION_SETS = [
    dict(),
    dict(version=2),
    dict(version=2, cards_per_player=5, reward="result", seat0_holds_two=False),
    dict(cards_per_player=3, reward="score", observation_hints=True),
    dict(version=2, cards_per_player=7, observation_hints=True),
    dict(cards_per_player=1),
]


@pytest.mark.parametrize("opts", OPTION_SETS)
def test_random_opponent_replays_in_the_plain_engine(opts):
    """Random-legal learner against the random kernel: thousands of episodes across the option sets."""
    game = PrimiCompostiGame(Config(**opts))
    venv = agents.vector_env("primi_composti", 16, opponents=["random"], seed=11, **opts)
    steps = 30 * game.cards_per_player
    episodes = _replay(venv, game, 11, RandomMirror, steps, np.random.default_rng(0))
    assert episodes >= 16 * 25


@pytest.mark.parametrize("policy,opts", [
    ("greedy_rand", dict()), ("greedy_rand", dict(version=2, observation_hints=True)),
    ("greedy_asc", dict(version=2, cards_per_player=6)), ("greedy_desc", dict(cards_per_player=6)),
    ("asc", dict(cards_per_player=4)), ("desc", dict(version=2, cards_per_player=4)),
    ("rand", dict(cards_per_player=5, seat0_holds_two=False)),
    ("minimax_3", dict(cards_per_player=5)), ("minimax_2", dict(version=2, cards_per_player=6)),
])
def test_kernel_opponents_move_as_the_python_players(policy, opts):
    """The opponent kernels against the seed players' plain-Python code (`fast=False`), move for move."""
    game = PrimiCompostiGame(Config(**opts))
    agent_id = (f"primi_composti/minimax?depth={policy[8:]}" if policy.startswith("minimax")
                else f"primi_composti/{policy}")
    venv = agents.vector_env("primi_composti", 6, opponents=[agent_id], seed=3, **opts)
    episodes = _replay(venv, game, 3, lambda shared: SeedPlayer(game, None, policy, fast=False),
                       8 * game.cards_per_player, np.random.default_rng(1))
    assert episodes >= 6 * 7


def test_all_seats_replays_in_the_plain_engine():
    for opts in (dict(cards_per_player=4), dict(version=2, cards_per_player=6, seat0_holds_two=False)):
        game = PrimiCompostiGame(Config(**opts))
        venv = agents.vector_env("primi_composti", 8, opponents=[], control="all_seats", seed=5, **opts)
        episodes = _replay(venv, game, 5, None, 20 * 2 * game.cards_per_player, np.random.default_rng(2),
                           all_seats=True)
        assert episodes >= 8 * 19


def test_fixed_seat():
    game = PrimiCompostiGame(Config(cards_per_player=4))
    venv = agents.vector_env("primi_composti", 4, opponents=[GREEDY], seed=2, seat=1, cards_per_player=4)
    _, info = venv.reset()
    assert (info["seat"] == 1).all()
    _replay(venv, game, 2, lambda shared: SeedPlayer(game, None, "greedy_rand", fast=False), 40,
            np.random.default_rng(2), fixed_seat=1)


def test_deal_of_a_seed_is_one_meaning():
    """`deal(seed)` = `deal_from(shuffled_cards(seed))` = the compiled deal; old `deal(deck)` callers still work."""
    game = PrimiCompostiGame(Config(cards_per_player=6, seat0_holds_two=False))
    order = np.zeros(12, np.int64)
    hands = np.zeros((2, 6), np.int64)
    z = np.zeros(2, np.int64)
    for seed in (0, 1, 2**63 + 5, 2**64 - 1, 123456789):
        s = game.deal(seed)
        assert s == game.deal_from(shuffled_cards(game.cards, seed)) == game.deal(list(shuffled_cards(game.cards, seed)))
        first = fast.deal_seed(np.uint64(seed), 6, False, order, hands, z.copy(), np.zeros((4, 12), np.int64),
                               np.zeros(4, np.int64), z.copy())
        assert order.tolist() == shuffled_cards(game.cards, seed)
        assert first == s.first and tuple(map(tuple, hands.tolist())) == s.hands
    assert sorted(shuffled_cards(game.cards, 7)) == list(game.cards)
    for bad in (-1, 2**64, True):
        with pytest.raises(ValueError):
            game.deal(bad)
    with pytest.raises(ValueError, match="permutation"):
        game.deal_from([2, 3])


def test_tables_do_not_depend_on_num_envs():
    small = agents.vector_env("primi_composti", 2, opponents=[GREEDY], seed=9, version=2)
    big = agents.vector_env("primi_composti", 7, opponents=[GREEDY], seed=9, version=2)
    o1, i1 = small.reset()
    o2, i2 = big.reset()
    assert np.array_equal(i1["deal_seed"], i2["deal_seed"][:2])
    for _ in range(100):
        np.testing.assert_array_equal(o1, o2[:2])
        a2 = big.action_masks().argmax(axis=1)
        a2[2:] = 99  # the other tables do something else entirely (refused)
        o1, r1, t1, _, i1 = small.step(a2[:2])
        o2, r2, t2, _, i2 = big.step(a2)
        np.testing.assert_array_equal(r1, r2[:2])
        np.testing.assert_array_equal(t1, t2[:2])
        np.testing.assert_array_equal(i1["deal_seed"], i2["deal_seed"][:2])
    other = agents.vector_env("primi_composti", 2, opponents=[GREEDY], seed=10, version=2)
    assert not np.array_equal(other.reset()[1]["deal_seed"], i1["deal_seed"])
    _, a = small.reset(seed=9)
    assert a["deal_seed"][1] == episode_seeds(9, 1, 0, 2)[0]


def _twins(**kw):
    return [agents.vector_env("primi_composti", 4, opponents=[GREEDY], seed=1, **kw) for _ in range(2)]


def test_illegal_action_ends_only_that_tables_episode():
    env, twin = _twins(illegal_reward=-3.0)
    env.reset()
    twin.reset()
    others = [0, 2, 3]
    for step in range(40):
        acts = env.action_masks().argmax(axis=1)
        twin_acts = acts.copy()
        twin_acts[1] = twin.action_masks()[1].argmax()
        if step in (5, 17):
            acts[1] = np.flatnonzero(~env.action_masks()[1])[0]  # a card not in the hand
        elif step == 30:
            acts[1] = -1
        elif step == 31:
            acts[1] = env.num_actions
        o, r, t, _, info = env.step(acts)
        o2, r2, t2, _, _ = twin.step(twin_acts)
        if step in (5, 17, 30, 31):
            assert r[1] == -3.0 and t[1] and info["illegal_action"][1] == acts[1] and info["_illegal_action"][1]
            assert not info["_illegal_action"][others].any()
        np.testing.assert_array_equal(o[others], o2[others])
        np.testing.assert_array_equal(r[others], r2[others])
        np.testing.assert_array_equal(t[others], t2[others])
    o, r, t, _, info = env.step(env.action_masks().argmax(axis=1).astype(np.float64))
    assert t.all() and (r == -3.0).all() and (info["illegal_action"] == -1).all()


def test_strict_raises_naming_table_seat_and_legal_actions_and_changes_nothing():
    env, twin = _twins(strict=True)
    _, info = env.reset()
    twin.reset()
    acts = env.action_masks().argmax(axis=1)
    bad = acts.copy()
    bad[2] = np.flatnonzero(~env.action_masks()[2])[0]
    with pytest.raises(IllegalActionError) as e:
        env.step(bad)
    assert "table 2" in str(e.value) and e.value.seat == info["seat"][2]
    assert list(e.value.legal) == np.flatnonzero(env.action_masks()[2]).tolist()
    o, r, *_ = env.step(acts)
    o2, r2, *_ = twin.step(acts)
    np.testing.assert_array_equal(o, o2)
    np.testing.assert_array_equal(r, r2)


def test_bad_arguments():
    env = agents.vector_env("primi_composti", 4, opponents=[GREEDY], seed=0)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(np.zeros(4, np.int64))
    env.reset()
    with pytest.raises(ValueError, match=r"shape \(4,\)"):
        env.step(np.zeros((2, 2), np.int64))
    with pytest.raises(ValueError, match="num_envs"):
        agents.vector_env("primi_composti", 0, opponents=[GREEDY])
    with pytest.raises(ValueError, match="allowed: random, primi_composti/asc") as e:
        agents.vector_env("primi_composti", 2, opponents=["primi_composti/solver"])
    assert "\n" not in str(e.value)
    with pytest.raises(ValueError, match="depth"):
        agents.vector_env("primi_composti", 2, opponents=["primi_composti/minimax"])
    with pytest.raises(ValueError, match="needs 1 opponent"):
        agents.vector_env("primi_composti", 2, opponents=[GREEDY] * 2)
    with pytest.raises(ValueError, match="num_players=2"):
        agents.vector_env("primi_composti", 2, opponents=[GREEDY] * 2, num_players=3)
    with pytest.raises(ValueError, match="steal_choice='max'"):
        agents.vector_env("primi_composti", 2, opponents=[GREEDY], version=2, steal_choice="player")
    with pytest.raises(ValueError, match="allowed options"):
        agents.vector_env("primi_composti", 2, opponents=[GREEDY], colour="red")
    with pytest.raises(ValueError, match="control must be one of one_seat, all_seats"):
        agents.vector_env("primi_composti", 2, opponents=[GREEDY], control="both")
    with pytest.raises(ValueError, match="seat"):
        agents.vector_env("primi_composti", 2, opponents=[GREEDY], seat=2)
    with pytest.raises(ValueError, match="max_turns"):
        agents.vector_env("primi_composti", 2, opponents=[GREEDY], max_turns=0)


def test_max_turns_truncates_as_opponent_env():
    env = agents.vector_env("primi_composti", 3, opponents=[GREEDY], seed=0, seat=0, max_turns=5, cards_per_player=6)
    env.reset()
    for _ in range(2):
        _, _, term, trunc, _ = env.step(env.action_masks().argmax(axis=1))
        assert not (term | trunc).any()
    _, _, term, trunc, info = env.step(env.action_masks().argmax(axis=1))  # the learner's third card: move 5
    assert trunc.all() and not term.any() and (info["episode"]["l"] == 3).all()


def test_gymnasium_contract_copy_flag_and_render():
    from gymnasium.vector import AutoresetMode

    env = agents.vector_env("primi_composti", 5, opponents=["random"], seed=0, copy=False)
    assert env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert env.single_action_space.n == 24 and env.action_space.shape == (5,)
    obs, info = env.reset()
    assert obs.dtype == np.float32 and env.observation_space.contains(obs)
    acts = np.array([env.single_action_space.sample(mask=info["action_mask"][i]) for i in range(5)])
    obs2, *_ = env.step(acts)
    assert obs2 is obs
    assert "primi composti v1" in env.render(3)
    np.testing.assert_array_equal(env.observe([1, 2]), obs[1:3])


def test_maskable_ppo_on_to_sb3():
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecEnv

    from envs.core import to_sb3

    venv = to_sb3(agents.vector_env("primi_composti", 16, opponents=[GREEDY], seed=0, cards_per_player=6))
    assert isinstance(venv, VecEnv)
    model = MaskablePPO("MlpPolicy", venv, n_steps=16, batch_size=128, n_epochs=1, seed=0, device="cpu")
    model.learn(512)
    assert len(model.ep_info_buffer) > 0
    masks = model.rollout_buffer.action_masks.reshape(-1, 12)
    assert masks.any(axis=1).all() and not masks.all(axis=1).any()
