"""Primi Composti's agents (registered and declared on import, `agents.games`): the seed's players (`strategies`),
their kernels (`fast`), the exact solvers (`solvers`), the search teacher (`teacher`) and the students' features
(`features`)."""

from agents.games import declare
from agents.primi_composti import (
    strategies,  # noqa: F401  (registers its agent ids)
    teacher,  # noqa: F401  (registers its agent ids)
)

# compile_seconds: `python -m evaluate primi_composti --games 2` on an empty numba cache less the same on a full one,
# measured: 12 CPU-s with the default line-up (2-core machine).
declare("primi_composti", default_lineup=("primi_composti/minimax?depth=4", "primi_composti/greedy_rand"),
        kernels="agents.primi_composti.fast", compiled_games="agents.primi_composti.fast:tournament_games",
        compile_seconds=15)
