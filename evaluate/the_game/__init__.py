"""The Game's evaluation jobs: the seed's Monte Carlo table and the official-rules baselines (`reproduce`).

`python -m evaluate the_game` reads `add_arguments(parser)` and `run(args)` from here."""

from evaluate.the_game.reproduce import add_arguments, run

__all__ = ["add_arguments", "run"]
