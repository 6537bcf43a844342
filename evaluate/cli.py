"""Command-line parsing shared by `python -m evaluate` and `python -m train`: every usage error is one line."""

from __future__ import annotations

import argparse
import os
import signal
import stat
import sys
import tempfile
from collections.abc import Sequence
from typing import NoReturn

import envs
from envs.core.files import file_kind


class Parser(argparse.ArgumentParser):
    """An `ArgumentParser` whose errors are one line on stderr (`prog: error: ...`)
    and exit status 2, without the usage block (`--help` still shows it)."""

    def error(self, message: str) -> NoReturn:
        """Print `message` as one line and exit 2."""
        self.exit(2, f"{self.prog}: error: {' '.join(message.split())}\n")


def positive_int(limit: int | None = None, low: int = 1):
    """An argparse `type`: an integer >= `low` (and <= `limit`), else a one-line error naming the range."""
    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if v < low or (limit is not None and v > limit):
            bound = f">= {low}" if limit is None else f"in {low}..{limit:,}"
            raise argparse.ArgumentTypeError(f"must be an integer {bound}, got {v}")
        return v

    parse.__name__ = "integer"
    return parse


def nonnegative_float(text: str) -> float:
    """An argparse `type`: a finite number >= 0, else a one-line error."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not v >= 0 or v == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0, got {text}")
    return v


def check_games(p: argparse.ArgumentParser, *games: str) -> None:
    """Exit through `p.error` naming the first of `games` that is not an available game, and the ones that are."""
    for g in games:
        if g not in envs.available_games():
            p.error(f"unknown or unavailable game {g!r}; available: {', '.join(envs.available_games())}")


def fail(message: str, prog: str | None = None, status: int = 1) -> int:
    """Print `message` as one line on stderr; return `status` (for `sys.exit`)."""
    prefix = f"{prog}: " if prog else ""
    print(f"{prefix}error: {' '.join(str(message).split())}", file=sys.stderr)
    return status


#: The output flags of every command (`python -m evaluate`, its `play` and `league`, `python -m train`) by
#: argparse destination: what each names, a file or a folder. `check_outputs` checks those a command was given.
OUTPUT_FLAGS: dict[str, str] = {"json": "file", "csv": "file", "record": "file", "png": "file", "docs": "file",
                                "out": "folder"}


def output_problem(path: str, kind: str = "file") -> str | None:
    """Why `path` cannot be written as a `kind` ("file" or "folder"), or None if it can: tried, not
    guessed from permission bits (an existing file opened for appending, else a probe file made and removed in the
    nearest existing folder); a device, FIFO or socket is refused from `os.stat` alone, never opened."""
    if not isinstance(path, str) or not path.strip():
        return "an empty path"
    if os.path.isdir(path) and kind == "file":
        return "it is a folder; give a file path"
    if os.path.exists(path) and not os.path.isdir(path):
        if kind == "folder":
            return "it exists and is not a folder"
        mode = os.stat(path).st_mode
        if not stat.S_ISREG(mode):
            return f"it is {file_kind(mode)}; results go to regular files only"
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_APPEND))
        except OSError as e:
            return f"it cannot be written ({e.strerror})"
        return None
    folder = os.path.abspath(path) if kind == "folder" else os.path.dirname(os.path.abspath(path))
    while not os.path.exists(folder):
        folder = os.path.dirname(folder)
    if not os.path.isdir(folder):
        return f"{folder!r} is a file, not a folder"
    try:
        fd, probe = tempfile.mkstemp(prefix=".write-check-", dir=folder)
    except OSError as e:
        return f"nothing can be written in {folder!r} ({e.strerror})"
    os.close(fd)
    os.remove(probe)
    return None


def apply_agent_options(game: str, ids: list[str], options: dict) -> dict:
    """`options` plus the game options that the agents `ids` were trained on and the user left out, each
    said in one line on stderr; a contradiction raises `ValueError` naming the `--option` to change."""
    from agents import resolve_options

    options, notes = resolve_options(game, ids, options)
    for note in notes:
        print(note, file=sys.stderr)
    return options


def check_outputs(args: argparse.Namespace, parser: argparse.ArgumentParser | None = None) -> None:
    """Check every output path `args` holds (the dests in `OUTPUT_FLAGS`) before any work starts:
    each can be written (`output_problem`) and no two file flags name the same file. With `parser`, an empty value
    (`--json=`) is refused unless "" is that flag's default.

    Raises:
        ValueError: one line naming the flag, the path and the reason (the commands print it and exit 2).
    """
    seen: dict[str, str] = {}
    for dest, kind in OUTPUT_FLAGS.items():
        path = getattr(args, dest, None)
        if path is None or (path == "" and (parser is None or parser.get_default(dest) == "")):
            continue
        flag = f"--{dest.replace('_', '-')}"
        problem = output_problem(path, kind)
        if problem is not None:
            raise ValueError(f"{flag} {path!r} cannot be written: {problem}")
        if kind == "file":
            real = os.path.realpath(path)
            if real in seen:
                raise ValueError(f"{flag} {path!r} cannot be written: it is the file {seen[real]} writes; give each "
                                 "its own path")
            seen[real] = f"{flag} {path!r}"


# --- stops: SIGTERM as Ctrl-C, and how the last line names them ------------------------------------------------
class Stopped(KeyboardInterrupt):
    """SIGTERM, raised where Ctrl-C raises `KeyboardInterrupt`, so that a stop by `kill` (a batch system's time
    limit, `timeout`, a container's stop) keeps the finished deals exactly as Ctrl-C does."""


#: The signal that stopped this command, once one has (SIGINT or SIGTERM), for its last line and exit status.
STOP: list[int] = []


def on_stop(signum: int, _frame: object) -> None:
    STOP.append(signum)
    raise Stopped() if signum == signal.SIGTERM else KeyboardInterrupt()


def stop_status() -> tuple[str, int]:
    """How the last line names the stop and the exit status: 130 after Ctrl-C, 143 (128 + 15) after SIGTERM."""
    if STOP and STOP[-1] == signal.SIGTERM:
        return "stopped by SIGTERM", 128 + signal.SIGTERM
    return "interrupted", 130


def stopped_exit(done: int, planned: int, paths: Sequence[str | None], lost: str | None = None) -> int:
    """The last line and exit status of a job stopped after `done` of `planned` deals with partial results in
    `paths` (those given): `stop_status`'s, or 1 naming `lost` where a Ray worker was lost and no signal came."""
    word, status = stop_status()
    if lost is not None and not STOP:
        word, status = f"stopped: {lost};", 1
    kept = " and ".join(p for p in paths if p)
    return fail(f"{word} after {done} of {planned} deals" + (f"; partial results in {kept}" if kept else ""),
                "python -m evaluate", status)
