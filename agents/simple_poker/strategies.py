"""Simple-poker strategies: the seed's tactics, thresholds, and the exact equilibrium.

Source: R. Grothmann, "Most Simple Poker Game"; rules specification §3–4. A behaviour strategy is a pair of
vectors `(bet, call)` of length n: the probability that player 1 bets holding card c, and that player 2 calls a
bet holding card c; the seed's pure tactics are 0/1 vectors, its threshold tactic t bets/calls iff card >= t. The
equilibrium comes from two linear programs of size O(n) in behaviour strategies (SciPy's HiGHS).

Ids: `simple_poker/nash`, `simple_poker/threshold?t=<t>`, `simple_poker/tactic?bet=<bits>` (one vector in both
roles) and `simple_poker/tactic?bet=<p1 bits>&call=<p2 bits>`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
from scipy.optimize import linprog

from agents.base import old_spelling, positive_int, register
from agents.search.matrix_game import solve_matrix_game
from envs.simple_poker.rules import BET, PASS, SimplePokerGame, View


@dataclass(frozen=True)
class Behaviour:
    """Player 1's bet probabilities and player 2's call probabilities, indexed by card-1."""

    bet: tuple[float, ...]
    call: tuple[float, ...]


@dataclass(frozen=True)
class Solution:
    """The game value for player 1 and an equilibrium behaviour strategy for each seat."""

    value: float
    strategy: Behaviour


def showdown_sign(n: int) -> np.ndarray:
    """`S[c1-1, c2-1]` = +1, 0 or −1 as player 1's card is higher, equal or lower."""
    c = np.arange(1, n + 1)
    return np.sign(c[:, None] - c[None, :]).astype(float)


def expected_payoff(n: int, ante: float, bet: float, p1_bet: np.ndarray, p2_call: np.ndarray) -> float:
    """Player 1's exact expected net over the n² equally likely deals.

    `u = mean over (c1, c2) of  −A + 2A·x[c1] + x[c1]·y[c2]·((A+B)·s(c1, c2) − A)`.
    """
    x = np.asarray(p1_bet, dtype=float)
    y = np.asarray(p2_call, dtype=float)
    K = (ante + bet) * showdown_sign(n) - ante
    return float(-ante + 2 * ante * x.mean() + x @ K @ y / (n * n))


def best_response_value(n: int, ante: float, bet: float, *, p1_bet: np.ndarray | None = None,
                        p2_call: np.ndarray | None = None) -> float:
    """Best-response value for the seat whose strategy is *not* given, from its own side.

    With `p1_bet` given: player 2's best expected net against it. With `p2_call`
    given: player 1's best expected net against it.
    """
    K = (ante + bet) * showdown_sign(n) - ante
    if (p1_bet is None) == (p2_call is None):
        raise ValueError("give exactly one of p1_bet and p2_call")
    if p1_bet is not None:
        x = np.asarray(p1_bet, dtype=float)
        gain_if_call = x @ K  # player 1's gain per card of player 2 when it calls
        p1_value = -ante + 2 * ante * x.mean() + np.minimum(gain_if_call, 0).sum() / (n * n)
        return -float(p1_value)
    y = np.asarray(p2_call, dtype=float)
    per_card = 2 * ante * n + K @ y  # n² × gain of betting with card c over passing, up to −A·n
    return float(-ante + np.maximum(per_card, 0).sum() / (n * n))


@lru_cache(maxsize=256)
def solve(n: int, ante: float, bet: float) -> Solution:
    """Exact equilibrium of simple poker (n, ante, bet) in behaviour strategies.

    Player 1's LP: maximise `−A + (2A/n)·Σx + (1/n²)·Σ_d z_d` with `z_d <= 0` and
    `z_d <= Σ_c x_c K[c, d]` (player 2 calls with d iff that helps it); player 2's
    LP is the mirror image. Both values agree (minimax theorem); the returned
    value is player 1's LP optimum.
    """
    K = (ante + bet) * showdown_sign(n) - ante
    # Player 1: variables [x_1..x_n, z_1..z_n]; linprog minimises.
    c = np.concatenate([-np.full(n, 2 * ante / n), -np.full(n, 1.0 / (n * n))])
    A_ub = np.hstack([-K.T, np.eye(n)])  # z_d − Σ_c x_c K[c,d] <= 0
    b_ub = np.zeros(n)
    bounds = [(0, 1)] * n + [(None, 0)] * n
    r1 = linprog(c, A_ub=A_ub, b_ub=b_ub, bounds=bounds, method="highs")
    if r1.status != 0:
        raise RuntimeError(f"HiGHS failed on player 1's LP: {r1.message}")
    value = -ante - r1.fun
    x = np.clip(r1.x[:n], 0, 1)
    # Player 2: variables [y_1..y_n, w_1..w_n]; minimise Σ w / n² with
    # w_c >= 0 and w_c >= 2A·n + Σ_d K[c,d] y_d.
    c2 = np.concatenate([np.zeros(n), np.full(n, 1.0 / (n * n))])
    A2 = np.hstack([K, -np.eye(n)])  # Σ_d K[c,d] y_d − w_c <= −2A·n
    b2 = np.full(n, -2 * ante * n)
    bounds2 = [(0, 1)] * n + [(0, None)] * n
    r2 = linprog(c2, A_ub=A2, b_ub=b2, bounds=bounds2, method="highs")
    if r2.status != 0:
        raise RuntimeError(f"HiGHS failed on player 2's LP: {r2.message}")
    y = np.clip(r2.x[:n], 0, 1)
    return Solution(float(value), Behaviour(tuple(map(float, x)), tuple(map(float, y))))


def game_value(n: int, ante: float, bet: float) -> float:
    """Player 1's exact equilibrium value over all behaviour strategies."""
    return solve(n, float(ante), float(bet)).value


# --- the seed's normal form ---------------------------------------------------------
def pure_tactics(n: int) -> np.ndarray:
    """All 2^n pure tactics in the seed's order (binary, first card most significant)."""
    k = np.arange(2**n)
    return ((k[:, None] >> np.arange(n - 1, -1, -1)[None, :]) & 1).astype(float)


def threshold_tactics(n: int) -> np.ndarray:
    """The seed's threshold tactics t = 1..n (bet/call iff card >= t), one row each."""
    c = np.arange(1, n + 1)
    return (c[None, :] >= c[:, None]).astype(float)


def payoff_matrix(n: int, ante: float, bet: float, tactics: np.ndarray) -> np.ndarray:
    """The seed's `R[j, i]`: player 1's expected net, player 1 using tactic i (column),
    player 2 tactic j (row)."""
    K = (ante + bet) * showdown_sign(n) - ante
    T = np.asarray(tactics, dtype=float)
    # R[j, i] = −A + 2A·mean(T_i) + T_i K T_j / n²
    return -ante + 2 * ante * T.mean(axis=1)[None, :] + (T @ K @ T.T).T / (n * n)


def restricted_value(n: int, ante: float, bet: float, tactic_set: str = "thresholds") -> tuple[float, np.ndarray]:
    """Game value and player 1's optimal mix when both players are restricted to
    the seed's `"thresholds"` (n tactics) or `"all"` (2^n pure tactics, n <= 16)."""
    if tactic_set == "thresholds":
        T = threshold_tactics(n)
    elif tactic_set == "all":
        if n > 16:
            raise ValueError(f"tactic_set='all' enumerates 2^n tactics; n must be <= 16, got {n}")
        T = pure_tactics(n)
    else:
        raise ValueError(f"tactic_set must be 'thresholds' or 'all', got {tactic_set!r}")
    return solve_matrix_game(payoff_matrix(n, ante, bet, T))


# --- exact analysis of agents ------------------------------------------------------
def behaviour_of(agent: Any, game: SimplePokerGame) -> Behaviour:
    """The behaviour strategy an agent plays, read from its `action_probs` (exact).

    Raises:
        TypeError: if the agent cannot state its action probabilities.
    """
    probs = getattr(agent, "action_probs", None)
    if probs is None:
        raise TypeError(f"{type(agent).__name__} has no action_probs(view, mask): exact evaluation needs it")
    mask = np.ones(2, dtype=np.int8)
    bet = tuple(float(probs(View(0, c, ()), mask)[1]) for c in range(1, game.n + 1))
    call = tuple(float(probs(View(1, c, (1,)), mask)[1]) for c in range(1, game.n + 1))
    return Behaviour(bet, call)


@dataclass(frozen=True)
class Exploitability:
    """How much a best responder gains against a strategy, over the game value.

    `as_player1`: player 2's best-response value minus its equilibrium value (−G);
    `as_player2`: player 1's best-response value minus G; `total` is their mean,
    which is 0 exactly for an equilibrium strategy.
    """

    as_player1: float
    as_player2: float
    total: float


def exploitability(game: SimplePokerGame, strategy: Behaviour) -> Exploitability:
    """Exact exploitability of `strategy` (used in both seats)."""
    g = game_value(game.n, game.ante, game.bet)
    e1 = best_response_value(game.n, game.ante, game.bet, p1_bet=np.array(strategy.bet)) - (-g)
    e2 = best_response_value(game.n, game.ante, game.bet, p2_call=np.array(strategy.call)) - g
    return Exploitability(float(e1), float(e2), float((e1 + e2) / 2))


def match_value(game: SimplePokerGame, a: Behaviour, b: Behaviour) -> float:
    """Exact mean net of strategy `a` against `b`, averaged over both seatings."""
    as_p1 = expected_payoff(game.n, game.ante, game.bet, np.array(a.bet), np.array(b.call))
    as_p2 = -expected_payoff(game.n, game.ante, game.bet, np.array(b.bet), np.array(a.call))
    return (as_p1 + as_p2) / 2


def exact_head_to_head(
    game: SimplePokerGame, ids: list[str], built: dict[str, Any]
) -> dict[str, dict[str, float]] | None:
    """Each agent's exact mean result against each other (both seats), from their stated behaviours;
    None when an agent cannot state its probabilities (a trained one, say). The league prints it
    beside its sampled ratings."""
    try:
        beh = {i: behaviour_of(built[i], game) for i in ids}
    except TypeError:
        return None
    return {i: {j: float(match_value(game, beh[i], beh[j])) for j in ids if j != i} for i in ids}


def exploitability_of_agents(game: SimplePokerGame, ids: list[str], built: dict[str, Any]) -> dict[str, float | None]:
    """Each agent's exact exploitability (`exploitability(...).total`, chips per hand, 0 for an equilibrium),
    None for an agent that cannot state its probabilities. The league sets it beside the ratings."""
    out: dict[str, float | None] = {}
    for i in ids:
        try:
            out[i] = float(exploitability(game, behaviour_of(built[i], game)).total)
        except TypeError:
            out[i] = None
    return out


# --- agents --------------------------------------------------------------------------
class BehaviourAgent:
    """Plays a behaviour strategy: bets (player 1) / calls (player 2) with card c with
    the given probabilities. Deterministic when every probability is 0 or 1."""

    def __init__(self, game: SimplePokerGame, rng: np.random.Generator, strategy: Behaviour, name: str = "behaviour"):
        n = game.n
        if len(strategy.bet) != n or len(strategy.call) != n:
            raise ValueError(f"strategy vectors must have length n={n}")
        self.game = game
        self.rng = rng
        self.strategy = strategy
        self.name = name

    def prob_bet(self, view: View) -> float:
        """Probability of action 1 (bet or call) in `view`."""
        vec = self.strategy.bet if view.seat == 0 else self.strategy.call
        return float(vec[view.card - 1])

    def action_probs(self, view: View, action_mask: np.ndarray) -> np.ndarray:
        """`[P(pass), P(bet/call)]`."""
        p = min(1.0, max(0.0, self.prob_bet(view)))
        return np.array([1.0 - p, p])

    def act(self, view: View, action_mask: np.ndarray) -> int:
        """Bet/call with the strategy's probability for this card."""
        p = self.prob_bet(view)
        if p >= 1.0:
            return BET
        if p <= 0.0:
            return PASS
        return BET if self.rng.random() < p else PASS


def _nash(game: SimplePokerGame, rng: np.random.Generator) -> BehaviourAgent:
    sol = solve(game.n, game.ante, game.bet)
    return BehaviourAgent(game, rng, sol.strategy, name="simple_poker/nash")


def _threshold(game: SimplePokerGame, rng: np.random.Generator, t: int | None = None) -> BehaviourAgent:
    if t is None:
        raise ValueError(f"simple_poker/threshold needs its threshold: simple_poker/threshold?t=T (1..{game.n})")
    if not 1 <= t <= game.n:
        raise ValueError(f"threshold must be in 1..{game.n}, got {t}")
    vec = tuple(1.0 if c >= t else 0.0 for c in range(1, game.n + 1))
    return BehaviourAgent(game, rng, Behaviour(vec, vec), name=f"simple_poker/threshold?t={t}")


def _bit_string(text: str) -> str:
    """one 0/1 digit per card"""
    if not text or set(text) - {"0", "1"}:
        raise ValueError(f"expected one 0/1 digit per card, got {text!r}")
    return text


def _bits(text: str, n: int) -> tuple[float, ...]:
    if len(text) != n:
        raise ValueError(f"a tactic needs one 0/1 digit per card ({n} digits for n={n}), got {text!r}")
    return tuple(float(ch) for ch in text)


def _tactic(game: SimplePokerGame, rng: np.random.Generator, bet: str | None = None,
            call: str | None = None) -> BehaviourAgent:
    if bet is None:
        raise ValueError(f"simple_poker/tactic needs its betting digits: simple_poker/tactic?bet=<{game.n} digits 0/1>")
    b = _bits(bet, game.n)
    c = _bits(call, game.n) if call else b
    name = f"simple_poker/tactic?bet={bet}" + (f"&call={call}" if call else "")
    return BehaviourAgent(game, rng, Behaviour(b, c), name=name)


register("simple_poker/nash", _nash, doc="The exact Nash equilibrium strategy of this deck, ante and bet.")
register("simple_poker/threshold", _threshold, params={"t": positive_int},
         doc="Bet (or call) with a card of value ?t= or more, else check (or fold).")
register("simple_poker/tactic", _tactic, params={"bet": _bit_string, "call": _bit_string},
         doc="A pure tactic: ?bet= one 0/1 digit per card for betting, ?call= (optional) for calling.")
old_spelling(r"simple_poker/threshold-(?P<t>\d+)", lambda t: f"simple_poker/threshold?t={int(t)}")
old_spelling(r"simple_poker/tactic-(?P<p1>[01]+)(?:-(?P<p2>[01]+))?",
             lambda p1, p2=None: f"simple_poker/tactic?bet={p1}" + (f"&call={p2}" if p2 else ""))


# --- the vector env's opponents -------------------------------------------------------
#: The agent ids `opponent_kernel` resolves (every behaviour strategy of this module, and `random`).
KERNEL_IDS = ("random", "simple_poker/nash", "simple_poker/threshold?t=T", "simple_poker/tactic?bet=BITS[&call=BITS]")


def opponent_kernel(agent_id: str, options: dict | None = None):
    """The `OpponentKernel` of `agent_id` for `envs.simple_poker_v0.vector_env` under game `options`: its
    behaviour strategy (bet then call probabilities per card), or None when the agent has none."""
    from agents.base import make
    from envs.core.options import make_config
    from envs.core.vector import RANDOM, OpponentKernel
    from envs.simple_poker.rules import Config
    from envs.simple_poker.vector import BEHAVIOUR

    if agent_id == "random":
        return RANDOM
    if not agent_id.startswith("simple_poker/"):
        return None
    options = {k: v for k, v in (options or {}).items() if k in ("n", "ante", "bet")}
    game = SimplePokerGame(make_config(Config, options))
    try:
        agent = make(agent_id, game, np.random.default_rng(0))
    except (KeyError, ValueError):
        return None
    if not isinstance(agent, BehaviourAgent):
        return None
    b = behaviour_of(agent, game)
    return OpponentKernel(agent_id, BEHAVIOUR, tuple(b.bet) + tuple(b.call))
