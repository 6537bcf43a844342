"""The bookkeeping every compiled vector env keeps beside a game's position, declared once for every game.

A game's compiled twin holds its vector env's tables as a named tuple of arrays, one row a table (`Tables` in
`envs/<game>/fast.py`): its own position first, then the fields below, which the shared step helpers
(`envs.core.kernels`), the base env (`envs.core.vector.KernelTablesEnv`) and the checkpoint copy
(`envs.core.vector_state`) read by name. `tables_type` makes a game's `Tables` from its own field names and the
optional shared fields it keeps; `new_tables` allocates the shared arrays (zeroed) beside the game's. Shapes are in
N tables, n seats and P float parameters a seat; every kernel reaches a field as an attribute (`T.seed[r]`), so
numba compiles the game's kernels for the named tuple it is given.
"""

from __future__ import annotations

import collections
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np


class Field(NamedTuple):
    """One bookkeeping field: its dtype, its shape in the letters N (tables), n (seats), P (parameters a seat), and
    what it holds."""

    dtype: Any
    shape: tuple[str, ...]
    doc: str


#: The fields every game's tables keep, in their order in `Tables` after the game's own.
SHARED: dict[str, Field] = {
    "seed": Field(np.uint64, ("N",), "the episode's deal seed (`Game.deal`'s)"),
    "learner": Field(np.int64, ("N",), "the learner's seat (under `all_seats`: the seat to move)"),
    "codes": Field(np.int64, ("N", "n"), "each seat's policy code (`LEARNER_CODE`, `RANDOM_CODE`, a kernel's, or "
                                         "the env's j-th batch policy's `BATCH_CODE - j`)"),
    "key": Field(np.uint64, ("N",), "the table's key (`table_key`)"),
    "episode": Field(np.int64, ("N",), "the table's episode counter"),
    "rng": Field(np.uint64, ("N",), "the table's random-opponent stream"),
    "carry": Field(np.float64, ("N",), "the learner's reward so far in its step under way, or owed to its next "
                                       "step (the other seats' moves before its first decision)"),
    "ep_ret": Field(np.float64, ("N",), "the episode's return"),
    "ep_len": Field(np.int64, ("N",), "the episode's learner decisions"),
    "line": Field(np.int64, ("N",), "the line-up drawn (its row of `Settings.line_codes`)"),
    "phase": Field(np.int64, ("N",), "0 at the learner's decision, 1 paused at a batch policy's turn inside the "
                                     "learner's step, 2 paused inside a new episode's opening"),
}

#: Shared fields a game keeps where its kernels use them (`tables_type(optional=...)`).
OPTIONAL: dict[str, Field] = {
    "params": Field(np.float64, ("N", "n", "P"), "each seat's decide parameters (its line-up's `line_params`)"),
    "turns": Field(np.int64, ("N",), "moves played, every seat's"),
    "before": Field(np.float64, ("N",), "the learner's return when the step or opening under way began"),
}


def _describe(names: Sequence[str]) -> str:
    """The docstring paragraph of the shared fields `names`."""
    fields = {**SHARED, **OPTIONAL}
    lines = [f"- `{name}` ({', '.join(fields[name].shape)}) {np.dtype(fields[name].dtype).name}: "
             f"{fields[name].doc}" for name in names]
    return "The bookkeeping (`envs.core.tables`):\n" + "\n".join(lines)


def tables_type(module: str, doc: str, game: Sequence[str], optional: Sequence[str] = ()) -> type:
    """A game's `Tables`: a named tuple of its own fields `game` (in that order), then the shared fields
    (`SHARED`, and of `OPTIONAL` those named in `optional`, in `OPTIONAL`'s order), documented by `doc` and the
    shared fields' descriptions, with `game_fields` naming the game's own (a name of `OPTIONAL` not in `optional`
    is the game's). `module` is the module that holds it as `Tables` (so pickles and numba's cache find it by name).

    Raises:
        ValueError: an unknown optional field, or a game field named as a shared one it keeps.
    """
    unknown = [name for name in optional if name not in OPTIONAL]
    if unknown:
        raise ValueError(f"unknown optional table fields {unknown}; allowed: {sorted(OPTIONAL)}")
    shared = [*SHARED, *(name for name in OPTIONAL if name in optional)]
    clash = sorted(set(game) & set(shared))
    if clash:
        raise ValueError(f"game table fields {clash} are shared bookkeeping fields (envs.core.tables)")
    cls = collections.namedtuple("Tables", [*game, *shared], module=module)
    cls.__doc__ = f"{doc.rstrip()}\n\n{_describe(shared)}\n"
    cls.game_fields = tuple(game)
    return cls


#: The line-up fields every game's kernel `Settings` keeps after its own (`settings_type`), in this order: the
#: learner's fixed seat (-1: drawn), the move cap (-1: none), the reward of a refused action, `control="all_seats"`,
#: and `envs.core.vector.compile_line_ups`' codes, parameters and cumulative weights of the line-ups.
SETTINGS = ("fixed_seat", "max_turns", "illegal_reward", "all_seats", "line_codes", "line_params", "line_cum")


def settings_type(module: str, doc: str, game: Sequence[str], line_params: bool = True) -> type:
    """A game's kernel `Settings`: a named tuple of its own fields `game`, then the line-up fields `SETTINGS`
    (without `line_params` unless `line_params`), documented by `doc`; `module` as in `tables_type`."""
    cls = collections.namedtuple("Settings", [*game, *(f for f in SETTINGS if line_params or f != "line_params")],
                                 module=module)
    cls.__doc__ = doc
    return cls


def new_tables(tables: type, num_envs: int, num_players: int, num_params: int = 0, **game: np.ndarray) -> Any:
    """A `tables` (a `tables_type`) for `num_envs` tables of `num_players` seats: the game's arrays `game` (every
    field of its own, by name) and the shared fields zeroed (`params` with `num_params` a seat).

    Raises:
        ValueError: `game` misses one of the game's fields or names one it does not have.
    """
    if sorted(tables.game_fields) != sorted(game):
        raise ValueError(f"{tables.__module__}.Tables needs its game fields {sorted(tables.game_fields)}, "
                         f"got {sorted(game)}")
    sizes = {"N": num_envs, "n": num_players, "P": num_params}
    fields = {**SHARED, **OPTIONAL}
    shared = {name: np.zeros(tuple(sizes[s] for s in fields[name].shape), fields[name].dtype)
              for name in tables._fields[len(tables.game_fields):]}
    return tables(**game, **shared)


__all__ = ["OPTIONAL", "SETTINGS", "SHARED", "Field", "new_tables", "settings_type", "tables_type"]
