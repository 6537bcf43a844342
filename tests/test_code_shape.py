"""The code's shape rules that a reader relies on, checked over every non-test Python file.

No function is longer than `MAX_LINES` lines (its `def` line to its last line) and none takes more than
`MAX_PARAMETERS` parameters (a config object instead) unless it is a numba kernel: a kernel's body is one
compiled unit whose split can cost speed, and its arguments are the arrays it runs over, so kernels are exempt.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 100
MAX_PARAMETERS = 10
#: Functions still over `MAX_PARAMETERS` ('file:name'), each a keyword-only surface of options with defaults;
#: an entry that is no longer over the limit fails the check.
MANY_PARAMETERS_ALLOWED: set[str] = set()
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


def parameter_count(func: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """How many parameters `func` takes: positional, keyword-only, `*args` and `**kwargs` (one each), less a
    leading `self` or `cls`."""
    a = func.args
    names = [p.arg for p in a.posonlyargs + a.args]
    count = len(names) + len(a.kwonlyargs) + (a.vararg is not None) + (a.kwarg is not None)
    return count - (names[:1] in (["self"], ["cls"]))


def many_parameters(source: str, filename: str = "<source>", limit: int = MAX_PARAMETERS) -> list[str]:
    """'file:line name (N parameters)' for each function in `source` with more than `limit` parameters that is
    not a numba kernel."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not _is_kernel(node):
            count = parameter_count(node)
            if count > limit:
                found.append(f"{filename}:{node.lineno} {node.name} ({count} parameters)")
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


def test_no_function_over_10_parameters_outside_numba_kernels():
    files = _python_files(ROOT)
    assert any(p.relative_to(ROOT).parts[0] == "evaluate" for p in files)  # the walk found the project
    many = [hit for p in files for hit in many_parameters(p.read_text(), str(p.relative_to(ROOT)))]
    named = {f"{hit.split(':')[0]}:{hit.split()[1]}": hit for hit in many}
    left = [hit for key, hit in named.items() if key not in MANY_PARAMETERS_ALLOWED]
    assert not left, (f"functions with more than {MAX_PARAMETERS} parameters (give them a config object): "
                      + "; ".join(left))
    stale = MANY_PARAMETERS_ALLOWED - set(named)
    assert not stale, f"allowed but no longer over the limit (drop them from MANY_PARAMETERS_ALLOWED): {stale}"


def _signature(name: str, params: list[str], decorator: str = "") -> str:
    return f"{decorator}\ndef {name}({', '.join(params)}):\n    return 0\n"


@pytest.mark.parametrize("decorator", ["", "@functools.lru_cache(maxsize=None)", "@jitted.njit"])
def test_a_function_with_many_parameters_is_named(decorator):
    eleven = [f"p{i}" for i in range(MAX_PARAMETERS + 1)]
    assert many_parameters(_signature("wide", eleven, decorator), "m.py") == [
        f"m.py:2 wide ({MAX_PARAMETERS + 1} parameters)"]
    assert many_parameters(_signature("fits", eleven[:-1], decorator), "m.py") == []


@pytest.mark.parametrize("params", [
    ["a", "b", "*args", "c", "d", "e", "f", "g", "h", "i", "**kwargs"],  # *args and **kwargs count one each
    ["a", "/", "b", "c", "d", "e", "*", "f", "g", "h", "i", "j", "k"],  # positional-only and keyword-only count
])
def test_every_kind_of_parameter_counts(params):
    assert many_parameters(_signature("wide", params), "m.py") == [f"m.py:2 wide ({MAX_PARAMETERS + 1} parameters)"]


def test_self_and_cls_do_not_count_and_kernels_are_exempt():
    ten = ", ".join(f"p{i}" for i in range(MAX_PARAMETERS))
    source = (f"class Engine:\n    def step(self, {ten}):\n        return 0\n\n"
              f"    @classmethod\n    def make(cls, {ten}):\n        return 0\n\n"
              f"    def wide(self, {ten}, extra):\n        return 0\n")
    assert many_parameters(source, "m.py") == [f"m.py:9 wide ({MAX_PARAMETERS + 1} parameters)"]
    for decorator in ("@njit", "@numba.njit(cache=True)", "@nb.jit(nopython=True)"):
        assert many_parameters(_signature("kernel", [f"p{i}" for i in range(30)], decorator), "m.py") == []
