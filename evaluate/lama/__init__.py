"""L.A.M.A.'s evaluation jobs: the seed's tables reproduced and strategy 3 re-tuned (`reproduce`).

`python -m evaluate lama` reads `add_arguments(parser)` and `run(args)` from here."""

from evaluate.lama.reproduce import add_arguments, run

__all__ = ["add_arguments", "run"]
