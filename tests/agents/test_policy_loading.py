"""Trained models are data: `ppo:` rebuilds the policy and reads only tensors."""

from __future__ import annotations

import base64
import io
import json
import pickle
import zipfile

import numpy as np
import pytest

import agents
import envs
from envs.simple_poker import Config, SimplePokerGame

torch = pytest.importorskip("torch")


class Payload:
    """Un-pickling this writes a marker file: what a crafted model file would do."""

    def __init__(self, marker: str):
        self.marker = marker

    def __reduce__(self):
        return (exec, (f"open({self.marker!r}, 'w').write('ran')",))


def save_run(folder, game_name="simple_poker", options=None, net_arch=(32, 16), seed=0):
    """A small MaskablePPO model saved the way `python -m train` saves a run."""
    from sb3_contrib import MaskablePPO

    from envs.core.single_agent import OpponentEnv

    options = {"n": 3} if options is None else options
    game = envs.make_game(game_name, **options)
    env = OpponentEnv(
        game, envs.make_encoder(game_name, game), [agents.make("random", game, np.random.default_rng(0))], seed=seed
    )
    model = MaskablePPO(
        "MlpPolicy",
        env,
        seed=seed,
        device="cpu",
        n_steps=64,
        batch_size=64,
        n_epochs=1,
        policy_kwargs={"net_arch": list(net_arch)},
    )
    model.learn(64)  # weights that differ from a fresh network's
    folder.mkdir(parents=True, exist_ok=True)
    model.save(folder / "model.zip")
    (folder / "config.json").write_text(
        json.dumps({"game": game_name, "options": options, "net_arch": list(net_arch), "play": "last"})
    )
    return folder, game, model


def rewrite_entry(zip_path, name, data: bytes):
    with zipfile.ZipFile(zip_path) as zf:
        entries = {n: zf.read(n) for n in zf.namelist()}
    entries[name] = data
    with zipfile.ZipFile(zip_path, "w") as zf:
        for n, d in entries.items():
            zf.writestr(n, d)


def test_safe_load_matches_sb3_load(tmp_path):
    from sb3_contrib import MaskablePPO

    folder, game, _ = save_run(tmp_path / "run")
    agent = agents.make(f"ppo:{folder}", game, np.random.default_rng(0))
    reference = MaskablePPO.load(folder / "model.zip", device="cpu")  # our own, trusted file
    encoder = envs.make_encoder("simple_poker", game)
    state = game.initial_state(np.random.default_rng(1))
    view, mask = game.view(state, 0), np.ones(game.num_actions, dtype=np.int8)
    with torch.no_grad():
        obs = torch.as_tensor(encoder.encode(view)[None, :])
        want = (
            reference.policy.get_distribution(obs, action_masks=mask[None, :].astype(bool))
            .distribution.probs[0]
            .numpy()
        )
    assert np.allclose(agent.action_probs(view, mask), want, atol=1e-6)
    assert not np.allclose(want, 0.5, atol=1e-4)  # a trained, not a fresh, network


def test_crafted_data_entry_is_never_unpickled(tmp_path):
    from sb3_contrib import MaskablePPO

    folder, game, _ = save_run(tmp_path / "run")
    marker = tmp_path / "marker"
    with zipfile.ZipFile(folder / "model.zip") as zf:
        data = json.loads(zf.read("data"))
    data["policy_class"] = {
        ":type:": "<class 'type'>",
        ":serialized:": base64.b64encode(pickle.dumps(Payload(str(marker)))).decode(),
    }
    rewrite_entry(folder / "model.zip", "data", json.dumps(data).encode())
    agent = agents.make(f"ppo:{folder}", game, np.random.default_rng(0))
    assert agent.act(game.view(game.initial_state(np.random.default_rng(0)), 0), np.ones(2, dtype=np.int8)) in (0, 1)
    assert not marker.exists()
    # The file is a real attack: SB3's own loader runs it.
    try:
        MaskablePPO.load(folder / "model.zip", device="cpu")
    except Exception:
        pass
    assert marker.exists()


def test_crafted_tensor_entries_are_refused(tmp_path):
    folder, game, _ = save_run(tmp_path / "run")
    marker = tmp_path / "marker"
    buf = io.BytesIO()
    torch.save({"action_net.weight": Payload(str(marker))}, buf)
    rewrite_entry(folder / "model.zip", "policy.pth", buf.getvalue())
    with pytest.raises(ValueError, match=r"policy\.pth\) is not a plain tensor file; refused") as err:
        agents.make(f"ppo:{folder}", game, np.random.default_rng(0))
    assert "\n" not in str(err.value)
    assert not marker.exists()
    # the same for a self-play run's snapshots
    folder, game, _ = save_run(tmp_path / "selfplay")
    cfg = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**cfg, "play": "average", "mixture_weights": [1.0]}))
    torch.save([Payload(str(marker))], folder / "snapshots.pt")
    with pytest.raises(ValueError, match=r"snapshots\.pt' is not a plain tensor file; refused"):
        agents.make(f"ppo:{folder}", game, np.random.default_rng(0))
    assert not marker.exists()


def test_self_play_snapshots_load_as_a_mixture(tmp_path):
    from agents.policy import MixtureAgent

    folder, game, model = save_run(tmp_path / "run")
    torch.save([model.policy.state_dict(), model.policy.state_dict()], folder / "snapshots.pt")
    cfg = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**cfg, "play": "average", "mixture_weights": [0.5, 0.5]}))
    agent = agents.make(f"ppo:{folder}", game, np.random.default_rng(0))
    assert isinstance(agent, MixtureAgent) and len(agent.members) == 2


@pytest.mark.parametrize(
    "damage, message",
    [
        ("truncate", "not a readable model zip"),
        ("config_list", "is not a JSON object"),
        ("config_garbage", "is not readable JSON"),
        ("no_game", "no config.json beside it naming its game"),
        ("other_shape", r"trained on simple_poker with options \{'n': 3\}.*this game has observation"),
        ("other_game", "trained on simple_poker.*does not play this game"),
        ("snapshots_garbage", r"snapshots\.pt' is not a plain tensor file"),
        ("snapshots_other_net", r"snapshots\.pt' does not fit the run's policy network"),
        ("net_arch_wrong", r"does not fit config.json.s net_arch \[7, 7\] \(.*size mismatch"),
    ],
)
def test_damaged_runs_get_one_clear_line(tmp_path, damage, message):
    folder, game, _ = save_run(tmp_path / "run")
    model, cfg_path = folder / "model.zip", folder / "config.json"
    cfg = json.loads(cfg_path.read_text())
    if damage == "truncate":
        model.write_bytes(model.read_bytes()[:300])
    elif damage == "config_list":
        cfg_path.write_text("[1, 2]")
    elif damage == "config_garbage":
        cfg_path.write_text("{not json")
    elif damage == "no_game":
        cfg_path.write_text("{}")
    elif damage == "other_shape":
        game = SimplePokerGame(Config(n=5))
    elif damage == "other_game":
        game = envs.make_game("lama")
    elif damage.startswith("snapshots"):
        cfg_path.write_text(json.dumps({**cfg, "play": "average"}))
        if damage == "snapshots_garbage":
            (folder / "snapshots.pt").write_bytes(b"\x80\x04garbage")
        else:
            _, _, other = save_run(tmp_path / "other", net_arch=(8,))
            torch.save([other.policy.state_dict()], folder / "snapshots.pt")
    elif damage == "net_arch_wrong":
        cfg_path.write_text(json.dumps({**cfg, "net_arch": [7, 7]}))
    with pytest.raises(ValueError, match=message) as err:
        agents.make(f"ppo:{folder}", game, np.random.default_rng(0))
    assert "\n" not in str(err.value)
