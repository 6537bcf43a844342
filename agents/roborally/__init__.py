"""RoboRally's agents: `random` and the flag seeker (`strategies`), the lone-robot simulator (`solo`),
compiled playouts (`fast`), the seed's Monte-Carlo robot (`mc`), the distillation teacher (`teacher`)
and the student's features (`features`). Importing the package registers the agent ids and declares the
game's part of the agents layer (`agents.games`): its default line-up, kernels and compiled runner."""

from agents.games import declare
from agents.roborally import strategies  # noqa: F401  (registers its agent ids)

# The strongest baseline first (the default opponents), then the next strongest.
declare("roborally", default_lineup=("roborally/greedy", "roborally/random"), kernels="agents.roborally.fast",
        compiled_games="agents.roborally.fast:tournament_games")
