"""A self-play pool seated in the vector env (`train.pool.VectorPool`): members, weights, twins, the run's path."""

from __future__ import annotations

import numpy as np
import pytest

import agents
from agents.policy import TorchPolicyAgent, build_policy
from agents.simple_poker.strategies import behaviour_of
from envs.core.vector import BatchPolicy, OpponentKernel
from envs.simple_poker import Config, SimplePokerGame
from envs.simple_poker.encoding import SimplePokerEncoder
from train.pool import OpponentPool, VectorPool
from train.presets.simple_poker import behaviour_kernel, exact_match_value


def _snapshot(game, enc, seed):
    import torch

    torch.manual_seed(seed)
    return TorchPolicyAgent(build_policy(enc, 2, [8]), enc, np.random.default_rng(seed), name=f"snap{seed}")


@pytest.mark.parametrize("twins", [True, False])
def test_the_pool_is_seated_with_its_meta_strategy(twins):
    game = SimplePokerGame(Config(n=4))
    enc = SimplePokerEncoder(game)
    pool = OpponentPool(game, [], pool_size=3, meta_solver="nash",
                        match_value=lambda a, b: exact_match_value(game, a, b))
    venv = agents.vector_env("simple_poker", 64, opponents=["random"], seed=0, n=4)
    vp = VectorPool(pool, venv, [], (lambda a: behaviour_kernel(game, a)) if twins else None)
    pool.live = _snapshot(game, enc, 99)
    vp.attach_live(pool.live.policy)
    vp.sync()
    assert venv.opponents == (vp.live,)  # the live policy until the first snapshot
    venv.reset()
    venv.step(np.zeros(64, np.int64))
    for seed in range(5):
        pool.add(_snapshot(game, enc, seed))
        vp.sync()
        ups = venv._line_ups
        assert len(ups.line_ups) == len(pool.snapshots) == min(seed + 1, 3)
        np.testing.assert_allclose(np.diff(ups.cum, prepend=0.0), pool.weights / pool.weights.sum(), atol=1e-12)
        for (member,), agent in zip(ups.line_ups, pool.snapshots):
            if twins:
                b = behaviour_of(agent, game)
                assert isinstance(member, OpponentKernel) and member.params == tuple(b.bet) + tuple(b.call)
            else:
                assert isinstance(member, BatchPolicy) and member.name == agent.name
        venv.step(np.ones(64, np.int64))
    # dropped snapshots free their batch policies
    assert len(vp._batch) == len(pool.snapshots)


def test_a_many_player_self_play_pool_is_refused_in_one_line(tmp_path, capsys):
    """A self-play pool plays on the compiled vector env in two-player games only: a three-player one is refused
    in one line, exit 2, before the run folder is made; a two-player one runs there and says so."""
    from train.__main__ import main
    from train.config import TrainConfig
    from train.ppo import train

    with pytest.raises(SystemExit) as e:
        main(["lama", "--option", "num_players=3", "--self-play", "--out", str(tmp_path / "r")])
    err = capsys.readouterr().err.strip().splitlines()
    assert e.value.code == 2 and len(err) == 1 and "two-player games; lama seats 3" in err[0], err
    assert not (tmp_path / "r").exists()
    cfg = TrainConfig(game="simple_poker", options={"n": 3}, self_play=True, timesteps=256, n_envs=4, n_steps=32,
                      batch_size=64, eval_games=0, final_eval_games=0, snapshot_every=64, eval_every=128,
                      out=str(tmp_path / "v"))
    train(cfg, progress=False, verbose=False)
    assert "vector env (4 compiled tables): self-play" in capsys.readouterr().out
