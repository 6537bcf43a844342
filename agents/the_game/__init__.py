"""The Game's agents: the seed's and the blog's strategies (`strategies`), their kernels (`fast`), the
rollout teacher (`rollout`) and the students' features (`features`). Importing the package registers
the agent ids."""

from agents.the_game import strategies  # noqa: F401  (registers its agent ids)
