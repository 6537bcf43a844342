"""Gymnasium's own constructors build the single-agent view: `gymnasium.make` / `gymnasium.make_vec` of
`tabletop/<game>-v0` with opponent ids (resolved by `agents`)."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import agents
import envs
from envs import gymnasium_registry
from envs.core import OpponentEnv

GAMES = envs.available_games()


def _opponents(game, n):
    return [f"{game}/first" if game == "lama" else "random"] * (n - 1)


@pytest.mark.parametrize("game", GAMES)
def test_make_builds_the_opponent_env_with_resolved_ids(game):
    small = {"board": "tiny"} if game == "roborally" else {}
    n = envs.make_game(game, **small).num_players
    env = gymnasium.make(f"tabletop/{game}-v0", opponents=_opponents(game, n), max_turns=300, **small)
    raw = env.unwrapped
    assert isinstance(raw, OpponentEnv) and len(raw.opponents) == n - 1
    assert all(not isinstance(o, str) for o in raw.opponents)
    if game == "lama":
        assert type(raw.opponents[0]).__name__ == type(
            agents.make("lama/first", raw.game, np.random.default_rng(0))).__name__

    def episode(seed):
        obs, info = env.reset(seed=seed)
        trace = []
        for _ in range(300):
            assert env.observation_space.contains(obs) and info["action_mask"].dtype == np.int8
            action = env.action_space.sample(mask=info["action_mask"])
            assert env.get_wrapper_attr("action_masks")()[action]  # sampled under the mask: legal
            obs, reward, term, trunc, info = env.step(action)
            assert "illegal_action" not in info
            trace.append((int(action), reward))
            if term or trunc:
                break
        return trace

    env.action_space.seed(1)
    first = episode(3)
    env.action_space.seed(1)
    assert episode(3) == first  # same seed, same episode, opponents included


def test_make_passes_game_options_and_checks_them():
    env = gymnasium.make("tabletop/lama-v0", opponents=["lama/first"] * 2, num_players=3)
    assert env.unwrapped.game.num_players == 3
    with pytest.raises(ValueError, match="allowed options"):
        gymnasium.make("tabletop/lama-v0", opponents=["lama/first"] * 3, no_such_option=1)
    with pytest.raises(ValueError, match="needs 3 opponents"):
        gymnasium.make("tabletop/lama-v0", opponents=["lama/first"])
    with pytest.raises(ValueError, match="list of agent ids"):
        gymnasium.make("tabletop/lama-v0", opponents="lama/first")


def test_agent_objects_need_no_resolver_and_ids_say_import_agents(monkeypatch):
    game = envs.make_game("simple_poker")
    env = gymnasium.make("tabletop/simple_poker-v0",
                         opponents=[agents.make("simple_poker/nash", game, np.random.default_rng(0))])
    env.reset(seed=0)
    monkeypatch.setattr(gymnasium_registry, "_resolver", None)
    with pytest.raises(ValueError, match="import agents"):
        gymnasium.make("tabletop/simple_poker-v0", opponents=["simple_poker/nash"])


def test_make_vec_batches_int8_masks_and_plays_legal_moves():
    vec = gymnasium.make_vec("tabletop/lama-v0", num_envs=3, opponents=["lama/first"] * 3)
    assert vec.num_envs == 3
    obs, info = vec.reset(seed=0)
    assert obs.shape == (3, 46) and info["action_mask"].dtype == np.int8 and info["action_mask"].shape == (3, 9)
    rng = np.random.default_rng(0)
    ends = 0
    for _ in range(200):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in info["action_mask"]])
        obs, rewards, term, trunc, info = vec.step(actions)
        assert "illegal_action" not in info
        ends += int(term.sum() + trunc.sum())
    assert ends > 0  # whole episodes ended (and were reset) under the masks
    sync = gymnasium.make_vec("tabletop/lama-v0", num_envs=2, vectorization_mode="sync", opponents=["lama/first"] * 3)
    assert sync.reset(seed=0)[0].shape == (2, 46)


def test_make_vec_takes_the_compiled_env_where_every_opponent_has_a_kernel():
    import gymnasium

    import agents  # noqa: F401  (resolves the ids)

    fast = gymnasium.make_vec("tabletop/lama-v0", num_envs=4, opponents=["lama/first"] * 3, seed=0)
    assert fast.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP
    obs, info = fast.reset(seed=0)
    assert obs.shape[0] == 4 and info["action_mask"].dtype == np.int8
    slow = gymnasium.make_vec("tabletop/lama-v0", num_envs=2, opponents=["lama/first"] * 3, compiled=False)
    assert isinstance(slow, gymnasium.vector.SyncVectorEnv)
    fallback = gymnasium.make_vec("tabletop/lama-v0", num_envs=2, opponents=["lama/learned"] * 3)
    assert isinstance(fallback, gymnasium.vector.SyncVectorEnv)  # a network opponent: no compiled kernel
    with pytest.raises(ValueError, match="has no compiled kernel"):
        gymnasium.make_vec("tabletop/lama-v0", num_envs=2, opponents=["lama/learned"] * 3, compiled=True)
    with pytest.raises(ValueError, match="no compiled vector env"):  # a setting the compiled env does not take
        gymnasium.make_vec("tabletop/the_game-v0", num_envs=2, opponents=["the_game/bestplays"], compiled=True,
                           render_mode="ansi")
    tg = gymnasium.make_vec("tabletop/the_game-v0", num_envs=2, opponents=["the_game/bestplays"], compiled=True)
    assert tg.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP


@pytest.mark.parametrize("game", GAMES)
def test_make_without_arguments_seats_the_default_line_up(game):
    lineup = agents.default_lineup(game)
    env = gymnasium.make(f"tabletop/{game}-v0")
    raw = env.unwrapped
    n = raw.game.num_players
    assert envs.Variant.of(raw.game).options == {} and raw.game.config == envs.make_game(game).config  # default
    assert env.spec.kwargs == {"opponents": gymnasium_registry.DEFAULT}
    assert env.metadata["default_line_up"] and env.metadata["opponents"] == (lineup[0],) * (n - 1)
    built = agents.make(lineup[0], raw.game, np.random.default_rng(0))
    assert [type(o) for o in raw.opponents] == [type(built)] * (n - 1)
    _, info = env.reset(seed=0)
    for _ in range(20):
        _, _, term, trunc, info = env.step(env.action_space.sample(mask=info["action_mask"]))
        assert "illegal_action" not in info
        if term or trunc:
            _, info = env.reset()
    # the compiled vector env, where every default opponent has a kernel (all five games)
    vec = gymnasium.make_vec(f"tabletop/{game}-v0", num_envs=2)
    assert vec.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP
    assert vec.metadata["opponents"] == env.metadata["opponents"] and vec.metadata["default_line_up"]
    obs, info = vec.reset(seed=0)
    assert obs.shape == (2, *env.observation_space.shape) and info["action_mask"].shape == (2, env.action_space.n)


def test_documented_options_pass_through_the_default_line_up():
    env = gymnasium.make("tabletop/lama-v0", num_players=3, max_turns=50)
    assert env.unwrapped.game.num_players == 3 and env.unwrapped.max_turns == 50
    assert env.metadata["opponents"] == ("lama/first",) * 2
    mine = gymnasium.make("tabletop/lama-v0", opponents=["random"] * 3)
    assert mine.metadata["opponents"] == ("random",) * 3 and not mine.metadata["default_line_up"]
    vec = gymnasium.make_vec("tabletop/lama-v0", num_envs=2, num_players=2, seed=1)
    assert vec.metadata["opponents"] == ("lama/first",) and vec.reset(seed=0)[1]["seat"].shape == (2,)
    sync = gymnasium.make_vec("tabletop/lama-v0", num_envs=2, compiled=False, num_players=3)
    assert isinstance(sync, gymnasium.vector.SyncVectorEnv) and sync.metadata["opponents"] == ("lama/first",) * 2
    solo = gymnasium.make("tabletop/the_game-v0", control="all_seats")
    assert solo.metadata["opponents"] == () and not solo.metadata["default_line_up"]
    with pytest.raises(ValueError, match=r"list of agent ids or agents, or 'default'"):
        gymnasium.make("tabletop/lama-v0", opponents="first")


@pytest.mark.slow
def test_make_without_arguments_imports_agents_through_gymnasium():
    """`envs` never imports `agents`: Gymnasium's `module:id` form imports it, and without it the default line-up
    says what to do in one error."""
    import subprocess
    import sys

    code = ("import sys, gymnasium; env = gymnasium.make('agents:tabletop/simple_poker-v0'); env.reset(seed=0); "
            "print(type(env.unwrapped.opponents[0]).__module__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().startswith("agents.simple_poker")
    code = ("import sys, gymnasium, envs; assert 'agents' not in sys.modules\n"
            "try:\n    gymnasium.make('tabletop/simple_poker-v0')\nexcept ValueError as e:\n    print(e)\n"
            "assert 'agents' not in sys.modules")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "needs `import agents`" in out.stdout and "agents:tabletop/<game>-v0" in out.stdout


def test_make_vec_max_episode_steps_is_the_move_limit():
    """Gymnasium's `max_episode_steps` is the vector env's `max_turns`: the compiled env where it takes one (a
    truncation within the limit), the single-agent envs where it does not (simple poker's compiled env has none)."""
    vec = gymnasium.make_vec("tabletop/lama-v0", num_envs=4, max_episode_steps=6, seed=0)
    assert vec.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP
    _, info = vec.reset(seed=0)
    rng = np.random.default_rng(0)
    truncated = 0
    for _ in range(12):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in info["action_mask"]])
        _, _, term, trunc, info = vec.step(actions)
        truncated += int(trunc.sum())
    assert truncated > 0  # no L.A.M.A. game ends within 6 moves: every table is cut
    same = gymnasium.make_vec("tabletop/lama-v0", num_envs=2, max_episode_steps=6, compiled=False)
    assert isinstance(same, gymnasium.vector.SyncVectorEnv) and same.envs[0].unwrapped.max_turns == 6
    poker = gymnasium.make_vec("tabletop/simple_poker-v0", num_envs=2, max_episode_steps=1)
    assert isinstance(poker, gymnasium.vector.SyncVectorEnv) and poker.envs[0].unwrapped.max_turns == 1
    with pytest.raises(ValueError, match="disagree"):
        gymnasium.make_vec("tabletop/lama-v0", num_envs=2, max_episode_steps=6, max_turns=7)
