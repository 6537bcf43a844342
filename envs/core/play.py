"""The one game loop: seat agents around a rules engine and play.

Tournaments, cooperative team play, training evaluation and the single-agent
adapter all play through `play_out`, so "what an agent sees and how its action
is applied" is written once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from envs.core.game import Game, legal_mask, winners


def reseed_agent(agent: Any, rng: np.random.Generator) -> bool:
    """Make `agent` draw its random choices from `rng` from now on.

    An agent with a `reseed(rng)` method (a mixture re-seeds its members) is
    handed `rng` through it; otherwise an `rng` attribute holding a
    `np.random.Generator` (the registry's agents keep the generator they were
    built with there) is replaced. Returns whether the agent took `rng`: an agent
    with neither is assumed to make no random choices.
    """
    hook = getattr(agent, "reseed", None)
    if callable(hook):
        hook(rng)
        return True
    if isinstance(getattr(agent, "rng", None), np.random.Generator):
        agent.rng = rng
        return True
    return False


def reset_agent(agent: Any) -> None:
    """Call `agent.reset()` where it has one (an agent that keeps state between moves forgets the last game)."""
    reset = getattr(agent, "reset", None)
    if callable(reset):
        reset()


def play_out(
    game: Game,
    seated: Sequence[Any],
    state: Any,
    max_turns: int | None = None,
    until: Callable[[int], bool] | None = None,
) -> tuple[Any, int]:
    """Play from `state` with `seated[seat].act(view, mask)` choosing for each seat.

    Stops at a terminal state, after `max_turns` moves, or before the move of a
    seat for which `until(seat)` is true. Returns the state reached and the
    number of moves made.
    """
    turns = 0
    is_terminal, current_player, view, apply = game.is_terminal, game.current_player, game.view, game.apply
    while not is_terminal(state):
        if max_turns is not None and turns >= max_turns:
            break
        seat = current_player(state)
        if until is not None and until(seat):
            break
        action = seated[seat].act(view(state, seat), legal_mask(game, state))
        state = apply(state, int(action))
        turns += 1
    return state, turns


def play_game(
    game: Game, seated: Sequence[Any], state: Any, max_turns: int | None = None
) -> tuple[tuple[float, ...], tuple[int, ...], int]:
    """Play one game from `state` to its end (agents' `reset()` is called first).

    Returns the final returns, the winning seats and the number of moves. A game
    cut at `max_turns` counts as having no winner.
    """
    for agent in seated:
        reset_agent(agent)
    state, turns = play_out(game, seated, state, max_turns)
    if not game.is_terminal(state):
        return tuple(game.returns(state)), (), turns
    return tuple(game.returns(state)), winners(game, state), turns
