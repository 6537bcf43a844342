"""Saved policies on the compiled engines: a tournament or paired run seats a learned entrant as a batch policy on
the game's compiled loop (`agents.vector.play_paused`), with the same deals and seats as the Python engine. A greedy
policy plays the same games on both engines; a sampled one draws from streams of the deal's own spawn keys, another
sample of the same distribution."""

from __future__ import annotations

import numpy as np
import pytest

from evaluate.stats import mean_interval
from evaluate.tournament import run_tournament


def _same_paired(case):
    """`run_paired` of `case` on the compiled engine (auto) gives the Python engine's figures."""
    from evaluate.paired import run_paired

    py = run_paired(**case, engine="python").to_dict()
    result = run_paired(**case)
    assert result.engine == "compiled"
    cc = result.to_dict()
    assert (py.pop("engine"), cc.pop("engine")) == ("python", "compiled")
    assert cc == py


def _both(**case):
    py = run_tournament(**case, progress=False, engine="python").to_dict()
    cc = run_tournament(**case, progress=False, engine="compiled").to_dict()
    assert (py.pop("engine"), cc.pop("engine")) == ("python", "compiled")
    return py, cc


@pytest.mark.parametrize("case", [
    dict(agent_ids=["lama/ppo", "lama/first", "lama/first", "lama/first"], games=120, seed=3),
    # two networks and two strategies, a move limit inside some games
    dict(agent_ids=["lama/learned", "lama/third-retuned", "lama/ppo", "lama/second"], games=80, seed=5, max_turns=150),
    dict(agent_ids=["lama/ppo-seed2022", "lama/third-retuned", "lama/first", "lama/first"], games=40, seed=1,
         options={"rules": "seed2022"}, seating="fixed"),
], ids=["ppo+first*3", "two-networks-cut", "seed2022-fixed"])
def test_a_greedy_network_plays_the_python_games_on_the_compiled_engine(case):
    py, cc = _both(game_name="lama", **case)
    assert cc == py  # every figure, game for game
    if "max_turns" in case:
        assert 0 < py["at_move_limit"] < case["games"]


def test_auto_seats_a_network_on_the_compiled_engine():
    assert run_tournament("lama", ["lama/ppo", "lama/first", "lama/first", "lama/first"], games=8,
                          progress=False).engine == "compiled"
    assert run_tournament("lama", ["lama/ppo", "random", "lama/first", "lama/first"], games=8,
                          progress=False).engine == "python"  # a random entrant still plays in Python


def test_paired_greedy_network_gives_the_python_figures():
    case = dict(game_name="lama", a_id="lama/ppo", b_id="lama/first", against="lama/first", games=12, seed=2)
    _same_paired(case)


def _deal_means(result, entrant: int) -> np.ndarray:
    """Per deal: the entrant's score averaged over the deal's rotations (from the records' winners)."""
    wins = np.zeros(result.deals)
    for rec in result.records:
        wins[rec.deal] += entrant in rec.winners
    return wins / (result.games / result.deals)


def test_a_sampled_network_draws_the_same_distribution_on_both_engines():
    """`lama/ppo-sb3` samples its moves. Paired by deal, the win shares on the two engines differ by an amount whose
    99.9% interval holds 0; and the sample is a sample: the compiled games are not the greedy policy's."""
    ids = ["lama/ppo-sb3", "lama/first", "lama/first", "lama/first"]
    case = dict(games=400, seed=7, progress=False, records=True)
    py = run_tournament("lama", ids, engine="python", **case)
    cc = run_tournament("lama", ids, engine="compiled", **case)
    assert cc.engine == "compiled" and py.engine == "python"
    diff = _deal_means(cc, 0) - _deal_means(py, 0)
    mean, lo, hi = mean_interval(diff)
    half = (hi - lo) / 2 * 3.29 / 1.96
    assert mean - half < 0 < mean + half, (mean, half)
    assert abs(cc.mean_turns - py.mean_turns) < 0.1 * py.mean_turns
    greedy = run_tournament("lama", ["learned:agents/pretrained/lama-ppo-sb3?greedy", *ids[1:]], engine="compiled",
                            **case)
    assert [r.moves for r in greedy.records] != [r.moves for r in cc.records]


def test_a_sampled_deal_replays_alone():
    """Deal 5 of a sampled run, played by itself (`start_deal`), is the same four games as in the whole run."""
    ids = ["lama/ppo-sb3", "lama/first", "lama/first", "lama/first"]
    whole = run_tournament("lama", ids, games=40, seed=4, progress=False, records=True, engine="compiled")
    alone = run_tournament("lama", ids, games=4, seed=4, progress=False, records=True, engine="compiled",
                           start_deal=5)
    assert [r for r in whole.records if r.deal == 5] == alone.records


def test_seat_sampling_draws_the_policy_probabilities():
    """Gumbel-max over `gumbel_noise` of many streams picks each legal action as often as the policy's softmax."""
    import envs
    from agents.learned import LearnedAgent, load_student
    from agents.vector import gumbel_noise, masked_logits, seat_policy

    game = envs.make_game("lama")
    student = load_student("agents/pretrained/lama-ppo-sb3", game)
    policy = seat_policy(LearnedAgent(student, np.random.default_rng(0), sample=True))
    state, rng = game.initial_state(np.random.default_rng(0)), np.random.default_rng(1)
    while True:  # the first decision with a real choice between legal moves
        view, mask = game.view(state, game.current_player(state)), np.asarray(game.legal_mask(state), bool)
        p = student.probs(view, mask.astype(np.int8))
        if (p > 0.1).sum() >= 2:
            break
        state = game.apply(state, int(rng.choice(np.flatnonzero(mask))))
    assert policy.sample
    obs = np.asarray(student.encoder.encode(view), np.float32)[None]
    draws = 40_000
    keys = np.arange(1, draws + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    logits = np.repeat(policy.logits(obs, mask[None]), draws, axis=0)
    picks = (logits + gumbel_noise(keys, np.zeros(draws, np.uint64), logits.shape[1])).argmax(axis=1)
    freq = np.bincount(picks, minlength=len(p)) / draws
    assert np.all(freq[~mask] == 0)
    assert np.all(np.abs(freq - p) < 4 * np.sqrt(p * (1 - p) / draws) + 1e-9), (freq, p)
    assert np.allclose(masked_logits(lambda o, m: student.net(o, m.float())[0], obs, mask[None]),
                       policy.logits(obs, mask[None]))


@pytest.mark.parametrize("case", [
    dict(agent_ids=["the_game/ppo-3p"] * 3, games=60, seed=3, options={"num_players": 3, "actions": "slot"}),
    dict(agent_ids=["the_game/ppo-2p", "the_game/bestplays"], games=40, seed=1,
         options={"num_players": 2, "actions": "slot"}),
    dict(agent_ids=["the_game/ppo"], games=20, seed=2, options={"num_players": 1}),
], ids=["ppo-3p*3", "ppo-2p+bestplays", "solo"])
def test_a_greedy_network_plays_the_python_games_of_the_game(case):
    py, cc = _both(game_name="the_game", **case)
    assert cc == py
    assert py["mean_turns"] > 50  # whole games were played


def test_the_game_paired_self_team_network_gives_the_python_figures():
    case = dict(game_name="the_game", a_id="the_game/ppo-2p", b_id="the_game/bestplays", against="self", games=20,
                seed=4, options={"num_players": 2, "actions": "slot"})
    _same_paired(case)


@pytest.mark.parametrize("case", [
    dict(agent_ids=["the_game/learned-3p"] * 3, games=4, seed=3, options={"num_players": 3}),
    dict(agent_ids=["the_game/learned-2p", "the_game/bestplays"], games=6, seed=1, options={"num_players": 2}),
    dict(agent_ids=["the_game/learned"], games=6, seed=2, options={"num_players": 1}),
], ids=["learned-3p*3", "learned-2p+bestplays", "solo"])
def test_a_distilled_action_scorer_plays_the_python_games_of_the_game(case):
    """The Game's students (action scorers) seated on the compiled loop, their features from its observations
    (`TheGameFeatures.from_observations`), play the Python engine's games."""
    py, cc = _both(game_name="the_game", **case)
    assert cc == py
    assert py["mean_turns"] > 50


def test_the_game_paired_students_give_the_python_figures():
    case = dict(game_name="the_game", a_id="the_game/learned-2p", b_id="the_game/bestplays", against="self",
                games=4, seed=5, options={"num_players": 2})
    _same_paired(case)


def test_a_sampled_network_of_the_game_replays_a_deal_alone():
    """`?sample` on a greedy network samples it on the compiled engine too, from the deal's own streams."""
    ids = ["learned:agents/pretrained/the_game-ppo-2p?sample"] * 2
    opts = {"num_players": 2, "actions": "slot"}
    whole = run_tournament("the_game", ids, games=20, seed=4, options=opts, progress=False, records=True)
    alone = run_tournament("the_game", ids, games=2, seed=4, options=opts, progress=False, records=True,
                           start_deal=6)
    greedy = run_tournament("the_game", ["the_game/ppo-2p"] * 2, games=20, seed=4, options=opts, progress=False,
                            records=True)
    assert whole.engine == alone.engine == "compiled"
    assert [r for r in whole.records if r.deal == 6] == alone.records
    assert [r.moves for r in greedy.records] != [r.moves for r in whole.records]


def test_a_sampled_network_gives_the_local_json_on_ray():
    """On Ray every task seats the network on its own compiled runner: blocks of deals, the same streams, the local
    JSON (tournament and paired)."""
    import ray

    from evaluate.backends import get_backend
    from evaluate.paired import run_paired

    if ray.is_initialized():
        ray.shutdown()
    backend = get_backend("ray", None, 2)
    try:
        ids = ["lama/ppo-sb3", "lama/first", "lama/first", "lama/first"]
        case = dict(games=160, seed=9, progress=False)
        local = run_tournament("lama", ids, **case).to_dict()
        assert local["engine"] == "compiled"
        assert run_tournament("lama", ids, **case, backend=backend).to_dict() == local
        pair = dict(game_name="lama", a_id="lama/ppo-sb3", b_id="lama/ppo", against="lama/first", games=12, seed=3)
        assert run_paired(**pair, backend=backend).to_dict() == run_paired(**pair).to_dict()
    finally:
        backend.close()


@pytest.mark.parametrize("case", [
    dict(agent_ids=["primi_composti/ppo", "primi_composti/greedy_rand"], games=60, seed=3),
    dict(agent_ids=["primi_composti/minimax?depth=2", "primi_composti/ppo"], games=40, seed=1),
], ids=["ppo+greedy_rand", "minimax+ppo"])
def test_a_greedy_network_plays_the_python_games_of_primi_composti(case):
    py, cc = _both(game_name="primi_composti", options={"observation_hints": True}, **case)
    assert cc == py
    assert 0 < py["agents"][0]["win_rate"] < 1  # both sides win games: the winners are compared


def test_primi_composti_paired_network_gives_the_python_figures():
    case = dict(game_name="primi_composti", a_id="primi_composti/ppo", b_id="primi_composti/greedy_rand",
                against="primi_composti/minimax?depth=2", games=20, seed=4, options={"observation_hints": True})
    _same_paired(case)


@pytest.mark.parametrize("game,ids,options", [
    ("lama", ["lama/ppo", "lama/first", "lama/third-retuned"], {}),
    ("the_game", ["the_game/ppo-2p", "the_game/bestplays"], {"num_players": 2, "actions": "slot"}),
    ("roborally", ["roborally/learned", "roborally/greedy", "roborally/ppo"], {"rules": "seed"}),
], ids=["lama", "the_game-cooperative", "roborally"])
def test_a_league_of_networks_and_strategies_gives_the_python_ratings_on_the_compiled_engine(game, ids, options):
    from evaluate.league import run_league

    case = dict(agent_ids=ids, games=6, seed=2, options=options, bootstrap=20)
    assert run_league(game, **case, engine="compiled").to_dict() == run_league(game, **case, engine="python").to_dict()


def test_an_sb3_model_zip_is_seated_on_the_compiled_engine(tmp_path):
    """`ppo:<model.zip>` (an SB3 MaskablePPO policy, `agents.policy.TorchPolicyAgent`): `?greedy` plays the Python
    games on the compiled engine; sampled it plays there too, another sample."""
    import json

    from sb3_contrib import MaskablePPO

    import agents
    import envs
    from envs.core.single_agent import OpponentEnv

    game = envs.make_game("lama")
    first = [agents.make("lama/first", game, np.random.default_rng(0)) for _ in range(3)]
    env = OpponentEnv(game, envs.make_encoder("lama", game), first)
    MaskablePPO("MlpPolicy", env, seed=0, device="cpu", n_steps=64, policy_kwargs={"net_arch": [16]}).save(
        tmp_path / "model.zip")
    (tmp_path / "config.json").write_text(json.dumps({"game": "lama", "options": {}, "net_arch": [16]}))
    greedy = [f"ppo:{tmp_path}/model.zip?greedy", "lama/first", "lama/first", "lama/first"]
    py, cc = _both(game_name="lama", agent_ids=greedy, games=40, seed=1)
    assert cc == py
    sampled = run_tournament("lama", [f"ppo:{tmp_path}/model.zip", *greedy[1:]], games=40, seed=1, progress=False)
    assert sampled.engine == "compiled" and sampled.mean_turns != py["mean_turns"]


@pytest.mark.parametrize("options", [{"num_players": 3, "actions": "slot"}, {"num_players": 2}], ids=["slot", "card"])
def test_the_game_compiled_action_keys_are_the_encoders(options):
    """`agents.the_game.fast.action_keys_rows` (what a network's action table reads on the compiled engine) gives
    `TheGameEncoder.action_keys` key for key, on observations of whole random games (both action heads)."""
    import envs
    from agents.the_game.fast import action_keys_rows
    from envs.the_game.encoding import TheGameEncoder

    game = envs.make_game("the_game", **options)
    enc, rng, obs = TheGameEncoder(game), np.random.default_rng(0), []
    for g in range(6):
        state = game.initial_state(np.random.default_rng(g))
        while not game.is_terminal(state):
            obs.append(enc.encode(game.view(state, game.current_player(state))))
            state = game.apply(state, int(rng.choice(np.flatnonzero(game.legal_mask(state)))))
    obs = np.array(obs, np.float32)
    want = enc.action_keys(obs)
    got = np.empty(want.shape, np.int16)
    action_keys_rows(obs, enc._gaps, enc._hand, enc.hand_size, bool(enc.slot_head), enc.num_action_keys, got)
    assert len(obs) > 100 and (want != enc.num_action_keys).any() and (want >= 201).any()
    assert np.array_equal(got, want)


@pytest.mark.parametrize("case", [
    dict(agent_ids=["roborally/learned", "roborally/greedy"], games=16, seed=3, options={"rules": "seed"}),
    # two action scorers and the flag seeker, three robots, a turn cap inside some races
    dict(agent_ids=["roborally/greedy", "roborally/ppo", "roborally/learned"], games=9, seed=1,
         options={"rules": "seed", "num_robots": 3, "max_turns": 30}),
], ids=["learned+greedy", "three-robots-capped"])
def test_a_greedy_action_scorer_plays_the_python_races_on_the_compiled_engine(case):
    """RoboRally's students (action scorers over features of the observation) seated on the compiled turn loop
    (`agents.roborally.fast.tournament_games`) play the Python engine's races, race for race."""
    py, cc = _both(game_name="roborally", **case)
    assert cc == py
    assert py["mean_turns"] > 20 and 0 < py["agents"][0]["win_rate"] < 1


@pytest.mark.parametrize("case", [
    dict(agent_ids=["learned:agents/pretrained/roborally-ppo-program?greedy", "roborally/greedy"], games=12, seed=3,
         options={"rules": "seed", "action_mode": "program", "board": "race_medium"}),
    # three robots, two of them program scorers, a turn cap inside some races
    dict(agent_ids=["roborally/greedy", "learned:agents/pretrained/roborally-ppo-program?greedy",
                    "learned:agents/pretrained/roborally-ppo-program?greedy"], games=6, seed=2,
         options={"rules": "seed", "action_mode": "program", "board": "race_hard", "num_robots": 3, "max_turns": 8}),
], ids=["program-scorer+greedy", "three-robots-capped"])
def test_a_program_scorer_plays_the_python_races_on_the_compiled_engine(case):
    """`roborally/ppo-program` (an action scorer over a hand's candidate programs, `action_mode="program"`) seated on
    the compiled turn loop chooses among the candidates `ProgramChoiceEnv` offers: the Python engine's races, race
    for race."""
    py, cc = _both(game_name="roborally", **case)
    assert cc == py
    assert 0 < py["agents"][0]["win_rate"] < 1 or "max_turns" in case["options"]


def test_a_sampled_action_scorer_replays_a_race_alone():
    """`?sample` on RoboRally's student samples on the compiled engine, from the deal's own streams."""
    ids = ["learned:agents/pretrained/roborally?sample", "roborally/greedy"]
    case = dict(seed=4, options={"rules": "seed"}, progress=False, records=True)
    whole = run_tournament("roborally", ids, games=12, **case)
    alone = run_tournament("roborally", ids, games=2, start_deal=3, **case)
    greedy = run_tournament("roborally", ["roborally/learned", "roborally/greedy"], games=12, **case)
    assert whole.engine == alone.engine == greedy.engine == "compiled"
    assert [r for r in whole.records if r.deal == 3] == alone.records
    assert [r.moves for r in greedy.records] != [r.moves for r in whole.records]


def test_roborally_paired_students_give_the_python_figures():
    case = dict(game_name="roborally", a_id="roborally/learned", b_id="roborally/ppo", against="roborally/greedy",
                games=6, seed=4, options={"rules": "seed"})
    _same_paired(case)


def test_roborally_declared_runner_gives_the_local_json_on_ray():
    """RoboRally's declared compiled runner (`agents.roborally.fast.tournament_games`, a game without `deal_key`:
    its tasks get the initial states themselves) gives the local JSON on Ray, tournament and paired."""
    import ray

    from agents.games import part
    from evaluate.backends import get_backend
    from evaluate.paired import run_paired

    assert part("roborally").compiled_games == "agents.roborally.fast:tournament_games"
    if ray.is_initialized():
        ray.shutdown()
    backend = get_backend("ray", None, 2)
    try:
        ids, case = ["roborally/learned", "roborally/greedy"], dict(games=12, seed=6, options={"rules": "seed"})
        local = run_tournament("roborally", ids, **case, progress=False).to_dict()
        assert local["engine"] == "compiled"
        assert run_tournament("roborally", ids, **case, progress=False, backend=backend).to_dict() == local
        pair = dict(game_name="roborally", a_id="roborally/learned", b_id="roborally/ppo", against="roborally/greedy",
                    games=4, seed=2, options={"rules": "seed"})
        assert run_paired(**pair, backend=backend).to_dict() == run_paired(**pair).to_dict()
    finally:
        backend.close()
