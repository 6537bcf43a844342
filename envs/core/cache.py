"""Arrays that take seconds to compute and never change for the same inputs, kept on disk between processes.

    table = cached_array("roborally-turns", [board_arrays, numbering, sweeps, seed], compute, sources=[__file__])

The file's name is a SHA-256 of the key parts (arrays by dtype, shape and bytes; other values by `repr`) and of the
bytes of every `sources` file (the code that computes the array), so a change to the inputs or to that code
reads a new file: a cached array is always the one `compute()` would return now. Files are `.npy` read with
`allow_pickle=False` (data, never code), written to a temporary name and renamed, so processes that share the
folder (test workers, Ray tasks on one machine) never read a half-written file; a file that cannot be read or
does not hold a finite array of the computed kind is computed again and replaced.

Where: `$TABLETOP_RL_CACHE`, else `$XDG_CACHE_HOME/tabletop-rl`, else `~/.cache/tabletop-rl`;
`TABLETOP_RL_CACHE=off` computes every time and writes nothing. A folder that cannot be written is not an
error: the array is computed and used, and a warning says once that it was not kept.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import warnings
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

#: The environment variable that names the folder (or `off`).
ENV_VAR = "TABLETOP_RL_CACHE"
_WARNED: set[str] = set()


def cache_dir() -> str | None:
    """The cache folder (`$TABLETOP_RL_CACHE`, `$XDG_CACHE_HOME/tabletop-rl`, `~/.cache/tabletop-rl`), or None
    when `TABLETOP_RL_CACHE=off`."""
    where = os.environ.get(ENV_VAR, "").strip()
    if where.lower() == "off":
        return None
    if where:
        return where
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "tabletop-rl")


def digest(parts: Iterable[Any], sources: Iterable[str] = ()) -> str:
    """SHA-256 (hex) of the key `parts` (numpy arrays by dtype, shape and bytes; anything else by `repr`) and of
    the bytes of the `sources` files."""
    h = hashlib.sha256()
    for p in parts:
        if isinstance(p, np.ndarray):
            a = np.ascontiguousarray(p)
            h.update(f"array {a.dtype.str} {a.shape}".encode())
            h.update(a.tobytes())
        else:
            h.update(f"value {p!r}".encode())
        h.update(b"\x00")
    for path in sources:
        with open(path, "rb") as f:
            h.update(f"source {os.path.basename(path)}".encode())
            h.update(f.read())
    return h.hexdigest()


def cached_array(name: str, parts: Iterable[Any], compute: Callable[[], np.ndarray],
                 sources: Iterable[str] = (), shape: tuple[int, ...] | None = None) -> np.ndarray:
    """`compute()`, read from the cache folder when a process computed it before with the same key `parts` and
    `sources` files (the module docstring), else computed and written there.

    Args:
        name: a short label, the start of the file name (`<name>-<digest>.npy`).
        parts: what the array depends on (arrays, numbers, strings).
        compute: makes the array (a numeric numpy array).
        sources: the files of the code that computes it (a change to them reads a new file).
        shape: the array's shape, where known beforehand: a file of another shape is computed again.
    """
    folder = cache_dir()
    if folder is None:
        return compute()
    path = os.path.join(folder, f"{name}-{digest(parts, sources)[:32]}.npy")
    try:
        got = np.load(path, allow_pickle=False)
        if got.dtype.kind in "fiub" and np.all(np.isfinite(got)) and (shape is None or got.shape == tuple(shape)):
            return got
    except (OSError, ValueError, EOFError):
        pass  # absent, unreadable or not an array: computed below
    array = np.asarray(compute())
    tmp = None
    try:
        os.makedirs(folder, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{name}-", suffix=".npy")
        with os.fdopen(fd, "wb") as f:
            np.save(f, array, allow_pickle=False)
        os.chmod(tmp, 0o644)  # mkstemp's 0600 would keep other users of a shared folder out
        os.replace(tmp, path)
    except OSError as e:
        if tmp is not None and os.path.exists(tmp):
            os.remove(tmp)
        if folder not in _WARNED:
            _WARNED.add(folder)
            warnings.warn(f"cannot keep computed tables in {folder} ({e}); set {ENV_VAR} to a writable folder, or "
                          f"to 'off'", stacklevel=2)
    return array
