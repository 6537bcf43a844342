"""RoboRally's evaluation jobs: boards listed and pictured, races recorded (`boards`), and the race
studies (`study`).

`python -m evaluate roborally` reads `add_arguments(parser)` and `run(args)` from here."""

from evaluate.roborally.boards import add_arguments, run

__all__ = ["add_arguments", "run"]
