"""Primi Composti's evaluation jobs: the seed's tables (`reproduce`), exact solves of deals (`solve`),
position counts (`positions`) and terminal play (`play`).

`python -m evaluate primi_composti` reads `add_arguments(parser)` and `run(args)` from here."""

from evaluate.primi_composti.reproduce import add_arguments, run

__all__ = ["add_arguments", "run"]
