"""A trained MaskablePPO model as an agent (`ppo:<path>`), loaded as data.

A run folder with a `policy/` is read by `agents.learned`'s loader; this module reads SB3's `model.zip` alone
(self-play mixtures, older runs) without un-pickling, as docs/integrations.md ("Trained models are data")
describes: the network rebuilt from `config.json` and the game's encoder, tensors read through `envs.core.files`
and sizes checked against `agents.learned`'s limits. torch and sb3-contrib are imported only when a policy agent
is built.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from agents.learned import (
    activation_fn,
    check_parameters,
    check_widths,
    load_learned_agent,
    load_state,
    load_tensors,
    mlp_parameters,
    tensor_file,
)
from envs.core.files import (
    MAX_JSON_BYTES,
    MAX_TENSOR_BYTES,
    check_tensor_archive,
    open_zip,
    read_bytes,
    read_json_object,
    read_member,
)

#: SB3's MlpPolicy network when a run's config names none.
DEFAULT_NET_ARCH = [64, 64]


def _resolve(path: str) -> tuple[str, dict[str, Any] | None]:
    """The model file and the run config of a run folder or model path."""
    if os.path.isdir(path):
        path = os.path.join(path, "model.zip")
    if not os.path.lexists(path) and os.path.lexists(path + ".zip"):
        path = path + ".zip"
    if not os.path.lexists(path):
        raise ValueError(f"no trained model at {path!r} (give a run folder or its model.zip)")
    cfg_path = os.path.join(os.path.dirname(os.path.abspath(path)), "config.json")
    cfg = read_json_object(cfg_path, MAX_JSON_BYTES, "run config") if os.path.lexists(cfg_path) else None
    return path, cfg


def _policy_state(model_path: str) -> dict[str, Any]:
    """The policy's tensors from the `policy.pth` entry of an SB3 model zip (no other entry is read)."""
    raw = read_bytes(model_path, MAX_TENSOR_BYTES, "model zip")
    with open_zip(raw, model_path, MAX_TENSOR_BYTES, "model zip", label="model zip") as zf:
        if "policy.pth" not in zf.namelist():
            raise ValueError(f"{model_path!r} has no policy.pth entry: not a model saved by `python -m train`")
        data = read_member(zf, "policy.pth", model_path, MAX_TENSOR_BYTES, "model zip")
    check_tensor_archive(data, f"{model_path} (policy.pth)", MAX_TENSOR_BYTES, "model zip entry")
    state = load_tensors(data, f"{model_path!r} (policy.pth)")
    if not isinstance(state, dict):
        raise ValueError(f"{model_path!r} (policy.pth) holds no policy parameters")
    return state


def _shapes(state: dict[str, Any]) -> tuple[int | None, int | None]:
    """The observation size and action count a policy state dict was built for."""
    first = state.get("mlp_extractor.policy_net.0.weight")
    head = state.get("action_net.weight")
    obs = int(first.shape[1]) if first is not None and first.ndim == 2 else None
    actions = int(head.shape[0]) if head is not None and head.ndim == 2 else None
    return obs, actions


def _check_net_arch(net_arch: Any, obs: int, actions: int, model_path: str) -> None:
    """Refuse a config.json `net_arch` (SB3's forms: a list of widths, or `{"pi": [...], "vf": [...]}`) whose sizes
    are out of range, before any network is built; one line naming the file and the field."""
    where = f"{model_path!r}: config.json's net_arch"
    arms = net_arch if isinstance(net_arch, dict) else {"pi": net_arch, "vf": net_arch}
    if set(arms) - {"pi", "vf"}:
        raise ValueError(f"{where} may only have the keys pi and vf, got {sorted(arms)!r:.200}")
    total = 0
    for arm, out in (("pi", actions), ("vf", 1)):
        try:
            widths = check_widths(arms.get(arm, []), "net_arch") if arms.get(arm, []) != [] else []
        except ValueError as e:
            raise ValueError(f"{where}: {str(e)[:300]}") from None
        total += mlp_parameters([obs, *widths, out])
    try:
        check_parameters(total, "the policy network")
    except ValueError as e:
        raise ValueError(f"{where}: {e}") from None


def build_policy(encoder: Any, num_actions: int, net_arch: Any, activation: str = "tanh") -> Any:
    """A MaskablePPO `MlpPolicy` network (CPU, eval mode) for the encoder's
    observations and `num_actions` actions, with fresh weights."""
    import gymnasium
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    policy = MaskableActorCriticPolicy(
        encoder.observation_space, gymnasium.spaces.Discrete(num_actions), lambda _: 0.0, net_arch=net_arch,
        activation_fn=activation_fn(activation),
    )
    policy.set_training_mode(False)
    return policy


class TorchPolicyAgent:
    """Acts with an SB3 maskable policy object (in memory): samples its masked
    action distribution with the agent's own generator, or takes the most likely
    action with `deterministic=True`."""

    def __init__(
        self, policy: Any, encoder: Any, rng: np.random.Generator, deterministic: bool = False, name: str = "policy"
    ):
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
    """A saved MaskablePPO run (`ppo:<run folder or model.zip>[?greedy]`) as an agent: a
    self-play run (config `play: average`) gives the mixture of its snapshots, any other run its final model; it
    samples with its own generator unless `?greedy` (or `deterministic`).

    Raises:
        ValueError: the model missing, unreadable or not plain tensors, its config.json not a JSON object, or trained
            for another game or observation shape.
    """
    import envs

    spec = path
    path, _, flag = path.partition("?")
    if flag not in ("", "greedy"):
        raise ValueError(f"unknown flag {flag!r} in ppo:{spec}; allowed: ?greedy")
    deterministic = deterministic or flag == "greedy"
    if os.path.isdir(path) and not os.path.exists(os.path.join(path, "model.zip")) and \
            os.path.isfile(os.path.join(path, "policy", "policy.json")):
        # a run of the default learner (no SB3 model.zip): its policy in the one saved-policy format
        return load_learned_agent(os.path.join(path, "policy") + ("?greedy" if deterministic else "?sample"), game, rng,
                                  name=f"ppo:{spec}")
    model_path, cfg = _resolve(path)
    exported = os.path.join(os.path.dirname(os.path.abspath(model_path)), "policy")
    if (cfg or {}).get("play") != "average" and os.path.isfile(os.path.join(exported, "policy.json")):
        # The run's policy in the one saved-policy format: read by the one loader (`agents.learned`).
        return load_learned_agent(exported + ("?greedy" if deterministic else "?sample"), game, rng, name=f"ppo:{spec}")
    game_name = (cfg or {}).get("game")
    if not isinstance(game_name, str) or game_name not in envs.available_games():
        raise ValueError(
            f"{model_path!r} has no config.json beside it naming its game; save models with `python -m train`"
        )
    options = cfg.get("options")
    config_class = envs.config_class(game_name)
    if not isinstance(getattr(game, "config", None), config_class):
        raise ValueError(
            f"model {model_path!r} was trained on {game_name} with options {options}; it does not play this game"
        )
    encoder = envs.make_encoder(game_name, game)
    net_arch = cfg.get("net_arch", DEFAULT_NET_ARCH)
    activation = cfg.get("activation", "tanh")
    have_obs = int(np.prod(encoder.observation_space.shape))
    _check_net_arch(net_arch, have_obs, game.num_actions, model_path)
    state = _policy_state(model_path)
    want_obs, want_actions = _shapes(state)
    mismatch = (
        f"model {model_path!r} was trained on {game_name} with options {options} "
        f"(observation ({want_obs},), {want_actions} actions); this game has observation "
        f"{encoder.observation_space.shape}, {game.num_actions} actions"
    )
    if (want_obs, want_actions) != (have_obs, game.num_actions):
        raise ValueError(mismatch)
    try:
        policy = build_policy(encoder, game.num_actions, net_arch, activation)
    except (TypeError, ValueError, AssertionError) as e:
        raise ValueError(f"{model_path!r}: config.json's net_arch {net_arch!r} and activation {activation!r} do not "
                         f"build a policy ({e})") from None
    load_state(policy, state, f"{model_path!r} (policy.pth)",
               f"{model_path!r} does not fit config.json's net_arch {net_arch!r}")
    snap_path = os.path.join(os.path.dirname(os.path.abspath(model_path)), "snapshots.pt")
    if cfg.get("play") == "average" and os.path.lexists(snap_path):
        snapshots = tensor_file(snap_path, "snapshots file")
        if not isinstance(snapshots, list) or not snapshots:
            raise ValueError(f"{snap_path!r} holds no list of policy snapshots")
        members = []
        for snapshot in snapshots:
            member = build_policy(encoder, game.num_actions, net_arch, activation)
            load_state(member, snapshot, f"{snap_path!r}", f"{snap_path!r} does not fit the run's policy network")
            members.append(TorchPolicyAgent(member, encoder, rng, deterministic))
        weights = cfg.get("mixture_weights")
        if weights is not None and (not isinstance(weights, list) or not all(
                isinstance(w, (int, float)) and not isinstance(w, bool) for w in weights)):
            raise ValueError(
                f"{model_path!r}: config.json's mixture_weights must be a list of numbers, got {weights!r:.200}"
            )
        return MixtureAgent(members, rng, name=f"ppo:{spec}", weights=weights)
    return TorchPolicyAgent(policy, encoder, rng, deterministic, name=f"ppo:{spec}")
