"""The Game's agents (registered and declared on import, `agents.games`): the seed's and the blog's strategies
(`strategies`), their kernels (`fast`), the rollout teacher (`rollout`) and the students' features (`features`)."""

from agents.games import declare
from agents.the_game import strategies  # noqa: F401  (registers its agent ids)

# compile_seconds: `python -m evaluate the_game --games 2` on an empty numba cache less the same on a full one,
# measured: 7 CPU-s with the default line-up and with the_game/ppo-3p x 3 (2-core machine).
declare("the_game", default_lineup=("the_game/bestplays",), kernels="agents.the_game.fast",
        compiled_games="agents.the_game.fast:tournament_games",
        compile_seconds=10)
