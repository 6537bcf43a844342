"""PPO started from a distilled student (`python -m train GAME --init-from STUDENT`): the policy starts out as the
student, the critic warm-up leaves the actor untouched, and a student that cannot start PPO is refused in one line."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import torch

import agents
import envs
from agents.learned import Student, save_student
from envs.core.game import legal_mask
from train.config import TrainConfig
from train.ppo import Run, build_envs, build_learner, build_opponents, init_from_student, train
from train.presets import hooks
from train.seeds import RunSeeds


def _student(tmp_path, hidden=(16, 8)):
    """A masked-policy student of L.A.M.A. (seed rules) with random weights and a non-trivial value head."""
    torch.manual_seed(3)
    st = Student("lama", {"num_players": 4, "rules": "seed2022"}, "masked_policy", list(hidden))
    return save_student(st, str(tmp_path / "student")), st


def _views(game, n: int):
    """`n` decisions of strategy-1 games (every seat)."""
    first = agents.make("lama/first", game, rng=np.random.default_rng(0))
    out, rng = [], np.random.default_rng(5)
    while len(out) < n:
        s = game.initial_state(rng)
        while not game.is_terminal(s) and len(out) < n:
            seat = game.current_player(s)
            view, mask = game.view(s, seat), legal_mask(game, s)
            out.append((view, mask))
            s = game.apply(s, first.act(view, mask))
    return out


def _run(cfg):
    game = envs.make_game(cfg.game, **cfg.options)
    run = Run(cfg, game, envs.make_encoder(cfg.game, game), RunSeeds.from_seed(cfg.seed, cfg.n_envs), hooks(cfg.game))
    return run, build_learner(run, build_envs(run, build_opponents(run)))


def test_the_policy_starts_as_the_student(tmp_path):
    folder, st = _student(tmp_path)
    cfg = TrainConfig(game="lama", options={"num_players": 4, "rules": "seed2022"}, opponents=["lama/first"], n_envs=1,
                      net_arch=[16, 8], activation="relu", init_from=folder)
    run, model = _run(cfg)
    for view, mask in _views(run.game, 60):
        obs = torch.as_tensor(run.encoder.encode(view)[None])
        m = torch.as_tensor(mask[None].astype(np.float32))
        with torch.no_grad():
            logits, value = st.net(obs, m)
            dist = model.policy.get_distribution(obs, action_masks=mask[None].astype(bool))
            ppo_value = model.policy.predict_values(obs)
        legal = mask.astype(bool)
        theirs = torch.log_softmax(logits[0, legal], 0)
        assert torch.allclose(dist.distribution.logits[0, legal] - dist.distribution.logits[0, legal].max(),
                              theirs - theirs.max(), atol=1e-5)
        assert torch.allclose(ppo_value[0, 0], value[0], atol=1e-5)


def test_a_student_of_another_shape_is_refused(tmp_path):
    folder, _ = _student(tmp_path)
    cfg = TrainConfig(game="lama", options={"num_players": 4, "rules": "seed2022"}, opponents=["lama/first"], n_envs=1,
                      net_arch=[16, 16], activation="relu")
    run, model = _run(cfg)
    with pytest.raises(ValueError, match=r"hidden layers \[16, 8\]"):
        init_from_student(model.policy, folder, run)
    cfg = TrainConfig(game="lama", options={"num_players": 3, "rules": "seed2022"}, opponents=["lama/first"], n_envs=1,
                      net_arch=[16, 8], activation="relu")
    run, model = _run(cfg)
    with pytest.raises(ValueError, match="observation 46"):
        init_from_student(model.policy, folder, run)


@pytest.mark.slow
def test_the_critic_warmup_leaves_the_actor_as_it_was(tmp_path):
    folder, _ = _student(tmp_path)
    base = dict(game="lama", options={"num_players": 4, "rules": "seed2022"}, opponents=["lama/first"], n_envs=1,
                n_steps=64, batch_size=32, net_arch=[16, 8], activation="relu", init_from=folder, eval_games=0,
                final_eval_games=0, learning_rate=1e-3)
    before = {k: v.clone() for k, v in _run(TrainConfig(**base))[1].policy.state_dict().items()}
    after = train(TrainConfig(**base, timesteps=128, critic_warmup=128, out=str(tmp_path / "warm")), progress=False,
                  verbose=False)
    from agents.policy import _policy_state

    state = _policy_state(str(tmp_path / "warm" / "model.zip"))
    actor = [k for k in state if k.startswith(("mlp_extractor.policy_net", "action_net"))]
    critic = [k for k in state if k.startswith(("mlp_extractor.value_net", "value_net"))]
    assert actor and critic and after["out"]
    assert all(torch.equal(state[k], before[k]) for k in actor)
    assert any(not torch.equal(state[k], before[k]) for k in critic)
    # without the warm-up the actor learns from the first update
    train(TrainConfig(**base, timesteps=128, out=str(tmp_path / "cold")), progress=False, verbose=False)
    state = _policy_state(str(tmp_path / "cold" / "model.zip"))
    assert any(not torch.equal(state[k], before[k]) for k in actor)


@pytest.mark.slow
def test_the_cli_fine_tunes_a_shipped_student_and_plays_it_greedily(tmp_path):
    out = tmp_path / "ft"
    proc = subprocess.run(
        [sys.executable, "-m", "train", "lama", "--init-from", "lama/learned-seed2022", "--timesteps", "256",
         "--critic-warmup", "256", "--eval-every", "256", "--eval-games", "4", "--final-eval-games", "0",
         "--out", str(out), "--no-progress"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    import json

    cfg = json.loads((out / "config.json").read_text())
    assert cfg["options"] == {"num_players": 4, "rules": "seed2022"} and cfg["activation"] == "relu"
    # the warm-up kept the actor: greedy play is the student's, decision by decision
    game = envs.make_game("lama", num_players=4, rules="seed2022")
    ppo = agents.make(f"ppo:{out}?greedy", game, np.random.default_rng(0))
    student = agents.make("lama/learned-seed2022", game, np.random.default_rng(0))
    assert all(ppo.act(v, m) == student.act(v, m) for v, m in _views(game, 200))
    with pytest.raises(ValueError, match=r"allowed: \?greedy"):
        agents.make(f"ppo:{out}?fast", game, np.random.default_rng(0))


@pytest.mark.parametrize("argv, message", [
    (["lama", "--init-from", "the_game/learned"], "student of the_game"),
    (["the_game", "--init-from", "the_game/learned", "--learner", "sb3"], "action_scorer student"),
    (["lama", "--init-from", "nowhere"], "no student folder and no shipped student"),
    (["lama", "--critic-warmup", "10"], "--critic-warmup applies with --init-from"),
    (["lama", "--learning-rate", "-1"], "must be a finite number >= 0"),
    (["lama", "--learning-rate", "0"], "learning_rate must be a number > 0"),
    (["lama", "--hidden", "0,3"], "layer sizes must be integers in 1..4096"),
    (["lama", "--init-from", "lama/learned", "--hidden", "32,32"], "differs from the --init-from student's 64,64"),
])
def test_the_cli_refuses_what_cannot_start(argv, message):
    proc = subprocess.run([sys.executable, "-m", "train", *argv, "--timesteps", "10"], capture_output=True, text=True)
    assert proc.returncode == 2 and message in proc.stderr and len(proc.stderr.strip().splitlines()) <= 2, proc.stderr
