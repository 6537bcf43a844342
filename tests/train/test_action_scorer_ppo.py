"""PPO over an action scorer on a batched env: RoboRally's observations decode to the views they came from, the
features from an observation equal those from the view, `FeatureVectorEnv` gives them per table, and the one-file
learner trains, saves and reloads a scorer as the `action_scorer` student that `learned:` plays."""

from __future__ import annotations

import numpy as np
import pytest

import agents
import envs
from agents.roborally.features import RoboRallyFeatures
from envs.core.game import legal_mask
from envs.roborally.encoding import RoboRallyEncoder

torch = pytest.importorskip("torch")

RACE = {"board": "race_easy", "num_robots": 2, "rules": "seed", "action_mode": "register", "max_turns": 40}


def _views(game, games: int, seed: int):
    """(view, mask) of every decision of random-play games."""
    rng = np.random.default_rng(seed)
    for _ in range(games):
        s = game.initial_state(rng)
        while not game.is_terminal(s):
            view, mask = game.view(s, game.current_player(s)), legal_mask(game, s)
            yield view, mask
            s = game.apply(s, int(rng.choice(np.flatnonzero(mask))))


def _train(argv):
    """`python -m train ARGV` with the one-file learner and no evaluation games: its exit status."""
    from train.__main__ import main

    try:
        return main(["--learner", "cleanrl", "--eval-games", "0", "--final-eval-games", "0", "--no-progress", *argv])
    except SystemExit as e:
        return e.code


@pytest.mark.parametrize("options", [RACE, {"board": "race_medium", "num_robots": 4, "rules": "classic",
                                             "action_mode": "register", "max_turns": 60}])
def test_observations_decode_to_their_views_and_give_the_same_features(options):
    game = envs.make_game("roborally", **options)
    enc, feats = RoboRallyEncoder(game), RoboRallyFeatures(game)
    seen = damaged = 0
    for view, mask in _views(game, 6, seed=4):
        obs = enc.encode(view)
        back = enc.decode(obs)
        np.testing.assert_array_equal(enc.encode(back), obs)  # the decoded view encodes to the same observation
        assert back.hand == view.hand and back.used == view.used and back.turn == view.turn
        ctx, per = feats(view, mask)
        ctx2, per2 = feats.from_observation(obs, mask)
        np.testing.assert_array_equal(ctx2, ctx)
        np.testing.assert_array_equal(per2, per)
        seen += 1
        damaged += view.robots[view.seat].damage > 0
    assert seen > 200 and (options["rules"] == "seed" or damaged > 0)


def test_decode_refuses_a_wrong_length_and_a_game_without_a_turn_cap():
    game = envs.make_game("roborally", **RACE)
    enc = RoboRallyEncoder(game)
    with pytest.raises(ValueError, match="values, got 7"):
        enc.decode(np.zeros(7, np.float32))
    uncapped = envs.make_game("roborally", **{**RACE, "max_turns": None})
    with pytest.raises(ValueError, match="max_turns"):
        RoboRallyEncoder(uncapped).decode(np.zeros(RoboRallyEncoder(uncapped).layout.size, np.float32))


def test_feature_vector_env_gives_each_tables_features_and_converts_final_observations():
    venv = agents.vector_env("roborally", 8, opponents=["roborally/greedy"], seed=5, **RACE)
    fv = agents.feature_vector_env(venv, "roborally")
    c, f = fv.feature_dims
    assert fv.single_observation_space.shape == (c + venv.single_action_space.n * f,)
    feats = RoboRallyFeatures(venv.game)
    obs, info = fv.reset()
    rng = np.random.default_rng(0)
    finals = 0
    for _ in range(80):
        masks = fv.action_masks()
        raw = venv.observe(np.arange(8))
        for i in (0, 5):
            ctx, per = feats.from_observation(raw[i], masks[i])
            np.testing.assert_array_equal(obs[i], np.concatenate([ctx, per.ravel()]))
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, _, term, trunc, info = fv.step(actions)
        assert obs.shape == (8, fv.single_observation_space.shape[0])
        for i in np.flatnonzero(info.get("_final_obs", np.zeros(8, bool))):
            assert np.asarray(info["final_obs"][i]).shape == obs[i].shape
            finals += 1
    assert finals > 0
    with pytest.raises(ValueError, match="from_observation"):  # Primi's features read views only
        agents.feature_vector_env(
            agents.vector_env("primi_composti", 2, opponents=[], seed=0, control="all_seats"), "primi_composti"
        )


def test_scorer_ppo_trains_saves_as_an_action_scorer_and_reloads(tmp_path):
    from agents.learned import load_student
    from train.cleanrl_ppo import load_policy, save_policy, train
    from train.networks import ScorerPolicy

    venv = agents.feature_vector_env(
        agents.vector_env("roborally", 32, opponents=["roborally/random"], seed=2, copy=False, **RACE), "roborally")
    policy, history = train(venv, total_steps=32 * 16 * 2, n_steps=16, minibatch=256, epochs=2, hidden=(16, 16),
                            seed=0, log=None)
    assert isinstance(policy, ScorerPolicy) and history[-1]["steps"] == 1024
    folder = save_policy(policy, str(tmp_path / "p"), "roborally", {k: v for k, v in RACE.items()})
    game = envs.make_game("roborally", **RACE)
    student = load_student(folder, game)
    assert student.kind == "action_scorer" and student.features == "roborally" and student.play == "sample"
    obs, _ = venv.reset()
    mask = torch.from_numpy(venv.action_masks())
    x = torch.from_numpy(obs)
    c, f = venv.feature_dims
    with torch.no_grad():
        want = torch.softmax(policy.logits(x, mask), -1)
        per = x[:, c:].reshape(len(x), -1, f)
        got = torch.softmax(student.net(x[:, :c], per, mask.float())[0], -1)
        torch.testing.assert_close(got, want)
        back, _ = load_policy(folder, "roborally", RACE)
        torch.testing.assert_close(torch.softmax(back.logits(x, mask), -1), want)
        torch.testing.assert_close(back.value(x), policy.value(x))
    agent = agents.make(f"learned:{folder}?greedy", game, np.random.default_rng(0))
    for view, m in _views(game, 1, seed=9):
        assert m[agent.act(view, m)]


def test_cli_fine_tunes_the_shipped_roborally_student_and_refuses_a_feature_mismatch(tmp_path, capsys):
    import json

    out = tmp_path / "ft"
    with pytest.warns(UserWarning, match="critic starts fresh"):
        assert _train(["roborally", "--init-from", "roborally/learned", "--option", "max_turns=100", "--timesteps",
                       "256", "--n-envs", "16", "--n-steps", "8", "--batch-size", "64", "--critic-warmup", "128",
                       "--out", str(out)]) == 0
    pol = json.loads((out / "policy" / "policy.json").read_text())["architecture"]
    assert pol["kind"] == "action_scorer" and pol["features"] == "roborally"
    capsys.readouterr()
    with pytest.warns(UserWarning):  # another of the game's feature sets than the student's
        assert _train(["roborally", "--init-from", "roborally/learned", "--option", "max_turns=100", "--features",
                       "roborally_program", "--out", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err.strip()
    assert "--features roborally_program differs from" in err.splitlines()[-1]
    assert _train(["roborally", "--init-from", "roborally/learned", "--features", "lama",  # another game's
                   "--out", str(tmp_path / "y")]) == 2
    err = capsys.readouterr().err.strip()
    from agents.learned import feature_sets_of

    sets = feature_sets_of("roborally")  # the game's own feature sets, named in the error
    assert {"roborally", "roborally_program"} <= set(sets)
    assert f"features must be one of {sets} for roborally, got 'lama'" in err


def test_a_roborally_scorer_plays_any_board_and_robot_count_but_not_other_rules():
    from agents.learned import load_student
    from agents.pretrained import checkpoints

    options, notes = agents.resolve_options("roborally", ["roborally/learned", "roborally/greedy"],
                                            {"board": "race_medium", "num_robots": 4})
    assert options == {"board": "race_medium", "num_robots": 4, "rules": "seed"} and len(notes) == 1
    game = envs.make_game("roborally", **options)
    student = load_student(checkpoints()["roborally/learned"], game)
    agent = agents.make("roborally/learned", game, np.random.default_rng(0))
    for view, mask in _views(game, 1, seed=3):
        assert mask[agent.act(view, mask)]
    assert student.kind == "action_scorer"
    with pytest.raises(ValueError, match="rules=seed"):  # the rules still bind it
        agents.resolve_options("roborally", ["roborally/learned"], {"rules": "classic"})
    with pytest.raises(ValueError, match="trained on roborally with options"):
        load_student(checkpoints()["roborally/learned"], envs.make_game("roborally", rules="classic"))


def test_multi_vector_env_steps_several_boards_as_one_and_refuses_other_spaces():
    a = agents.feature_vector_env(agents.vector_env("roborally", 3, opponents=["roborally/greedy"], seed=1, **RACE),
                                  "roborally")
    b = agents.feature_vector_env(agents.vector_env("roborally", 2, opponents=["roborally/greedy"] * 3, seed=2,
                                                    **{**RACE, "board": "race_medium", "num_robots": 4}), "roborally")
    multi = agents.MultiVectorEnv([a, b])
    obs, info = multi.reset()
    assert multi.num_envs == 5 and obs.shape == (5, a.single_observation_space.shape[0])
    assert info["seat"].shape == (5,)
    rng = np.random.default_rng(3)
    ends = 0
    for _ in range(150):
        masks = multi.action_masks()
        np.testing.assert_array_equal(masks, np.concatenate([a.action_masks(), b.action_masks()]))
        obs, reward, term, trunc, info = multi.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        assert obs.shape[0] == reward.shape[0] == 5
        if "_tabletop_episode" in info:
            assert info["tabletop_episode"]["r"].shape == (5,) and info["final_obs"].shape == (5,)
            for i in np.flatnonzero(info["_final_obs"]):
                assert info["final_obs"][i].shape == obs[i].shape
            ends += int(info["_tabletop_episode"].sum())
    assert ends > 0
    raw = agents.vector_env("roborally", 2, opponents=["roborally/greedy"], seed=1, **RACE)
    with pytest.raises(ValueError, match="share their spaces"):
        agents.MultiVectorEnv([a, raw])


def test_cli_also_trains_one_policy_over_several_variants(tmp_path):
    import json

    out = tmp_path / "multi"
    assert _train(["roborally", "--features", "roborally", "--timesteps", "512", "--n-envs", "8", "--n-steps", "16",
                   "--batch-size", "128", "--also", "board=race_medium num_robots=4", "--also",
                   "board=race_hard;max_turns=50", "--out", str(out)]) == 0
    run = json.loads((out / "config.json").read_text())
    assert run["also"] == ["board=race_medium num_robots=4", "board=race_hard;max_turns=50"] and run["steps"] == 768


def test_cli_also_refuses_an_unknown_option_and_observations_of_other_sizes_in_one_line(tmp_path, capsys):
    for argv, words in ((["--features", "roborally", "--also", "boards=race_hard"], ("boards",)),
                        (["--also", "board=race_hard"], ("share their spaces",))):  # flat observations differ
        assert _train(["roborally", *argv, "--timesteps", "64", "--n-envs", "4", "--out", str(tmp_path / "x")]) == 2
        err = capsys.readouterr().err.strip()
        assert all(w in err.splitlines()[-1] for w in words), err


def test_an_action_scorer_plays_as_a_batch_policy_as_its_agent_plays_and_on_another_board():
    game = envs.make_game("roborally", **{**RACE, "board": "race_medium", "max_turns": 100})
    enc = RoboRallyEncoder(game)
    from agents.vector import batch_policy

    bp = batch_policy("roborally/learned", play="greedy", game=game)
    agent = agents.make("roborally/learned", game, np.random.default_rng(0))
    rng = np.random.default_rng(1)
    seen = 0
    for view, mask in _views(game, 2, seed=6):
        got = bp.fn(enc.encode(view)[None], (np.asarray(mask) > 0)[None], np.array([0]), rng)
        assert int(got[0]) == agent.act(view, mask)
        seen += 1
    assert seen > 50
    venv = agents.vector_env("roborally", 4, opponents=[bp], seed=3, **{**RACE, "board": "race_medium"})
    venv.reset()
    for _ in range(40):  # the scorer drives the opponent robot of every table
        venv.step(np.array([np.flatnonzero(m)[0] for m in venv.action_masks()]))


def test_a_league_seats_the_target_half_the_time_and_snapshots_that_play_in_every_opponent_seat():
    from envs.core.vector import BATCH_CODE, BatchPolicy
    from train.networks import ScorerPolicy
    from train.pool import League

    groups = []
    for opts in (RACE, {**RACE, "num_robots": 4}):
        venv = agents.feature_vector_env(agents.vector_env("roborally", 8, opponents=["roborally/greedy"] * (
            opts["num_robots"] - 1), seed=5, **opts), "roborally")
        groups.append((venv, opts))
    league = League("roborally", groups, lambda n: ["roborally/greedy"] * (n - 1), ["random"], size=2)
    for venv, _ in groups:  # before any snapshot: the target and the baseline, half each
        assert len(venv._line_ups.line_ups) == 2
        np.testing.assert_allclose(np.diff(venv._line_ups.cum, prepend=0.0), [0.5, 0.5])
    c, f = groups[0][0].feature_dims
    policy = ScorerPolicy(c, f, groups[0][0].single_action_space.n, [16], torch.Generator().manual_seed(0))
    policy.features = "roborally"
    for _ in range(3):
        league.add(policy, {"rules": "seed"})
    assert league.added == 3 and len(league.snapshots) == 2  # the oldest dropped
    for i, (venv, opts) in enumerate(groups):
        ups = venv._line_ups.line_ups
        # target, random, snapshot 2, snapshot 3; the target half, the three members a sixth each
        np.testing.assert_allclose(np.diff(venv._line_ups.cum, prepend=0.0), [0.5] + [1 / 6] * 3)
        assert [type(m) for m in ups[2]] == [BatchPolicy] * (opts["num_robots"] - 1)
        assert [u[0].name for u in ups[2:]] == ["snapshot 2", "snapshot 3"] and ups[2][0] is league.snapshots[0][i]
        venv.reset()
        seated = set()
        for _ in range(200):
            venv.step(np.array([np.flatnonzero(m)[0] for m in venv.action_masks()]))
            seated |= set(np.unique(venv._seated_codes()).tolist())
            if min(seated) <= BATCH_CODE:
                venv.step(np.array([np.flatnonzero(m)[0] for m in venv.action_masks()]))  # the snapshot plays
                break
        assert min(seated) <= BATCH_CODE  # some table drew a snapshot, which then played its robots
    fixed = League("roborally", groups[:1], lambda n: ["roborally/greedy"] * (n - 1), ["random"], size=0)
    fixed.add(policy, {"rules": "seed"})  # size 0: no snapshot joins; a fixed mix, half target, half random
    assert fixed.added == 0 and fixed.snapshots == []
    np.testing.assert_allclose(np.diff(groups[0][0]._line_ups.cum, prepend=0.0), [0.5, 0.5])


def test_cli_league_runs_over_variants_and_refuses_misuse_in_one_line(tmp_path, capsys):
    import json

    out = tmp_path / "league"
    assert _train(["roborally", "--features", "roborally", "--timesteps", "768", "--n-envs", "8", "--n-steps", "16",
                   "--batch-size", "128", "--also", "num_robots=4", "--league-every", "256", "--baselines", "random",
                   "--league-size", "2", "--out", str(out)]) == 0
    run = json.loads((out / "config.json").read_text())
    assert run["provenance"]["league"] == {"every": 256, "baselines": ["random"], "size": 2}
    for argv, words in ((["roborally", "--league-every", "64", "--baselines", "lama/first"], ("lama/first",)),
                        (["the_game", "--option", "num_players=1", "--league-every", "64"], ("opponent seats",))):
        assert _train([*argv, "--timesteps", "64", "--n-envs", "4", "--out", str(tmp_path / "x")]) == 2
        err = capsys.readouterr().err.strip()
        assert all(w in err.splitlines()[-1] for w in words), err
