"""One rule for what an action is, in every env of every game (`envs.core.actions`): a Python int, a NumPy integer
scalar or a 0-d integer array (SB3's `model.predict` on one observation) plays; a float, a bool, a string or a 1-d
array for one seat is one clear `IllegalActionError`; the vector env takes a batch of such actions."""

from __future__ import annotations

import numpy as np
import pytest

import agents
import envs
from envs.core import OpponentEnv
from envs.core.actions import action_id, action_ids, as_action
from envs.core.game import IllegalActionError

GAMES = envs.available_games()
SMALL = {"roborally": {"board": "tiny", "num_robots": 2}}

# Run again on the oldest supported PettingZoo (.ci/run): these tests exercise the PettingZoo-facing API.
pytestmark = pytest.mark.pettingzoo_api


def _good(a: int) -> list:
    return [
        a,
        np.int64(a),
        np.int16(a),
        np.uint32(a),
        np.array(a),
        np.array(a, dtype=np.uint16),
    ]  # room for 400 actions


def _bad(a: int) -> list:
    return [True, np.bool_(False), np.array(True), float(a), np.float32(a), np.array(float(a)), str(a), None,
            np.array([a]), [a], np.array([[a]])]


def test_the_helper_takes_what_discrete_contains_takes_but_bools():
    import gymnasium

    space = gymnasium.spaces.Discrete(5)
    for a in _good(3):
        assert as_action(a) == 3 and type(as_action(a)) is int and space.contains(a)
    for a in _bad(3):
        assert as_action(a) is None
    for a in _bad(3)[3:]:
        assert not space.contains(a)  # the rest Gymnasium refuses too; bools it takes, we do not
    assert action_id(np.array(4), 0, 5) == 4
    with pytest.raises(IllegalActionError, match=r"illegal action 5 for seat 1 \(player_1\): outside Discrete\(5\)"):
        action_id(np.int64(5), 1, 5)
    with pytest.raises(IllegalActionError, match=r"not an integer action id \(ndarray; give an int, a NumPy integer"):
        action_id(np.array([1]), 0, 5)


def test_a_batch_is_an_integer_array_or_a_list_of_actions():
    np.testing.assert_array_equal(action_ids(np.array([2, 0, 7]), 3), [2, 0, 7])
    np.testing.assert_array_equal(action_ids(np.array([[2], [0], [7]], np.uint8), 3), [2, 0, 7])
    np.testing.assert_array_equal(action_ids([2, np.int32(0), np.array(7)], 3), [2, 0, 7])
    # a bool or float in a list is that table's refusal only (np.asarray would have made it the int 1)
    np.testing.assert_array_equal(action_ids([True, 1, 2.0], 3), [-1, 1, -1])
    np.testing.assert_array_equal(action_ids(np.array([1.0, 2.0, 0.0]), 3), [-1, -1, -1])
    np.testing.assert_array_equal(action_ids([-4, 2**70, np.uint64(2**63)], 3), [-1, -1, -1])
    np.testing.assert_array_equal(action_ids(np.array([2**63, 5], np.uint64), 2), [-1, 5])
    for bad in (np.zeros(2, int), [1, 2], np.array(1)):
        with pytest.raises(ValueError, match=r"actions must have shape \(3,\) \(one per table\)"):
            action_ids(bad, 3)


def _first_legal(mask) -> int:
    return int(np.flatnonzero(mask)[0])


@pytest.mark.parametrize("game", GAMES)
def test_aec_raw_env_and_env_take_every_integer_form(game):
    mod = envs.load(game)
    for make in (mod.raw_env, mod.env):
        env = make(**SMALL.get(game, {}))
        env.reset(seed=0)
        legal = _first_legal(env.last()[0]["action_mask"])
        for bad in _bad(legal):
            with pytest.raises(IllegalActionError, match=r"not an integer action id") as err:
                env.step(bad) if bad is not None else env.unwrapped.step(bad)
            assert "player_" in str(err.value)
        for seed, form in enumerate(_good(0)):
            env.reset(seed=seed)  # a live decision for each form (a poker hand may end at the first move)
            a = _first_legal(env.last()[0]["action_mask"])
            env.step(np.array(a, dtype=form.dtype) if isinstance(form, np.ndarray) else type(form)(a))
            assert env.unwrapped.num_turns == 1 and not any("illegal_action" in i for i in env.infos.values())


def _opponent_env(game: str) -> OpponentEnv:
    eng = envs.make_game(game, **SMALL.get(game, {}))
    opponents = [agents.make("random", eng, np.random.default_rng(i)) for i in range(eng.num_players - 1)]
    return OpponentEnv(eng, envs.make_encoder(game, eng), opponents, seed=0, max_turns=200)


@pytest.mark.parametrize("game", GAMES)
def test_opponent_env_takes_every_integer_form_and_refuses_a_one_element_array(game):
    env = _opponent_env(game)
    _, info = env.reset(seed=0)
    for bad in _bad(_first_legal(info["action_mask"])):
        with pytest.raises(IllegalActionError, match=r"not an integer action id"):
            env.step(bad)
    for form in _good(0):
        a = _first_legal(info["action_mask"])
        action = np.array(a, dtype=form.dtype) if isinstance(form, np.ndarray) else type(form)(a)
        _, _, term, trunc, info = env.step(action)
        assert "illegal_action" not in info
        if term or trunc:
            _, info = env.reset()


def test_parallel_env_takes_every_integer_form_and_refuses_the_rest():
    mod = envs.load("roborally")
    env = mod.raw_parallel_env(**SMALL["roborally"])
    _, infos = env.reset(seed=0)
    for bad in _bad(0):
        acts = {a: _first_legal(infos[a]["action_mask"]) for a in env.agents}
        acts["player_1"] = bad
        with pytest.raises(IllegalActionError, match=r"not an integer action id") as err:
            env.step(acts)
        assert "player_1" in str(err.value)
    before = env.num_rounds
    for form in _good(0):
        if not env.agents:
            break
        acts = {a: _first_legal(infos[a]["action_mask"]) for a in env.agents}
        acts = {a: np.array(v, dtype=form.dtype) if isinstance(form, np.ndarray) else type(form)(v)
                for a, v in acts.items()}
        _, _, _, _, infos = env.step(acts)
    assert env.num_rounds == before + len(_good(0))


@pytest.mark.parametrize("game", GAMES)
def test_vector_env_takes_a_batch_of_every_integer_form(game):
    n = envs.make_game(game, **SMALL.get(game, {})).num_players
    venv = agents.vector_env(game, 3, opponents=["random"] * (n - 1), seed=0, illegal_reward=-5.0,
                             **SMALL.get(game, {}))
    venv.reset(seed=0)
    for form in _good(0):
        acts = [_first_legal(m) for m in venv.action_masks()]
        batch = [np.array(a, dtype=form.dtype) if isinstance(form, np.ndarray) else type(form)(a) for a in acts]
        _, _, _, _, info = venv.step(batch)
        assert "illegal_action" not in info
    acts = [_first_legal(m) for m in venv.action_masks()]
    _, reward, term, _, info = venv.step([acts[0], float(acts[1]), np.array([acts[2]])])
    np.testing.assert_array_equal(info["_illegal_action"], [False, True, True])
    assert term[1] and term[2] and reward[1] == reward[2] == -5.0
