"""`the_game/rollout`: gated rollout improvement of `the_game/bestplays`, a teacher for The Game's students: it
leaves bestplays' move only for a candidate whose paired gain over `k` rollouts (bestplays in every seat, one redeal
of the unseen cards per rollout shared by every candidate) exceeds `gate` standard errors (docs/the_game.md, "Learned
policies"). Values (the `Teacher` protocol): minus the mean cards left of each candidate, one not significantly better
than bestplays' move set just below it, other legal moves `other_gap` below the worst candidate;
`action_estimates` also returns the ungated means.
"""

from __future__ import annotations

import numpy as np

from agents.search.teacher import TeacherAgent, gated_values
from agents.the_game.fast import BESTPLAYS_PARAMS, bestplays_rollouts, bestplays_view_scores, kernel_move
from envs.the_game import fast as engine
from envs.the_game.rules import END_TURN, NUM_ACTIONS, TheGame, View, play_action

_BELOW = 1e-3  # how far a not-significant candidate is set below bestplays' move


class RolloutTeacher(TeacherAgent):
    """Gated rollout improvement of bestplays (module docstring). Official rules, no communication.

    Args:
        game: the engine.
        rng: the generator the determinizations are drawn from.
        k: rollouts per candidate.
        extra: best plays by bestplays' score added as candidates.
        gate: standard errors of the paired gain needed to deviate from bestplays.
        other_gap: how far below the worst candidate the other legal moves are valued.
    """

    name = "the_game/rollout"

    def __init__(self, game: TheGame, rng: np.random.Generator, k: int = 64, extra: int = 4, gate: float = 2.0,
                 other_gap: float = 2.0):
        if not isinstance(rng, np.random.Generator):
            raise TypeError("The Game agents need an explicit np.random.Generator")
        c = game.config
        if c.rules != "official" or c.communication != "none":
            raise ValueError("the_game/rollout plays rules='official', communication='none'")
        if k < 2:
            raise ValueError(f"k must be an integer >= 2 (the gate needs a standard error), got {k!r}")
        self.game, self.rng = game, rng
        self.k, self.extra, self.gate, self.other_gap = int(k), int(extra), float(gate), float(other_gap)
        self.decisions = 0  # decisions searched (more than one candidate)
        self.deviations = 0  # of which the choice differs from bestplays'

    def candidates(self, view: View) -> tuple[list[int], int]:
        """Candidate action ids (bestplays' move first) and the index of bestplays' move (0)."""
        scores, move = bestplays_view_scores(view)
        hand = view.hand

        def action(m: int) -> int:
            return END_TURN if m == engine.END_TURN else play_action(hand[m % engine.MAX_HAND], m // engine.MAX_HAND)

        cands = [action(move)]
        order = sorted((s, p, i) for (p, i), s in np.ndenumerate(scores) if np.isfinite(s))
        for _, p, i in order:
            if len(cands) > self.extra:
                break
            a = play_action(hand[i], p)
            if a not in cands:
                cands.append(a)
        if view.played_this_turn >= view.required and END_TURN not in cands:
            cands.append(END_TURN)
        return cands, 0

    def action_estimates(self, view: View, action_mask: np.ndarray,
                         rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """(the gated values the teacher acts by, the search's ungated estimates) from
        the same rollouts (docs/the_game.md, "Learned policies")."""
        mask = np.asarray(action_mask).astype(bool)
        values = np.full(NUM_ACTIONS, np.nan)
        cands, _ = self.candidates(view)
        if len(cands) == 1:
            values[mask] = -self.other_gap
            values[cands[0]] = 0.0
            return values, values.copy()
        state = self.game.sample_state(view, rng)  # hidden cards are redealt per rollout below
        orders = engine.unseen_orders(view, self.k, int(rng.integers(2**63)))
        hand = view.hand
        left = bestplays_rollouts(self.game.config, state, [kernel_move(hand, a) for a in cands], orders,
                                  BESTPLAYS_PARAMS).astype(np.float64)
        v, means = gated_values(-left.T, self.gate, _BELOW)  # minus the cards left: higher is better
        estimates = np.full(NUM_ACTIONS, np.nan)
        estimates[mask] = means.min() - self.other_gap
        estimates[cands] = means
        values[mask] = v.min() - self.other_gap
        values[cands] = v
        self.decisions += 1
        self.deviations += int(v.argmax() != 0)
        return values, estimates


__all__ = ["RolloutTeacher"]
