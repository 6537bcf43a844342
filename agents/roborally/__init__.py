"""RoboRally's agents: `random` and the flag seeker (`strategies`), the lone-robot simulator (`solo`),
compiled playouts (`fast`), the seed's Monte-Carlo robot (`mc`), the distillation teacher (`teacher`)
and the student's features (`features`). Importing the package registers the agent ids."""

from agents.roborally import strategies  # noqa: F401  (registers its agent ids)
