"""What other RL libraries look for, on every game: masks in `info` (int8) beside the observation's,
`mask_in`, PettingZoo's global `state()` / `state_space`, `max_cycles`, and the single-agent view's int8
info mask that `Discrete.sample(mask=...)` accepts."""

from __future__ import annotations

import numpy as np
import pytest
from aec_play import play, play_a_masked_action, random_legal
from pettingzoo.test import api_test, parallel_api_test
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

import envs
from envs.core import OpponentEnv
from envs.core.game import IllegalActionError

GAMES = envs.available_games()
SMALL = {"roborally": {"board": "tiny", "num_robots": 2}}  # RoboRally's default board is large: a small one here

# Run again on the oldest supported PettingZoo (.ci/run): these tests exercise the PettingZoo-facing API.
pytestmark = pytest.mark.pettingzoo_api


def _make(game, wrapped=True, **kw):
    mod = envs.load(game)
    return (mod.env if wrapped else mod.raw_env)(**SMALL.get(game, {}), **kw)


def _mask_of(obs, info):
    return obs["action_mask"] if isinstance(obs, dict) else info["action_mask"]


@pytest.mark.parametrize("wrapped", [True, False], ids=["env", "raw_env"])
@pytest.mark.parametrize("game", GAMES)
def test_info_mask_is_the_observation_mask_for_every_seat(game, wrapped):
    env = _make(game, wrapped)
    rng = np.random.default_rng(0)
    for seed in range(2):
        env.reset(seed=seed)
        for _agent in env.agent_iter(max_iter=300):
            obs, _, term, trunc, info = env.last()
            for a in env.agents:
                mask = env.infos[a]["action_mask"]
                assert mask.dtype == np.int8 and np.array_equal(mask, env.observe(a)["action_mask"])
            assert np.array_equal(info["action_mask"], obs["action_mask"])
            if term or trunc:
                assert not info["action_mask"].any()
                env.step(None)
                continue
            assert info["action_mask"].any()
            env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))


@pytest.mark.parametrize("game", GAMES)
def test_mask_in_info_gives_a_plain_box_and_passes_the_api_test(game):
    for wrapped in (True, False):
        env = _make(game, wrapped, mask_in="info")
        space = env.observation_space(env.possible_agents[0])
        assert space is env.unwrapped.encoder.observation_space  # the game's own Box, not a Dict
        assert all(env.observation_space(a) is space for a in env.possible_agents)  # one cached object
        api_test(env, num_cycles=30)
        env.reset(seed=0)
        obs, *_, info = env.last()
        assert isinstance(obs, np.ndarray) and space.contains(obs) and info["action_mask"].dtype == np.int8
        assert np.array_equal(env.unwrapped.action_mask(), info["action_mask"])
    env = _make(game, mask_in="obs")
    env.reset(seed=0)
    assert "action_mask" not in env.last()[-1] and "action_mask" in env.last()[0]


@pytest.mark.parametrize("game", GAMES)
def test_env_ends_the_game_on_a_masked_action_with_the_mask_in_info_only(game):
    """env() finds the mask in `info` when the observation has none (PettingZoo's TerminateIllegalWrapper)."""
    env = _make(game, mask_in="info")
    played = play_a_masked_action(env, range(10), lambda obs, info: info["action_mask"], max_iter=300)
    if played is None:
        assert game == "simple_poker", "no position with a masked action in 10 random games"
        return
    agent, action = played
    assert env.terminations[agent] and env._cumulative_rewards[agent] == -1
    assert env.infos[agent]["illegal_action"] == action
    assert not any(i["action_mask"].any() for i in env.infos.values())


@pytest.mark.parametrize("bad", ["observation", "", None, 1, ("obs",)])
def test_unknown_mask_in_names_the_allowed_values(bad):
    for make in (envs.load("lama").env, envs.load("lama").raw_env, envs.load("roborally").parallel_env):
        with pytest.raises(ValueError, match=r"mask_in must be one of 'obs', 'info', 'both'"):
            make(mask_in=bad)


def _random_legal_aec(env, rng, check):
    for _agent in env.agent_iter(max_iter=300):
        obs, _, term, trunc, _ = env.last()
        check(env)
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


@pytest.mark.parametrize("game", GAMES)
def test_state_is_every_seats_view_in_one_array(game):
    env = _make(game)
    raw = env.unwrapped
    space = env.state_space
    n_obs = raw.encoder.observation_space.shape[0]
    assert space.shape == (raw.game.num_players * n_obs,) and space.dtype == np.float32

    def check(e):
        state = e.state()
        assert space.contains(state)
        for seat, a in enumerate(e.possible_agents):
            assert np.array_equal(state[seat * n_obs:(seat + 1) * n_obs], raw.encoder.encode(raw.view(a)))

    env.reset(seed=0)
    _random_legal_aec(env, np.random.default_rng(0), check)
    with pytest.raises(RuntimeError, match=r"call reset\(\)"):
        _make(game).unwrapped.state()
    # PettingZoo's own conversion exposes it too
    par = turn_based_aec_to_parallel(_make(game))
    par.reset(seed=1)
    assert par.state_space is space or par.state_space == space
    assert np.array_equal(par.state(), par.unwrapped.state())


def test_roborally_parallel_state_masks_in_info_and_mask_in():
    from envs import roborally_v0

    par = roborally_v0.parallel_env(board="race_easy", num_robots=3, max_turns=3)
    obs, infos = par.reset(seed=0)
    assert (
        par.state_space.contains(par.state()) and par.state_space.shape[0] == 3 * par.encoder.observation_space.shape[0]
    )
    rng = np.random.default_rng(0)
    while par.agents:
        for a in par.agents:
            assert (
                np.array_equal(infos[a]["action_mask"], obs[a]["action_mask"])
                and infos[a]["action_mask"].dtype == np.int8
            )
        actions = {a: int(rng.choice(np.flatnonzero(infos[a]["action_mask"]))) for a in par.agents}
        obs, _, _, _, infos = par.step(actions)
        assert par.state_space.contains(par.state())
    plain = roborally_v0.parallel_env(board="tiny", num_robots=2, mask_in="info")
    assert plain.observation_space("player_0") is plain.encoder.observation_space
    parallel_api_test(plain, num_cycles=40)
    obs, infos = plain.reset(seed=0)
    assert isinstance(obs["player_0"], np.ndarray) and "action_mask" in infos["player_0"]


def test_roborally_parallel_env_ends_the_game_on_a_masked_action_as_env_does():
    from envs import roborally_v0

    par = roborally_v0.parallel_env(board="race_easy", num_robots=3)
    obs, infos = par.reset(seed=0)
    bad = int(np.flatnonzero(infos["player_1"]["action_mask"] == 0)[0])
    ok = {a: int(np.flatnonzero(infos[a]["action_mask"])[0]) for a in par.agents}
    before = par.game_state
    _, rewards, terms, truncs, infos = par.step({**ok, "player_1": bad})
    assert rewards == {"player_0": 0.0, "player_1": -1.0, "player_2": 0.0}
    assert all(terms.values()) and all(truncs.values()) and par.agents == []
    assert infos["player_1"]["illegal_action"] == bad and "illegal_action" not in infos["player_0"]
    assert not any(i["action_mask"].any() for i in infos.values())
    assert par.game_state == before  # the refused round was not played
    # the same move under env() ends the game the same way for the offender
    strict = roborally_v0.raw_parallel_env(board="race_easy", num_robots=3)
    strict.reset(seed=0)
    with pytest.raises(IllegalActionError, match="player_1"):
        strict.step({**ok, "player_1": bad})
    for action in (float(ok["player_0"]), par.action_space("player_0").n):  # not an action at all: raises
        par.reset(seed=0)
        with pytest.raises(IllegalActionError, match="player_0"):
            par.step({**ok, "player_0": action})


def _masked_max_cycles(mod, max_cycles, **opts):
    """PettingZoo's max_cycles_test with masked random actions (its own samples unmasked actions, which in a
    card game are illegal and end the game at once): the number of steps until every agent is done."""
    env = mod.env(max_cycles=max_cycles, **opts)
    _, steps = play(env, random_legal(np.random.default_rng(0)), seed=0)
    return steps, env


@pytest.mark.parametrize("game", [g for g in GAMES if g != "roborally"])
def test_max_cycles_is_the_max_turns_limit_in_moves(game):
    mod = envs.load(game)
    for limit in (1, 4):
        steps, env = _masked_max_cycles(mod, limit)
        # moves of any seat; a game may end by its rules first (simple poker can end after 2 moves)
        assert steps == limit or (steps < limit and env.unwrapped.game.is_terminal(env.unwrapped.game_state))
    raw = mod.raw_env(max_cycles=3)
    assert raw.max_turns == 3 and mod.raw_env(max_turns=3, max_cycles=3).max_turns == 3
    with pytest.raises(ValueError, match="max_cycles"):
        mod.raw_env(max_turns=3, max_cycles=4)
    for bad in ("4", 0, 2.5, True):
        with pytest.raises(ValueError, match="max_cycles must be a positive integer"):
            mod.env(max_cycles=bad)


def test_roborally_max_cycles_counts_game_turns_in_both_apis():
    from envs import roborally_v0

    opts = dict(board="tiny", num_robots=2)
    assert roborally_v0.raw_env(max_cycles=2, **opts).game.config.max_turns == 2
    for make in (roborally_v0.env, roborally_v0.parallel_env):
        with pytest.raises(ValueError, match="max_cycles must be a positive integer"):
            make(max_cycles="2", **opts)
    steps, env = _masked_max_cycles(roborally_v0, 2, **opts)
    state = env.unwrapped.game_state
    assert env.unwrapped.game.over_reason(state) == "max_turns" and state.turn == 2
    assert steps == 2 * env.unwrapped.game.steps_per_turn
    par = roborally_v0.parallel_env(max_cycles=2, **opts)
    _, infos = par.reset(seed=0)
    rounds = 0
    rng = np.random.default_rng(0)
    while par.agents:
        _, _, terms, truncs, infos = par.step(
            {a: int(rng.choice(np.flatnonzero(infos[a]["action_mask"]))) for a in par.agents}
        )
        rounds += 1
    assert par.game_state.turn == 2 and all(truncs.values()) and rounds == 2 * par.game.rounds


@pytest.mark.parametrize("game", GAMES)
def test_opponent_env_info_mask_is_int8_and_samples_legal_actions(game):
    import agents

    eng = envs.make_game(game, **SMALL.get(game, {}))
    opponents = [agents.make("random", eng, np.random.default_rng(i)) for i in range(eng.num_players - 1)]
    env = OpponentEnv(eng, envs.make_encoder(game, eng), opponents, seed=0, max_turns=200)
    _, info = env.reset(seed=0)
    for _ in range(50):
        assert info["action_mask"].dtype == np.int8
        assert np.array_equal(info["action_mask"], env.action_masks())
        action = env.action_space.sample(mask=info["action_mask"])
        assert env.action_masks()[action]
        _, _, term, trunc, info = env.step(action)
        if term or trunc:
            _, info = env.reset()
