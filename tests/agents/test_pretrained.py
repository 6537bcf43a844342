"""Every shipped checkpoint (agents/pretrained) loads by its agent id and plays whole games of its configuration."""

from __future__ import annotations

import numpy as np
import pytest

import agents
import envs
from agents.pretrained import HERE, _metas, checkpoints
from envs.core.play import play_out

pytest.importorskip("torch")

SHIPPED = sorted(checkpoints().items())


def test_the_shipped_checkpoints_are_listed():
    ids = [agent_id for agent_id, _ in SHIPPED]
    for expected in ("the_game/learned", "the_game/learned-4p", "the_game/learned-5p", "lama/learned",
                     "primi_composti/learned", "lama/ppo", "lama/ppo-seed2022", "the_game/ppo", "lama/ppo-sb3",
                     "lama/ppo-sb3-seed2022"):
        assert expected in ids


@pytest.mark.parametrize(("agent_id", "folder"), SHIPPED, ids=[a for a, _ in SHIPPED])
def test_a_shipped_checkpoint_plays_its_game_in_every_seat(agent_id, folder):
    meta = _metas(HERE)[agent_id][1]  # a student's policy.json, or a PPO run's config.json
    game = envs.make_game(meta["game"], **meta["options"])
    assert agent_id in agents.known_ids(meta["game"])
    team = [agents.make(agent_id, game, rng=np.random.default_rng(seat), game_name=meta["game"])
            for seat in range(game.num_players)]
    state, moves = play_out(game, team, game.initial_state(np.random.default_rng(11)), max_turns=20_000)
    assert game.is_terminal(state) and moves > 0
    assert meta["provenance"].get("command")  # every shipped policy says how it was made


def test_a_ppo_policy_is_registered_by_its_agent_id_and_described_as_ppo(tmp_path):
    import json

    from agents.pretrained import _metas, checkpoint_docs

    run = tmp_path / "lama-ppo-seed2022"
    run.mkdir()
    (run / "policy.json").write_text(json.dumps({
        "format": 1, "game": "lama", "options": {"rules": "seed2022"}, "agent_id": "lama/ppo-seed2022",
        "architecture": {"kind": "masked_policy", "hidden": [8], "activation": "tanh", "play": "sample"},
        "provenance": {"method": "ppo", "opponents": ["lama/first"] * 3}}))
    old = tmp_path / "lama-ppo"  # an SB3 run folder alone (model.zip, config.json) is no shipped policy any more
    old.mkdir()
    (old / "config.json").write_text('{"game": "lama"}')
    (old / "model.zip").write_bytes(b"")
    metas = _metas(str(tmp_path))
    assert list(metas) == ["lama/ppo-seed2022"]
    folder, meta = metas["lama/ppo-seed2022"]
    assert folder == str(run) and meta["options"] == {"rules": "seed2022"}
    assert checkpoint_docs(str(tmp_path))["lama/ppo-seed2022"].startswith("PPO from the environment alone")


def test_the_solo_ppo_policy_places_more_cards_than_bestplays_on_unseen_deals():
    """`the_game/ppo` (PPO from the environment alone) against the strongest heuristic, paired on 200 deals of a
    seed used neither to train nor to pick it (held out: +3.06 [+2.27, +3.85] cards on 1,000 deals, sd about 12.7
    per deal, so 200 deals find a gain of 3 with about 95% power)."""
    from evaluate.paired import run_paired

    r = run_paired("the_game", "the_game/ppo", "the_game/bestplays", "self", games=200, seed=994011,
                   options={"num_players": 1})
    assert r.pooled.diff_ci95[0] > 0, r.pooled


def test_a_one_player_ppo_policy_is_described_as_trained_alone(tmp_path):
    import json

    from agents.pretrained import checkpoint_docs

    run = tmp_path / "the_game-ppo"
    run.mkdir()
    (run / "policy.json").write_text(json.dumps({
        "format": 1, "game": "the_game", "options": {"num_players": 1}, "agent_id": "the_game/ppo",
        "provenance": {"method": "train.cleanrl_ppo", "opponents": []}}))
    assert (
        checkpoint_docs(str(tmp_path))["the_game/ppo"] == "PPO from the environment alone, no teacher (trained alone)"
    )


def test_a_ppo_policy_continued_from_a_ppo_policy_stays_from_the_environment_alone(tmp_path):
    """A second PPO stage started from the shipped policy it replaces (`init_from` its own id) is still PPO from
    the environment alone; PPO started from a distilled student, directly or through a PPO stage, is fine-tuned."""
    import json

    from agents.pretrained import checkpoint_docs

    def ship(folder, agent_id, prov):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "policy.json").write_text(json.dumps({
            "format": 1, "game": "the_game", "options": {"num_players": 2}, "agent_id": agent_id, "provenance": prov}))

    ship("a", "the_game/ppo-2p", {"method": "train.cleanrl_ppo", "opponents": [], "init_from": "the_game/ppo-2p"})
    ship("b", "the_game/learned-2p", {"method": "distill", "teacher": "the_game/rollout"})
    ship("c", "the_game/ft-2p", {"method": "train.cleanrl_ppo", "opponents": [], "init_from": "the_game/learned-2p"})
    ship("d", "the_game/ft-2p-more", {"method": "train.cleanrl_ppo", "opponents": [], "init_from": "the_game/ft-2p"})
    docs = checkpoint_docs(str(tmp_path))
    assert docs["the_game/ppo-2p"] == "PPO from the environment alone, no teacher (trained against self-play)"
    assert docs["the_game/ft-2p"] == "a student fine-tuned with PPO (from the_game/learned-2p, against self-play)"
    assert docs["the_game/ft-2p-more"] == "a student fine-tuned with PPO (from the_game/ft-2p, against self-play)"
