"""Learned students: small torch policies trained from a teacher, saved and loaded as data.

`MaskedPolicy` is an MLP over the encoder observation, one logit per action (optionally plus a learned action
table looked up by the encoder's `action_keys`); `ActionScorer` scores every action from its own feature vector
and a context vector with one shared MLP. A game's feature set `features(view, mask) -> (context [C],
per_action [A, F][, offered mask])` is registered in `FEATURES` (from `agents.<game>.features`, imported on first
use); it may have `for_game(game)`, `portable_options` and `from_observation(obs, mask)`.

A student is a folder: `policy.json` (game, options, architecture, feature set, provenance) and `weights.pt` (a
plain state_dict, loaded with `weights_only=True`), read through `envs.core.files` and size-checked
(`MAX_WIDTH`, `MAX_LAYERS`, `MAX_PARAMETERS`) before any network is built; a refusal is one `ValueError` line.
Agent ids: `learned:<folder>` (the student's own way to play), `?sample`, `?greedy`. torch is imported only when
a student is built.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import importlib.util
import io
import json
import os
import re
from collections.abc import Callable
from typing import Any

import numpy as np

from envs.core.files import MAX_JSON_BYTES, MAX_TENSOR_BYTES, atomic_path, check_tensor_archive, read_bytes, read_json

FeatureFn = Callable[[Any, np.ndarray], tuple[np.ndarray, np.ndarray]]

#: Feature set name -> `features(view, mask) -> (context [C], per_action [num_actions, F])`.
FEATURES: dict[str, FeatureFn] = {}

KINDS = ("masked_policy", "action_scorer")
#: How a student's agent acts by default (`Student.play`).
PLAYS = ("argmax", "sample")
POLICY_FILE = "policy.json"
WEIGHTS_FILE = "weights.pt"
#: The widest layer, the most hidden layers and the most parameters a network may have (the shipped ones have
#: at most 512, 3 and about 330,000): a saved file asking for more is refused before anything is allocated.
MAX_WIDTH = 2**16
MAX_LAYERS = 32
MAX_PARAMETERS = 2**27


def check_widths(hidden: Any, field: str = "hidden") -> list[int]:
    """`hidden` as a list of layer widths if it is a non-empty list of at most `MAX_LAYERS` integers in
    1..`MAX_WIDTH`.

    Raises:
        ValueError: one line naming `field` and the allowed range.
    """
    ok = isinstance(hidden, (list, tuple)) and 1 <= len(hidden) <= MAX_LAYERS and all(
        isinstance(h, int) and not isinstance(h, bool) and 1 <= h <= MAX_WIDTH for h in hidden)
    if not ok:
        raise ValueError(f"{field} must be a list of 1..{MAX_LAYERS} integers in 1..{MAX_WIDTH}, got {hidden!r}")
    return list(hidden)


def mlp_parameters(sizes: list[int]) -> int:
    """The weights and biases of an MLP through the layer sizes `sizes` (inputs first)."""
    return sum(a * b + b for a, b in zip(sizes[:-1], sizes[1:]))


def check_parameters(count: int, what: str) -> None:
    """Raises ValueError unless `count` (the parameters a network would have) is at most `MAX_PARAMETERS`."""
    if count > MAX_PARAMETERS:
        raise ValueError(f"{what} would have {count:,} parameters, more than the {MAX_PARAMETERS:,} allowed; refused "
                         "before allocating it")


def feature_set(name: str) -> FeatureFn:
    """The registered feature function `name`, importing its game's `agents.<game>.features` if needed.

    Raises:
        ValueError: naming the known feature sets when there is none called `name`.
    """
    parts = name.split("_")
    for cut in range(len(parts), 0, -1):  # `the_game_noscore` lives in agents/the_game/features.py
        if name in FEATURES or not re.fullmatch(r"[a-z_0-9]+", name):
            break
        package = f"agents.{'_'.join(parts[:cut])}"
        if importlib.util.find_spec(package) is not None \
                and importlib.util.find_spec(package + ".features") is not None:
            importlib.import_module(package + ".features")
    if name not in FEATURES:
        raise ValueError(f"unknown feature set {name!r}; known: {', '.join(sorted(FEATURES)) or 'none'}")
    return FEATURES[name]


def feature_sets_of(game: str) -> list[str]:
    """The names of the feature sets registered by `game`'s agents package (its `features` module imported first,
    where it has one): the ones an action scorer of that game can learn over."""
    from agents.games import module_of

    home = module_of(game)
    if home is None:
        return []
    if importlib.util.find_spec(home) is not None and importlib.util.find_spec(home + ".features") is not None:
        importlib.import_module(home + ".features")
    return sorted(n for n, fn in FEATURES.items() if _home_of(fn) == home)


def feature_owner(name: str) -> str | None:
    """The registered game whose agents package registered feature set `name`, or None for one registered from
    elsewhere (a user's own).

    Raises:
        ValueError: an unknown feature set (`feature_set`'s message).
    """
    import envs
    from agents.games import module_of

    home = _home_of(feature_set(name))
    return next((g for g in envs.registered() if module_of(g) == home), None)


def _home_of(fn: Any) -> str:
    """The package a feature set was registered from: `agents.<game>` for `agents.<game>.features` (or any module
    under it), else its module."""
    module = getattr(fn, "__module__", "") or ""
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "agents" and len(parts) > 2 else module


def bound_features(name: str, game: Any) -> FeatureFn:
    """The registered feature set `name`, bound to `game` where it reads more than the view (`for_game`)."""
    fn = feature_set(name)
    return fn.for_game(game) if hasattr(fn, "for_game") else fn


def observation_features(fn: Any, obs: Any, masks: Any) -> tuple[np.ndarray, np.ndarray]:
    """(context (k, C), per_action (k, A, F)), float32, of k encoder observations and their masks, by a feature set
    that reads observations (`fn.from_observation`; in one call where it has `from_observations`, a batched twin)."""
    if hasattr(fn, "from_observations"):
        ctx, per = fn.from_observations(np.asarray(obs), np.asarray(masks))
        return np.asarray(ctx, np.float32), np.asarray(per, np.float32)
    rows = [fn.from_observation(o, m) for o, m in zip(obs, masks)]
    return (np.stack([np.asarray(c, np.float32) for c, _ in rows]),
            np.stack([np.asarray(p, np.float32) for _, p in rows]))


def portable_options(arch: Any) -> tuple[str, ...]:
    """The game options a saved student of architecture `arch` (`policy.json`'s) plays under any value of: its
    feature set's `portable_options` for an action scorer, () otherwise (and for an unknown feature set, which
    loading the student reports)."""
    if not isinstance(arch, dict) or arch.get("kind") != "action_scorer" or not isinstance(arch.get("features"), str):
        return ()
    try:
        return tuple(getattr(feature_set(arch["features"]), "portable_options", ()))
    except ValueError:
        return ()


#: The hidden layers' activations a policy network can have (SB3's MlpPolicy default is tanh; a policy started
#: from a distilled student keeps the student's ReLU).
ACTIVATIONS = ("tanh", "relu")


def check_activation(name: str) -> None:
    """Raises ValueError naming the allowed values unless `name` is one of `ACTIVATIONS`."""
    if name not in ACTIVATIONS:
        raise ValueError(f"activation must be one of {', '.join(ACTIVATIONS)}, got {name!r}")


def activation_fn(name: str) -> Any:
    """The torch module class of an activation of `ACTIVATIONS`.

    Raises:
        ValueError: naming the allowed values.
    """
    check_activation(name)
    import torch.nn as nn

    return {"tanh": nn.Tanh, "relu": nn.ReLU}[name]


def _mlp(sizes: list[int], activation: str = "relu") -> Any:
    import torch.nn as nn

    act = activation_fn(activation)
    layers: list[Any] = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        layers += [nn.Linear(a, b), act()]
    return nn.Sequential(*layers[:-1])


@functools.cache
def _networks() -> tuple[type, type]:
    """The two torch modules (defined on first use so that importing this module needs no torch)."""
    import torch
    import torch.nn as nn

    class MaskedPolicy(nn.Module):
        """MLP over an observation -> masked logits over actions, plus a value. With an action table
        (`action_keys`, the encoder's, and its `num_keys`), each action's logit also gets the table's entry at the
        action's key in the observation (`table_logits`)."""

        def __init__(self, obs_dim: int, num_actions: int, hidden: list[int], activation: str = "relu",
                     action_keys: Callable[[np.ndarray], np.ndarray] | None = None, num_keys: int = 0):
            super().__init__()
            self.body = _mlp([obs_dim, *hidden], activation)
            self.act = activation_fn(activation)()
            self.logits = nn.Linear(hidden[-1], num_actions)
            self.value = nn.Linear(hidden[-1], 1)
            self.action_keys = action_keys
            if action_keys is not None:
                self.table = nn.Parameter(torch.zeros(int(num_keys)))

        def forward(self, obs: Any, mask: Any, keys: Any = None) -> tuple[Any, Any]:
            """(logits [B, A] with -1e9 on masked actions, value [B]); `keys`: the observations' action keys where
            the caller has them (a compiled twin of `action_keys`), else they are computed from `obs`."""
            h = self.act(self.body(obs))
            logits = self.logits(h)
            if self.action_keys is not None:
                if keys is None:
                    keys = self.action_keys(obs.detach().cpu().numpy())
                logits = logits + table_logits(self.table, keys, obs.device)
            return logits.masked_fill(mask <= 0, -1e9), self.value(h).squeeze(-1)

    class ActionScorer(nn.Module):
        """One shared scorer of (action features, context) -> logit; value from the context."""

        def __init__(self, context_dim: int, feature_dim: int, hidden: list[int]):
            super().__init__()
            self.score = _mlp([feature_dim + context_dim, *hidden, 1])
            self.value = _mlp([context_dim, *hidden, 1])

        def forward(self, context: Any, per_action: Any, mask: Any) -> tuple[Any, Any]:
            """(logits [B, A] with -1e9 on masked actions, value [B]). Only the legal actions are scored, in
            blocks of `SCORE_BLOCK` rows (the last one padded with zeros): measured on The Game's 405 actions, a
            decision costs 1/65 of scoring them all, and a row's logit has the same bits whatever the batch holds
            (blocks of one size; a scorer over a batch of another size gives other rounding), so one decision
            and a batch of many give the same moves."""
            legal = mask > 0
            ctx = context.unsqueeze(1).expand(-1, per_action.shape[1], -1)
            rows = torch.cat([per_action[legal], ctx[legal]], dim=-1)
            k = rows.shape[0]
            pad = -k % SCORE_BLOCK if k else SCORE_BLOCK
            if pad:
                rows = torch.cat([rows, rows.new_zeros(pad, rows.shape[1])])
            scores = torch.cat([self.score(block) for block in rows.split(SCORE_BLOCK)])[:k, 0]
            logits = per_action.new_full(mask.shape, -1e9).index_put((legal.nonzero(as_tuple=True)), scores)
            return logits, self.value(context).squeeze(-1)

    return MaskedPolicy, ActionScorer


#: The rows an `ActionScorer` scores in one call (see its `forward`).
SCORE_BLOCK = 64


def table_logits(table: Any, keys: Any, device: Any = None) -> Any:
    """An action table's logits `(B, A)`: `table[keys]`, 0 where a key is `len(table)` (an action without an
    entry). `keys`: an integer array or tensor `(B, A)` (an encoder's `action_keys`)."""
    import torch

    keys = torch.as_tensor(keys, device=device if device is not None else table.device).long()
    # a flat gather, not `padded[keys]`: its backward (a scatter-add) is about twice as fast as indexing's on a CPU
    return torch.cat([table, table.new_zeros(1)]).gather(0, keys.reshape(-1)).view(keys.shape)


def action_keys_of(encoder: Any, game_name: str) -> tuple[Callable[[np.ndarray], np.ndarray], int]:
    """(`encoder.action_keys`, `encoder.num_action_keys`): what an action table looks its entries up by.

    Raises:
        ValueError: the game's encoder gives no action keys.
    """
    fn, k = getattr(encoder, "action_keys", None), getattr(encoder, "num_action_keys", None)
    if fn is None or not k:
        raise ValueError(f"{game_name}'s observations give no action keys for an action table (its encoder has no "
                         "action_keys and num_action_keys)")
    return fn, int(k)


class Student:
    """A student policy for one game: its network and how views become its inputs.

    Args:
        game_name, options: the game and its options (as `envs.make_game` takes them); `game`: the engine if built.
        kind: "masked_policy" or "action_scorer"; `hidden`: hidden layer sizes; `features`: an action scorer's
            feature set.
        activation: the hidden layers' activation (`ACTIVATIONS`; masked_policy only).
        play: how its agent acts by default: "argmax" (a distilled student) or "sample" (a policy learned by RL).
        action_table: masked_policy only: entries of a learned logit table looked up by the encoder's `action_keys`
            (must equal its `num_action_keys`); 0: none.
    """

    def __init__(self, game_name: str, options: dict[str, Any], kind: str, hidden: list[int],
                 features: str | None = None, game: Any = None, activation: str = "relu", play: str = "argmax",
                 action_table: int = 0):
        import envs

        if kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
        hidden = check_widths(hidden)
        check_activation(activation)
        if kind != "masked_policy" and activation != "relu":
            raise ValueError(f"an {kind} student uses relu, got activation {activation!r}")
        if play not in PLAYS:
            raise ValueError(f"play must be one of {', '.join(PLAYS)}, got {play!r}")
        self.game_name, self.options, self.kind, self.hidden = game_name, dict(options), kind, list(hidden)
        self.activation, self.play = activation, play
        if isinstance(action_table, bool) or not isinstance(action_table, int) \
                or not 0 <= action_table <= MAX_PARAMETERS:
            raise ValueError(f"action_table must be an integer in 0..{MAX_PARAMETERS:,}, got {action_table!r}")
        if action_table and kind != "masked_policy":
            raise ValueError(f"an action table is for a masked_policy student, not an {kind}")
        self.action_table = action_table
        self.game = game if game is not None else envs.make_game(game_name, **self.options)
        self.num_actions = int(self.game.num_actions)
        if kind == "masked_policy":
            self.features = None
            self.encoder = envs.make_encoder(game_name, self.game)
            self.dims = {"obs_dim": int(np.prod(self.encoder.observation_space.shape))}
            keys: Callable[[np.ndarray], np.ndarray] | None = None
            if action_table:
                keys, k = action_keys_of(self.encoder, game_name)
                if k != action_table:
                    raise ValueError(f"an action table of {action_table} entries; {game_name}'s action keys take {k}")
            sizes = [self.dims["obs_dim"], *self.hidden]
            check_parameters(mlp_parameters(sizes) + (self.hidden[-1] + 1) * (self.num_actions + 1) + action_table,
                             "the network")
            self.net = _networks()[0](self.dims["obs_dim"], self.num_actions, self.hidden, activation, keys,
                                      action_table)
        else:
            if not features:
                raise ValueError("an action_scorer needs a feature set (features=NAME)")
            self.features = features
            # Features that read more than the view (a board) are bound to the game the student plays.
            self._fn = bound_features(features, self.game)
            self.dims = {}
            self.net = None  # built at the first input, when the feature sizes are known

    def inputs(self, view: Any, mask: np.ndarray) -> tuple[np.ndarray, ...]:
        """The network inputs of one decision (float32 arrays, the mask last)."""
        m = np.asarray(mask, dtype=np.float32)
        if self.kind == "masked_policy":
            return (np.asarray(self.encoder.encode(view), dtype=np.float32).ravel(), m)
        ctx, per, *offered = self._fn(view, mask)
        if offered:  # a feature set that scores some legal actions only (RoboRally's candidate programs)
            m = np.asarray(offered[0], dtype=np.float32)
        ctx, per = np.asarray(ctx, dtype=np.float32), np.asarray(per, dtype=np.float32)
        if per.shape[0] != self.num_actions:
            raise ValueError(f"feature set {self.features!r} gave {per.shape[0]} actions, the game has "
                             f"{self.num_actions}")
        if self.net is None:
            self._build(int(ctx.shape[0]), int(per.shape[1]))
        return (ctx, per, m)

    def _build(self, context_dim: int, feature_dim: int) -> None:
        for field, v in (("context_dim", context_dim), ("feature_dim", feature_dim)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not 1 <= v <= MAX_WIDTH:
                raise ValueError(f"{field} must be an integer in 1..{MAX_WIDTH}, got {v!r}")
        context_dim, feature_dim = int(context_dim), int(feature_dim)
        check_parameters(mlp_parameters([feature_dim + context_dim, *self.hidden, 1])
                         + mlp_parameters([context_dim, *self.hidden, 1]), "the network")
        self.dims = {"context_dim": context_dim, "feature_dim": feature_dim}
        self.net = _networks()[1](context_dim, feature_dim, self.hidden)

    def probs(self, view: Any, mask: np.ndarray) -> np.ndarray:
        """The policy's probabilities over actions (zero where the mask is 0)."""
        import torch

        x = self.inputs(view, mask)
        self.net.eval()
        threads = torch.get_num_threads()
        torch.set_num_threads(1)  # one decision's forward: more threads only add their synchronisation
        try:
            with torch.no_grad():
                logits, _ = self.net(*(torch.as_tensor(a[None]) for a in x))
                p = torch.softmax(logits[0].double(), dim=-1).numpy()
        finally:
            torch.set_num_threads(threads)
        legal = np.asarray(mask) > 0
        p = np.where(legal, p, 0.0)
        return p / p.sum() if p.sum() > 0 else legal / legal.sum()

    def describe(self) -> dict[str, Any]:
        """The architecture part of `policy.json`."""
        out = {"kind": self.kind, "hidden": self.hidden, "features": self.features, **self.dims}
        if self.activation != "relu" or self.play != "argmax":  # students saved before these keys read as relu, argmax
            out.update(activation=self.activation, play=self.play)
        if self.action_table:
            out["action_table"] = self.action_table
        return out


class LearnedAgent:
    """A student as an agent: the most likely legal action (lowest id among ties), or a sample."""

    def __init__(self, student: Student, rng: np.random.Generator, sample: bool = False, name: str = "learned"):
        self.student, self.rng, self.sample, self.name = student, rng, sample, name

    def action_probs(self, view: Any, action_mask: np.ndarray) -> np.ndarray:
        """The student's probabilities over actions."""
        return self.student.probs(view, action_mask)

    def act(self, view: Any, action_mask: np.ndarray) -> int:
        """Argmax (or a sample) of the masked policy."""
        p = self.student.probs(view, action_mask)
        if self.sample:
            return int(self.rng.choice(len(p), p=p))
        return int(np.argmax(p))


def save_student(student: Student, folder: str, provenance: dict[str, Any] | None = None,
                 agent_id: str | None = None) -> str:
    """Write `policy.json` and `weights.pt` (a plain state_dict) into `folder`; returns the folder."""
    import torch

    if student.net is None:
        raise ValueError("the student has no network yet (no decision was encoded)")
    os.makedirs(folder, exist_ok=True)
    meta = {"format": 1, "game": student.game_name, "options": student.options, "num_actions": student.num_actions,
            "architecture": student.describe(), "provenance": provenance or {}}
    if agent_id:
        meta["agent_id"] = agent_id
    state = {k: v.detach().cpu().clone() for k, v in student.net.state_dict().items()}
    # each file whole or not at all, the weights first: a stop in between leaves the old policy.json, never a new
    # one without its weights
    with atomic_path(os.path.join(folder, WEIGHTS_FILE)) as tmp:
        torch.save(state, tmp)
    with atomic_path(os.path.join(folder, POLICY_FILE)) as tmp, open(tmp, "w", encoding="utf-8") as f:
        json.dump(meta, f, indent=2, allow_nan=False)  # agents sit below evaluate: no evaluate.jsonio here
    return folder


def read_meta(folder: str) -> dict[str, Any]:
    """The checked `policy.json` of a student folder.

    Raises:
        ValueError: one line naming what is missing or malformed.
    """
    path = os.path.join(folder, POLICY_FILE)
    if not os.path.lexists(path):
        raise ValueError(f"no student at {folder!r} (no {POLICY_FILE}; save students with "
                         "`python -m train GAME --method distill`)")
    meta = read_json(path, MAX_JSON_BYTES, "policy file")
    arch = meta.get("architecture") if isinstance(meta, dict) else None
    if not isinstance(meta.get("game") if isinstance(meta, dict) else None, str) or not isinstance(arch, dict) \
            or not isinstance(meta.get("options", {}), dict):
        raise ValueError(f"{path!r} must be a JSON object with 'game' (string), 'options' (object) and "
                         "'architecture' (object)")
    return meta


def load_student(folder: str, game: Any = None) -> Student:
    """Rebuild a saved student from `folder` (tensors only; nothing in it is executed), checked
    against the engine `game` it will play.

    Raises:
        ValueError: a missing or malformed folder, weights that are not a plain tensor file, or a student of another
            game or action count.
    """
    import envs

    meta = read_meta(folder)
    name, options, arch = meta["game"], meta.get("options", {}), meta["architecture"]
    if name not in envs.available_games():
        raise ValueError(f"{folder!r} names game {name!r}, which is not available")
    if game is not None:
        want = envs.make_game(name, **options)
        if type(game.config) is not type(want.config) or game.num_actions != want.num_actions:
            raise ValueError(f"student {folder!r} was trained on {name} with options {options}; it does not play "
                             "this game")
        # options that change only the returns (a reward shaping) do not change what the student plays, nor do
        # those its feature set reads from the game itself (`portable_options`: e.g. RoboRally's board)
        same = {k: getattr(want.config, k) for k in (*envs.spec(name).reward_options, *portable_options(arch))}
        if dataclasses.replace(game.config, **same) != want.config:
            raise ValueError(f"student {folder!r} was trained on {name} with options {options}, not {game.config}")
    try:
        student = Student(name, options, arch.get("kind"), arch.get("hidden"), arch.get("features"), game=game,
                          activation=arch.get("activation", "relu"), play=arch.get("play", "argmax"),
                          action_table=arch.get("action_table", 0))
        if student.kind == "action_scorer":
            student._build(arch["context_dim"], arch["feature_dim"])
    except (KeyError, TypeError, ValueError) as e:
        shown = repr(arch) if len(repr(arch)) <= 300 else repr(arch)[:297] + "..."
        raise ValueError(f"{folder!r}: policy.json's architecture {shown} does not build a student ({e})") from None
    wpath = os.path.join(folder, WEIGHTS_FILE)
    load_state(student.net, tensor_file(wpath, "weights file", repr(wpath)), repr(wpath),
               f"{wpath!r} does not fit policy.json's architecture")
    return student


def load_tensors(data: bytes, what: str) -> Any:
    """`torch.load(weights_only=True)` of `data`, any failure as one ValueError line naming `what`."""
    import torch

    try:
        return torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except Exception as e:  # torch raises many types for a bad file; all mean the same here
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise ValueError(f"{what} is not a plain tensor file; refused to load it ({first[:200]})") from None


def tensor_file(path: str, what: str, label: str | None = None) -> Any:
    """`load_tensors` of the regular file `path` (a `what`), read within the caps of `envs.core.files`; messages
    name it as `label` (default: `what` and the path)."""
    data = read_bytes(path, MAX_TENSOR_BYTES, what)
    check_tensor_archive(data, path, MAX_TENSOR_BYTES, what)
    return load_tensors(data, label or f"{what} {path!r}")


def load_state(net: Any, state: Any, what: str, mismatch: str) -> None:
    """Load the state_dict `state` (read from `what`) into the torch module `net`, then put it in eval mode.

    Raises:
        ValueError: `state` is no dict of tensors, or does not fit `net` (`mismatch` and torch's first two lines).
    """
    import torch

    if not isinstance(state, dict) or not all(isinstance(v, torch.Tensor) for v in state.values()):
        raise ValueError(f"{what} holds no state_dict of tensors")
    try:
        net.load_state_dict(state)
    except (RuntimeError, KeyError, TypeError) as e:
        lines = [x.strip() for x in str(e).strip().splitlines() if x.strip()]
        raise ValueError(f"{mismatch} ({' '.join(lines[:2])[:300]})") from None
    net.eval()


def load_learned_agent(spec: str, game: Any, rng: np.random.Generator, name: str | None = None) -> LearnedAgent:
    """The agent of `learned:<folder>[?sample]` (give the part after `learned:`)."""
    folder, _, flag = spec.partition("?")
    if flag not in ("", "sample", "greedy"):
        raise ValueError(f"unknown flag {flag!r} in learned:{spec}; allowed: ?sample, ?greedy")
    student = load_student(folder, game)
    sample = flag == "sample" or (flag == "" and student.play == "sample")
    return LearnedAgent(student, rng, sample=sample, name=name or f"learned:{spec}")
