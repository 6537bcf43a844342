"""Simple poker: self-play MaskablePPO; the curve tracks exact exploitability."""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from agents.policy import MixtureAgent
from agents.simple_poker.strategies import Behaviour, behaviour_of, exploitability, match_value
from envs.simple_poker.rules import SimplePokerGame
from train.presets import GameHooks

PRESET = {
    # 128 compiled tables x 16 steps: the snapshots play as exact behaviour-strategy kernels (300k steps in ~25 s)
    "timesteps": 300_000,
    "self_play": True,
    "n_envs": 128,
    "n_steps": 16,
    "batch_size": 512,
    "net_arch": [32, 32],
    "ent_coef": 0.0,
    "gamma": 1.0,
    "eval_every": 5_000,
    "eval_games": 0,
    "snapshot_every": 5_000,
    "pool_size": 100,
    "meta_solver": "nash",
}


#: Behaviour strategies of frozen self-play snapshots, read once each (a snapshot's weights never change; the live
#: policy's do, so only agents named `snapshot@...` are kept, and only while the pool holds them).
_FROZEN: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _behaviour(agent: Any, game: SimplePokerGame) -> Any:
    """`behaviour_of(agent, game)`, remembered for frozen snapshots; a mixture's is its members' weighted mean."""
    if isinstance(agent, MixtureAgent):
        bs = [_behaviour(m, game) for m in agent.members]
        w = np.asarray(agent.weights, float)
        return Behaviour(tuple(w @ np.array([b.bet for b in bs])), tuple(w @ np.array([b.call for b in bs])))
    if not str(getattr(agent, "name", "")).startswith("snapshot@"):
        return behaviour_of(agent, game)
    cached = _FROZEN.get(agent)
    if cached is None or cached[0] != game.config:
        cached = _FROZEN[agent] = (game.config, behaviour_of(agent, game))
    return cached[1]


def exact_exploitability(game: SimplePokerGame, agent: Any) -> dict[str, float]:
    """The learning-curve metric: the agent's exact exploitability (both seats' mean)."""
    return {"exploitability": exploitability(game, _behaviour(agent, game)).total}


def exact_match_value(game: SimplePokerGame, a: Any, b: Any) -> float:
    """Exact mean result of agent `a` against `b` over both seatings (the meta-solver's payoffs)."""
    return match_value(game, _behaviour(a, game), _behaviour(b, game))


def behaviour_kernel(game: SimplePokerGame, agent: Any) -> Any:
    """A frozen policy as the vector env's behaviour-strategy opponent: its exact bet and call probabilities."""
    from envs.core.vector import OpponentKernel
    from envs.simple_poker.vector import BEHAVIOUR

    b = _behaviour(agent, game)
    return OpponentKernel(getattr(agent, "name", "policy"), BEHAVIOUR, tuple(b.bet) + tuple(b.call))


HOOKS = GameHooks(metrics=exact_exploitability, match_value=exact_match_value, opponent_kernel=behaviour_kernel)
