"""Reports as strict JSON.

Python's `json` writes an undefined figure (the interval of a mean over one
sample, a NaN) as `Infinity` / `NaN`, which other JSON readers (jq, JavaScript,
most dataframe loaders) reject. Every report this project writes goes through
`write_json`: non-finite floats become `null`, NumPy scalars and arrays become
plain numbers and lists, tuples become lists.
"""

from __future__ import annotations

import json
import math
import os
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


def write_json(path: str, obj: Any, indent: int = 2, default: Any = None) -> None:
    """Write `obj` to `path` as strict JSON (see the module docstring), atomically,
    making the folder if needed. `default` converts other objects, as in `json.dumps`;
    without it such an object raises TypeError."""
    folder = os.path.dirname(path)
    if folder:
        os.makedirs(folder, exist_ok=True)
    text = json.dumps(to_jsonable(obj), indent=indent, allow_nan=False, default=default)
    # A temporary file then one rename: a reader, or a kill, never sees half a file.
    tmp = os.path.join(folder, f".{os.path.basename(path)}.{os.getpid()}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text + "\n")
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
