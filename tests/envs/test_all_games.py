"""Conformance checks every available game must pass with its default options."""

from __future__ import annotations

import pathlib
import random
import re

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import envs
from envs.core.game import IllegalActionError, legal_mask

GAMES = envs.available_games()
ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_simple_poker_is_available():
    assert "simple_poker" in GAMES


@pytest.mark.parametrize("game", GAMES)
def test_api_and_seed_default_options(game):
    mod = envs.load(game)
    api_test(mod.env(), num_cycles=30)
    api_test(mod.raw_env(), num_cycles=30)
    seed_test(mod.env, num_cycles=30)


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
    before = env.state
    bad = int(illegal[0]) if len(illegal) else env.game.num_actions  # out of range if all legal
    with pytest.raises(IllegalActionError) as err:
        env.step(bad)
    assert str(bad) in str(err.value) and "player_" in str(err.value)
    assert env.state == before
    env.step(int(np.flatnonzero(mask)[0]))  # the env still works


@pytest.mark.parametrize("game", GAMES)
def test_wrapped_env_punishes_illegal_move(game):
    """env() ends the game with −1 for the offender on a masked action, and
    refuses an action outside the action space (PettingZoo's standard wrappers)."""
    env = envs.load(game).env()
    found = False
    for seed in range(5):
        env.reset(seed=seed)
        for agent in env.agent_iter(max_iter=200):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                break
            illegal = np.flatnonzero(obs["action_mask"] == 0)
            if len(illegal):
                env.step(int(illegal[0]))
                assert env.terminations[agent] and env._cumulative_rewards[agent] == -1
                found = True
                break
            env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        if found:
            break
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
            legal = env.game.legal_actions(env.state)
            assert list(np.flatnonzero(obs["action_mask"])) == list(legal)
            assert np.array_equal(legal_mask(env.game, env.state), obs["action_mask"])
            env.step(int(legal[seed % len(legal)]))


def test_no_global_rng_under_envs_and_agents():
    pattern = re.compile(r"np\.random\.(seed|rand|randn|randint|random|choice|shuffle|permutation|RandomState|uniform|normal)\b|(^|[^\w.])random\.(random|randint|choice|shuffle|seed|sample|uniform)\(")
    offenders = []
    for top in ("envs", "agents"):
        for path in (ROOT / top).rglob("*.py"):
            for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                code = line.split("#", 1)[0]
                if pattern.search(code):
                    offenders.append(f"{path.relative_to(ROOT)}:{i}: {line.strip()}")
    assert not offenders, "global RNG use:\n" + "\n".join(offenders)
