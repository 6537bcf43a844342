"""The seed's three L.A.M.A. strategies as agents.

Seed: P. Romero Marimon, "The L.A.M.A card game" (TU Eindhoven, 2022), §V-VI; exact decision rules in the rules
specification §5. Ids: `lama/first`, `lama/second`, `lama/third` (the report's tuned parameters),
`lama/third-default` (the code's defaults), `lama/third-retuned` (`RETUNED`), the family
`lama/third?a=A&b=B&c=C&d=D`, and the PIMC searchers `lama/pimc[?k=<k>]`, `lama/pimc-retuned`.

Deviation: where the rules forbid drawing and no card can be played, the strategies quit (the seed's code always
allows drawing).
"""

from __future__ import annotations

import numpy as np

from agents.base import old_spelling, positive_int, register
from envs.lama.rules import DRAW, LLAMA, QUIT, VALUES, View, hand_points, next_card

TUNED = (17.576, 12.24196, 3.920, 1.222)  # report §VI.A, after the Monte-Carlo search
DEFAULT = (10.0, 5.0, 4.4, 1.0)  # the code's hard-coded values (also the report's "trial set")
# This project's re-tuned set, not the seed's: `python -m evaluate lama --tune-third --seed 0` (docs/lama.md).
RETUNED = (6.8665352898260155, 12.30655886815076, 2.463769450899156, 0.4537189453643723)


def _fallback(mask: np.ndarray) -> int:
    """No card can be played: draw if allowed, else quit."""
    return DRAW if mask[DRAW] else QUIT


def play_equal_first(hand: tuple[int, ...], top: int) -> int | None:
    """Strategy 1's choice: the card equal to the top, else the next one (None: no play)."""
    if hand[top]:
        return top
    nxt = next_card(top)
    return nxt if hand[nxt] else None


def play_next_first(hand: tuple[int, ...], top: int) -> int | None:
    """Strategy 2's choice: the next card, else the equal one (None: no play)."""
    nxt = next_card(top)
    if hand[nxt]:
        return nxt
    return top if hand[top] else None


def fold_value(view: View, params: tuple[float, float, float, float]) -> float:
    """The seed's f(x, y, z) = g(x) + (y − C) + D·z (report eq. (1)–(2), code `Functs.nextMove`).

    x = distinct values held (llama counts as one), y = hand penalty in the
    seed's scoring (sum of values, 10 per llama — whatever the game's scoring),
    z = the smallest hand size over all seats (the decider and seats that
    quit included, as in the code). g(x) = −A if x = 1 else B·x.
    """
    a, b, c, d = params
    hand = view.hand
    x = sum(1 for v in range(VALUES) if hand[v])
    y = hand_points(hand, "sum_all")
    z = min(view.hand_sizes)
    g = -a if x == 1 else b * x
    return g + (y - c) + d * z


class _PlayElseDraw:
    """Never fold: play the card `choose(hand, top)` picks, else draw (quit only when drawing is impossible)."""

    choose = staticmethod(play_equal_first)

    def __init__(self, game=None, rng: np.random.Generator | None = None):
        self.game = game

    def act(self, view: View, action_mask: np.ndarray) -> int:
        """The strategy's action (always legal under `action_mask`)."""
        card = self.choose(view.hand, view.top)
        return _fallback(action_mask) if card is None else card


class FirstStrategy(_PlayElseDraw):
    """Strategy 1 (seed §V): never fold; play the card equal to the top if held,
    else the next card; draw when nothing can be played."""


class SecondStrategy(_PlayElseDraw):
    """Strategy 2 (seed §V): never fold; play the next card (a llama on a 6) if
    held, else the equal card; draw when nothing can be played."""

    choose = staticmethod(play_next_first)


class ThirdStrategy:
    """Strategy 3 (seed §VI): fold by the rule f(x, y, z).

    With a legal play: strategy 1, except that with 7 or more players a llama
    is played on a 6 when held (the code implements only this case of the
    report's "discard the card worth more points"). Without one: draw if
    f ≥ 0, quit if f < 0 (the code's `>=`; the report says "> 0").

    Args:
        params: (A, B, C, D); default the report's tuned set `TUNED`.
    """

    def __init__(self, game=None, rng: np.random.Generator | None = None, params: tuple[float, ...] = TUNED):
        if len(params) != 4 or not all(np.isfinite(p) for p in params):
            raise ValueError(f"strategy 3 needs four finite parameters (A, B, C, D), got {params!r}")
        self.params = tuple(float(p) for p in params)
        self.game = game

    def act(self, view: View, action_mask: np.ndarray) -> int:
        """The strategy's action (always legal under `action_mask`)."""
        top = view.top
        hand = view.hand
        if len(view.hand_sizes) >= 7 and top == 6 and hand[LLAMA]:
            return LLAMA
        card = play_equal_first(hand, top)
        if card is not None:
            return card
        if fold_value(view, self.params) >= 0 and action_mask[DRAW]:
            return DRAW
        return QUIT



register("lama/first", FirstStrategy)
register("lama/second", SecondStrategy)
def _third(game, rng, a: float | None = None, b: float | None = None, c: float | None = None,
           d: float | None = None) -> ThirdStrategy:
    given = (a, b, c, d)
    if any(v is None for v in given):
        if any(v is not None for v in given):
            raise ValueError("lama/third takes all four fold parameters a, b, c, d, or none (the report's tuned set)")
        return ThirdStrategy(game, rng)
    return ThirdStrategy(game, rng, given)


FOLD_PARAMS = {"a": float, "b": float, "c": float, "d": float}
register("lama/third", _third, params=FOLD_PARAMS,
         doc="Strategy 3: fold by the rule f(x, y, z); ?a=&b=&c=&d= sets its fold parameters (default the report's).")
register("lama/third-default", lambda game, rng: ThirdStrategy(game, rng, DEFAULT),
         doc="Strategy 3 with the seed code's hard-coded fold parameters (10, 5, 4.4, 1).")
register("lama/third-retuned", lambda game, rng: ThirdStrategy(game, rng, RETUNED),
         doc="Strategy 3 with fold parameters re-tuned by this project's search (see RETUNED).")
_NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
old_spelling(rf"lama/third:(?P<a>{_NUM}),(?P<b>{_NUM}),(?P<c>{_NUM}),(?P<d>{_NUM})",
             lambda a, b, c, d: f"lama/third?a={a}&b={b}&c={c}&d={d}")


# The PIMC teacher builds on these strategies: registered by name, built on first use.
register("lama/pimc", "agents.lama.pimc:make_pimc", params={"k": positive_int})
register("lama/pimc-retuned", "agents.lama.pimc:make_pimc_retuned")
old_spelling(r"lama/pimc-k(?P<k>\d+)", lambda k: f"lama/pimc?k={k}")

__all__ = ["DEFAULT", "RETUNED", "TUNED", "FirstStrategy", "SecondStrategy", "ThirdStrategy", "fold_value"]
