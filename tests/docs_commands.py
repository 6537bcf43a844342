"""The `python -m evaluate|train ...` commands of README.md and docs/*.md, and how to run them small.

`doc_commands()` extracts every command from fenced and indented code blocks and from inline code spans
(prose and tables), in document order: shell prompts, environment assignments, `nice`, trailing
comments and optional `[...]` parts are dropped, `cmd1 && cmd2` and `cmd1; cmd2` are split, and a
`for n in A B ...; do ... $n ...; done` loop runs its body once with the first value. A command with
placeholders (`GAME`, `RUN`, `N`, `...`) is a synopsis, not a command, and is reported as one.

`shrink(argv)` rewrites the sizes of a command (games, timesteps, episodes, deals, races, rounds) to the
smallest values it accepts and adds the size flags that a preset would otherwise fill, so that every
command of the documentation runs in seconds (tests/test_docs_commands.py).
"""

from __future__ import annotations

import glob
import os
import re
import shlex

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PATTERN = re.compile(r"python -m (?:evaluate|train)\b")
#: Upper-case words that stand for a value in a synopsis (`python -m train GAME ...`).
PLACEHOLDER = re.compile(r"(?<![\w/.-])(?:GAME|RUN|IDS?|N|K|V|DIR|STEPS|PATH|HOST|JSON|GIF|A,B|KEY=VALUE|HEAD:\d+)"
                         r"(?![\w/])|\.\.\.|<[^>]*>")


def doc_files() -> list[str]:
    """README.md and docs/*.md, relative to the repository root."""
    return ["README.md"] + sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "docs", "*.md")))


def _snippets(text: str) -> list[tuple[int, str, bool]]:
    """(line, text, is_block) of every code block line group and inline code span."""
    out: list[tuple[int, str, bool]] = []
    lines = text.splitlines()
    i, prose = 0, []
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith("```"):
            j = i + 1
            block = []
            while j < len(lines) and not lines[j].lstrip().startswith("```"):
                block.append((j + 1, lines[j]))
                j += 1
            out += [(n, t, True) for n, t in _join_continuations(block)]
            i = j + 1
            continue
        if (line.startswith("    ") and line.strip() and (i == 0 or not lines[i - 1].strip())
                and not line.lstrip().startswith(("*", "-", "|"))):
            out.append((i + 1, line.strip(), True))
        prose.append((i + 1, line))
        i += 1
    # inline spans may run across a line break: join each paragraph
    para: list[tuple[int, str]] = []
    for n, line in prose + [(0, "")]:
        if line.strip():
            para.append((n, line))
            continue
        if para:
            joined = " ".join(t.strip() for _, t in para)
            for m in re.finditer(r"`([^`]+)`", joined):
                out.append((para[0][0], m.group(1), False))
        para = []
    return sorted(out, key=lambda x: x[0])


def _join_continuations(block: list[tuple[int, str]]) -> list[tuple[int, str]]:
    out, cur, start = [], "", 0
    for n, line in block:
        if not cur:
            start = n
        cur += line.rstrip()[:-1] + " " if line.rstrip().endswith("\\") else line
        if not line.rstrip().endswith("\\"):
            out.append((start, cur))
            cur = ""
    if cur:
        out.append((start, cur))
    return out


def _strip_comment(text: str) -> str:
    lexer = shlex.shlex(text, posix=True, punctuation_chars=False)
    lexer.whitespace_split, lexer.commenters = True, "#"
    # find where a comment starts outside quotes: shlex stops there
    try:
        tokens = list(lexer)
    except ValueError:
        return text
    if "#" not in text:
        return text
    pos = text.find(" #")
    while pos >= 0:
        before = text[:pos]
        if before.count("'") % 2 == 0 and before.count('"') % 2 == 0:
            return before
        pos = text.find(" #", pos + 1)
    return " ".join(tokens)


def doc_commands() -> list[tuple[str, int, str, dict[str, str]]]:
    """(file, line, command, environment) of every command in the documentation, in order, a file's duplicates
    once (each file stands alone: a command that reads what an earlier one wrote finds it in its own file); the
    environment holds the variables a code block `export`s before it."""
    seen, out = set(), []
    for path in doc_files():
        with open(os.path.join(ROOT, path), encoding="utf-8") as f:
            text = f.read()
        loop: tuple[str, str] | None = None
        env: dict[str, str] = {}
        for line, snippet, is_block in _snippets(text):
            snippet = _strip_comment(snippet.strip()).strip()
            if snippet.startswith("$ "):
                snippet = snippet[2:]
            for part in re.split(r"\s*(?:&&|;)\s*", snippet):
                m = re.match(r"^export (\w+)=(\S+)$", part)
                if m and is_block:
                    env[m.group(1)] = m.group(2)
                    continue
                m = re.match(r"^for (\w+) in (\S+)", part)
                if m:
                    loop = (m.group(1), m.group(2))
                    continue
                if part in ("done",):
                    loop = None
                    continue
                part = re.sub(r"^do\s+", "", part)
                if loop is not None:
                    part = part.replace(f"${loop[0]}", loop[1])
                m = PATTERN.search(part)
                if not m:
                    continue
                if is_block and not re.fullmatch(r"(?:(?:\w+=\S*|nice|time|\S*/)\s+|\S*/)*", part[:m.start()]):
                    continue  # a command quoted inside output or prose, not one to type
                if re.match(r"python -m [\w.]+:", part[m.start():]):
                    continue  # "python -m train: ..." names the command (a layout listing, an error line)
                cmd = re.sub(r"\s*\[[^\]]*\]", "", part[m.start():]).strip()
                cmd = " ".join(cmd.split())
                if (path, cmd) not in seen:  # per file: a file's later commands may read what it wrote
                    seen.add((path, cmd))
                    out.append((path, line, cmd, dict(env)))
            if not is_block:
                loop = None
    return out


def is_synopsis(cmd: str) -> bool:
    """A command with placeholders (`GAME`, `RUN`, `N`, `...`) shows a form, not a command to run."""
    return bool(PLACEHOLDER.search(cmd.split(" ", 3)[-1] if cmd.count(" ") >= 3 else ""))
