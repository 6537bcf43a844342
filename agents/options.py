"""The game options an agent needs, and how the command lines apply them.

A policy trained on one variant of a game plays only that variant: `lama/learned-seed2022` was
distilled under `rules=seed2022`, `the_game/learned` plays The Game solo (`num_players=1`). Such an
agent declares its options (`agents.register(id, factory, options={...})`; a shipped or saved
student reads them from its `policy.json`, a `ppo:` run from its `config.json`), and
`resolve_options` turns the user's `--option`s and the line-up into the options to play:
the needed options the user left out are added (each reported in one line), and a contradiction
is refused with one line naming the exact `--option` to add or remove::

    options, notes = agents.resolve_options("lama", ["lama/learned-seed2022", "lama/first"], {})
    # options == {"rules": "seed2022"}
    # notes == ["using --option rules=seed2022, which lama/learned-seed2022 was trained on"]
"""

from __future__ import annotations

import dataclasses
import inspect
import os
import re
from typing import Any

from agents import base
from envs.core.files import MAX_JSON_BYTES, InputFileError, read_json_object


def required_options(agent_id: str) -> dict[str, Any]:
    """The game options `agent_id` needs ({} for an agent that plays every variant).

    Shipped students and agents registered with `options=` declare them; `learned:<folder>` reads
    the folder's `policy.json` and `ppo:<run>` the run's `config.json`. An unreadable folder gives
    {} here: building the agent reports it.
    """
    meta = _trained_meta(agent_id)
    if meta is not None:
        opts = meta.get("options")
        # JSON has lists where a Config holds tuples
        return {k: tuple(v) if isinstance(v, list) else v for k, v in opts.items()} if isinstance(opts, dict) else {}
    if agent_id.startswith(base.SAVED_PREFIXES):
        return {}
    base._load_game_module(agent_id)
    return dict(base._OPTIONS.get(agent_id, {}))


def portable_options(agent_id: str) -> tuple[str, ...]:
    """The options `agent_id` plays under any value of, though it was trained on one: those its feature set reads
    from the game (`portable_options` of an `action_scorer` student's features, e.g. RoboRally's board and robot
    count); () for every other agent."""
    meta = _trained_meta(agent_id)
    if meta is None and not agent_id.startswith(base.SAVED_PREFIXES):
        from agents.pretrained import checkpoints

        folder = checkpoints().get(agent_id.partition("?")[0])
        meta = _read_json(os.path.join(folder, "policy.json")) if folder else None
    from agents.learned import portable_options as of_architecture

    return of_architecture(meta.get("architecture") if meta is not None else None)


def _trained_meta(agent_id: str) -> dict[str, Any] | None:
    """The metadata file of a `learned:` student (`policy.json`) or a `ppo:` run (`config.json`), or None
    (another kind of id, or a file that cannot be read: building the agent reports it)."""
    if agent_id.startswith("learned:"):
        path = os.path.join(agent_id[8:].partition("?")[0], "policy.json")
    elif agent_id.startswith("ppo:"):
        path = agent_id[4:].partition("?")[0]
        path = os.path.join(path if os.path.isdir(path) else os.path.dirname(os.path.abspath(path)), "config.json")
    elif agent_id.startswith("openspiel:"):
        path = agent_id[len("openspiel:"):]
    else:
        return None
    return _read_json(path)


def _read_json(path: str) -> dict[str, Any] | None:
    """The JSON object in `path`, or None where it cannot be read or is not an object (`envs.core.files` refuses
    a FIFO, device or oversized file without blocking or reading it all; building the agent then says why)."""
    try:
        return read_json_object(path, MAX_JSON_BYTES)
    except InputFileError:
        return None


def _fields(game_name: str, options: dict[str, Any]) -> dict[str, Any]:
    """Every option of the game's Config built from `options` (presets filled in), less the options that
    change only the returns (`GameSpec.reward_options`: a policy plays the same under any of them)."""
    import envs
    from envs.core.options import make_config

    spec = envs.spec(game_name)
    cfg = make_config(spec.config_class, {k: v for k, v in options.items() if k not in spec.reward_options})
    return {
        f.name: getattr(cfg, f.name) for f in dataclasses.fields(cfg) if f.init and f.name not in spec.reward_options
    }


def _flag(key: str, value: Any) -> str:
    text = ",".join(map(str, value)) if isinstance(value, tuple) else str(value)
    return f"--option {key}={text}"


def trained_game(agent_id: str) -> str | None:
    """The game a `learned:` or `ppo:` file was trained on, as its file says (None for other ids)."""
    meta = _trained_meta(agent_id)
    game = meta.get("game") if meta is not None else None
    return game if isinstance(game, str) else None


def needed_options(game_name: str, agent_id: str) -> dict[str, Any]:
    """The options of `required_options(agent_id)` whose values differ from the game's defaults (what a
    user must add to the command line).

    Raises:
        ValueError: a trained policy of another game (its options would mean nothing here).
    """
    other = trained_game(agent_id)
    if other is not None and other != game_name:
        raise ValueError(f"{agent_id} was trained on {other}, not {game_name}")
    need = required_options(agent_id)
    want, defaults = _fields(game_name, need), _fields(game_name, {})
    portable = portable_options(agent_id)
    return {k: v for k, v in need.items() if k in want and want[k] != defaults[k] and k not in portable}


def resolve_options(game_name: str, agent_ids: list[str], given: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The options to play `agent_ids` with, given the user's `given` options.

    Options an agent needs that the user did not give are added; the user's own options are kept.
    Returns the options and one note per added option (`using --option K=V, which ID was trained on`).

    Raises:
        ValueError: one line when the user's options contradict an agent's (naming the `--option`
            to remove or change), or two agents need different values of one option.
    """
    ids = list(dict.fromkeys(agent_ids))
    options = dict(given)
    source: dict[str, str] = {}
    for aid in ids:
        for key, value in needed_options(game_name, aid).items():
            if key in given:
                continue  # checked below
            if key in options and options[key] != value:
                raise ValueError(f"{aid} was trained on {key}={value} and {source[key]} on {key}={options[key]}: "
                                 "they cannot play at one table")
            options[key], source[key] = value, aid
    have = _fields(game_name, options)
    for aid in ids:
        need = required_options(aid)
        if not need:
            continue  # plays every variant
        want, portable = _fields(game_name, need), portable_options(aid)
        wrong = [k for k in want if want[k] != have[k] and k not in portable]
        if not wrong:
            continue
        k = wrong[0]
        trained = ", ".join(f"{key}={value}" for key, value in need.items() if key in want)
        if k in given:
            fix = (
                f"replace {_flag(k, given[k])} with {_flag(k, want[k])}"
                if k in need
                else f"remove {_flag(k, given[k])}"
            )
            raise ValueError(f"{aid} was trained on {trained}; {fix}")
        other = source.get(k)
        if other is not None:
            raise ValueError(
                f"{aid} was trained on {k}={want[k]} and {other} on {k}={have[k]}: they cannot play at one table"
            )
        raise ValueError(f"{aid} was trained on {trained}; add {_flag(k, want[k])}")
    notes = [f"using {_flag(k, options[k])}, which {source[k]} was trained on" for k in source]
    return options, notes


def describe_agent(agent_id: str) -> str:
    """A one-line description of a registered id (or a pattern's example): its declared `doc`, else the
    first line of its factory's docstring, else ""."""
    base._load_game_module(agent_id)
    if agent_id in base._DOCS:
        return base._DOCS[agent_id]
    factory = base._EXACT.get(agent_id)
    name = agent_id.partition("?")[0]
    if factory is None and "?" in agent_id and name in base._EXACT:
        return f"{name} with the parameters named in its id"  # a listing's `id?key=<kind>&...` form
    if factory is None:
        factory = next((f for _, f, ex in base._PATTERNS if ex == agent_id), None)
    if factory is None:
        return ""
    try:
        factory = base._resolve(factory)
    except (ImportError, AttributeError):
        return ""
    if getattr(factory, "__name__", "") == "<lambda>":
        return ""  # a lambda has no docstring of its own (inspect would give the function type's)
    return first_sentence(inspect.getdoc(factory) or "")


def first_sentence(doc: str) -> str:
    """The first sentence of a docstring's first paragraph, on one line, without a leading list of the
    ids it documents (`` `lama/pimc` and `lama/pimc?k=<k>`: ``)."""
    para = " ".join(doc.strip().split("\n\n")[0].split())
    para = re.sub(r"^(`[^`]+`(?:,? (?:and|or) `[^`]+`)*:\s*)", "", para)
    m = re.search(r"(?<!\be\.g)(?<!\bi\.e)(?<!\b[A-Z])\.(\s|$)", para)  # not at "e.g." or an initial
    out = para[: m.start() + 1] if m else para
    return out[:1].upper() + out[1:]


def listing(game_name: str) -> list[str]:
    """`python -m evaluate list`'s lines for one game: each agent, its description and the options it
    needs, sorted by id (families by their example, then the folder/run forms)."""
    ids = base.known_ids(game_name)
    lines = []
    for aid in ids:
        if aid.startswith(base.SAVED_PREFIXES):
            continue
        need = needed_options(game_name, aid)
        doc = describe_agent(aid)
        extra = f"  [needs {' '.join(_flag(k, v) for k, v in need.items())}]" if need else ""
        lines.append(f"  {aid}" + (f": {doc}" if doc else "") + extra)
    lines += [f"  {form}: {what}" for form, what in base.SAVED_POLICY_FORMS]
    return lines
