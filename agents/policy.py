"""A trained MaskablePPO model as an agent (`ppo:<path>`).

The model is saved by `python -m train` as `<run>/model.zip` with
`<run>/config.json` beside it, which names the game and options the policy was
trained for; the policy encodes views with that game's encoder. torch and
sb3-contrib are imported only when a policy agent is built.
"""

from __future__ import annotations

import json
import os
from typing import Any

import numpy as np


def _resolve(path: str) -> tuple[str, dict[str, Any] | None]:
    """The model file and the run config of a run folder or model path."""
    if os.path.isdir(path):
        path = os.path.join(path, "model.zip")
    if not os.path.exists(path) and os.path.exists(path + ".zip"):
        path = path + ".zip"
    if not os.path.exists(path):
        raise ValueError(f"no trained model at {path!r} (give a run folder or its model.zip)")
    cfg_path = os.path.join(os.path.dirname(os.path.abspath(path)), "config.json")
    cfg = None
    if os.path.exists(cfg_path):
        with open(cfg_path, encoding="utf-8") as f:
            cfg = json.load(f)
    return path, cfg


class TorchPolicyAgent:
    """Acts with an SB3 maskable policy object (in memory): samples its masked
    action distribution with the agent's own generator, or takes the most likely
    action with `deterministic=True`."""

    def __init__(self, policy: Any, encoder: Any, rng: np.random.Generator, deterministic: bool = False, name: str = "policy"):
        self.policy = policy
        self.encoder = encoder
        self.rng = rng
        self.deterministic = deterministic
        self.name = name

    def action_probs(self, view: Any, action_mask: np.ndarray) -> np.ndarray:
        """The policy's probabilities over actions (zero on masked actions)."""
        import torch

        obs = self.encoder.encode(view)
        mask = np.asarray(action_mask, dtype=bool)
        with torch.no_grad():
            obs_t = torch.as_tensor(obs[None, :], device=self.policy.device)
            dist = self.policy.get_distribution(obs_t, action_masks=mask[None, :])
            probs = dist.distribution.probs[0].cpu().numpy().astype(float)
        probs[~mask] = 0.0
        total = probs.sum()
        return probs / total if total > 0 else mask / mask.sum()

    def act(self, view: Any, action_mask: np.ndarray) -> int:
        """Sample (or arg-max) the masked policy."""
        p = self.action_probs(view, action_mask)
        if self.deterministic:
            return int(np.argmax(p))
        return int(self.rng.choice(len(p), p=p))


class MixtureAgent:
    """A uniform mixture of policies (the output of self-play, fictitious-play
    style): each game is played by one member drawn at `reset()`."""

    def __init__(self, members: list[Any], rng: np.random.Generator, name: str = "mixture", weights: Any = None):
        if not members:
            raise ValueError("a mixture needs at least one member")
        self.members = list(members)
        w = np.ones(len(members)) if weights is None else np.asarray(weights, dtype=float)
        if w.shape != (len(members),) or (w < 0).any() or w.sum() <= 0:
            raise ValueError(f"weights must be {len(members)} non-negative numbers with a positive sum")
        self.weights = w / w.sum()
        self.rng = rng
        self.name = name
        self.reset()

    def reseed(self, rng: np.random.Generator) -> None:
        """Draw members and each member's choices from `rng` from now on
        (`envs.core.play.reseed_agent` calls this)."""
        from envs.core.play import reseed_agent

        self.rng = rng
        for member, child in zip(self.members, rng.spawn(len(self.members))):
            reseed_agent(member, child)

    def reset(self) -> None:
        """Start of a game: draw the member that plays it."""
        self.current = self.members[int(self.rng.choice(len(self.members), p=self.weights))]

    def action_probs(self, view: Any, action_mask: np.ndarray) -> np.ndarray:
        """The members' weighted mean probabilities: the mixture's behaviour wherever
        a seat decides at most once per game (simple poker); an approximation elsewhere."""
        return np.einsum("i,ij->j", self.weights, np.array([m.action_probs(view, action_mask) for m in self.members]))

    def act(self, view: Any, action_mask: np.ndarray) -> int:
        """The current game's member acts."""
        return self.current.act(view, action_mask)


def load_policy_agent(path: str, game: Any, rng: np.random.Generator, deterministic: bool = False) -> Any:
    """A saved MaskablePPO run (`ppo:<run folder or model.zip>`) as an agent.

    A self-play run (config `play: average`) gives the mixture of its snapshots;
    any other run its final model.

    Raises:
        ValueError: if the model is missing or was trained for another game or
            observation shape.
    """
    from sb3_contrib import MaskablePPO

    import envs

    model_path, cfg = _resolve(path)
    game_name = (cfg or {}).get("game")
    if game_name is None:
        raise ValueError(f"{model_path!r} has no config.json beside it naming its game; save models with `python -m train`")
    encoder = envs.make_encoder(game_name, game)
    model = MaskablePPO.load(model_path, device="cpu")
    want = model.observation_space.shape
    have = encoder.observation_space.shape
    if want != have or model.action_space.n != game.num_actions:
        raise ValueError(
            f"model {model_path!r} was trained on {game_name} with options {cfg.get('options')} "
            f"(observation {want}, {model.action_space.n} actions); this game has observation {have}, {game.num_actions} actions"
        )
    snap_path = os.path.join(os.path.dirname(os.path.abspath(model_path)), "snapshots.pt")
    if cfg.get("play") == "average" and os.path.exists(snap_path):
        import copy

        import torch

        members = []
        for state in torch.load(snap_path, map_location="cpu", weights_only=True):
            policy = copy.deepcopy(model.policy)
            policy.load_state_dict(state)
            policy.set_training_mode(False)
            members.append(TorchPolicyAgent(policy, encoder, rng, deterministic))
        return MixtureAgent(members, rng, name=f"ppo:{path}", weights=cfg.get("mixture_weights"))
    return TorchPolicyAgent(model.policy, encoder, rng, deterministic, name=f"ppo:{path}")
