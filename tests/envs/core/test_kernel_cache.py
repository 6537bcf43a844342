"""numba's cache of the project's kernels goes stale with the code they import (envs.core.jit's locators)."""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

numba = pytest.importorskip("numba")

KERNEL_MODULES = [
    "envs.lama.fast", "envs.the_game.fast", "envs.primi_composti.fast", "envs.roborally.fast",
    "envs.roborally.choice", "envs.roborally.joint", "envs.core.kernels",
    "agents.lama.fast", "agents.the_game.fast", "agents.the_game.features_fast", "agents.primi_composti.fast",
    "agents.primi_composti.solvers._kernels", "agents.primi_composti.solvers.reference",
    "agents.primi_composti.solvers.alphabeta_v1", "agents.primi_composti.solvers.alphabeta_v2",
    "agents.primi_composti.solvers.retrograde_v1", "agents.roborally.fast", "agents.roborally.mc",
    "agents.roborally.joint",
]


def test_every_cached_kernel_checks_what_it_imports():
    """Each module of the project that caches a kernel is listed above, and each of its cached kernels is located
    by a stamped locator (the project's locators are installed before any kernel is defined)."""
    root = Path(__file__).resolve().parents[3]
    cached = set()
    for package in ("envs", "agents", "evaluate", "train"):
        for path in (root / package).rglob("*.py"):
            if re.search(r"jit\([^)]*cache=True", path.read_text()):
                cached.add(".".join(path.relative_to(root).with_suffix("").parts))
    assert cached == set(KERNEL_MODULES)
    seen = 0
    for name in KERNEL_MODULES:
        module = importlib.import_module(name)
        for obj in vars(module).values():
            impl = getattr(getattr(obj, "_cache", None), "_impl", None)
            if isinstance(obj, numba.core.dispatcher.Dispatcher) and impl is not None:
                assert type(impl.locator).__name__.startswith("Stamped"), (name, obj)
                seen += 1
    assert seen >= len(KERNEL_MODULES)


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).write_text(textwrap.dedent(text))


def test_a_kernel_recompiles_when_a_module_it_inlines_changes(tmp_path):
    """A cached kernel that inlines a helper from another module returns the helper's new value after only that
    module changed, in a fresh process (numba alone would load the old code), and keeps its cache when only the
    helper's docstring changed."""
    pkg = tmp_path / "kernpkg"
    pkg.mkdir()
    _write(pkg, {"__init__.py": "", "helper.py": '''
        import numba

        @numba.njit(inline="always")
        def value():
            """The value."""
            return 1
        ''', "kern.py": '''
        import numba
        from kernpkg.helper import value

        @numba.njit(cache=True)
        def kernel():
            return value() * 10
        '''})
    script = textwrap.dedent(f"""
        import sys
        from pathlib import Path
        import envs.core.jit as jit
        jit._ROOT, jit._PACKAGES = Path({str(tmp_path)!r}), ("kernpkg",)
        sys.path.insert(0, {str(tmp_path)!r})
        from kernpkg.kern import kernel
        print(kernel(), sum(kernel.stats.cache_hits.values()))
    """)
    repo = Path(__file__).resolve().parents[3]

    def run() -> list[int]:
        out = subprocess.run([sys.executable, "-c", script], cwd=repo, capture_output=True, text=True, check=True,
                             env={**os.environ, "PYTHONPATH": str(repo)})
        return [int(x) for x in out.stdout.split()]

    assert run() == [10, 0]  # compiled
    assert run() == [10, 1]  # from the cache
    helper = pkg / "helper.py"
    helper.write_text(helper.read_text().replace('"""The value."""', '"""The value, documented again."""'))
    assert run() == [10, 1]  # a docstring is not code
    helper.write_text(helper.read_text().replace("return 1", "return 2"))
    assert run() == [20, 0]  # stale: compiled again
