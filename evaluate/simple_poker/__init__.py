"""Simple poker's evaluation jobs: exact payoffs, value and exploitability (`exact`).

`python -m evaluate simple_poker` reads `add_arguments(parser)` and `run(args)` from here."""

from evaluate.simple_poker.exact import add_arguments, run

__all__ = ["add_arguments", "run"]
