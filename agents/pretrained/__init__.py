"""The shipped learned checkpoints, registered as agents `<game>/learned...` and `<game>/ppo...`.

Every sub-folder holding a `policy.json` (and its `weights.pt`) is a policy in the
one saved-policy format (`agents.learned`): a student saved by `python -m train
distill GAME`, or the actor of a PPO run (`python -m train GAME` writes it as
`<run>/policy/`: a policy learned from the environment alone, no teacher; its
`config.json` and `curve.csv` stay beside it). Its agent id is the `agent_id`
field of `policy.json` (`<game>/ppo[-<variant>]` for the PPO runs), else derived
from the folder name: `<game>` gives `<game>/learned` and `<game>-<variant>` gives
`<game>/learned-<variant>`.
Listing them reads the JSON files only; a checkpoint is loaded (tensors only) when
its agent is built.
"""

from __future__ import annotations

import os
from functools import partial
from typing import Any

from envs.core.files import InputFileError, read_json_object

HERE = os.path.dirname(os.path.abspath(__file__))


def checkpoint_id(folder: str, meta: dict[str, Any]) -> str:
    """The agent id of a checkpoint folder (see the module docstring)."""
    if isinstance(meta.get("agent_id"), str):
        return meta["agent_id"]
    game, name = meta["game"], os.path.basename(folder)
    variant = name[len(game) + 1:] if name.startswith(game + "-") else ""
    return f"{game}/learned" + (f"-{variant}" if variant else "")


def checkpoints(root: str = HERE) -> dict[str, str]:
    """Agent id -> checkpoint folder for every readable `policy.json` under `root`."""
    return {agent_id: folder for agent_id, (folder, _) in _metas(root).items()}


def checkpoint_options(root: str = HERE) -> dict[str, dict[str, Any]]:
    """Agent id -> the game options its student was trained on (`policy.json`'s `options`)."""
    return {agent_id: dict(meta.get("options") or {}) for agent_id, (_, meta) in _metas(root).items()}


def checkpoint_docs(root: str = HERE) -> dict[str, str]:
    """Agent id -> a one-line description: the student's kind, its teacher and its game options."""
    out = {}
    metas = _metas(root)
    for agent_id, (_, meta) in metas.items():
        prov = _dict(meta, "provenance")
        if prov.get("method") in _PPO_METHODS:
            if (meta.get("options") or {}).get("num_players") == 1:
                how = "alone"  # a one-player game: no opponent, no self-play
            else:
                how = "against " + (", ".join(prov.get("opponents") or []) or "self-play")
            league = _dict(prov, "league")
            if league.get("baselines"):
                how += "; in a league with " + ", ".join(league["baselines"])
            start = prov.get("init_from")
            if isinstance(start, str) and _taught(start, metas):  # fine-tuned from a shipped student
                out[agent_id] = f"a student fine-tuned with PPO (from {start}, {how})"
            else:
                out[agent_id] = f"PPO from the environment alone, no teacher (trained {how})"
        else:
            teacher = f" distilled from {prov['teacher']}" if isinstance(prov.get("teacher"), str) else ""
            out[agent_id] = f"learned student{teacher} (one forward pass per move, no search)"
    return out


_PPO_METHODS = ("ppo", "train.cleanrl_ppo")  # SB3's MaskablePPO, the one-file learner


def _dict(d: dict[str, Any], key: str) -> dict[str, Any]:
    """`d[key]` where it is a JSON object, else {} (a policy.json is data a user may have edited)."""
    value = d.get(key)
    return value if isinstance(value, dict) else {}


def _taught(agent_id: str, metas: dict[str, tuple[str, dict[str, Any]]], seen: frozenset[str] = frozenset()) -> bool:
    """Whether shipped `agent_id` learned from a teacher: a distilled student, or PPO started from one (a policy
    continued from its own earlier version, or from another PPO policy, is as taught as that start)."""
    if agent_id not in metas or agent_id in seen:
        return False
    prov = _dict(metas[agent_id][1], "provenance")
    if prov.get("method") not in _PPO_METHODS:
        return True
    start = prov.get("init_from")
    return isinstance(start, str) and _taught(start, metas, seen | {agent_id})


def _metas(root: str) -> dict[str, tuple[str, dict[str, Any]]]:
    """Agent id -> (folder, policy.json) of every readable checkpoint under `root`."""
    out: dict[str, tuple[str, dict[str, Any]]] = {}
    for name in sorted(os.listdir(root)):
        folder = os.path.join(root, name)
        path = os.path.join(folder, "policy.json")
        if not os.path.isfile(path):
            continue
        try:
            meta = read_json_object(path)
        except InputFileError:
            continue  # an unreadable checkpoint is reported when it is asked for by folder (learned:<folder>)
        if isinstance(meta.get("game"), str):
            out[checkpoint_id(folder, meta)] = (folder, meta)
    return out


def factories() -> dict[str, Any]:
    """Agent id -> `factory(game, rng)` of every shipped checkpoint (the registry in
    `agents.base` adds them; this package does not import the registry)."""
    from agents.learned import load_learned_agent

    return {agent_id: partial(load_learned_agent, folder, name=agent_id)
            for agent_id, (folder, _) in _metas(HERE).items()}
