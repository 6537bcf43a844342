"""Conformance checks every available game must pass with its default options."""

from __future__ import annotations

import pathlib
import random
import re

import numpy as np
import pytest
from aec_play import play_a_masked_action
from pettingzoo.test import api_test, seed_test

import envs
from envs.core.game import IllegalActionError, legal_mask

GAMES = envs.available_games()
ROOT = pathlib.Path(__file__).resolve().parents[2]

# Run again on the oldest supported PettingZoo (.ci/run): these tests exercise the PettingZoo-facing API.
pytestmark = pytest.mark.pettingzoo_api


def test_simple_poker_is_available():
    assert "simple_poker" in GAMES


@pytest.mark.parametrize("game", GAMES)
def test_api_and_seed_default_options(game):
    mod = envs.load(game)
    api_test(mod.env(), num_cycles=30)
    api_test(mod.raw_env(), num_cycles=30)
    seed_test(mod.env, num_cycles=30)


@pytest.mark.pettingzoo_registry
@pytest.mark.parametrize("game", GAMES)
def test_registered_with_pettingzoo(game):
    import pettingzoo

    env = pettingzoo.make("aec", f"tabletop/{game}-v0", render_mode="ansi")
    env.reset(seed=3)
    assert isinstance(env.render(), str) and env.render()


@pytest.mark.parametrize("game", GAMES)
def test_unknown_option_names_allowed_keys(game):
    with pytest.raises(ValueError, match="allowed options"):
        envs.load(game).raw_env(no_such_option=1)


@pytest.mark.parametrize("game", GAMES)
def test_illegal_action_raises_and_loses_nothing(game):
    env = envs.load(game).raw_env()
    env.reset(seed=0)
    mask = env.observe(env.agent_selection)["action_mask"]
    illegal = np.flatnonzero(mask == 0)
    before = env.game_state
    bad = int(illegal[0]) if len(illegal) else env.game.num_actions  # out of range if all legal
    with pytest.raises(IllegalActionError) as err:
        env.step(bad)
    assert str(bad) in str(err.value) and "player_" in str(err.value)
    assert env.game_state == before
    env.step(int(np.flatnonzero(mask)[0]))  # the env still works


@pytest.mark.parametrize("game", GAMES)
def test_wrapped_env_punishes_illegal_move(game):
    """env() ends the game with −1 for the offender on a masked action, and
    refuses an action outside the action space (PettingZoo's standard wrappers)."""
    env = envs.load(game).env()
    played = play_a_masked_action(env, range(5), lambda obs, info: obs["action_mask"], max_iter=200)
    found = played is not None
    if found:
        agent, _ = played
        assert env.terminations[agent] and env._cumulative_rewards[agent] == -1
    env.reset(seed=0)
    with pytest.raises(AssertionError, match="action"):
        env.step(env.action_space(env.agent_selection).n)
    if game != "simple_poker":  # every poker action is legal whenever a seat acts
        assert found, "no position with a masked action found in 5 random games"


@pytest.mark.parametrize("game", GAMES)
def test_same_seed_same_episode_despite_global_rng(game):
    def episode(seed):
        eng = envs.make_game(game)
        rng = np.random.default_rng(seed)
        state = eng.initial_state(rng)
        trace = []
        steps = 0
        while not eng.is_terminal(state) and steps < 400:
            random.random(), np.random.random()  # global RNG use must not matter
            legal = eng.legal_actions(state)
            a = legal[int(rng.integers(len(legal)))]
            trace.append(a)
            state = eng.apply(state, a)
            steps += 1
        return trace, tuple(eng.returns(state))

    assert episode(11) == episode(11)


@pytest.mark.parametrize("game", GAMES)
def test_masks_equal_legal_actions_and_spaces_hold(game):
    env = envs.load(game).raw_env()
    for seed in range(3):
        env.reset(seed=seed)
        for agent in env.agent_iter(max_iter=300):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            assert env.observation_space(agent).contains(obs)
            legal = env.game.legal_actions(env.game_state)
            assert list(np.flatnonzero(obs["action_mask"])) == list(legal)
            assert np.array_equal(legal_mask(env.game, env.game_state), obs["action_mask"])
            env.step(int(legal[seed % len(legal)]))


def test_no_global_rng_under_envs_and_agents():
    pattern = re.compile(r"np\.random\.(seed|rand|randn|randint|random|choice|shuffle|permutation|RandomState"
                         r"|uniform|normal)\b|(^|[^\w.])random\.(random|randint|choice|shuffle|seed|sample|uniform)\(")
    offenders = []
    for top in ("envs", "agents"):
        for path in (ROOT / top).rglob("*.py"):
            for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                code = line.split("#", 1)[0]
                if pattern.search(code):
                    offenders.append(f"{path.relative_to(ROOT)}:{i}: {line.strip()}")
    assert not offenders, "global RNG use:\n" + "\n".join(offenders)


def _random_episode_trace(env, rng):
    """Step `env` with random legal actions to the end; the trace of what each step shows."""
    trace = []
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        trace.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward, term, trunc))
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return trace


@pytest.mark.parametrize("wrapped", [True, False], ids=["env", "raw_env"])
@pytest.mark.parametrize("game", GAMES)
def test_copy_and_pickle_mid_episode_continue_identically(game, wrapped):
    import copy
    import pickle

    mod = envs.load(game)
    env = (mod.env if wrapped else mod.raw_env)()
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    for _ in range(3):  # a few moves in, but before any game ends
        obs, *_ = env.last()
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        if any(env.terminations.values()):
            break
    copies = [copy.deepcopy(env), pickle.loads(pickle.dumps(env))]
    assert all(c.unwrapped.game_state == env.unwrapped.game_state for c in copies)
    # the same actions (and the same generator state) from here on
    traces = [_random_episode_trace(e, np.random.default_rng(9)) for e in [env, *copies]]
    assert traces[0] == traces[1] == traces[2] and len(traces[0]) > 1


@pytest.mark.parametrize("game", GAMES)
def test_actions_must_be_integers(game):
    mod = envs.load(game)
    for env in (mod.raw_env(), mod.env()):
        env.reset(seed=0)
        legal = int(np.flatnonzero(env.last()[0]["action_mask"])[0])
        for bad in (True, False, float(legal), legal + 0.5, str(legal), np.float32(legal), np.bool_(True), [legal]):
            with pytest.raises(IllegalActionError, match=r"not an integer action id.*") as err:
                env.step(bad)
            assert repr(bad) in str(err.value) and "player_" in str(err.value)
        env.step(np.int64(legal))  # NumPy integers are actions


@pytest.mark.parametrize("game", GAMES)
def test_misuse_before_reset_and_after_the_end_says_what_to_call(game):
    mod = envs.load(game)
    raw = mod.raw_env(render_mode="ansi")
    for call in (
        lambda: raw.step(0),
        lambda: raw.last(),
        lambda: raw.observe("player_0"),
        raw.render,
        lambda: raw.view("player_0"),
    ):
        with pytest.raises(RuntimeError, match=r"call reset\(\)"):
            call()
    for env in (raw, mod.env()):
        env.reset(seed=1)
        _random_episode_trace(env, np.random.default_rng(1))
        assert env.agents == []
        if env is raw:  # env() keeps PettingZoo's order enforcing: a warning, and the step is ignored
            with pytest.raises(RuntimeError, match=r"episode is over.*call reset\(\)"):
                env.step(None)
        with pytest.raises(RuntimeError, match=r"episode is over.*call reset\(\)"):
            env.last()
        env.reset(seed=1)  # and reset brings it back
        assert env.agents == env.possible_agents
    with pytest.raises(KeyError, match="unknown agent 'player_9'; the agents are player_0, player_1"):
        raw.observe("player_9")
    with pytest.raises(ValueError, match="unknown agent 'bob'"):
        raw.observation_space("bob")


@pytest.mark.parametrize("game", GAMES)
def test_max_turns_must_be_a_positive_integer(game):
    raw = envs.load(game).raw_env
    for bad in ("5", 2.5, 0, -1, True):
        with pytest.raises(ValueError, match="max_turns must be a positive integer or None"):
            raw(max_turns=bad)
    env = raw(max_turns=np.int64(5))  # a NumPy integer is an integer
    env.reset(seed=0)


@pytest.mark.parametrize("game", GAMES)
def test_a_seat_that_left_observes_its_last_view_with_no_legal_action(game):
    env = envs.load(game).raw_env()
    env.reset(seed=2)
    _random_episode_trace(env, np.random.default_rng(2))
    for agent in env.possible_agents:
        obs = env.observe(agent)
        assert not obs["action_mask"].any()
        assert env.observation_space(agent).contains(obs)


@pytest.mark.pettingzoo_registry
@pytest.mark.parametrize("game", GAMES)
def test_parallel_make_gives_the_native_env_or_says_the_game_is_turn_based(game):
    import pettingzoo

    if hasattr(envs.load(game), "parallel_env"):
        assert isinstance(pettingzoo.make("parallel", f"tabletop/{game}-v0"), pettingzoo.ParallelEnv)
        return
    with pytest.raises(ValueError, match=r"turn-based.*turn_based_aec_to_parallel"):
        pettingzoo.make("parallel", f"tabletop/{game}-v0")
