"""Primi Composti players: the seed's simple, greedy and minimax players, and an exact solver.

Source: Giacomin, Meneghetti, Roncolato, "Prime Strategies: Game Theoretic Insights into Primi Composti", §III-IV;
exact semantics in the rules specification, §4–5.

* `asc` / `desc`: lowest / highest card, ignoring the board.
* `rand`: the first remaining card in dealt order (hands keep the dealt random order; no generator needed).
* `greedy_asc` / `greedy_desc` / `greedy_rand`: a card of highest immediate score (v1 points scored; v2 stolen
  value + VALUE(card)); ties to the lowest, highest, or first in dealt order.
* `minimax_<d>`: alpha-beta over the next d plies, leaf value score(first player) − score(second), children in
  the mover's dealt order, the first child with the strictly best value played; 2 players only.
* `solver`: perfect play (`agents.primi_composti.solvers`); 2 players.

The greedy and minimax players run on their compiled kernels (`agents.primi_composti.fast`) under every option,
tested to make the same choices; with `steal_choice="player"` they use the seed's max-steal operand pair.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from agents.base import old_spelling, positive_int, register
from agents.primi_composti import fast as kernels
from agents.primi_composti.solvers import best_action, solver_for
from envs.primi_composti import fast as fast_path
from envs.primi_composti.rules import PrimiCompostiGame, State, View

SIMPLE = ("asc", "desc", "rand", "greedy_asc", "greedy_desc", "greedy_rand")


def order_cards(hand: tuple[int, ...], rule: str) -> list[int]:
    """The hand in a player's scan order: ascending, descending or dealt."""
    if rule == "asc":
        return sorted(hand)
    if rule == "desc":
        return sorted(hand, reverse=True)
    return list(hand)


def greedy_card(game: PrimiCompostiGame, state: State, rule: str) -> int:
    """The card a greedy player picks (rules §5): scan in `rule` order, keep the
    first strictly better immediate score (the seed stops early at the maximum,
    which cannot change the choice)."""
    best, best_c = -1, -1
    for c in order_cards(state.hands[game.current_player(state)], rule):
        s = game.immediate_score(state, c)
        if s > best:
            best, best_c = s, c
    return best_c


def score_difference(state: State) -> int:
    """score(first player) − score(second): the seed's minimax leaf value."""
    return state.scores[state.first] - state.scores[1 - state.first]


def seed_action(game: PrimiCompostiGame, state: State, card: int) -> int:
    """The action playing `card` with the seed's operand choice (max-steal)."""
    if not game.player_choice:
        return game.action_of(card)
    pair, _ = game.best_pair(state.stacks, game.current_player(state), card)
    return game.action_of(card, 0 if pair is None else pair + 1)


def alphabeta(game: PrimiCompostiGame, state: State, depth: int, alpha: float, beta: float) -> float:
    """Plain alpha-beta value (the reference for the fast path), children in dealt order."""
    if depth == 0 or game.is_terminal(state):
        return score_difference(state)
    mover = game.current_player(state)
    maximizing = mover == state.first
    best = -np.inf if maximizing else np.inf
    for c in state.hands[mover]:
        v = alphabeta(game, game.apply(state, seed_action(game, state, c)), depth - 1, alpha, beta)
        if maximizing:
            best = max(best, v)
            alpha = max(alpha, best)
        else:
            best = min(best, v)
            beta = min(beta, best)
        if beta <= alpha:
            break
    return best


def minimax_card(game: PrimiCompostiGame, state: State, depth: int) -> int:
    """The card minimax_depth plays: first child (dealt order) with the strictly best value."""
    mover = game.current_player(state)
    maximizing = mover == state.first
    alpha, beta = -np.inf, np.inf
    best = -np.inf if maximizing else np.inf
    best_c = -1
    for c in state.hands[mover]:
        v = alphabeta(game, game.apply(state, seed_action(game, state, c)), depth - 1, alpha, beta)
        if (maximizing and v > best) or (not maximizing and v < best):
            best, best_c = v, c
        if maximizing:
            alpha = max(alpha, best)
        else:
            beta = min(beta, best)
    return best_c


class SeedPlayer:
    """One of the seed's players (`asc` … `greedy_rand`, `minimax_<d>`).

    Args:
        game: the engine it plays.
        rng: unused (the seed's players are deterministic given the dealt order);
            kept for the agent protocol.
        policy: the player's name.
        fast: use the compiled path when the configuration allows it.
    """

    def __init__(self, game: PrimiCompostiGame, rng: np.random.Generator | None = None, policy: str = "rand",
                 fast: bool = True):
        minimax = policy.startswith("minimax_") and policy[8:].isdigit() and int(policy[8:]) >= 1
        if policy not in SIMPLE and not minimax:
            raise ValueError(f"unknown player {policy!r}; players: {', '.join(SIMPLE)}, minimax_<d> (d >= 1)")
        if policy.startswith("minimax_") and game.num_players != 2:
            raise ValueError("minimax players need 2 players (complete information, as in the seed)")
        self.game = game
        self.policy = policy
        self.name = f"primi_composti/{policy}"
        self._fast = fast and fast_path.supports(game) and policy not in ("asc", "desc", "rand")

    def card(self, state: State) -> int:
        """The card this player plays in `state`."""
        hand = state.hands[self.game.current_player(state)]
        p = self.policy
        if self._fast:
            return kernels.choose_card(self.game, state, p)
        if p in ("asc", "desc", "rand"):  # the first card of its scan order
            return order_cards(hand, p)[0]
        if p.startswith("greedy_"):
            return greedy_card(self.game, state, p[7:])
        return minimax_card(self.game, state, int(p[8:]))

    def act(self, view: View, action_mask: np.ndarray) -> int:
        """The action for `view` (the hidden hands are not needed: simple and greedy
        players look at their own hand and the stacks; minimax has complete
        information with 2 players)."""
        game = self.game
        if game.num_players == 2:
            state = game.state_of_view(view)
        else:
            own = view.hands[view.seat]
            if own is None:
                raise ValueError(f"the view of seat {view.seat} does not show its own hand")
            hands = tuple(h if h is not None else () for h in view.hands)
            state = State(hands, view.stacks, view.scores, view.turn, view.first)
        card = self.card(state)
        return seed_action(game, state, card)


class SolverPlayer:
    """Perfect play: the first card (dealt order) of optimal value (under `steal_choice="player"` with its lowest
    optimal operand choice), from the exact solver of the game's rules (`solvers.solver_for`: the seed's rules and
    version 2's official options; the official ones on the reference solver, practical to about 8 cards a hand)."""

    name = "primi_composti/solver"

    def __init__(self, game: PrimiCompostiGame, rng: np.random.Generator | None = None):
        self.game = game
        self.solver = solver_for(game, tt_bits=20)  # kept across decisions (v2: later ones reuse its table)

    def act(self, view: View, action_mask: np.ndarray) -> int:
        """The optimal action."""
        return best_action(self.game, self.game.state_of_view(view), self.solver)


#: One line per seed player, for listings (`python -m evaluate list`).
_DOCS = {"asc": "The seed's player that plays its lowest card.",
         "desc": "The seed's player that plays its highest card.",
         "rand": "The seed's player that plays its cards in the dealt (random) order.",
         "greedy_asc": "The seed's greedy player: the best immediate score, ties to the lowest card.",
         "greedy_desc": "The seed's greedy player: the best immediate score, ties to the highest card.",
         "greedy_rand": "The seed's greedy player: the best immediate score, ties to the first dealt card."}
for _p in SIMPLE:
    register(f"primi_composti/{_p}", partial(SeedPlayer, policy=_p), doc=_DOCS[_p])
def _minimax(game: Any, rng: np.random.Generator, depth: int | None = None) -> SeedPlayer:
    if depth is None:
        raise ValueError("primi_composti/minimax needs its search depth: primi_composti/minimax?depth=N (N >= 1)")
    return SeedPlayer(game, rng, f"minimax_{depth}")


register("primi_composti/minimax", _minimax, params={"depth": positive_int},
         doc="The seed's minimax player searching ?depth= plies (2 players).")
old_spelling(r"primi_composti/minimax_(?P<d>\d+)", lambda d: f"primi_composti/minimax?depth={int(d)}")
register("primi_composti/solver", SolverPlayer)
