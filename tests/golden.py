"""The shared frame of the golden regression tests (`tests/envs/<game>/test_<game>_golden.py`).

A game's golden test names its cases `(name, options, wrapped, max_turns, p_illegal)` and a function
`case_hashes(options, wrapped, max_turns, p_illegal, seed) -> [hash per episode]`; its expected hashes live
in a JSON file beside it, written once by running the test file as a script with `--write`, before a change
to the engine, and never regenerated to make a change pass.
"""

from __future__ import annotations

import json
import sys
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

Hashes = Callable[..., list[str]]


def all_hashes(cases: Sequence[tuple[Any, ...]], case_hashes: Hashes) -> dict[str, list[str]]:
    """Every case's hashes, case i seeded i + 1."""
    return {name: case_hashes(*rest, seed=i + 1) for i, (name, *rest) in enumerate(cases)}


def check(golden: Path, cases: Sequence[tuple[Any, ...]], case_hashes: Hashes, case: int) -> None:
    """Assert that case `case` hashes as the golden file says."""
    name, *rest = cases[case]
    expected = json.loads(golden.read_text())[name]
    assert case_hashes(*rest, seed=case + 1) == expected


def main(golden: Path, cases: Sequence[tuple[Any, ...]], case_hashes: Hashes, script: str) -> None:
    """`python <script> --write`: write the golden file (only before changing the engine)."""
    if "--write" not in sys.argv:
        sys.exit(f"usage: python {script} --write  (only before changing the engine)")
    warnings.simplefilter("ignore")
    golden.write_text(json.dumps(all_hashes(cases, case_hashes), indent=1) + "\n")
    print(f"wrote {golden}")
