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
            assert seat != first and (obs[seat]["action_mask"].tolist()
                                      == [1.0] + [0.0] * (len(obs[seat]["action_mask"]) - 1))
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
    algo = ppo_config(game, max_turns=max_turns, train_batch_size_per_learner=200, minibatch_size=100, num_epochs=1,
                      hidden=(32,)).build_algo()
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

    for argv, msg in ((["simple_poker", "--iterations", "0"], "--iterations, --batch and --num-envs must be >= 1"),
                      (["lama", "--vector", "--num-envs", "0"], "--iterations, --batch and --num-envs must be >= 1"),
                      (["simple_poker", "--option", "n=1"], "n"),
                      (["lama", "--opponents", "lama/first"], "--opponents needs --vector"),
                      (["lama", "--vector", "--opponents", "lama/pimc"], "no compiled kernel")):
        with pytest.raises(SystemExit) as e:
            main(argv)
        assert e.value.code == 2 and msg in capsys.readouterr().err


# --- PPO on the compiled vector env (train.rllib_vector) ----------------------------------------------------------

def _lama_vector(num_envs: int, **config):
    from train.rllib_vector import make_vector_env

    return make_vector_env({"game": "lama", "opponents": "lama/first", "num_envs": num_envs, **config})


def test_masked_vector_env_puts_the_masks_in_the_observation():
    env = _lama_vector(8, options={"reward": "dense"})
    assert env.single_observation_space["action_mask"].shape == (env.single_action_space.n,)
    obs, _ = env.reset(seed=3)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(60):
        assert env.observation_space.contains(obs)
        assert (obs["action_mask"] == env.unwrapped.action_masks()).all() and obs["action_mask"].any(axis=1).all()
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in obs["action_mask"]])
        obs, rew, term, trunc, info = env.step(acts)
        done = term | trunc
        assert set(info) <= {"final_obs", "_final_obs", "tabletop_episode", "_tabletop_episode"}
        if done.any():
            assert (info["_final_obs"] == done).all() and (info["_tabletop_episode"] == done).all()
            for i in np.flatnonzero(done):
                assert env.single_observation_space.contains(info["final_obs"][i])
                assert not info["final_obs"][i]["action_mask"].any()
            ended += int(done.sum())
    assert ended > 0


def test_make_vector_env_refuses_a_bad_config():
    from train.rllib_vector import make_vector_env

    with pytest.raises(ValueError, match="env_config needs 'game'"):
        make_vector_env({"game": "lama", "opponent": ["lama/first"]})
    with pytest.raises(ValueError, match="no compiled kernel"):
        _lama_vector(2, opponents=["lama/pimc"] * 3)


def _vector_algo(game="lama", **kw):
    """A small PPO on `game`'s compiled vector env (L.A.M.A.: dense reward against 3 x lama/first; else the game's
    default line-up); `strict=True`: a masked action raises in the env."""
    from train.rllib_vector import vector_ppo_config

    opponents, options = ("lama/first", {"reward": "dense"}) if game == "lama" else (None, {})
    cfg = vector_ppo_config(game, opponents, options, num_envs=8, strict=True, hidden=(16,),
                            train_batch_size_per_learner=256, minibatch_size=128, num_epochs=1, **kw)
    # A remote env runner's first batch (a new process loading torch and the kernels) took past RLlib's 60 s on a
    # loaded 2-core machine.
    return cfg.env_runners(sample_timeout_s=600).build_algo()


# RoboRally's races take minutes here on a shared machine; it ran once by hand (default line-up, max_turns 200)
@pytest.mark.parametrize("game, max_turns", [("lama", None), ("lama", 40), ("simple_poker", None),
                                             ("the_game", None), ("primi_composti", None)])
def test_vector_ppo_samples_whole_episodes_and_never_a_masked_action(local_ray, game, max_turns):
    """RLlib's env runner on the same-step-autoreset env: every finished episode (ended or, with `max_turns`,
    truncated) has exactly the learner's decisions and return the compiled env counted (none lost at an
    autoreset) and its own last observation, each action allowed by the mask stored with its observation
    (`strict=True`: a masked action would also raise in the env)."""
    algo = _vector_algo(game, max_turns=max_turns)
    try:
        episodes = algo.env_runner.sample(num_episodes=40, explore=True)
    finally:
        algo.stop()
    finished = [e for e in episodes if e.is_done]
    assert len(finished) >= 40
    assert any(e.is_truncated for e in finished) == (max_turns is not None)
    for e in finished:
        stats = e.get_infos(-1)["tabletop_episode"]
        assert len(e) == stats["l"] and e.get_return() == pytest.approx(stats["r"])
        obs, acts = e.get_observations(slice(0, len(e))), e.get_actions()
        assert (obs["action_mask"][np.arange(len(e)), acts] == 1.0).all()
        assert not e.get_observations(-1)["action_mask"].any()  # the real last observation, not the next deal's
    assert any(e.get_return() != 0 for e in finished)


def test_vector_ppo_trains_two_iterations(local_ray):
    """Two PPO iterations on L.A.M.A.'s compiled vector env with one Ray env runner: the batch is sampled,
    the learner updates, the reported return and losses are finite."""
    algo = _vector_algo(num_env_runners=1)
    try:
        results = [algo.train() for _ in range(2)]
    finally:
        algo.stop()
    for r in results:
        assert r["env_runners"]["num_env_steps_sampled"] >= 256
        learner = r["learners"]["default_policy"]
        assert np.isfinite(learner["total_loss"]) and np.isfinite(learner["entropy"])
    assert np.isfinite(results[-1]["env_runners"]["episode_return_mean"])


def test_cli_trains_on_the_vector_env():
    """`python -m train.rllib lama --vector ...` as the docs write it, at a tiny size: an iteration's line, Ray
    started and stopped by the command."""
    import re
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "train.rllib", "lama", "--vector", "--opponents", "lama/first",
                          "--option", "reward=dense", "--num-envs", "8", "--batch", "256", "--iterations", "1",
                          "--num-cpus", "1"], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    (line,) = [x for x in out.stdout.splitlines() if x.startswith("iteration")]
    assert re.fullmatch(r"iteration 1: steps \d+, episodes \d+, mean return [-+][\d.]+, [\d,]+ steps/s", line), line
