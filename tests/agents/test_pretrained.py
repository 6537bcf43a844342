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
                     "primi_composti/learned", "lama/ppo"):
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


def test_a_ppo_run_folder_is_registered_as_game_ppo(tmp_path):
    from agents.pretrained import _metas

    run = tmp_path / "lama-ppo-seed2022"
    run.mkdir()
    (run / "config.json").write_text('{"game": "lama", "options": {"rules": "seed2022"}, "opponents": ["lama/first"]}')
    (run / "model.zip").write_bytes(b"")
    other = tmp_path / "lama-notes"  # a folder with a config but not named <game>-ppo...: not a checkpoint
    other.mkdir()
    (other / "config.json").write_text('{"game": "lama"}')
    (other / "model.zip").write_bytes(b"")
    metas = _metas(str(tmp_path))
    assert list(metas) == ["lama/ppo-seed2022"]
    folder, meta = metas["lama/ppo-seed2022"]
    assert folder == str(run) and meta["options"] == {"rules": "seed2022"} and meta["kind"] == "ppo"
