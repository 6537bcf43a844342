"""The Game's per-action features for the `ActionScorer` student (`agents.learned`): `FEATURES["the_game"]`, and
`FEATURES["the_game_noscore"]`, the ablation without bestplays' three waste-score columns and the context's cheapest
score. docs/the_game.md ("Student") lists the columns; `_features` computes them, zero rows for illegal actions.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.learned import FEATURES
from agents.the_game.fast import BESTPLAYS_PARAMS, bestplays_view_scores
from envs.the_game import fast as engine
from envs.the_game.rules import END_TURN, NUM_ACTIONS, NUM_CARDS, TRICK, View, default_hand_size, play_action

PLAY_FEATURES = 13  # without the score columns
SCORE_FEATURES = 3
CONTEXT = 22


def _features(view: View, mask: np.ndarray, with_score: bool) -> tuple[np.ndarray, np.ndarray]:
    hand, tops = view.hand, view.tops
    hs = default_hand_size(len(view.hand_sizes))  # a scale only
    onpile = np.zeros(102, np.int64)
    for p in view.piles:
        onpile[list(p)] = 1
    live_prefix = np.concatenate([[0], np.cumsum(1 - onpile)])  # live_prefix[x] = live cards below x

    def live_between(a: int, b: int) -> int:
        lo, hi = (a, b) if a < b else (b, a)
        return int(live_prefix[hi] - live_prefix[lo + 1])

    scores, move = bestplays_view_scores(view)
    held = set(hand)
    fdim = PLAY_FEATURES + (SCORE_FEATURES if with_score else 0) + 1
    per = np.zeros((NUM_ACTIONS, fdim), np.float32)
    finite = np.isfinite(scores)
    ranks = np.zeros_like(scores)
    ranks[finite] = np.argsort(np.argsort(scores[finite], kind="stable"))  # each play's place in the stable order
    best_action = -1
    if move != engine.END_TURN:
        best_action = play_action(hand[move % engine.MAX_HAND], move // engine.MAX_HAND)
    plays = 0
    free = 0
    for (p, i), s in np.ndenumerate(scores):
        if not np.isfinite(s):
            continue
        c = hand[i]
        a = play_action(c, p)
        if not mask[a]:
            continue
        d = 1 if p < 2 else -1
        top = tops[p]
        mv = d * (c - top)
        live = live_between(top, c) if mv > 0 else 0
        other = tops[1 - p] if p < 2 else tops[5 - p]
        row = per[a]
        row[p] = 1.0
        row[4] = mv / 10.0
        row[5] = float(mv == -TRICK)
        row[6] = live / 10.0
        row[7] = float(c + TRICK in held or c - TRICK in held)
        row[8] = float(mv > 0 and c - TRICK * d in held)
        row[9] = c / 100.0
        row[10] = float(d * (top - other) < 0)
        row[11] = float(mv == 1 or live == 0)
        row[12] = (c - top) / 100.0
        if with_score:
            row[13] = s / 10.0
            row[14] = ranks[p, i] / 10.0
            row[15] = float(a == best_action)
        plays += 1
        free += int(live == 0 and mv > 0 or mv < 0)
    if mask[END_TURN]:
        per[END_TURN, -1] = 1.0
    ctx = np.zeros(CONTEXT + (1 if with_score else 0), np.float32)
    owed = max(view.required - view.played_this_turn, 0)
    ctx[0] = view.deck_size / NUM_CARDS
    ctx[1] = float(view.deck_size == 0)
    ctx[2] = view.played_this_turn / hs
    ctx[3] = owed / hs
    ctx[4] = float(owed == 0)
    ctx[5] = view.placed / NUM_CARDS
    ctx[6] = len(hand) / hs
    ctx[7] = (sum(view.hand_sizes) - len(hand)) / NUM_CARDS
    ctx[8:12] = np.array(tops, np.float32) / 100.0
    for p in range(4):  # live cards still playable on each pile's open side
        ctx[12 + p] = (live_between(tops[p], 100) if p < 2 else live_between(0, tops[p])) / NUM_CARDS
    if hand:
        ctx[16] = float(np.mean(hand)) / 100.0
        ctx[17] = min(hand) / 100.0
        ctx[18] = max(hand) / 100.0
        ctx[19] = sum(c + TRICK in held for c in hand) / hs
    ctx[20] = plays / (4.0 * hs)
    ctx[21] = free / hs
    if with_score:
        ctx[22] = float(np.nanmin(scores)) / 10.0 if finite.any() else 0.0
    return ctx, per


class TheGameFeatures:
    """A feature set as registered: `(view, mask) -> (context, per_action)` (the Python features), and from encoder
    observations (`from_observation`, `from_observations`: the compiled twin, `agents.the_game.features_fast`), what
    the compiled engines and batched envs give. Bound to a game (`for_game`), the observations are that game's
    encoder's; unbound, those of the official rules' default game of the observation's player count.

    Raises:
        ValueError: a game whose rules the observation twin does not read (rules other than "official": pile flags
            and misfits are not in these features).
    """

    def __init__(self, with_score: bool, game: Any = None):
        self.with_score, self.game = with_score, game
        if game is not None and game.config.rules != "official":
            raise ValueError(f"the_game features from observations play rules='official', got {game.config.rules!r}")
        self._bound: dict[int, tuple[np.ndarray, np.ndarray, int]] = {}

    def for_game(self, game: Any) -> TheGameFeatures:
        """These features over `game`'s observations."""
        return TheGameFeatures(self.with_score, game)

    def __call__(self, view: View, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return _features(view, mask, self.with_score)

    def _layout(self, width: int) -> tuple[np.ndarray, np.ndarray, int]:
        """(field starts, dims, num_actions) of the encoder whose observations are `width` long."""
        if width not in self._bound:
            from envs.the_game.encoding import TheGameEncoder
            from envs.the_game.rules import Config, TheGame

            game = self.game
            if game is None:
                players, extra = divmod(width - _WIDTH_0, _WIDTH_PER_PLAYER)
                if extra or not 1 <= players <= 5:
                    raise ValueError(f"a the_game observation is {_WIDTH_0} + {_WIDTH_PER_PLAYER} x players (1..5) "
                                     f"long, got {width}")
                game = TheGame(Config(num_players=players))
            enc = TheGameEncoder(game)
            if enc.observation_space.shape[0] != width or game.slot_head:
                raise ValueError(f"observations of width {width} are not those of {game.config} (card head)")
            at = np.array([enc._hand, enc._placed, enc._tops, enc._deck, enc._sizes, enc._played, enc._req], np.int64)
            dims = np.array([game.num_players, game.hand_size, default_hand_size(game.num_players),
                             game.config.resolved_min_cards], np.int64)
            self._bound[width] = (at, dims, int(game.num_actions))
        return self._bound[width]

    def from_observations(self, obs: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(context (B, C), per_action (B, A, F)) float32 of encoder observations `obs` (B, D) with legal masks
        `masks` (B, A): the Python features of the views they encode, number for number."""
        from agents.the_game.features_fast import feature_rows

        obs = np.ascontiguousarray(obs, np.float32)
        at, dims, num_actions = self._layout(obs.shape[1])
        masks = np.ascontiguousarray(masks, np.bool_)
        if masks.shape != (obs.shape[0], num_actions):
            raise ValueError(f"masks must be (B, {num_actions}) for {obs.shape[0]} observations, got {masks.shape}")
        extra = SCORE_FEATURES if self.with_score else 0
        ctx = np.zeros((obs.shape[0], CONTEXT + (1 if self.with_score else 0)), np.float32)
        per = np.zeros((obs.shape[0], num_actions, PLAY_FEATURES + extra + 1), np.float32)
        feature_rows(obs, masks, at, dims, BESTPLAYS_PARAMS, self.with_score, ctx, per)
        return ctx, per

    def from_observation(self, obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The features of one encoder observation (`from_observations`)."""
        ctx, per = self.from_observations(np.asarray(obs, np.float32)[None], np.asarray(mask, bool)[None])
        return ctx[0], per[0]


#: `TheGameEncoder`'s width: this many values, plus so many per player.
_WIDTH_0, _WIDTH_PER_PLAYER = 599, 10

FEATURES["the_game"] = TheGameFeatures(True)
FEATURES["the_game_noscore"] = TheGameFeatures(False)

__all__ = ["TheGameFeatures"]
