"""Simple poker's agents: the exact equilibrium, thresholds and the seed's tactics (`strategies`).
Importing the package registers the agent ids."""

from agents.simple_poker import strategies  # noqa: F401  (registers its agent ids)
