"""Command-line parsing shared by `python -m evaluate` and `python -m train`: every usage error is one line."""

from __future__ import annotations

import argparse
import os
import sys
from typing import NoReturn


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


def fail(message: str, prog: str | None = None, status: int = 1) -> int:
    """Print `message` as one line on stderr; return `status` (for `sys.exit`)."""
    prefix = f"{prog}: " if prog else ""
    print(f"{prefix}error: {' '.join(str(message).split())}", file=sys.stderr)
    return status


def check_output_file(path: str, flag: str) -> None:
    """Raise `ValueError` (one line) unless `path` can be written as a file: checked
    before the work starts, so results are never lost to a bad output path."""
    if os.path.isdir(path):
        raise ValueError(f"{flag} {path!r} is a folder; give a file path")
    if os.path.exists(path):
        if not os.access(path, os.W_OK):
            raise ValueError(f"{flag} {path!r} is not writable")
        return
    parent = os.path.dirname(os.path.abspath(path))
    while not os.path.exists(parent):
        parent = os.path.dirname(parent)
    if not os.path.isdir(parent) or not os.access(parent, os.W_OK | os.X_OK):
        raise ValueError(f"{flag} {path!r} cannot be written: {parent!r} is not a writable folder")
