"""`OpponentEnv` in every game: library checkers, reproducibility, reward accounting."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import agents
import envs
from envs.core.game import IllegalActionError
from envs.core.single_agent import OpponentEnv

GAMES = envs.available_games()


def opponent_env(game_name: str, agent_seed: int = 0, **kw) -> OpponentEnv:
    """The README form: opponents built with their own generators, then the env."""
    game = envs.make_game(game_name)
    rngs = np.random.default_rng(agent_seed).spawn(game.num_players - 1)
    opponents = [agents.make("random", game, r) for r in rngs]
    return OpponentEnv(game, envs.make_encoder(game_name, game), opponents, **kw)


def run_episode(env: OpponentEnv, seed: int, actions_rng: np.random.Generator):
    obs, info = env.reset(seed=seed)
    trace = [(obs.tobytes(), info["seat"])]
    total, done = 0.0, False
    while not done:
        legal = np.flatnonzero(env.action_masks())
        obs, reward, term, trunc, info = env.step(int(legal[actions_rng.integers(len(legal))]))
        trace.append((obs.tobytes(), reward, term, trunc))
        total += reward
        done = term or trunc
    return trace, total


@pytest.mark.parametrize("game", GAMES)
def test_gymnasium_check_env_passes(game):
    from gymnasium.utils.env_checker import check_env

    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # the determinism checks only warn
        warnings.filterwarnings("ignore", message=".*render.*")
        check_env(opponent_env(game, seed=0), skip_render_check=True)


@pytest.mark.parametrize("game", GAMES)
def test_sb3_check_env_passes(game):
    from stable_baselines3.common.env_checker import check_env

    check_env(opponent_env(game, seed=0), warn=True, skip_render_check=True)


@pytest.mark.parametrize("game", GAMES)
def test_same_seed_same_episode_with_opponents_built_elsewhere(game):
    # Two envs whose opponents were built with different generators, and one env reset twice.
    a, b = opponent_env(game, agent_seed=1), opponent_env(game, agent_seed=2)
    first = run_episode(a, 5, np.random.default_rng(0))
    assert run_episode(b, 5, np.random.default_rng(0)) == first
    assert run_episode(a, 5, np.random.default_rng(0)) == first
    # the episodes after a seeded reset follow that seed too
    a.reset(seed=8)
    b.reset(seed=8)
    for _ in range(3):
        ra, rb = np.random.default_rng(3), np.random.default_rng(3)
        assert run_episode_unseeded(a, ra) == run_episode_unseeded(b, rb)


def run_episode_unseeded(env, rng):
    obs, info = env.reset()
    trace = [obs.tobytes(), info["seat"]]
    done = False
    while not done:
        legal = np.flatnonzero(env.action_masks())
        obs, reward, term, trunc, _ = env.step(int(legal[rng.integers(len(legal))]))
        trace.append((obs.tobytes(), reward))
        done = term or trunc
    return trace


def test_constructor_seed_fixes_the_opponents_too():
    runs = [run_episode_unseeded(opponent_env("lama", agent_seed=s, seed=4), np.random.default_rng(1)) for s in (1, 2)]
    assert runs[0] == runs[1]


@pytest.mark.parametrize("game", GAMES)
def test_episode_rewards_sum_to_the_learners_final_return(game):
    env = opponent_env(game, seed=0)
    deal = env.game.initial_state(np.random.default_rng(0))
    assert not any(env.game.returns(deal))  # so the final return is what the episode paid
    rng = np.random.default_rng(1)
    seats, paid_before_first_decision = set(), 0
    for _ in range(30 if game != "simple_poker" else 100):
        env.reset()
        paid_before_first_decision += env.game.returns(env.game_state)[env.learner_seat] != 0
        seats.add(env.learner_seat)
        done, total = False, 0.0
        while not done:
            legal = np.flatnonzero(env.action_masks())
            _, reward, term, trunc, _ = env.step(int(legal[rng.integers(len(legal))]))
            total += reward
            done = term or trunc
        assert term
        assert total == pytest.approx(env.game.returns(env.game_state)[env.learner_seat], abs=1e-9)
    assert seats == set(range(env.game.num_players))
    if game in ("the_game", "primi_composti"):  # the case that matters happened
        assert paid_before_first_decision


@pytest.mark.parametrize("game", GAMES)
def test_unmasked_illegal_action_ends_the_episode_or_raises_when_strict(game):
    for strict in (False, True):
        env = opponent_env(game, seed=0, strict=strict)
        rng = np.random.default_rng(0)
        found = False
        for _ in range(50):
            env.reset()
            done = False
            while not done:
                mask = env.action_masks()
                if not mask.all():
                    bad = int(np.flatnonzero(~mask)[0])
                    before = env.game_state
                    if strict:
                        with pytest.raises(IllegalActionError, match=f"illegal action {bad}"):
                            env.step(bad)
                        assert env.game_state == before
                    else:
                        _, reward, term, trunc, info = env.step(bad)
                        assert (reward, term, trunc, info["illegal_action"]) == (-1.0, True, False, bad)
                        assert env.game_state == before
                        with pytest.raises(RuntimeError, match=r"call reset\(\)"):
                            env.step(int(np.flatnonzero(mask)[0]))
                    found = True
                    break
                legal = np.flatnonzero(mask)
                _, _, term, trunc, _ = env.step(int(legal[rng.integers(len(legal))]))
                done = term or trunc
            if found:
                break
        if game != "simple_poker":  # every poker action is legal whenever the learner acts
            assert found
        for bad in (env.game.num_actions, 0.5, True, "0"):
            env.reset()
            with pytest.raises(IllegalActionError, match="player_"):
                env.step(bad)
