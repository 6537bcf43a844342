"""Reports as strict JSON (non-finite floats as `null`: Python's `NaN` is rejected by other JSON readers), text
and figures, each written atomically into a regular file (`envs.core.files.atomic_path`)."""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from envs.core.files import OutputPathError, atomic_path, regular_target  # noqa: F401  (their home: envs.core.files)


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


def write_text(path: str, text: str) -> None:
    """Write `text` to `path` (UTF-8) atomically, into a regular file only (`atomic_path`)."""
    with atomic_path(path) as tmp, open(tmp, "w", encoding="utf-8", newline="") as f:
        f.write(text)


def write_json(path: str, obj: Any, indent: int = 2, default: Any = None) -> None:
    """Write `obj` to `path` as strict JSON, atomically, into a regular file only, making the folder if
    needed; `default` converts other objects, as in `json.dumps`.

    Raises:
        OutputPathError: `path` names a folder, device, FIFO or socket.
    """
    text = json.dumps(to_jsonable(obj), indent=indent, allow_nan=False, default=default)
    write_text(path, text + "\n")


def write_report(path: str | None, obj: Any, **how: Any) -> None:
    """A `--json PATH` flag's report: `write_json(path, obj, **how)` and a line saying so; nothing without `path`."""
    if path:
        write_json(path, obj, **how)
        print(f"wrote {path}")


def write_figure(fig: Any, path: str, dpi: int = 110) -> None:
    """Save a matplotlib figure to `path` (its format from the extension) atomically, into a regular file only."""
    with atomic_path(path) as tmp:
        fig.savefig(tmp, dpi=dpi)


@contextlib.contextmanager
def figure(path: str, figsize: tuple[float, float], dpi: int = 110) -> Iterator[tuple[Any, Any]]:
    """A matplotlib figure and its axes to draw on in the block; then laid out, written (`write_figure`) and closed."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=figsize)
    yield fig, ax
    fig.tight_layout()
    write_figure(fig, path, dpi=dpi)
    plt.close(fig)
