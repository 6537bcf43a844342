"""One saved-policy format: a PPO run's actor is written as an `agents.learned` student that acts as the SB3
model does, and every loader (`learned:`, `ppo:`, the shipped ids) reads it."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import agents
import envs
from agents.policy import TorchPolicyAgent
from envs.core.game import legal_mask
from train.config import TrainConfig
from train.ppo import train

pytest.importorskip("sb3_contrib")


@pytest.fixture(scope="module")
def lama_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("saved") / "run"
    cfg = TrainConfig(game="lama", opponents=["lama/first"] * 3, timesteps=512, n_envs=2, n_steps=128, batch_size=128,
                      n_epochs=1, eval_every=512, eval_games=4, final_eval_games=0, out=str(out))
    train(cfg, progress=False, verbose=False)
    return out


def _views(game, n_games: int, seed: int):
    rng = np.random.default_rng(seed)
    for _ in range(n_games):
        s = game.initial_state(rng)
        while not game.is_terminal(s):
            m = legal_mask(game, s)
            yield game.view(s, game.current_player(s)), m
            s = game.apply(s, int(rng.choice(np.flatnonzero(m))))


def test_a_ppo_run_writes_its_actor_in_the_student_format(lama_run):
    from sb3_contrib import MaskablePPO

    meta = json.load(open(lama_run / "policy" / "policy.json"))
    assert meta["architecture"]["activation"] == "tanh" and meta["architecture"]["play"] == "sample"
    assert meta["provenance"]["method"] == "ppo" and meta["provenance"]["opponents"] == ["lama/first"] * 3
    game = envs.make_game("lama")
    model = MaskablePPO.load(str(lama_run / "model.zip"), device="cpu")  # our own file, written by this test
    sb3 = TorchPolicyAgent(model.policy, envs.make_encoder("lama", game), np.random.default_rng(0))
    student = agents.make(f"learned:{lama_run / 'policy'}", game, np.random.default_rng(0))
    diffs = [np.abs(sb3.action_probs(v, m) - student.action_probs(v, m)).max() for v, m in _views(game, 5, 1)]
    assert len(diffs) > 100 and max(diffs) < 1e-5


def test_every_loader_reads_the_one_format(lama_run):
    from agents.learned import LearnedAgent

    game = envs.make_game("lama")
    ppo = agents.make(f"ppo:{lama_run}", game, np.random.default_rng(0))
    greedy = agents.make(f"ppo:{lama_run}?greedy", game, np.random.default_rng(0))
    learned = agents.make(f"learned:{lama_run / 'policy'}", game, np.random.default_rng(0))
    assert isinstance(ppo, LearnedAgent) and ppo.sample and learned.sample and not greedy.sample
    assert not agents.make(f"learned:{lama_run / 'policy'}?greedy", game, np.random.default_rng(0)).sample
    # the shipped PPO policies are students too, sampled as their figures were measured
    shipped = agents.make("lama/ppo-sb3", game, np.random.default_rng(0))
    assert isinstance(shipped, LearnedAgent) and shipped.sample
    assert not os.path.exists(os.path.join(agents.pretrained.checkpoints()["lama/ppo-sb3"], "model.zip"))
    # the one-file learner's policies play their most likely legal action, as their figures were measured
    assert not agents.make("lama/ppo", game, np.random.default_rng(0)).sample


def test_a_bad_activation_in_policy_json_is_refused(lama_run, tmp_path):
    import shutil

    folder = tmp_path / "bad"
    shutil.copytree(lama_run / "policy", folder)
    meta = json.load(open(folder / "policy.json"))
    meta["architecture"]["activation"] = "sigmoid"
    json.dump(meta, open(folder / "policy.json", "w"))
    with pytest.raises(ValueError, match="activation must be one of tanh, relu"):
        agents.make(f"learned:{folder}", envs.make_game("lama"), np.random.default_rng(0))
