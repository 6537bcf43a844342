"""docs/architecture.md's rule-homes tables against the code: every readable home, compiled kernel (and kernel
block) and differential test a row names exists, and every registered game has its deal, legality, apply and
returns rows, so the page cannot drift from the code unnoticed.

A table is checked when its header starts `| Game | Rule |`. Its third and fourth cells name Python objects as
`module:qualified.name` (a kernel block as `` `module:kernel` block "Name" ``: the kernel's source has a comment
`# Name`); its fifth names tests as `path::test` or `path::Class::test` (a method a test class inherits from a class
defined elsewhere under tests/ counts, as pytest runs it).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from functools import cache
from pathlib import Path

import pytest

import envs

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"
REQUIRED_KINDS = ("deal", "legality", "apply", "returns")
SHARED = "core"  # the Game cell of rules every game shares (envs/core)
_REF = re.compile(r'`([^`]+)`(?:\s+block\s+"([^"]+)")?')


def rule_rows(text: str) -> list[list[str]]:
    """The body rows (cells stripped) of every table in `text` whose header starts with `| Game | Rule |`."""
    rows, in_table = [], False
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.lstrip().startswith("|") else None
        if cells is None:
            in_table = False
        elif cells[:2] == ["Game", "Rule"]:
            in_table = True
        elif in_table and not set("".join(cells)) <= set("-: "):
            rows.append(cells)
    return rows


def _object_problem(ref: str, block: str | None) -> str | None:
    """Why `module:qualified.name` (and its kernel block) does not resolve, or None."""
    module, sep, qualname = ref.partition(":")
    if not sep or not module or not qualname:
        return f"`{ref}` is not module:name"
    try:
        obj = importlib.import_module(module)
    except ImportError as e:
        return f"`{ref}`: module {module} does not import ({e})"
    for part in qualname.split("."):
        if not hasattr(obj, part):
            return f"`{ref}`: no {part!r} in {getattr(obj, '__name__', module)}"
        obj = getattr(obj, part)
    if block is not None:
        source = inspect.getsource(getattr(obj, "py_func", obj))
        if f"# {block}" not in source:
            return f'`{ref}` block "{block}": no comment "# {block}" in its source'
    return None


@cache
def _classes(path: Path) -> dict[str, ast.ClassDef]:
    """The top-level classes of a Python file, by name."""
    tree = ast.parse(path.read_text(), str(path))
    return {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}


def _has_method(cls: ast.ClassDef, name: str, seen: frozenset = frozenset()) -> bool:
    """Whether `cls` defines `name` or inherits it from a class defined in a file under tests/."""
    if any(isinstance(n, ast.FunctionDef) and n.name == name for n in cls.body):
        return True
    for base in cls.bases:
        base_name = base.id if isinstance(base, ast.Name) else None
        if base_name is None or base_name in seen:
            continue
        for path in sorted((ROOT / "tests").rglob("*.py")):
            found = _classes(path).get(base_name)
            if found is not None and _has_method(found, name, seen | {base_name}):
                return True
    return False


def _test_problem(ref: str) -> str | None:
    """Why `path::test` or `path::Class::test` names no test, or None."""
    path, *names = ref.split("::")
    file = ROOT / path
    if not names or len(names) > 2 or not path.endswith(".py"):
        return f"`{ref}` is not path::test or path::Class::test"
    if not names[-1].startswith("test"):
        return f"`{ref}`: {names[-1]} is not a test's name"
    if not file.is_file():
        return f"`{ref}`: no file {path}"
    tree = ast.parse(file.read_text(), path)
    if len(names) == 1:
        if not any(isinstance(n, ast.FunctionDef) and n.name == names[0] for n in tree.body):
            return f"`{ref}`: no test function {names[0]} in {path}"
        return None
    cls = _classes(file).get(names[0])
    if cls is None:
        return f"`{ref}`: no class {names[0]} in {path}"
    if not _has_method(cls, names[1]):
        return f"`{ref}`: {names[0]} has no test {names[1]}"
    return None


def _row_problems(cells: list[str]) -> list[str]:
    """What is wrong with one table row: its cells, the objects and the tests it names."""
    if len(cells) != 5:
        return [f"row {cells}: 5 cells expected, got {len(cells)}"]
    game, rule, readable, compiled, tests = cells
    where = f"{game} / {rule.split(':')[0]}"
    found = []
    if game != SHARED and game not in envs.registered():
        found.append(f"{where}: {game!r} is not a registered game nor {SHARED!r}")
    for column, cell in (("readable home", readable), ("compiled home", compiled), ("test", tests)):
        refs = _REF.findall(cell)
        if not refs:
            found.append(f"{where}: its {column} names nothing")
        for ref, block in refs:
            if column == "test":
                problem = None if block == "" else f"`{ref}`: a test has no block"
                problem = problem or _test_problem(ref)
            else:
                problem = _object_problem(ref, block or None)
            if problem:
                found.append(f"{where}, {column}: {problem}")
    return found


def problems(text: str, games: tuple[str, ...]) -> list[str]:
    """Everything in `text`'s rule-homes tables that does not match the code, and each rule kind of
    `REQUIRED_KINDS` that a game of `games` has no row for."""
    rows = rule_rows(text)
    found = [p for cells in rows for p in _row_problems(cells)]
    kinds = {(cells[0], cells[1].split(":")[0].split()[0]) for cells in rows if len(cells) == 5 and cells[1]}
    found += [f"{game}: no {kind!r} row" for game in games for kind in REQUIRED_KINDS if (game, kind) not in kinds]
    return found


def test_the_rule_homes_tables_name_what_the_code_has():
    text = DOC.read_text()
    assert len(rule_rows(text)) >= 5 * len(REQUIRED_KINDS)
    found = problems(text, envs.GAMES)
    assert not found, "docs/architecture.md's rule homes do not match the code:\n" + "\n".join(found)


def _row(game="lama", rule="scoring: hand points", readable="`envs.lama.rules:hand_points`",
         compiled="`envs.lama.fast:hand_points`",
         test="`tests/envs/lama/test_lama_rule_twins.py::test_hand_points_twins_on_random_hands`") -> str:
    return f"| Game | Rule | Readable | Compiled | Test |\n| --- | --- | --- | --- | --- |\n" \
           f"| {game} | {rule} | {readable} | {compiled} | {test} |\n"


def test_a_correct_row_passes():
    assert problems(_row(), ()) == []
    assert problems(_row(compiled='`envs.roborally.fast:_convey` block "Among unique-target movers"'), ()) == []
    inherited = ("`tests/envs/lama/test_lama_vector.py::TestVectorContract"
                 "::test_random_opponents_replay_in_the_plain_engine`")
    assert problems(_row(test=inherited), ()) == []


@pytest.mark.parametrize("row,expected", [
    (_row(readable="`envs.lama.rules:hand_point`"), "no 'hand_point' in envs.lama.rules"),
    (_row(readable="`envs.lama.rules:LamaGame.aply`"), "no 'aply' in"),
    (_row(compiled="`envs.lama.fastt:hand_points`"), "module envs.lama.fastt does not import"),
    (_row(compiled='`envs.roborally.fast:turn_kernel` block "Lazers"'), 'no comment "# Lazers"'),
    (_row(compiled="envs.lama.fast:hand_points"), "its compiled home names nothing"),
    (_row(test="`tests/envs/lama/test_lama_rule_twins.py::test_hand_points_twin`"), "no test function"),
    (_row(test="`tests/envs/lama/test_lama_rule_twin.py::test_hand_points_twins_on_random_hands`"), "no file"),
    (_row(test="`tests/envs/lama/test_lama_vector.py::TestVectorContract::test_replays`"), "has no test test_replays"),
    (_row(test="`tests/envs/lama/test_lama_rule_twins.py::_bits_to_actions`"), "is not a test's name"),
    (_row(game="llama"), "'llama' is not a registered game"),
])
def test_a_misspelt_name_is_found(row, expected):
    found = problems(row, ())
    assert len(found) == 1 and expected in found[0], found


def test_a_game_without_its_main_rows_is_found():
    assert problems(_row(), ("lama",)) == [f"lama: no {kind!r} row" for kind in REQUIRED_KINDS]
    assert problems(_row(rule="deal: the hands"), ("lama",)) == [
        f"lama: no {kind!r} row" for kind in REQUIRED_KINDS if kind != "deal"]
