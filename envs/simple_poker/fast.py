"""Simple poker's batched twin in plain numpy: the rules over arrays of hands, one row a table.

Each function is the array form of one rule of `envs.simple_poker.rules`
(paired by name, differential-tested through the vector env): `deal_cards` of
`SimplePokerGame.deal`, `payoff` of `SimplePokerGame.payoff`, `observe` of
`SimplePokerEncoder.encode`. The game is two decisions long, so numpy over the
whole batch is as fast as a compiled loop would be.
"""

from __future__ import annotations

import numpy as np

from envs.simple_poker.rules import BET, PASS


def deal_cards(seeds: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Both players' cards (1..n) of deal seeds `seeds` (uint64): pair number `seed mod n²`, as
    `SimplePokerGame.deal`."""
    k = (seeds % np.uint64(n * n)).astype(np.int64)
    return k // n + 1, k % n + 1


def payoff(c1: np.ndarray, c2: np.ndarray, first: np.ndarray, second: np.ndarray, ante: float,
           bet: float) -> np.ndarray:
    """Player 1's net result of finished hands (`SimplePokerGame.payoff`): `first` is player 1's action,
    `second` player 2's answer (ignored after a pass)."""
    show = np.sign(c1 - c2) * (ante + bet)
    return np.where(first == PASS, -ante, np.where(second == PASS, ante, show)).astype(np.float64)


def observe(cards: np.ndarray, seats: np.ndarray, bet_seen: np.ndarray, n: int, out: np.ndarray) -> None:
    """`SimplePokerEncoder.encode` of each row's view (own card, seat, whether player 1 bet) into `out` (float32)."""
    rows = np.arange(out.shape[0])
    out[:] = 0.0
    out[rows, cards - 1] = 1.0
    out[:, n] = cards / n
    out[rows, n + 1 + seats] = 1.0
    out[:, n + 3] = bet_seen


__all__ = ["BET", "PASS", "deal_cards", "observe", "payoff"]
