"""Validation and parsing of game options (`Config` dataclasses).

Every game keeps its options in a frozen dataclass. These helpers give the
uniform behaviour users rely on: an unknown key raises `ValueError` naming the
allowed keys, and command-line `key=value` strings are converted to the field's
declared type.
"""

from __future__ import annotations

import dataclasses
import re
import typing
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

C = TypeVar("C")


def make_config(config_cls: type[C], options: Mapping[str, Any]) -> C:
    """Build `config_cls(**options)`, refusing unknown keys with a clear error."""
    names = [f.name for f in dataclasses.fields(config_cls) if f.init]
    unknown = sorted(set(options) - set(names))
    if unknown:
        raise ValueError(
            f"unknown option(s) {', '.join(map(repr, unknown))} for {config_cls.__name__}; "
            f"allowed options are: {', '.join(names)}"
        )
    return config_cls(**options)


def _convert(text: str, hint: Any) -> Any:
    """Convert a command-line string to a value of type `hint`."""
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        if text.lower() in ("none", "null") and type(None) in args:
            return None
        errors = []
        for a in args:
            if a is type(None):
                continue
            try:
                return _convert(text, a)
            except ValueError as e:
                errors.append(str(e))
        raise ValueError("; ".join(errors))
    if origin is typing.Literal:
        for a in args:
            if str(a) == text:
                return a
        raise ValueError(f"{text!r} is not one of {list(args)}")
    if hint is bool:
        low = text.lower()
        if low in ("1", "true", "yes", "on"):
            return True
        if low in ("0", "false", "no", "off"):
            return False
        raise ValueError(f"{text!r} is not a boolean (true/false)")
    if hint in (int, float):
        try:
            return hint(text)
        except ValueError:
            raise ValueError(f"{text!r} is not {'an integer' if hint is int else 'a number'}") from None
    if hint is str:
        return text
    if origin in (tuple, list) or hint in (tuple, list):
        items = [t for t in text.split(",") if t]
        inner = args[0] if args else str
        return tuple(_convert(t, inner) for t in items)
    # Unknown annotation: try a number, else keep the string.
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return text


def parse_options(config_cls: type, pairs: Iterable[str]) -> dict[str, Any]:
    """Parse `["key=value", ...]` into typed keyword arguments for `config_cls`.

    Raises:
        ValueError: on a malformed pair, an unknown key (naming the allowed keys)
            or a value that does not convert to the field's type.
    """
    hints = typing.get_type_hints(config_cls)
    names = [f.name for f in dataclasses.fields(config_cls) if f.init]
    out: dict[str, Any] = {}
    for pair in pairs:
        if "=" not in pair:
            raise ValueError(f"option {pair!r} is not of the form key=value")
        key, text = pair.split("=", 1)
        key = key.strip()
        if key not in names:
            raise ValueError(
                f"unknown option {key!r} for {config_cls.__name__}; allowed options are: {', '.join(names)}"
            )
        try:
            out[key] = _convert(text.strip(), hints.get(key, str))
        except ValueError as e:
            declared = next((o.describe() for o in declared_options(config_cls) if o.name == key), key)
            raise ValueError(f"option {key}={text!r}: {e}; {declared}") from None
    return out


@dataclass(frozen=True)
class Option:
    """One game option, as declared by the game's `Config` field."""

    name: str
    type: str
    default: Any
    choices: tuple[Any, ...] | None
    help: str

    def describe(self) -> str:
        """`name` (type; one of a|b; default x): help."""
        kind = f"one of {'|'.join(map(str, self.choices))}" if self.choices else self.type
        return f"{self.name} ({kind}; default {self.default!r}): {self.help}".rstrip(": ")

def _type_name(hint: Any) -> tuple[str, tuple[Any, ...] | None]:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is typing.Literal:
        return "choice", tuple(args)
    if origin is typing.Union or type(hint).__name__ == "UnionType":
        names, choices = [], None
        for a in args:
            if a is type(None):
                continue
            n, c = _type_name(a)
            names.append(n)
            choices = c if c is not None else choices
        return "|".join(names), choices
    if origin in (tuple, list):
        return f"list of {_type_name(args[0])[0] if args else 'str'}", None
    return getattr(hint, "__name__", str(hint)), None

def _attribute_help(cls: type) -> dict[str, str]:
    """`name -> text` from the `Attributes:` section of a Google-style class docstring."""
    doc = cls.__doc__ or ""
    m = re.search(r"^\s*Attributes:\s*$(.*?)(?:^\s*\S[^:\n]*:\s*$|\Z)", doc, re.M | re.S)
    if not m:
        return {}
    out: dict[str, str] = {}
    current = None
    for line in m.group(1).splitlines():
        item = re.match(r"^\s{4,8}(\w+)(?: \([^)]*\))?:\s*(.*)$", line)
        if item:
            current = item.group(1)
            out[current] = item.group(2).strip()
        elif current and line.strip():
            out[current] += " " + line.strip()
    return out

def declared_options(config_class: type) -> list[Option]:
    """The options of a `Config` dataclass in declaration order (init fields only)."""
    hints = typing.get_type_hints(config_class)
    helps = _attribute_help(config_class)
    out = []
    for f in dataclasses.fields(config_class):
        if not f.init:
            continue
        kind, choices = _type_name(hints.get(f.name, str))
        default = f.default if f.default is not dataclasses.MISSING else None
        out.append(Option(f.name, kind, default, choices, helps.get(f.name, "")))
    return out
