"""How the compiled kernels' small helpers are inlined: `INLINE`, the `inline=` of their `numba.njit`.

By default (`"always"`) a helper is inlined at numba IR level into each kernel that calls it, as if written out
there: the fastest code, and the slowest to compile, since the helper is typed again at every call site. With the
environment variable `TABLETOP_RL_FAST_COMPILE=1` set before the first import, helpers are compiled once each and
called (`"never"`): the test suite's kernels compile in under half the CPU time, L.A.M.A.'s vector env runs 15-20%
fewer steps a second. CI sets it (`.ci/run`); leave it unset for training and benchmarks. Helpers that take a
kernel as an argument (`decide`, `child`) stay inlined either way (numba cannot cache a kernel that passes a
first-class function on).

The kernels that step a batch of tables (each game's vector env reset and step) are compiled with `_nrt=False`,
without numba's reference counting: an atomic increment and decrement for each array a helper was handed, which
numba's pruning leaves in loops with branches, and which took most of a step's time (counted with
`NUMBA_DEBUG_NRT=1`, per learner step: L.A.M.A. ~140 pairs, RoboRally with flag seekers ~4,700). Such a kernel may not
allocate (numba refuses to compile it). numba compiles a callee with its caller's setting, so a kernel it calls that
allocates says `_nrt=True` (RoboRally's turn, its deal, its flag seeker's scratch, the `control="all_seats"` steps
of L.A.M.A. and RoboRally), and no helper it calls returns an array.

Numba's own cache checks only a kernel's source file; the locators installed below make a cached kernel stale
also when `INLINE` or the code of any project module its file imports changes (`dependency_stamp`).
"""

from __future__ import annotations

import ast
import functools
import hashlib
import os
from pathlib import Path

INLINE = "never" if os.environ.get("TABLETOP_RL_FAST_COMPILE", "") not in ("", "0") else "always"
_ROOT = Path(__file__).resolve().parents[2]
_PACKAGES = ("envs", "agents", "evaluate", "train")


def _module_file(name: str) -> str | None:
    """The source file of project module `name` (a package's `__init__.py`), or None outside the project."""
    if name.split(".")[0] not in _PACKAGES:
        return None
    base = _ROOT.joinpath(*name.split("."))
    for p in (base.with_suffix(".py"), base / "__init__.py"):
        if p.is_file():
            return str(p)
    return None


@functools.cache
def _read(path: str) -> tuple[str, frozenset[str]]:
    """A module's code digest (the sha256 of its source without its docstrings' lines) and the project files it
    imports (at its top or inside functions; `from a import b` counts `a.b` too)."""
    source = Path(path).read_text()
    lines = source.splitlines()
    package = list(Path(path).relative_to(_ROOT).parts[:-1])
    names: set[str] = set()
    for node in ast.walk(ast.parse(source, path)):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            parts = package[:len(package) - node.level + 1] if node.level else []
            module = ".".join(parts + ([node.module] if node.module else []))
            names.add(module)
            names.update(f"{module}.{a.name}" for a in node.names)
        body = getattr(node, "body", None)
        if (isinstance(body, list) and body and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str)):
            lines[body[0].lineno - 1:body[0].end_lineno] = [""] * (body[0].end_lineno - body[0].lineno + 1)
    digest = hashlib.sha256("\n".join(lines).encode()).hexdigest()
    return digest, frozenset(f for f in map(_module_file, names) if f is not None)


@functools.cache
def dependency_stamp(path: str) -> str:
    """One digest of the code of every project module `path` imports, directly or not (docstrings aside), and of
    `INLINE`: a compiled kernel's cache is stale when any of them changes, since numba folds the helpers and constants
    it takes from them into the kernel."""
    seen, todo = {path}, [path]
    while todo:
        for f in _read(todo.pop())[1] - seen:
            seen.add(f)
            todo.append(f)
    digests = sorted((str(Path(f).relative_to(_ROOT)), _read(f)[0]) for f in seen - {path})
    return hashlib.sha256(repr((INLINE, digests)).encode()).hexdigest()


def _stamped(locator: type) -> type:
    """`locator` (a numba cache locator class) for the project's files only, its source stamp extended by
    `dependency_stamp`."""

    class Stamped(locator):
        @classmethod
        def from_function(cls, py_func, py_file):
            path = Path(py_file).resolve()
            inside = path.is_relative_to(_ROOT) and path.relative_to(_ROOT).parts[0] in _PACKAGES
            return super().from_function(py_func, py_file) if inside else None

        def get_source_stamp(self):
            return super().get_source_stamp(), dependency_stamp(str(Path(self._py_file).resolve()))

    Stamped.__name__ = Stamped.__qualname__ = "Stamped" + locator.__name__
    return Stamped


def _install_cache_locators() -> None:
    """Put the stamped locators first in numba's list (idempotent): every `cache=True` kernel defined after this
    module is imported checks the code it depends on, not only its own file."""
    from numba.core import caching

    classes = caching.CacheImpl._locator_classes
    if any(c.__name__.startswith("Stamped") for c in classes):
        return
    stamped = [_stamped(c) for c in (caching.UserProvidedCacheLocator, caching.InTreeCacheLocator)]
    classes[:0] = stamped


_install_cache_locators()
