"""Reports as strict JSON.

Python's `json` writes an undefined figure (the interval of a mean over one
sample, a NaN) as `Infinity` / `NaN`, which other JSON readers (jq, JavaScript,
most dataframe loaders) reject. Every report this project writes goes through
`write_json`: non-finite floats become `null`, NumPy scalars and arrays become
plain numbers and lists, tuples become lists.

Every result file (`write_json`, and CSV or text through `atomic_path`) is written into a
regular file only: a temporary file beside the target, then one rename, so a reader or a
kill never sees half a file. A path that names a device, a FIFO or a socket is refused
(`OutputPathError`) rather than replaced by the rename (as root, `--json /dev/null` would
otherwise turn /dev/null into a file); a path that is a link to a regular file updates the
file it points to and keeps the link; an existing file keeps its permissions.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import stat
import tempfile
from collections.abc import Iterator
from typing import Any

import numpy as np


def to_jsonable(obj: Any) -> Any:
    """`obj` with non-finite floats as None and NumPy values as Python ones."""
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return to_jsonable(obj.tolist())
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        x = float(obj)
        return x if math.isfinite(x) else None
    return obj


class OutputPathError(ValueError):
    """A result path that cannot be written as a regular file; the message is one line naming it."""


def _not_regular(mode: int) -> str | None:
    """What a non-regular file is, in words (None for a regular file)."""
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return None if stat.S_ISREG(mode) else "not a regular file"


def regular_target(path: str) -> str:
    """The file that writing `path` replaces: `path` with its links resolved, if it is absent or a regular file.

    Raises:
        OutputPathError: it exists and is a folder, device, FIFO or socket (one line naming it).
    """
    if not isinstance(path, str) or not path.strip():
        raise OutputPathError(f"cannot write results to {path!r}: an empty path")
    target = os.path.realpath(path)
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        return target
    what = _not_regular(mode)
    if what is not None:
        raise OutputPathError(f"cannot write results to {path!r}: it is {what}, not a regular file")
    return target


@contextlib.contextmanager
def atomic_path(path: str) -> Iterator[str]:
    """A temporary path to write the content of `path` to; when the block ends without an error the temporary
    file replaces the target (the folder is made if needed; see the module docstring), else it is removed.

    Raises:
        OutputPathError: `path` is not absent or a regular file, before the block and again before the rename.
    """
    target = regular_target(path)
    folder = os.path.dirname(target)
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=".tmp", dir=folder)
    os.close(fd)
    try:
        yield tmp
        try:
            mode = stat.S_IMODE(os.stat(target).st_mode)
        except FileNotFoundError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)
        with open(tmp, "rb") as f:
            os.fsync(f.fileno())
        regular_target(path)  # nothing else appeared there while the file was written
        os.replace(tmp, target)
    finally:
        if os.path.lexists(tmp):
            os.remove(tmp)


def write_text(path: str, text: str) -> None:
    """Write `text` to `path` (UTF-8) atomically, into a regular file only (`atomic_path`)."""
    with atomic_path(path) as tmp, open(tmp, "w", encoding="utf-8", newline="") as f:
        f.write(text)


def write_json(path: str, obj: Any, indent: int = 2, default: Any = None) -> None:
    """Write `obj` to `path` as strict JSON (see the module docstring), atomically, into a regular file only,
    making the folder if needed. `default` converts other objects, as in `json.dumps`; without it such an object
    raises TypeError.

    Raises:
        OutputPathError: `path` names a folder, device, FIFO or socket.
    """
    text = json.dumps(to_jsonable(obj), indent=indent, allow_nan=False, default=default)
    write_text(path, text + "\n")
