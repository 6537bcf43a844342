"""L.A.M.A.'s agents: the seed's three strategies (`strategies`), their compiled kernels (`fast`) and the
PIMC search teacher (`pimc`). Importing the package registers the agent ids."""

from agents.lama import strategies  # noqa: F401  (registers its agent ids)
