"""The bookkeeping every compiled vector env keeps beside a game's position, declared once for every game.

A game's compiled twin holds its vector env's tables as a named tuple of arrays, one row a table (`Tables` in
`envs/<game>/fast.py`): its own position and scratch, and the fields below, which the shared step helpers
(`envs.core.kernels`), the base env (`envs.core.vector.KernelTablesEnv`) and the checkpoint copy
(`envs.core.vector_state`) read by name. `tables_type` makes a game's `Tables` from its layout (the order of its
fields, the shared ones placed by name) and the optional shared fields it keeps; `new_tables` allocates the shared
arrays (zeroed) beside the game's. Shapes are in N tables, n seats and P float parameters a seat; every kernel
reaches a field as an attribute (`T.seed[r]`), so numba compiles the game's kernels for the named tuple it is given.
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


#: The fields every game's tables keep.
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


def tables_type(module: str, doc: str, layout: Sequence[str], optional: Sequence[str] = ()) -> type:
    """A game's `Tables`: a named tuple of the fields `layout` in that order, the game's own and the shared ones
    (every `SHARED` field, and the `OPTIONAL` ones named in `optional`) placed among them by name; documented by
    `doc` and the shared fields' descriptions, with `game_fields` naming the game's own (a name of `OPTIONAL` not in
    `optional` is the game's). `module` is the module that holds it as `Tables` (so pickles and numba's cache find
    it by name).

    The layout keeps each game's field order, the one its kernels were measured with: numba compiles a kernel for
    the named tuple's field order, and one order for every game (the shared fields behind the game's) moved Primi
    Composti's vector env between 4% fewer steps a second (version 1, 1,024 tables) and 7% more (version 2 with the
    revealed operand) in `bench_vector`: code-layout chance, which a kept order avoids.

    Raises:
        ValueError: an unknown optional field, or a shared field the layout does not place.
    """
    unknown = [name for name in optional if name not in OPTIONAL]
    if unknown:
        raise ValueError(f"unknown optional table fields {unknown}; allowed: {sorted(OPTIONAL)}")
    shared = [*SHARED, *(name for name in OPTIONAL if name in optional)]
    missing = [name for name in shared if name not in layout]
    if missing:
        raise ValueError(f"the table layout does not place the shared fields {missing} (envs.core.tables)")
    cls = collections.namedtuple("Tables", layout, module=module)
    cls.__doc__ = f"{doc.rstrip()}\n\n{_describe(shared)}\n"
    cls.game_fields = tuple(name for name in layout if name not in shared)
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
              for name in tables._fields if name not in tables.game_fields}
    return tables(**game, **shared)


__all__ = ["OPTIONAL", "SHARED", "Field", "new_tables", "tables_type"]
