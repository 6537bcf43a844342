"""Agents: the papers' strategies, exact solvers, search and trained policies.

Use `agents.make(agent_id, game, rng)`; `agents.known_ids(game)` lists the ids.
"""

from agents.base import (
    Agent,
    RandomAgent,
    expand_agent_ids,
    known_ids,
    labels_for,
    make,
    register,
    register_pattern,
)
from agents.vector import vector_env

__all__ = [
    "Agent", "RandomAgent", "expand_agent_ids", "known_ids", "labels_for", "make", "register", "register_pattern",
    "vector_env",
]
