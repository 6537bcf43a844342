"""Primi Composti's agents: the seed's players (`strategies`), their kernels (`fast`), the exact
solvers (`solvers`), the search teacher (`teacher`) and the students' features (`features`).
Importing the package registers the agent ids and declares the
game's part of the agents layer (`agents.games`): its default line-up, kernels and compiled runner."""

from agents.games import declare
from agents.primi_composti import (
    strategies,  # noqa: F401  (registers its agent ids)
    teacher,  # noqa: F401  (registers its agent ids)
)

# compile_seconds: `python -m evaluate primi_composti --games 2` on an empty numba cache less the same on a full one,
# measured: 12 CPU-s with the default line-up (2-core machine).
# The strongest baseline first (the default opponents), then the next strongest.
declare("primi_composti", default_lineup=("primi_composti/minimax?depth=4", "primi_composti/greedy_rand"),
        kernels="agents.primi_composti.fast", compiled_games="agents.primi_composti.fast:tournament_games",
        compile_seconds=15)
