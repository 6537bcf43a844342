"""Simple poker's agents: the exact equilibrium, thresholds and the seed's tactics (`strategies`).
Importing the package registers the agent ids and declares the
game's part of the agents layer (`agents.games`): its default line-up, kernels and compiled runner."""

from agents.games import declare
from agents.simple_poker import strategies  # noqa: F401  (registers its agent ids)

# The strongest baseline first (the default opponents), then the next strongest.
declare("simple_poker", default_lineup=("simple_poker/nash", "simple_poker/threshold?t=2"),
        kernels="agents.simple_poker.strategies",
        exact_values="agents.simple_poker.strategies:exact_head_to_head",
        exploitability="agents.simple_poker.strategies:exploitability_of_agents")
