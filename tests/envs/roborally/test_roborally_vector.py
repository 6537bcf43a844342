"""RoboRally's vector env against the plain engine: every table replays alone, sub-step for sub-step, from its
deal seed (`RoboRallyGame.deal`), as `OpponentEnv` plays it; the shared contract (`tests/envs/vector_contract.py`) on
RoboRally."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import agents
from agents.roborally.strategies import GreedyProgram, RandomProgram
from envs.core.vector import next_random
from envs.roborally.fast import FastEngine, deal_seeded, np_shuffle
from envs.roborally.programs import count_programs, equivalence_classes, program_cards, unrank
from envs.roborally.rules import Config, RoboRallyGame, free_registers

sys.path.append(str(Path(__file__).parents[1]))  # tests/envs (after the installed packages), for the shared contract
from vector_contract import RandomMirror, VectorCase, VectorContract  # noqa: E402

CASE = VectorCase(
    "roborally", ["random", "roborally/greedy"],
    not_kernels="roborally/mc", allowed="random, roborally/greedy, roborally/random",
    num_actions=RoboRallyGame(Config(num_robots=3)).num_actions, options=dict(num_robots=3, max_turns=10),
    refused=((["random"], dict(num_robots=2, action_mode="programs"), "action_mode"),
             (["random"], dict(num_robots=2, control="all_seats"), "takes no opponents"),
             (["random"], dict(num_robots=2, board="nowhere"), "board")),
    random_replays=(dict(rules="seed", reward="progress", max_turns=12),
                    dict(reward="win", max_turns=8),  # classic: the power round
                    dict(board="race_medium", num_robots=3, rules="seed", reward="progress", max_turns=6),
                    dict(board="tiny", lives=1, reward="progress", crushers=True, max_turns=None),
                    dict(card_classes=False, reward="progress", max_turns=8)),  # every card in the mask
    replay_size=(8, 500, 40), sb3=(["random"], dict(rules="seed", reward="progress", max_turns=10), 8, 32, 512),
    forced_draws=False)  # never dealt again: the learner programs in the first turn; a forced action draws nothing


class TestVectorContract(VectorContract):
    case = CASE


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


@pytest.mark.parametrize("ids,opts", [
    (["roborally/greedy"], dict(rules="seed", reward="progress", max_turns=15)),
    (["random", "roborally/greedy"], dict(num_robots=3, reward="progress", max_turns=8)),  # classic: power round
    (["roborally/random"], dict(rules="seed", reward="progress", max_turns=15)),
    (["roborally/random", "roborally/greedy", "random"], dict(board="race_medium", num_robots=4, max_turns=6)),
    (["roborally/greedy", "random"], dict(num_robots=3, card_classes=False, reward="progress", max_turns=8)),
])
def test_program_opponents_replay_move_for_move(ids, opts):
    game = RoboRallyGame(Config(**opts))

    def make(shared):
        python = {"random": lambda: RandomMirror(shared, CASE.forced_draws),
                  "roborally/random": lambda: RandomProgramMirror(game, shared),
                  "roborally/greedy": lambda: GreedyProgram(game, np.random.default_rng(0))}
        return [python[i]() for i in ids]

    venv = agents.vector_env("roborally", 6, opponents=ids, seed=5, **opts)
    episodes = CASE.replay(venv, game, 5, make, 400, np.random.default_rng(1))
    assert episodes >= 25  # 6 tables x 400 learner sub-steps: whole races of 6 to 15 turns


def test_fixed_seat():
    opts = dict(rules="seed", max_turns=5)
    venv = agents.vector_env("roborally", 2, opponents=["random"], seed=2, seat=1, **opts)
    game = RoboRallyGame(Config(**opts))
    _, info = venv.reset()
    assert (info["seat"] == 1).all()
    CASE.replay(venv, game, 2, CASE.random_seats(1), 60, np.random.default_rng(2), fixed_seat=1)


def test_render():
    env = agents.vector_env("roborally", 3, opponents=["random"], seed=0)
    env.reset()
    assert "robot" in env.render(0)


@pytest.mark.parametrize("opts,steps", [(dict(rules="seed", reward="progress", max_turns=6), 200),
                                        (dict(num_robots=4, reward="win", max_turns=3), 150),
                                        (dict(board="tiny", lives=1, reward="progress", max_turns=None), 150)])
def test_all_seats_replays_in_the_plain_engine(opts, steps):
    """`control="all_seats"`: the policy programs every robot, sub-step by sub-step; each table replays alone in the
    plain engine from its deal seed: every robot's reward (`info["rewards"]`), the mover's observation and mask."""
    game = RoboRallyGame(Config(**opts))
    venv = agents.vector_env("roborally", 4, opponents=[], control="all_seats", seed=2, **opts)
    assert CASE.replay(venv, game, 2, None, steps, np.random.default_rng(5), all_seats=True) >= 4
    _, _, _, _, info = venv.step(venv.action_masks().argmax(axis=1))
    assert info["rewards"].shape == (4, game.num_players)
    with pytest.raises(ValueError, match="seat must be None under control='all_seats'"):
        agents.vector_env("roborally", 2, opponents=[], control="all_seats", seat=0, **opts)
