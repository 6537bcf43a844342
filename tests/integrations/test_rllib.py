"""RLlib: the turn-based MultiAgentEnv adapter keeps every seat's return, and multi-agent PPO with
action masking trains on every game. Runs where RLlib is installed (its own venv: `.ci/setup-rllib`)."""

import numpy as np
import pytest

import envs

pytest.importorskip("ray.rllib")

import ray  # noqa: E402

from train.rllib import RLlibEnv, ppo_config  # noqa: E402


def _random_episode(env: RLlibEnv, seed: int, rng: np.random.Generator):
    """A random legal episode: (the real moves, per-seat reward sums, closing turns, last step's results)."""
    obs, _ = env.reset(seed=seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    moves, closing, closing_turn = [], 0, False
    seen = set(obs)
    while True:
        assert len(obs) >= 1 and all(env.observation_spaces[a].contains(o) for a, o in obs.items())
        acts = {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()}
        if not closing_turn:
            assert len(acts) == 1
            moves.extend(acts.values())
        obs, rew, term, trunc, info = env.step(acts)
        closing_turn = any(i.get("closing_turn") for i in info.values())
        closing += sum(1 for i in info.values() if i.get("closing_turn"))
        for a, r in rew.items():
            if a not in seen:  # RLlib sets aside a reward that comes with a first observation
                assert r == 0.0
            totals[a] += r
        seen |= set(obs)
        if term["__all__"] or trunc["__all__"]:
            return moves, totals, closing, (obs, term, trunc)


@pytest.mark.parametrize("game", envs.available_games())
def test_every_seat_gets_its_whole_return(game):
    """Each seat's rewards add up to its return in PettingZoo's env replayed with the same moves
    (a zero-sum game's seats to 0), and every seat observes the end, terminated."""
    env = RLlibEnv({"game": game})
    rng = np.random.default_rng(1)
    closings = 0
    for seed in range(25):
        moves, totals, closing, (obs, term, trunc) = _random_episode(env, seed, rng)
        closings += closing
        assert set(obs) == set(env.possible_agents) and all(term[a] for a in env.possible_agents)
        replay = envs.load(game).raw_env()
        replay.reset(seed=seed)
        expected = dict(replay.rewards)
        for m in moves:
            replay.step(m)
            for a, r in replay.rewards.items():
                expected[a] += r
        assert all(replay.terminations.values())
        assert totals == pytest.approx(expected)
        if envs.spec(game).zero_sum:
            assert sum(totals.values()) == pytest.approx(0.0)
    if game == "simple_poker":  # a fold before the second seat's turn: that seat gets a closing turn
        assert closings > 0


def test_closing_turn_allows_only_action_zero_and_ignores_it():
    env = RLlibEnv({"game": "simple_poker", "options": {"n": 3}})
    for seed in range(50):
        obs, _ = env.reset(seed=seed)
        first = next(iter(obs))
        fold = int(np.flatnonzero(obs[first]["action_mask"])[0])
        obs, rew, term, _, info = env.step({first: fold})
        if info and next(iter(info.values())).get("closing_turn"):
            (seat,) = obs
            assert seat != first and obs[seat]["action_mask"].tolist() == [1.0] + [0.0] * (len(obs[seat]["action_mask"]) - 1)
            assert rew == {seat: 0.0} and not term["__all__"]
            obs, rew, term, _, _ = env.step({seat: 0})
            assert term["__all__"] and sum(rew.values()) == pytest.approx(0.0) and rew[seat] != 0.0
            return
    pytest.fail("no episode of 50 ended before the second seat acted")


def test_bad_env_config_and_actions():
    with pytest.raises(ValueError, match="env_config needs 'game'"):
        RLlibEnv({"options": {}})
    with pytest.raises(ValueError, match="unknown game"):
        RLlibEnv({"game": "chess"})
    env = RLlibEnv({"game": "primi_composti"})
    obs, _ = env.reset(seed=0)
    other = next(a for a in env.possible_agents if a not in obs)
    with pytest.raises(ValueError, match="is to act; got actions for"):
        env.step({other: 0})


def test_illegal_action_ends_the_game_with_the_penalty():
    """RLlib's env checker sends unmasked random actions: the offender gets -1, the game ends."""
    env = RLlibEnv({"game": "primi_composti"})
    obs, _ = env.reset(seed=0)
    (seat,) = obs
    illegal = int(np.flatnonzero(obs[seat]["action_mask"] == 0)[0])
    obs, rew, term, trunc, info = env.step({seat: illegal})
    if not term["__all__"]:  # the other seat never observed: its closing turn first
        assert all(i["closing_turn"] for i in info.values()) and seat not in obs
        obs, rew, term, trunc, _ = env.step(dict.fromkeys(obs, 0))
    assert term["__all__"] and not trunc["__all__"] and set(obs) == set(env.possible_agents)
    assert rew == {a: (-1.0 if a == seat else 0.0) for a in env.possible_agents}


@pytest.fixture(scope="module")
def local_ray():
    """A local Ray instance with 2 CPUs for the module."""
    if ray.is_initialized():
        ray.shutdown()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


@pytest.mark.parametrize("game", envs.available_games())
def test_one_ppo_iteration_per_game(local_ray, game):
    """One short training iteration of multi-agent PPO with action masking: every seat's policy
    is updated and reports a return; a zero-sum game's mean seat returns sum to 0."""
    # RoboRally races run for hundreds of steps: a 3-turn cap lets episodes finish within one batch.
    max_turns = 3 if game == "roborally" else None
    algo = ppo_config(game, max_turns=max_turns, train_batch_size=200, minibatch_size=100, num_epochs=1, hidden=(32,)).build_algo()
    try:
        result = algo.train()
    finally:
        algo.stop()
    runners = result["env_runners"]
    assert runners["num_episodes"] >= 1
    per_seat = runners["agent_episode_returns_mean"]
    seats = RLlibEnv({"game": game}).possible_agents
    assert set(per_seat) == set(seats)
    assert set(result["learners"]) >= set(seats)
    if envs.spec(game).zero_sum:
        assert sum(per_seat.values()) == pytest.approx(0.0, abs=1e-9)


def test_cli_usage_errors_exit_2(capsys):
    from train.rllib import main

    for argv, msg in ((["simple_poker", "--iterations", "0"], "--iterations and --batch must be >= 1"),
                      (["simple_poker", "--option", "n=1"], "n")):
        with pytest.raises(SystemExit) as e:
            main(argv)
        assert e.value.code == 2 and msg in capsys.readouterr().err
