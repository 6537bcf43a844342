"""RoboRally's agents: `random` and the flag seeker (`strategies`), the lone-robot simulator (`solo`),
compiled playouts (`fast`), the seed's Monte-Carlo robot (`mc`), the distillation teacher (`teacher`)
and the student's features (`features`). Importing the package registers the agent ids and declares the
game's part of the agents layer (`agents.games`): its default line-up, kernels and compiled runner."""

from agents.games import declare
from agents.roborally import strategies  # noqa: F401  (registers its agent ids)

# compile_seconds: `python -m evaluate roborally --agents roborally/learned,roborally/greedy --games 2` on an empty
# numba cache less the same on a full one, measured: 48 CPU-s (2-core machine).
# The strongest baseline first (the default opponents), then the next strongest.
declare("roborally", default_lineup=("roborally/greedy", "roborally/random"), kernels="agents.roborally.fast",
        compiled_games="agents.roborally.fast:tournament_games",
        compile_seconds=50)
