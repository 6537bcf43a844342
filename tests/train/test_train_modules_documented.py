"""docs/architecture.md's map of `train/` names every module the package has, so a module added or split off
(or one removed) cannot stay out of the map unnoticed."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def train_block() -> str:
    """The code block of docs/architecture.md that opens with `train/`."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```\n(train/\n.*?)```", text, flags=re.S)
    assert len(blocks) == 1, "docs/architecture.md should hold one code block that opens with train/"
    return blocks[0]


def test_the_architecture_map_names_every_train_module():
    block = train_block()
    named = set(re.findall(r"\b([a-z_]+\.py)\b", block))
    modules = {p.name for p in (ROOT / "train").glob("*.py") if p.name != "__init__.py"}
    assert modules - named == set(), f"train/ modules missing from docs/architecture.md: {sorted(modules - named)}"
    assert named - modules == set(), f"the map names modules train/ lacks: {sorted(named - modules)}"
