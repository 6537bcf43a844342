"""RoboRally's vector env against the plain engine: every table replays alone, sub-step for sub-step, from its
deal seed (`RoboRallyGame.deal`), as `OpponentEnv` plays it."""

from __future__ import annotations

import numpy as np
import pytest

import agents
from agents.roborally.strategies import GreedyProgram, RandomProgram
from envs.core.game import IllegalActionError
from envs.core.vector import RANDOM, episode_seeds, next_random
from envs.roborally.encoding import RoboRallyEncoder
from envs.roborally.fast import FastEngine, deal_seeded, np_shuffle
from envs.roborally.programs import count_programs, equivalence_classes, program_cards, unrank
from envs.roborally.rules import Config, RoboRallyGame, free_registers


class RandomMirror:
    """The kernel's random seat in Python: the k-th legal action, k = draw mod count, from the table's SplitMix64
    stream (shared by the table's random seats)."""

    def __init__(self, shared: dict):
        self.shared = shared

    def act(self, view, mask):
        legal = np.flatnonzero(mask).tolist()
        if len(legal) == 1:
            return legal[0]  # a forced action draws nothing
        self.shared["rng"], z = next_random(self.shared["rng"])
        return legal[z % len(legal)]


class RandomProgramMirror(RandomProgram):
    """`roborally/random`'s rule with the kernel's draws: the reduced program of rank draw mod count, the draw from
    the table's SplitMix64 stream (shared by the table's random seats)."""

    def __init__(self, game, shared: dict):
        super().__init__(game, np.random.default_rng(0))
        self.shared = shared

    def program(self, view):
        hand = view.hand
        k = min(free_registers(view.robots[view.seat].damage), len(hand))
        classes = equivalence_classes(hand, self.game.numbering)
        mults = [len(c) for c in classes]
        self.shared["rng"], z = next_random(self.shared["rng"])
        prog = unrank(mults, k, z % count_programs(mults, k))
        return tuple(hand.index(c) for c in program_cards(classes, prog))


class Shadow:
    """One table replayed in the plain engine (`RoboRallyGame` + `RoboRallyEncoder`), as `OpponentEnv` plays it
    (the same reward arithmetic)."""

    def __init__(self, game, seed, table, make_opponents, fixed_seat=None):
        self.game = game
        self.enc = RoboRallyEncoder(game)
        self.seed = seed
        self.table = table
        self.make_opponents = make_opponents
        self.fixed_seat = fixed_seat
        self.episode = 0

    def start(self, deal_seed, seat):
        n = self.game.num_players
        first = self.episode  # the episode index the table's line-up is drawn at (`pick_line_up`)
        d, drawn, stream = episode_seeds(self.seed, self.table, self.episode, n)
        self.episode += 1
        assert d == deal_seed  # RoboRally never deals again: the learner programs in the first turn
        assert seat == (drawn if self.fixed_seat is None else self.fixed_seat)
        self.seat = seat
        self.shared = {"rng": stream, "table": self.table, "episode": first}
        opps = self.make_opponents(self.shared)
        self.seated = [None] * n
        for k, agent in enumerate(opps):
            self.seated[(seat + k + 1) % n] = agent
        self.state = self.game.deal(deal_seed)
        self.carry = self._advance()
        assert not self.game.is_terminal(self.state)

    def _ret(self):
        return self.game.returns(self.state)[self.seat]

    def _advance(self):
        before = self._ret()
        g = self.game
        while not g.is_terminal(self.state) and g.current_player(self.state) != self.seat:
            cur = g.current_player(self.state)
            self.state = g.apply(self.state, self.seated[cur].act(g.view(self.state, cur), g.legal_mask(self.state)))
        return self._ret() - before

    def obs(self):
        return self.enc.encode(self.game.view(self.state, self.seat))

    def step(self, a):
        before = self._ret()
        self.state = self.game.apply(self.state, int(a))
        reward = self._ret() - before + self.carry
        self.carry = 0.0
        reward += self._advance()
        return reward, self.game.is_terminal(self.state)


def _replay(venv, game, seed, make_opponents, steps, rng, fixed_seat=None):
    """Step `venv` with random legal actions and check every table against its shadow; returns episodes seen."""
    n_envs = venv.num_envs
    obs, info = venv.reset(seed=seed)
    shadows = [Shadow(game, seed, i, make_opponents, fixed_seat) for i in range(n_envs)]
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
            r, over = sh.step(acts[i])
            assert np.float32(r) == rew[i], (i, r, rew[i])
            assert over == (term[i] or trunc[i])
            assert trunc[i] == (over and game.truncated(sh.state))
            returns[i] += np.float32(r)
            lengths[i] += 1
            if over:
                episodes += 1
                assert info["_final_obs"][i] and info["_episode"][i]
                np.testing.assert_array_equal(info["final_obs"][i], sh.obs())
                assert info["final_info"]["deal_seed"][i] == sh.state.seed
                assert info["final_info"]["seat"][i] == sh.seat
                assert info["episode"]["l"][i] == lengths[i]
                assert info["episode"]["r"][i] == pytest.approx(returns[i], abs=1e-4)
                returns[i] = 0.0
                lengths[i] = 0
                sh.start(int(info["deal_seed"][i]), int(info["seat"][i]))
            else:
                assert "final_obs" not in info or info["final_obs"][i] is None
    return episodes


def test_the_compiled_deal_is_the_plain_engines():
    game = RoboRallyGame(Config(num_robots=4))
    fe = FastEngine(game)
    for seed in (0, 1, 2**40 + 3, 2**63 - 5):
        state = game.deal(seed)
        fs = fe.pack(game.deal(seed))
        hands = np.zeros((4, 9), np.int32)
        sizes = np.zeros(4, np.int64)
        deal_seeded(fs.robots, fs.registers, fs.deck, fs.meta, hands, sizes, np.uint64(seed))
        assert [tuple(h[:k]) for h, k in zip(hands.tolist(), sizes)] == list(state.hands)
        assert tuple(fs.deck[:fs.meta[2]]) == state.deck


def test_np_shuffle_is_numpys_shuffle():
    rng = np.random.default_rng(7)
    for k in range(300):
        seed = [0, 1, 2**32 - 1, 2**32, 2**63 - 1][k] if k < 5 else int(rng.integers(2 ** (8 + k % 56)))
        turn = int(rng.integers(0, 300)) if k % 4 else 0
        m = int(rng.integers(1, 85))
        want = list(range(1, m + 1))
        np.random.default_rng((seed, turn)).shuffle(want)
        deck = np.zeros(84, np.int32)
        deck[:m] = np.arange(1, m + 1)
        np_shuffle(deck, m, np.uint64(seed), turn)
        assert deck[:m].tolist() == want, (seed, turn, m)


@pytest.mark.parametrize("opts", [
    dict(rules="seed", reward="progress", max_turns=12),
    dict(reward="win", max_turns=8),  # classic: the power round
    dict(board="race_medium", num_robots=3, rules="seed", reward="progress", max_turns=6),
    dict(board="tiny", lives=1, reward="progress", crushers=True, max_turns=None),
])
def test_random_opponents_replay_in_the_plain_engine(opts):
    game = RoboRallyGame(Config(**opts))
    n = game.num_players
    venv = agents.vector_env("roborally", 8, opponents=["random"] * (n - 1), seed=11, **opts)
    episodes = _replay(venv, game, 11, lambda shared: [RandomMirror(shared) for _ in range(n - 1)], 500,
                       np.random.default_rng(0))
    assert episodes >= 40


@pytest.mark.parametrize("ids,opts", [
    (["roborally/greedy"], dict(rules="seed", reward="progress", max_turns=15)),
    (["random", "roborally/greedy"], dict(num_robots=3, reward="progress", max_turns=8)),  # classic: power round
    (["roborally/random"], dict(rules="seed", reward="progress", max_turns=15)),
    (["roborally/random", "roborally/greedy", "random"], dict(board="race_medium", num_robots=4, max_turns=6)),
])
def test_program_opponents_replay_move_for_move(ids, opts):
    game = RoboRallyGame(Config(**opts))

    def make(shared):
        python = {"random": lambda: RandomMirror(shared), "roborally/random": lambda: RandomProgramMirror(game, shared),
                  "roborally/greedy": lambda: GreedyProgram(game, np.random.default_rng(0))}
        return [python[i]() for i in ids]

    venv = agents.vector_env("roborally", 6, opponents=ids, seed=5, **opts)
    episodes = _replay(venv, game, 5, make, 400, np.random.default_rng(1))
    assert episodes >= 25  # 6 tables x 400 learner sub-steps: whole races of 6 to 15 turns


def test_fixed_seat():
    opts = dict(rules="seed", max_turns=5)
    venv = agents.vector_env("roborally", 2, opponents=["random"], seed=2, seat=1, **opts)
    game = RoboRallyGame(Config(**opts))
    _, info = venv.reset()
    assert (info["seat"] == 1).all()
    _replay(venv, game, 2, lambda shared: [RandomMirror(shared)], 60, np.random.default_rng(2), fixed_seat=1)


def _lowest_legal(masks):
    return masks.argmax(axis=1)


def test_tables_do_not_depend_on_num_envs():
    small = agents.vector_env("roborally", 2, opponents=["random"], seed=9, max_turns=10)
    big = agents.vector_env("roborally", 5, opponents=["random"], seed=9, max_turns=10)
    o1, i1 = small.reset()
    o2, i2 = big.reset()
    assert np.array_equal(i1["deal_seed"], i2["deal_seed"][:2])
    for _ in range(150):
        np.testing.assert_array_equal(o1, o2[:2])
        a2 = _lowest_legal(big.action_masks())
        a2[2:] = 0  # the other tables do something else (refused where slot 0 is not legal)
        o1, r1, t1, _, i1 = small.step(a2[:2])
        o2, r2, t2, _, i2 = big.step(a2)
        np.testing.assert_array_equal(r1, r2[:2])
        np.testing.assert_array_equal(t1, t2[:2])
        np.testing.assert_array_equal(i1["deal_seed"], i2["deal_seed"][:2])
    other = agents.vector_env("roborally", 2, opponents=["random"], seed=10)
    assert not np.array_equal(other.reset()[1]["deal_seed"], i1["deal_seed"])
    _, again = small.reset(seed=9)
    assert again["deal_seed"][1] == episode_seeds(9, 1, 0, 2)[0]


def _twins(**kw):
    return [agents.vector_env("roborally", 4, opponents=["roborally/greedy"], seed=1, max_turns=20, **kw)
            for _ in range(2)]


def test_illegal_action_ends_only_that_tables_episode():
    env, twin = _twins(illegal_reward=-3.0)
    env.reset()
    twin.reset()
    others = [0, 2, 3]
    refused = 0
    for step in range(60):
        acts = _lowest_legal(env.action_masks())
        twin_acts = acts.copy()
        twin_acts[1] = _lowest_legal(twin.action_masks())[1]
        bad = step in (10, 30, 40, 41)
        if step in (10, 30):
            acts[1] = np.flatnonzero(~env.action_masks()[1])[0]
        elif step in (40, 41):
            acts[1] = [env.single_action_space.n, -1][step % 2]
        o, r, t, _, info = env.step(acts)
        o2, r2, t2, _, _ = twin.step(twin_acts)
        if bad:
            refused += 1
            assert r[1] == -3.0 and t[1] and info["illegal_action"][1] == acts[1] and info["_illegal_action"][1]
            assert not info["_illegal_action"][others].any()
        np.testing.assert_array_equal(o[others], o2[others])
        np.testing.assert_array_equal(r[others], r2[others])
        np.testing.assert_array_equal(t[others], t2[others])
    assert refused == 4
    o, r, t, _, info = env.step(_lowest_legal(env.action_masks()).astype(np.float64))
    assert t.all() and (r == -3.0).all() and (info["illegal_action"] == -1).all()


def test_strict_raises_naming_table_seat_and_legal_actions_and_changes_nothing():
    env, twin = _twins(strict=True)
    _, info = env.reset()
    twin.reset()
    acts = _lowest_legal(env.action_masks())
    bad = acts.copy()
    bad[3] = np.flatnonzero(~env.action_masks()[3])[0]
    with pytest.raises(IllegalActionError) as e:
        env.step(bad)
    assert "table 3" in str(e.value) and e.value.seat == info["seat"][3]
    assert list(e.value.legal) == np.flatnonzero(env.action_masks()[3]).tolist()
    o, r, *_ = env.step(acts)
    o2, r2, *_ = twin.step(acts)
    np.testing.assert_array_equal(o, o2)
    np.testing.assert_array_equal(r, r2)


def test_bad_arguments():
    env = agents.vector_env("roborally", 4, opponents=["random"], seed=0)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(np.zeros(4, np.int64))
    env.reset()
    with pytest.raises(ValueError, match=r"shape \(4,\)"):
        env.step(np.zeros(3, np.int64))
    with pytest.raises(ValueError, match="num_envs"):
        agents.vector_env("roborally", 0, opponents=["random"])
    with pytest.raises(ValueError, match="allowed: random, roborally/greedy, roborally/random"):
        agents.vector_env("roborally", 2, opponents=["roborally/mc"])
    with pytest.raises(ValueError, match="needs 2 opponents"):
        agents.vector_env("roborally", 2, opponents=["random"], num_robots=3)
    with pytest.raises(ValueError, match="action_mode"):
        agents.vector_env("roborally", 2, opponents=["random"], action_mode="program")
    with pytest.raises(ValueError, match="control"):
        agents.vector_env("roborally", 2, opponents=["random"], control="all_seats")
    with pytest.raises(ValueError, match="board"):
        agents.vector_env("roborally", 2, opponents=["random"], board="nowhere")
    with pytest.raises(ValueError, match="seat"):
        agents.vector_env("roborally", 2, opponents=["random"], seat=2)


def test_gymnasium_contract_and_copy_flag():
    env = agents.vector_env("roborally", 3, opponents=[RANDOM.name], seed=0, copy=False)
    obs, info = env.reset()
    assert obs.dtype == np.float32 and env.observation_space.contains(obs)
    assert env.single_action_space.n == RoboRallyGame(Config()).num_actions
    acts = np.array([env.single_action_space.sample(mask=info["action_mask"][i]) for i in range(3)])
    obs2, *_ = env.step(acts)
    assert obs2 is obs
    assert "robot" in env.render(0)


def test_maskable_ppo_on_to_sb3():
    from sb3_contrib import MaskablePPO

    from envs.core import to_sb3

    venv = to_sb3(agents.vector_env("roborally", 8, opponents=["random"], seed=0, rules="seed", reward="progress",
                                    max_turns=10))
    model = MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=128, n_epochs=1, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [32]})
    model.learn(512)
    assert len(model.ep_info_buffer) > 0
    masks = model.rollout_buffer.action_masks.reshape(32 * 8, -1)
    assert masks.any(axis=1).all()
