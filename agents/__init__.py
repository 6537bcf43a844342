"""Agents: the papers' strategies, exact solvers, search and trained policies.

Use `agents.make(agent_id, game, rng)`; `agents.known_ids(game)` lists the ids;
`agents.resolve_options(game, ids, options)` adds the game options that trained agents need.
Each game's own package (`agents/<game>/`) registers its agents and declares its default line-up and kernels
(`agents.games.part(game)`), imported the first time the game is asked for.
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
from agents.games import GameAgents, default_lineup, part
from agents.options import describe_agent, required_options, resolve_options
from agents.vector import MultiVectorEnv, feature_vector_env, vector_env
from envs.gymnasium_registry import set_agent_resolver

# gymnasium.make("tabletop/<game>-v0", opponents=[ids]) resolves the ids, and seats the default line-up, here (envs
# never imports agents).
set_agent_resolver(make, vector_env, default_lineup)

__all__ = [
    "Agent", "GameAgents", "MultiVectorEnv", "RandomAgent", "describe_agent", "expand_agent_ids", "feature_vector_env",
    "known_ids", "labels_for", "make", "default_lineup", "part", "register",
    "register_pattern", "required_options", "resolve_options", "vector_env",
]
