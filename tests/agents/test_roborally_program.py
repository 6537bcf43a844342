"""The program scorer's features on the rules engine (`agents.roborally.program`): from a view they give the rows
`ProgramChoiceEnv` gives at the same decision, at the rules engine's actions of the same programs; a saved program
scorer plays `python -m evaluate`'s races, the same under a seed."""

from __future__ import annotations

import numpy as np
import pytest

import agents
from agents.roborally.program import CANDIDATES, JointProgramFeatures, ProgramFeatures, rules_action, split_row
from envs.core.options import make_config
from envs.roborally.rules import Config, RoboRallyGame

OPTS = dict(board="race_easy", num_robots=2, rules="seed", reward="progress", max_turns=12, action_mode="program")


@pytest.mark.parametrize("seat, features, board", [(0, ProgramFeatures, "race_easy"),
                                                   (1, ProgramFeatures, "race_easy"),
                                                   (1, JointProgramFeatures, "race_easy"),
                                                   (0, JointProgramFeatures, "race_hard")])
def test_view_rows_equal_the_env_rows(seat, features, board):
    """Same deals, the same greedy opponent (its kernel in the env, its agent in the rules engine), the learner
    playing the same random candidate in both: at every decision the view's context and candidate rows are the
    env's, each at the rules-engine action of that candidate's program, and the races end alike. The joint
    columns (`roborally_program_joint`) come from the view alone (the other hands unseen) and equal their readable
    twin's (`readable_joint`: the Python flag seeker, the rules engine's turn)."""
    n = 3
    opts = {**OPTS, "board": board}
    env = features().make_vector_env("roborally", n, opponents=["roborally/greedy"], seed=5,
                                     control="one_seat", seat=seat, **opts)
    obs, info = env.reset()
    game = RoboRallyGame(make_config(Config, opts))
    bound = features().for_game(game)
    per_dim = env.feature_dims[1]
    rng = np.random.default_rng(0)
    states = [game.deal(int(info["deal_seed"][r])) for r in range(n)]
    greedy = agents.make("roborally/greedy", game, np.random.default_rng(1))
    live_tables, decisions, cut, joint_seen = set(range(n)), 0, False, 0
    while live_tables:
        a = env.action_masks().argmax(axis=1)  # a table whose race is over plays its first candidate
        chosen = {}
        for r in sorted(live_tables):
            while game.current_player(states[r]) != seat:  # the opponent's program (the rules engine's turn)
                p = game.current_player(states[r])
                states[r] = game.apply(states[r], greedy.act(game.view(states[r], p), game.legal_mask(states[r])))
            assert not game.is_terminal(states[r])
            mask, view = game.legal_mask(states[r]), game.view(states[r], seat)
            ctx, per, offered = bound(view, mask)
            env_ctx, env_per = split_row(obs[r], CANDIDATES, per_dim, bound.name)
            np.testing.assert_array_equal(ctx, env_ctx)
            cards, live = env.candidate_cards()[r], np.flatnonzero(env.action_masks()[r])
            actions = [rules_action(view.hand, cards[j]) for j in live]
            assert sorted(actions) == np.flatnonzero(offered).tolist() and all(mask[actions])
            np.testing.assert_array_equal(per[actions], env_per[live])
            if features is JointProgramFeatures:
                joint_seen = np.maximum(joint_seen, _assert_joint_twin(game, view, env, r, live, env_per[live]))
            cut |= bool(env.cut[r])  # K of the hand's programs offered
            k = int(rng.integers(len(live)))
            a[r], chosen[r] = live[k], actions[k]
        obs, _, term, trunc, _ = env.step(a)
        for r, action in chosen.items():
            states[r] = game.apply(states[r], action)
            decisions += 1
            if term[r] or trunc[r]:  # the rules engine's race ends too, the opponent's program played
                while not game.is_terminal(states[r]):
                    assert game.current_player(states[r]) != seat
                    p = game.current_player(states[r])
                    states[r] = game.apply(states[r], greedy.act(game.view(states[r], p),
                                                                 game.legal_mask(states[r])))
                live_tables.discard(r)
    assert decisions > n and cut
    if features is JointProgramFeatures:  # flags, distance, turns, damage, displaced, the rivals' distance and a win
        seen = np.asarray(joint_seen)  # (race_easy) or a robot destroyed (race_hard) at some decision
        assert (seen[[2, 3, 4, 5, 7, 8]] > 0).all() and seen[0 if board == "race_easy" else 6] > 0


def _assert_joint_twin(game, view, env, r, live, rows):
    """The joint columns of table r's candidates `live` (`rows`: their env rows) equal `readable_joint`'s."""
    from agents.roborally.joint import readable_joint
    from envs.roborally.choice import FEATURE_DIM

    if not view.hand:  # no cards (destroyed): one NOOP candidate, no joint turn of its own to run
        assert live.tolist() == [0] and not rows[:, FEATURE_DIM:].any()
        return 0
    cards = env.candidate_cards()[r][live]
    solo = env.venv.program_table()[1][r][env.candidate_actions()[r][live]]
    want = readable_joint(game, view, cards, solo, env.venv._turns, env.joint.worlds)
    np.testing.assert_allclose(rows[:, FEATURE_DIM:], want, rtol=1e-5, atol=1e-6)
    return np.abs(want).max(axis=0)


def test_a_tiny_runs_policy_plays_paired_races_the_same_under_a_seed(tmp_path, capsys):
    """`python -m train roborally --features roborally_program --option action_mode=program` (a few hundred steps)
    saves a policy that `python -m evaluate roborally --paired learned:RUN/policy,roborally/greedy` plays on the
    rules engine: twice with one seed, the same table; another seed deals other races."""
    from evaluate.__main__ import main
    from train.config import TrainConfig
    from train.vector_ppo import train

    cfg = TrainConfig(game="roborally", options={**OPTS, "board": "race_medium"}, opponents=["roborally/greedy"],
                      features="roborally_program", timesteps=128, n_envs=4, n_steps=16, batch_size=32, n_epochs=1,
                      net_arch=[16], eval_games=0, final_eval_games=0, out=str(tmp_path / "run"))
    train(cfg, progress=False, verbose=False)
    capsys.readouterr()
    policy = tmp_path / "run" / "policy"
    tables = []
    for seed in (7, 7, 8):
        args = ["roborally", "--paired", f"learned:{policy},roborally/greedy", "--against", "roborally/greedy",
                "--games", "3", "--seed", str(seed), "--option", "board=race_easy", "--no-progress"]
        assert main(args) == 0
        tables.append(capsys.readouterr().out)
    assert "learned:" in tables[0] and tables[0] == tables[1] and tables[0] != tables[2]


def test_refusals():
    with pytest.raises(ValueError, match="action_mode=program"):
        ProgramFeatures().make_vector_env("roborally", 2, opponents=["roborally/greedy"], seed=0,
                                          control="one_seat", **{**OPTS, "action_mode": "register"})
    with pytest.raises(ValueError, match="action_mode='program'"):
        ProgramFeatures().for_game(RoboRallyGame(make_config(Config, {**OPTS, "action_mode": "register"})))
    with pytest.raises(ValueError, match="bind them first"):
        ProgramFeatures()(None, np.ones(3))
    with pytest.raises(ValueError, match="values, got 5"):
        ProgramFeatures().from_observation(np.zeros(5), np.ones(CANDIDATES))


def test_a_joint_scorer_beside_a_solo_one_plays_the_python_races_on_the_compiled_engine(tmp_path):
    """A `roborally_program_joint` scorer (a tiny run's, argmax) and the shipped `roborally/ppo-program` (solo rows)
    at one table with the flag seeker: the compiled runner (joint rows for one, their solo columns for the other)
    plays the Python engine's races (each scorer's rows from its view), race for race."""
    from evaluate.tournament import run_tournament
    from train.config import TrainConfig
    from train.vector_ppo import train

    cfg = TrainConfig(game="roborally", options={**OPTS, "board": "race_medium"}, opponents=["roborally/greedy"],
                      features="roborally_program_joint", timesteps=128, n_envs=4, n_steps=16, batch_size=32,
                      n_epochs=1, net_arch=[16], eval_games=0, final_eval_games=0, out=str(tmp_path / "run"))
    train(cfg, progress=False, verbose=False)
    ids = [f"learned:{tmp_path / 'run' / 'policy'}?greedy", "learned:agents/pretrained/roborally-ppo-program?greedy",
           "roborally/greedy"]
    case = dict(games=3, seed=2, options={"rules": "seed", "action_mode": "program", "board": "race_easy",
                                          "num_robots": 3}, progress=False)
    py = run_tournament("roborally", ids, engine="python", **case).to_dict()
    cc = run_tournament("roborally", ids, engine="compiled", **case).to_dict()
    assert (py.pop("engine"), cc.pop("engine")) == ("python", "compiled")
    assert cc == py and py["mean_turns"] > 2
