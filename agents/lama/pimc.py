"""`lama/pimc`: perfect-information Monte Carlo over blueprint rollouts (PIMC, Long et al., a one-step policy
improvement, Tesauro and Galperin), a teacher for L.A.M.A.'s students: it leaves the blueprint's action only for one
whose paired gain over `k` shared deals exceeds `gate` standard errors (docs/lama.md, "Learned policies"). Values (the
`Teacher` protocol): the mean win share of each legal action (a win shared by k seats counts 1/k), one not
significantly better than the blueprint's set just below it; `action_estimates` also returns the ungated means.
"""

from __future__ import annotations

import numpy as np

from agents.lama.fast import FIRST, THIRD, pimc_rollouts
from agents.lama.strategies import RETUNED, TUNED, FirstStrategy, ThirdStrategy
from agents.search.teacher import TeacherAgent, gated_values
from envs.lama import fast as engine
from envs.lama.rules import NUM_ACTIONS, LamaGame, View

_BELOW = 1e-4  # how far a not-significant action is set below the blueprint's
#: Blueprints by name: (agent class, strategy code, strategy-3 parameters).
BLUEPRINTS = {"first": (FirstStrategy, FIRST, (0.0, 0.0, 0.0, 0.0)),
              "third-retuned": (ThirdStrategy, THIRD, RETUNED)}


class PimcTeacher(TeacherAgent):
    """Gated PIMC over blueprint rollouts (module docstring).

    Args:
        game: the engine (any rules and player count).
        rng: the generator the determinizations are drawn from.
        k: rollouts (determinizations) per decision.
        gate: standard errors of the paired gain needed to deviate from the blueprint.
        blueprint: the acting seat's base strategy, played in its rollouts: "first" or "third-retuned".
        others: the strategy code (1, 2, 3; strategy 3 with the report's tuned set) the other seats roll out with.
    """

    name = "lama/pimc"

    def __init__(self, game: LamaGame, rng: np.random.Generator, k: int = 300, gate: float = 1.5,
                 blueprint: str = "first", others: int = FIRST):
        if not isinstance(rng, np.random.Generator):
            raise TypeError("lama/pimc needs an explicit np.random.Generator")
        if blueprint not in BLUEPRINTS:
            raise ValueError(f"blueprint must be one of {sorted(BLUEPRINTS)}, got {blueprint!r}")
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 2:
            raise ValueError(f"k must be an integer >= 2 (the gate needs a standard error), got {k!r}")
        if others not in (1, 2, 3):
            raise ValueError(f"others must be a strategy code 1, 2 or 3, got {others!r}")
        self.game, self.rng = game, rng
        self.k, self.gate = int(k), float(gate)
        cls, code, params = BLUEPRINTS[blueprint]
        self.blueprint = cls() if cls is FirstStrategy else cls(params=params)
        self._code, self._params = code, np.array(params, np.float64)
        self._others = int(others)
        self._switches = engine.config_codes(game.config)
        self.decisions = 0  # decisions searched (more than one legal action)
        self.deviations = 0  # of which the choice differs from the blueprint's

    def rollouts(self, view: View, actions: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """(k, len(actions)) win shares: rollout j plays action i on determinization j (common random numbers)."""
        n = len(view.hand_sizes)
        seat = view.seat
        codes = np.full(n, self._others, np.int64)
        codes[seat] = self._code
        params = np.full((n, 4), TUNED if self._others == THIRD else 0.0)
        params[seat] = self._params
        disc = np.zeros(64, np.int64)
        disc[: len(view.discard)] = view.discard
        out = np.zeros((self.k, len(actions)))
        pimc_rollouts(rng.integers(0, 2**63, size=self.k).astype(np.uint64), codes, params, self._switches, seat,
                      np.array(view.hand, np.int64), np.array(view.hand_sizes, np.int64),
                      np.array(view.active, np.bool_), np.array(view.unseen, np.int64), disc, len(view.discard),
                      view.round, view.reshuffles, np.array(view.totals, np.int64),
                      np.array(view.rounds_won, np.int64), np.asarray(actions, np.int64), out)
        return out

    def action_estimates(self, view: View, action_mask: np.ndarray,
                         rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """(the gated values the teacher acts by, the ungated mean win shares): the same rollouts.

        A student fitted to the estimates (`label_values="search"`) averages the rollout noise over many
        decisions, which the gate can only guard against one decision at a time."""
        mask = np.asarray(action_mask).astype(bool)
        values = np.full(NUM_ACTIONS, np.nan)
        base = int(self.blueprint.act(view, action_mask))
        legal = np.flatnonzero(mask)
        if len(legal) == 1:
            values[base] = 0.0
            return values, values.copy()
        actions = np.concatenate([[base], legal[legal != base]])
        wins = self.rollouts(view, actions, rng)
        # A determinization can be a game that never ends (the seed's reshuffle quirk with players who never
        # fold: llamas drawn forever); such a rollout is dropped for every action, keeping the comparison paired.
        wins = wins[np.isfinite(wins).all(axis=1)]
        if len(wins) < 2:
            values[legal] = -_BELOW
            values[base] = 0.0
            return values, values.copy()
        v, means = gated_values(wins, self.gate, _BELOW)
        estimates = np.full(NUM_ACTIONS, np.nan)
        estimates[actions] = means
        values[actions] = v
        self.decisions += 1
        self.deviations += int(v.argmax() != 0)
        return values, estimates

__all__ = ["BLUEPRINTS", "PimcTeacher", "make_pimc", "make_pimc_retuned"]


def make_pimc(game: LamaGame, rng: np.random.Generator, k: str = "300", blueprint: str = "first") -> PimcTeacher:
    """`lama/pimc` and `lama/pimc?k=<k>`: the teacher over strategy-1 rollouts."""
    return PimcTeacher(game, rng, k=int(k), blueprint=blueprint)


def make_pimc_retuned(game: LamaGame, rng: np.random.Generator) -> PimcTeacher:
    """`lama/pimc-retuned`: the teacher whose own seat's base strategy is `third-retuned`."""
    return PimcTeacher(game, rng, blueprint="third-retuned")
