"""The code's shape rules that a reader relies on, checked over every non-test Python file.

No function is longer than `MAX_LINES` lines (its `def` line to its last line) unless it is a numba
kernel: a kernel's body is one compiled unit whose split can cost speed, so kernels are exempt.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 100
# Directories that hold no project code: tests, run outputs, caches, builds, environments.
SKIP_DIRS = {"tests", "runs", "results", "__pycache__", "build", "dist", "node_modules", "site-packages"}
KERNEL_DECORATORS = {"njit", "jit", "generated_jit", "vectorize", "guvectorize", "cfunc", "stencil", "register_jitable"}


def _python_files(root: Path) -> list[Path]:
    """Every project Python file under `root` outside tests, hidden folders (`.ci` kept) and environments."""
    found = []
    for here, dirs, files in os.walk(root):
        dirs[:] = sorted(
            d for d in dirs
            if d not in SKIP_DIRS and (not d.startswith(".") or d == ".ci")
            and not (Path(here, d) / "pyvenv.cfg").exists()
        )
        found.extend(Path(here, f) for f in sorted(files) if f.endswith(".py"))
    return found


def _is_kernel(func: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether a decorator compiles `func` with numba (`@njit`, `@jit(...)`, `@numba.njit(...)`, `@nb.jit`, ...)."""
    for deco in func.decorator_list:
        target = deco.func if isinstance(deco, ast.Call) else deco
        parts = ast.unparse(target).split(".")
        if parts[-1] in KERNEL_DECORATORS and (len(parts) == 1 or parts[0] in {"numba", "nb"}):
            return True
    return False


def long_functions(source: str, filename: str = "<source>", limit: int = MAX_LINES) -> list[str]:
    """'file:line name (N lines)' for each function in `source` over `limit` lines that is not a numba kernel."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not _is_kernel(node):
            lines = node.end_lineno - node.lineno + 1
            if lines > limit:
                found.append(f"{filename}:{node.lineno} {node.name} ({lines} lines)")
    return found


def test_no_function_over_100_lines_outside_numba_kernels():
    files = _python_files(ROOT)
    assert any(p.relative_to(ROOT).parts[0] == "envs" for p in files)  # the walk found the project
    long = [hit for p in files for hit in long_functions(p.read_text(), str(p.relative_to(ROOT)))]
    assert not long, f"functions over {MAX_LINES} lines (split them into named helpers): " + "; ".join(long)


def _function(name: str, decorator: str, body_lines: int) -> str:
    body = "".join(f"    x{i} = {i}\n" for i in range(body_lines))
    return f"{decorator}\ndef {name}():\n{body}"


@pytest.mark.parametrize("decorator", ["", "@staticmethod", "@functools.lru_cache(maxsize=None)", "@jitted.njit"])
def test_a_long_plain_function_is_named(decorator):
    source = "import functools\n\n" + _function("too_long", decorator, MAX_LINES)
    assert long_functions(source, "m.py") == [f"m.py:4 too_long ({MAX_LINES + 1} lines)"]
    assert long_functions(_function("fits", decorator, MAX_LINES - 1), "m.py") == []


@pytest.mark.parametrize(
    "decorator", ["@njit", "@njit(cache=True)", "@numba.njit(inline='always')", "@nb.jit(nopython=True)", "@jit"]
)
def test_a_long_numba_kernel_is_exempt(decorator):
    assert long_functions(_function("kernel", decorator, 3 * MAX_LINES), "m.py") == []


def test_a_long_method_nested_in_a_class_is_named():
    body = "".join(f"        y{i} = {i}\n" for i in range(MAX_LINES + 5))
    source = f"class Engine:\n    def execute(self):\n{body}"
    assert long_functions(source, "m.py") == [f"m.py:2 execute ({MAX_LINES + 6} lines)"]
