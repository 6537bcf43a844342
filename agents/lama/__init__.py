"""L.A.M.A.'s agents (registered and declared on import, `agents.games`): the seed's three strategies
(`strategies`), their compiled kernels (`fast`) and the PIMC search teacher (`pimc`)."""

from agents.games import declare
from agents.lama import strategies  # noqa: F401  (registers its agent ids)

# compile_seconds: `python -m evaluate lama --games 2` on an empty numba cache less the same on a full one, measured:
# 20 CPU-s with the default line-up, 9 with lama/ppo + 3 x lama/first (2-core machine).
declare("lama", default_lineup=("lama/first", "lama/third"), kernels="agents.lama.fast",
        compiled_games="agents.lama.fast:tournament_games",
        compile_seconds=20)
