"""The agent protocol, the uniform-random agent, and the agent registry.

An agent acts on a seat's view and its int8 action mask::

    agent = agents.make("simple_poker/nash", game, rng=np.random.default_rng(0))
    action = agent.act(view, mask)

Ids: `"<game>/<name>"`, `"random"`, `"ppo:<path>"`, `"learned:<folder>"`; `NAME*K` for K seats of one id
(`expand_agent_ids`); parameters as `<game>/<name>?key=value&key=value`, checked against those the agent
declared (`register(..., params=...)`) and passed to its factory typed. Old spellings are rewritten with a
one-line note (`old_spelling`). The registry imports a game's agents package on first use.
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Callable, Mapping
from typing import Any, Protocol, runtime_checkable
from urllib.parse import parse_qsl

import numpy as np

from envs.core.spec import entry_point

AgentFactory = Callable[..., "Agent"]


@runtime_checkable
class Agent(Protocol):
    """Anything that picks a legal action from a view and a mask."""

    def act(self, view: Any, action_mask: np.ndarray) -> int:
        """A legal action id (`action_mask[a] == 1`)."""


class RandomAgent:
    """Uniformly random over the legal actions (registered as `random`)."""

    name = "random"

    def __init__(self, game: Any = None, rng: np.random.Generator | None = None):
        if rng is None:
            raise ValueError("RandomAgent needs an explicit rng (np.random.Generator)")
        self.rng = rng

    def act(self, view: Any, action_mask: np.ndarray) -> int:
        """A uniformly drawn legal action."""
        legal = np.flatnonzero(action_mask)
        return int(legal[self.rng.integers(len(legal))])

    def action_probs(self, view: Any, action_mask: np.ndarray) -> np.ndarray:
        """Uniform probabilities over the legal actions."""
        m = np.asarray(action_mask, dtype=float)
        return m / m.sum()


_EXACT: dict[str, AgentFactory] = {}
_PATTERNS: list[tuple[re.Pattern[str], AgentFactory, str]] = []
#: Agent id -> its query parameters: key -> converter from the query's text (raises ValueError).
_PARAMS: dict[str, dict[str, Callable[[str], Any]]] = {}
#: Old spellings: (pattern, its groups -> the id in today's grammar).
_OLD: list[tuple[re.Pattern[str], Callable[..., str]]] = []
_NOTED: set[str] = set()
#: Agent id (or a pattern's example) -> the game options it needs / its one-line description, where declared.
_OPTIONS: dict[str, dict[str, Any]] = {}
_DOCS: dict[str, str] = {}


def positive_int(text: str) -> int:
    """A query converter: an integer >= 1."""
    if not text.strip().isdigit() or int(text) < 1:
        raise ValueError(f"expected a positive integer, got {text!r}")
    return int(text)


def choice(*allowed: Any) -> Callable[[str], Any]:
    """A query converter: one of `allowed` (compared as text; the allowed value is returned)."""

    def convert(text: str) -> Any:
        for a in allowed:
            if str(a) == text:
                return a
        raise ValueError(f"expected one of {'|'.join(map(str, allowed))}, got {text!r}")

    convert.__doc__ = f"one of {'|'.join(map(str, allowed))}"
    return convert


def register(agent_id: str, factory: AgentFactory | str, options: dict[str, Any] | None = None,
             doc: str | None = None, params: Mapping[str, Callable[[str], Any]] | None = None) -> None:
    """Register `factory(game, rng)` (or a `"module:function"` string, imported when first built) under an
    exact id such as `"lama/first"`. `options`: the game options the agent needs (`agents.options`); `doc`: its
    one-line description (default the factory's docstring's first line); `params`: the query parameters it takes,
    key -> a converter from text, each passed to the factory as a keyword argument."""
    _EXACT[agent_id] = factory
    if params:
        _PARAMS[agent_id] = dict(params)
    if options:
        _OPTIONS[agent_id] = dict(options)
    if doc:
        _DOCS[agent_id] = doc


def register_pattern(pattern: str, factory: AgentFactory | str, example: str, doc: str | None = None) -> None:
    """Register a parametric family: `pattern` is a regex with named groups passed
    to `factory(game, rng, **groups)`; `example` is shown in listings. `factory`
    may be a `"module:function"` string, as for `register`; `doc` as for `register`."""
    _PATTERNS.append((re.compile(pattern + r"\Z"), factory, example))
    if doc:
        _DOCS[example] = doc


def _kind(convert: Callable[[str], Any]) -> str:
    """What a query converter takes, for messages and listings."""
    if convert is positive_int:
        return "positive integer"
    if convert in (int, float, str):
        return convert.__name__
    return convert.__doc__ or "value"


def old_spelling(pattern: str, canonical: Callable[..., str]) -> None:
    """Accept an old spelling of a parametric id for one release: `pattern` (a regex with named
    groups) is rewritten as `canonical(**groups)`, with a one-line note the first time."""
    _OLD.append((re.compile(pattern + r"\Z"), canonical))


def canonical_id(agent_id: str) -> str:
    """`agent_id` in today's grammar (an old spelling rewritten, with a one-line note on stderr once)."""
    _load_game_module(agent_id)
    for pat, canonical in _OLD:
        m = pat.match(agent_id)
        if m:
            new = canonical(**m.groupdict())
            if agent_id not in _NOTED:
                _NOTED.add(agent_id)
                sys.stderr.write(
                    f"note: agent id {agent_id!r} is now spelled {new!r} (the old spelling goes in the next release)\n"
                )
            return new
    return agent_id


def parse_id(agent_id: str) -> tuple[str, dict[str, Any]]:
    """`"game/name?k=v&..."` -> (`"game/name"`, typed keyword arguments), by the agent's declared parameters.

    Raises:
        ValueError: a key the agent does not take, or a value its converter refuses (one line, naming
            the allowed keys or values).
    """
    base, _, query = canonical_id(agent_id).partition("?")
    declared = _PARAMS.get(base, {})
    kwargs: dict[str, Any] = {}
    try:
        pairs = parse_qsl(query, keep_blank_values=True, strict_parsing=bool(query))
    except ValueError:
        raise ValueError(f"agent {agent_id!r}: parameters are written ?key=value&key=value") from None
    for key, text in pairs:
        if key not in declared:
            allowed = ", ".join(f"{k} ({_kind(c)})" for k, c in declared.items()) or "none"
            raise ValueError(f"agent {base!r} takes no parameter {key!r}; its parameters: {allowed}")
        try:
            kwargs[key] = declared[key](text)
        except (TypeError, ValueError) as e:
            raise ValueError(f"agent {base!r}: {key}={text!r}: {e}") from None
    return base, kwargs


def _resolve(factory: AgentFactory | str) -> AgentFactory:
    return entry_point(factory) if isinstance(factory, str) else factory


def _load_game_module(agent_id: str) -> None:
    if "/" not in agent_id:
        return
    import envs

    game = agent_id.split("/", 1)[0]
    if game not in envs.available_games():
        return
    from agents.games import PARTS

    PARTS.module(game)  # its import registers the game's agents
    _add_pretrained()


@functools.cache
def _add_pretrained() -> None:
    """Register the shipped `<game>/learned...` checkpoints (once)."""
    from agents.pretrained import checkpoint_docs, checkpoint_options, factories

    options, docs = checkpoint_options(), checkpoint_docs()
    for agent_id, factory in factories().items():
        if agent_id not in _EXACT:
            register(agent_id, factory, options.get(agent_id), docs.get(agent_id))


#: The prefixes of saved-policy ids and the loader each names (`loader(rest of the id, game, rng)`).
_SAVED_LOADERS = {"ppo:": "agents.policy:load_policy_agent", "learned:": "agents.learned:load_learned_agent",
                  "openspiel:": "agents.openspiel:load_policy_table_agent"}
SAVED_PREFIXES = tuple(_SAVED_LOADERS)
#: The id forms of saved policies, each with what it names: the unknown-agent hint and `python -m evaluate list`
#: show these same words.
SAVED_POLICY_FORMS: tuple[tuple[str, str], ...] = (
    ("ppo:<run folder or model.zip>[?greedy]",
     "a policy trained by `python -m train` (it samples its moves; ?greedy: always its most likely move; it needs "
     "the options it was trained on)"),
    ("learned:<policy folder>[?greedy|?sample]",
     "a folder holding policy.json and weights.pt: a run's policy/ (`python -m train GAME`) or a student of "
     "`python -m train GAME --method distill`; it plays as its policy.json says, ?greedy or ?sample overrides that"),
    ("openspiel:<policy table .json>", "an OpenSpiel policy saved by agents.openspiel.save_policy_table"),
)


def known_ids(game: str | None = None) -> list[str]:
    """Registered ids (patterns shown by example), optionally for one game."""
    if game is not None:
        _load_game_module(f"{game}/")
    ids = sorted(_EXACT) + [ex for _, _, ex in _PATTERNS]
    ids += [
        i + "?" + "&".join(f"{k}=<{_kind(c)}>" for k, c in p.items()) for i, p in sorted(_PARAMS.items()) if i in _EXACT
    ]
    ids += [form for form, _ in SAVED_POLICY_FORMS]
    if game is not None:
        ids = [i for i in ids if i.startswith(f"{game}/") or "/" not in i]
    return ids


def make(agent_id: str, game: Any, rng: np.random.Generator, game_name: str | None = None) -> Agent:
    """Build the agent `agent_id` for the engine `game` with its own generator `rng`; `game_name`, when given,
    is checked against the id's prefix.

    Raises:
        ValueError: for an unknown id (the message lists the known ones) or an agent of another game.
    """
    if not isinstance(rng, np.random.Generator):
        raise TypeError("agents need an explicit np.random.Generator as rng")
    for prefix, loader in _SAVED_LOADERS.items():
        if agent_id.startswith(prefix):
            return entry_point(loader)(agent_id[len(prefix):], game, rng)
    if game_name is not None and "/" in agent_id and not agent_id.startswith(f"{game_name}/"):
        raise ValueError(
            f"agent {agent_id!r} does not play {game_name!r}; agents for it: {', '.join(known_ids(game_name))}"
        )
    base, kwargs = parse_id(agent_id)
    if base in _EXACT:
        return _resolve(_EXACT[base])(game, rng, **kwargs)
    for pat, factory, _ in _PATTERNS:
        m = pat.match(agent_id)
        if m:
            return _resolve(factory)(game, rng, **m.groupdict())
    prefix = agent_id.split("/", 1)[0] if "/" in agent_id else game_name
    raise ValueError(f"unknown agent {agent_id!r}; known agents: {', '.join(known_ids(prefix))}")


def expand_agent_ids(spec: list[str] | str) -> list[str]:
    """`"a,b*3"` or `["a", "b*3"]` -> `["a", "b", "b", "b"]`."""
    items = spec.split(",") if isinstance(spec, str) else list(spec)
    out: list[str] = []
    for item in items:
        item = item.strip()
        if not item:
            continue
        if "*" in item and not item.startswith("ppo:"):
            name, count = item.rsplit("*", 1)
            if not count.isdigit() or int(count) < 1:
                raise ValueError(f"bad repeat in agent spec {item!r}: use NAME*K with K >= 1")
            out += [name] * int(count)
        else:
            out.append(item)
    return out


def labels_for(ids: list[str]) -> list[str]:
    """Distinct labels: repeated ids get `#2`, `#3`, ... suffixes."""
    seen: dict[str, int] = {}
    labels = []
    for i in ids:
        seen[i] = seen.get(i, 0) + 1
        labels.append(i if seen[i] == 1 else f"{i}#{seen[i]}")
    return labels


register("random", RandomAgent)
