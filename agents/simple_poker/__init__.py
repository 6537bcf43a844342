"""Simple poker's agents (registered and declared on import, `agents.games`): the exact equilibrium, thresholds
and the seed's tactics (`strategies`)."""

from agents.games import declare
from agents.simple_poker import strategies  # noqa: F401  (registers its agent ids)

declare("simple_poker", default_lineup=("simple_poker/nash", "simple_poker/threshold?t=2"),
        kernels="agents.simple_poker.strategies",
        exact_values="agents.simple_poker.strategies:exact_head_to_head",
        exploitability="agents.simple_poker.strategies:exploitability_of_agents")
