"""The Game's vector env with batch-policy teammates, teammate pools and `set_opponents`: every table still replays
alone in the plain engine, move for move, with the batch policies' Python twins (which encode their own seat's view)
in their seats."""

from __future__ import annotations

import numpy as np
import pytest
from test_the_game_vector import CASE  # the shadow replay of one table in the plain engine (the shared contract)
from vector_contract import PickTwin, RandomMirror, check_set_opponents_at_next_episode, obs_pick

import agents
from agents.base import make
from envs.core.game import IllegalActionError
from envs.core.vector import BatchPolicy, Pool, pick_line_up, table_key
from envs.the_game.encoding import TheGameEncoder
from envs.the_game.rules import Config, TheGame

BEST = "the_game/bestplays"


def _batch(calls: list, name: str = "pick") -> BatchPolicy:
    def fn(obs, mask, rows, rng):
        assert obs.dtype == np.float32 and mask.dtype == np.bool_ and rows.dtype == np.int64
        assert isinstance(rng, np.random.Generator)
        calls.append(rows.copy())
        return obs_pick(obs, mask)

    return BatchPolicy(fn, name)


def _twin(game: TheGame, who, shared: dict):
    """The plain engine's player of a vector seat: the pick twin of a batch policy, the agent of a kernel id, the
    mirror of a random seat."""
    if isinstance(who, BatchPolicy):
        return PickTwin(TheGameEncoder(game))
    if who == "random":
        return RandomMirror(shared)
    return make(who, game, np.random.default_rng(0))


@pytest.mark.parametrize("opts,line,max_turns", [
    (dict(num_players=3), ["pick", BEST], None),
    (dict(num_players=4, actions="slot", empty_hand="ends_game", starter=2), ["pick", "random", "pick"], None),
    (dict(num_players=2, hand_size=4, min_cards_per_turn=1, actions="slot"), ["pick"], 7),
])
def test_batch_policy_teammates_replay_in_the_plain_engine(opts, line, max_turns):
    game = TheGame(Config(**opts))
    calls: list[np.ndarray] = []
    pick = _batch(calls)
    line = [pick if who == "pick" else who for who in line]
    venv = agents.vector_env("the_game", 6, opponents=line, seed=4, max_turns=max_turns, **opts)
    episodes = CASE.replay(venv, game, 4, lambda shared: [_twin(game, who, shared) for who in line], 150,
                           np.random.default_rng(3), max_turns=max_turns)
    assert episodes >= 6
    # one call per teammate turn over every table waiting on it, not one per table
    assert max(len(c) for c in calls) > 1


def test_pool_draws_line_ups_per_table_from_the_episode_key():
    opts = dict(num_players=3, actions="slot")
    game = TheGame(Config(**opts))
    weights = [0.5, 0.3, 0.2]
    ups = [[BEST, BEST], [_batch([]), "random"], ["random", "random"]]
    venv = agents.vector_env("the_game", 6, opponents=Pool(ups, weights=weights), seed=9, **opts)
    cum = np.cumsum(weights)
    cum[-1] = 1.0
    seen = set()

    def lineup(shared):
        i = pick_line_up(cum, table_key(9, shared["table"]), shared["episode"])
        seen.add(i)
        return [_twin(game, who, shared) for who in ups[i]]

    assert CASE.replay(venv, game, 9, lineup, 250, np.random.default_rng(5)) >= 20
    assert seen == {0, 1, 2}


def test_set_opponents_takes_effect_at_each_tables_next_episode():
    venv = agents.vector_env("the_game", 6, opponents=[BEST], seed=1, num_players=2, actions="slot")
    check_set_opponents_at_next_episode(venv, lambda policy: [policy])
    with pytest.raises(ValueError, match="needs 1 opponents"):
        venv.set_opponents([BEST, BEST])
    solo = agents.vector_env("the_game", 2, opponents=[], control="all_seats", num_players=3)
    with pytest.raises(ValueError, match="all_seats"):
        solo.set_opponents([BEST, BEST])


def test_bad_batch_policies_are_refused_naming_the_policy_table_and_seat():
    opts = dict(num_players=2)
    # the lowest action id the mask forbids (the card head always has one)
    illegal = BatchPolicy(lambda obs, mask, rows, rng: np.argmin(mask, axis=1), "bad")
    venv = agents.vector_env("the_game", 3, opponents=[illegal], seed=2, seat=1, **opts)  # the teammate starts
    with pytest.raises(IllegalActionError, match=r"for seat 0 .*batch policy 'bad' at table 0") as e:
        venv.reset()
    assert e.value.seat == 0 and e.value.legal
    with pytest.raises(RuntimeError, match="call reset"):
        venv.step(np.zeros(3, np.int64))
    shape = BatchPolicy(lambda obs, mask, rows, rng: np.zeros(len(rows) + 1, np.int64), "shape")
    venv = agents.vector_env("the_game", 3, opponents=[shape], seed=2, seat=1, **opts)
    with pytest.raises(ValueError, match="batch policy 'shape' must return 3 integer actions"):
        venv.reset()
    with pytest.raises(ValueError, match="callable"):
        agents.vector_env("the_game", 3, opponents=[BatchPolicy(3, "x")], **opts)
    with pytest.raises(ValueError, match="all_seats"):
        agents.vector_env("the_game", 3, opponents=Pool([[]]), control="all_seats", **opts)
    with pytest.raises(ValueError, match="no compiled kernel"):
        agents.vector_env("the_game", 3, opponents=Pool([["the_game/rollout"]]), **opts)


def test_batch_policy_of_a_saved_policy_plays_as_a_teammate(tmp_path):
    """`agents.vector.batch_policy` of a saved masked policy (the one saved-policy format) seated as a teammate: the
    table replays against the same policy as a plain-engine agent. (The shipped The Game students are action
    scorers, which `batch_policy` refuses by name.)"""
    import torch

    from agents.learned import LearnedAgent, Student, load_student, save_student

    opts = dict(num_players=3)
    game = TheGame(Config(**opts))
    torch.manual_seed(0)
    folder = save_student(Student("the_game", opts, "masked_policy", [16]), str(tmp_path / "policy"))
    greedy = agents.vector.batch_policy(folder, play="greedy", name="saved")
    venv = agents.vector_env("the_game", 4, opponents=[greedy, BEST], seed=7, **opts)
    student = load_student(folder)

    def lineup(shared):
        return [LearnedAgent(student, np.random.default_rng(0)), _twin(game, BEST, shared)]

    assert CASE.replay(venv, game, 7, lineup, 120, np.random.default_rng(2)) >= 4
    with pytest.raises(ValueError, match="masked_policy"):
        agents.vector.batch_policy("the_game/learned-3p")
