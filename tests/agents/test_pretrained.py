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
                     "primi_composti/learned", "lama/ppo", "lama/ppo-seed2022", "lama/ppo-sb3", "lama/ppo-sb3-seed2022"):
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
