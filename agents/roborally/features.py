"""RoboRally's per-action features for the `ActionScorer` student (`agents.learned`), register mode, registered as
`FEATURES["roborally"]` and bound to the game it plays (`for_game`): read from the robot's view and the board with
the solo physics of `agents.roborally.solo.SoloSimulator`, one register phase at a time, nothing enumerated or played
out (docs/roborally.md, "Training", lists every column).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from agents.learned import FEATURES
from agents.roborally.solo import SoloSimulator, placed_prefix, solo_of
from envs.roborally.cards import BACK_UP, KINDS, MOVE_1, MOVE_2, MOVE_3
from envs.roborally.rules import HAND, REGISTERS

NUM_KINDS = 7
PROBES = (MOVE_1, MOVE_2, MOVE_3, BACK_UP)
#: per action: kind (7), s1 (6), probes (4 each), registers left (1), NOOP flag (1)
FEATURE_DIM = NUM_KINDS + 6 + 4 * len(PROBES) + 2
CONTEXT_DIM = 5 + NUM_KINDS + 3


class RoboRallyFeatures:
    """`features(view, mask) -> (context, per_action)` of one game (board and card numbering); unbound, it
    raises, because the board is not in the view. The features read the board, the robots and the turn from the
    game they are bound to, so a student of them plays any board, robot count and turn cap (`portable_options`)."""

    portable_options = ("board", "num_robots", "max_turns")

    def __init__(self, game: Any = None):
        self.game, self._encoder = game, None
        if game is None:
            return
        if game.config.action_mode != "register":
            raise ValueError(f"the roborally features need action_mode='register', got {game.config.action_mode!r}")
        self.sim = SoloSimulator(game)
        self.kinds = KINDS[game.numbering]
        self.scale = float(game.board.width + game.board.height)
        # A card of each probe kind (any card of the kind moves the same alone).
        self.probe_cards = [next(c for c in range(1, len(self.kinds)) if self.kinds[c] == kd) for kd in PROBES]
        from agents.roborally.mc import turns_table

        self.table = turns_table(self.sim)
        self.worst = float(self.table.max()) + 1.0

    def for_game(self, game: Any) -> RoboRallyFeatures:
        """These features on `game`'s board."""
        return RoboRallyFeatures(game)

    def from_observation(self, obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The features of the view that `RoboRallyEncoder` encoded as `obs` (what a batched env gives): the same
        arrays as from the view itself (`RoboRallyEncoder.decode` recovers all they read)."""
        if self.game is None:
            raise ValueError("the roborally features read the board: bind them to a game with for_game(game)")
        if self._encoder is None:
            from envs.roborally.encoding import RoboRallyEncoder

            self._encoder = RoboRallyEncoder(self.game)
        return self(self._encoder.decode(obs), mask)

    def _dist(self, s) -> float:
        x, y, _, nf, alive = s
        if not alive:
            return 1.0
        if nf >= len(self.sim.flags):
            return 0.0
        return self.sim.dist[nf][y][x] / self.scale

    def _turns(self, s) -> float:
        x, y, f, nf, alive = s
        if not alive:
            return self.worst / 10.0
        return float(self.table[nf, y, x, f]) / 10.0

    def __call__(self, view: Any, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if self.game is None:
            raise ValueError("the roborally features read the board: bind them to a game with for_game(game)")
        sim = self.sim
        nflags = len(sim.flags)
        s0, rnd, k = placed_prefix(sim, view)
        d0, t0 = self._dist(s0), self._turns(s0)
        per = np.zeros((len(mask), FEATURE_DIM), np.float32)
        kinds_left = np.zeros(NUM_KINDS, np.float32)
        for i, c in enumerate(view.hand):
            if not view.used >> i & 1:
                kinds_left[self.kinds[c]] += 1
        for a in np.flatnonzero(np.asarray(mask) > 0):
            a = int(a)
            row = per[a]
            if a >= HAND or rnd >= k:
                row[-1] = 1.0
                continue
            card = view.hand[a]
            row[self.kinds[card]] = 1.0
            s1 = sim.register(s0, card, rnd)
            d1, t1 = self._dist(s1), self._turns(s1)
            row[7:13] = (not s1[4], s1[3] > s0[3], d1, d1 - d0, t1, t1 - t0)
            for j, pc in enumerate(self.probe_cards):
                s2 = sim.register(s1, pc, rnd + 1) if rnd + 1 < REGISTERS else s1
                held = kinds_left[PROBES[j]] - (self.kinds[card] == PROBES[j]) > 0
                row[13 + 4 * j: 17 + 4 * j] = (not s2[4], self._dist(s2), self._turns(s2), held)
            row[29] = (k - rnd - 1) / REGISTERS
        others = [r for i, r in enumerate(view.robots) if i != view.seat]
        best_flags = max(r.next_flag for r in others) / nflags if others else 0.0
        best_dist = min(self._dist(solo_of(r)) if r.on_board else 1.0 for r in others) if others else 1.0
        ctx = np.concatenate([[rnd / REGISTERS, k / REGISTERS, d0, t0, s0[3] / nflags], kinds_left / HAND,
                              [best_flags, best_dist, view.turn / 100.0]]).astype(np.float32)
        return ctx, per


FEATURES["roborally"] = RoboRallyFeatures()

from agents.roborally import program as _program  # noqa: E402,F401  (registers the roborally_program features)
