"""Primi Composti's agents: the seed's players (`strategies`), their kernels (`fast`), the exact
solvers (`solvers`), the search teacher (`teacher`) and the students' features (`features`).
Importing the package registers the agent ids."""

from agents.primi_composti import (
    strategies,  # noqa: F401  (registers its agent ids)
    teacher,  # noqa: F401  (registers its agent ids)
)
