"""An OpenSpiel policy as one of our agents: `PolicyTableAgent` plays a `{information-state string: probabilities}`
table (`envs.openspiel.policy_table` of CFR's average policy, for instance) from our views, so it sits in our
tournaments like any agent.

`save_policy_table(table, path, game, options)` writes such a table as a JSON file (data only: the game, its
options and the table); the agent id `openspiel:<file.json>` plays it in `python -m evaluate` like any agent,
and loading it never runs code. Neither needs OpenSpiel installed: the keys are
`envs.core.game.info_state_string` of our views, the export's own information-state strings.
"""

from __future__ import annotations

import json
import os
from typing import Any

import numpy as np

from envs.core.game import info_state_string

#: The policy-table file format this code writes and reads.
FORMAT = 1


class PolicyTableAgent:
    """Plays the table's probabilities at the information state of its view (the key is
    `envs.core.game.info_state_string(view, seat)`); a view the table lacks raises `KeyError` naming it.

    Args:
        table: information-state string -> probabilities over the game's actions.
        rng: the agent's generator (its every draw).
    """

    def __init__(self, table: dict[str, np.ndarray], rng: np.random.Generator, name: str = "openspiel"):
        self.table = table
        self.rng = rng
        self.name = name

    def action_probs(self, view: Any, action_mask: np.ndarray) -> np.ndarray:
        """The table's probabilities at `view`, restricted to the mask and renormalised."""
        key = info_state_string(view, view.seat)
        try:
            probs = np.asarray(self.table[key], dtype=float) * (np.asarray(action_mask) > 0)
        except KeyError:
            raise KeyError(f"the OpenSpiel policy has no entry for the information state {key!r}") from None
        total = probs.sum()
        return probs / total if total > 0 else (np.asarray(action_mask) > 0) / max(1, int(np.sum(action_mask > 0)))

    def act(self, view: Any, action_mask: np.ndarray) -> int:
        """An action drawn from `action_probs`."""
        p = self.action_probs(view, action_mask)
        return int(self.rng.choice(len(p), p=p))


def save_policy_table(table: dict[str, Any], path: str, game: str, options: dict[str, Any] | None = None) -> str:
    """Write `table` (information-state string -> probabilities) for `game` with `options` as a JSON file that
    `openspiel:<path>` plays; returns the path."""
    rows = {str(k): [float(x) for x in np.asarray(v, dtype=float).ravel()] for k, v in table.items()}
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"format": FORMAT, "game": game, "options": dict(options or {}), "table": rows}, f, allow_nan=False)
    return path


def read_policy_table(path: str) -> dict[str, Any]:
    """The checked contents of a policy-table file: {"game", "options", "table"} (probabilities as arrays).

    Raises:
        ValueError: one line naming the file and what is missing or malformed.
    """
    from envs.core.files import MAX_JSON_BYTES, InputFileError, read_json

    try:  # a regular file only, within a size cap, strict JSON (envs.core.files)
        data = read_json(path, MAX_JSON_BYTES, "policy table")
    except InputFileError as e:
        raise InputFileError(f"{path!r} is not a readable policy-table JSON file ({e})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("game"), str) \
            or not isinstance(data.get("options", {}), dict) or not isinstance(data.get("table"), dict):
        raise ValueError(f"{path!r} is not a policy table of format {FORMAT} "
                         "({'format', 'game', 'options', 'table'}; written by agents.openspiel.save_policy_table)")
    table = {}
    for key, probs in data["table"].items():
        ok = isinstance(probs, list) and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in probs)
        arr = np.asarray(probs, dtype=float) if ok else None
        if arr is None or arr.ndim != 1 or not np.all(np.isfinite(arr)) or np.any(arr < 0):
            raise ValueError(f"{path!r}: the entry {key!r} is not a list of probabilities")
        table[key] = arr
    return {"game": data["game"], "options": data.get("options", {}), "table": table}


def load_policy_table_agent(spec: str, game: Any, rng: np.random.Generator) -> PolicyTableAgent:
    """The agent of `openspiel:<file.json>` (give the part after `openspiel:`), checked against `game`.

    Raises:
        ValueError: an unreadable file, a table of another game or options, or rows of the wrong length.
    """
    import envs

    if not os.path.isfile(spec):
        raise ValueError(f"no policy-table file {spec!r} (write one with agents.openspiel.save_policy_table)")
    data = read_policy_table(spec)
    want = envs.make_game(data["game"], **data["options"]) if data["game"] in envs.available_games() else None
    if want is None or type(game.config) is not type(want.config) or game.config != want.config:
        raise ValueError(f"{spec!r} is a policy of {data['game']} with options {data['options']}; it does not play "
                         f"this game ({type(game).__name__}, {game.config})")
    bad = next((k for k, v in data["table"].items() if len(v) != game.num_actions), None)
    if bad is not None:
        raise ValueError(f"{spec!r}: the entry {bad!r} has {len(data['table'][bad])} probabilities; the game has "
                         f"{game.num_actions} actions")
    return PolicyTableAgent(data["table"], rng, name=f"openspiel:{spec}")
