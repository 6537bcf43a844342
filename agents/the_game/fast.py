"""The Game's strategies (`the_game/bestplays`, `the_game/simplest`) as numba decide kernels.

They decide as their Python agents (`agents.the_game.strategies`) on the compiled game loop
(`envs.the_game.fast`): `tests/agents/test_the_game_fast.py` compares them game by game.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from envs.core.game import IllegalActionError
from envs.core.jit import INLINE
from envs.the_game import fast as engine
from envs.the_game.rules import END_TURN, Config, State, View, decode_play

#: BestPlaysStrategy's defaults: (extra_limit, extra_limit_last, gap_weight).
BESTPLAYS_PARAMS = np.array([1.0, 2.0, 0.25])


@numba.njit(cache=True)
def _live_between(placed: np.ndarray, a: int, b: int) -> int:
    """Cards strictly between a and b that are not on a pile (placed[c] = 1 if on a pile)."""
    lo, hi = (a, b) if a < b else (b, a)
    n = 0
    for c in range(lo + 1, hi):
        if placed[c] == 0:
            n += 1
    return n


@numba.njit(cache=True)
def _waste(placed: np.ndarray, top: int, new_top: int, d: int, gw: float) -> float:
    move = d * (new_top - top)
    live = _live_between(placed, top, new_top)
    if move < 0:
        return -live - 1 + gw * move
    return live + gw * move


@numba.njit(cache=True)
def play_score(placed, hands, seat, sizes, top, p, i, gw):
    """Bestplays' waste score of hand card `i` onto pile `p` with top `top` (a chain with the partner
    c - 10·dir from the hand is scored by where the pile ends up); the card must fit."""
    d = 1 if p < 2 else -1
    c = hands[seat, i]
    sc = _waste(placed, top, c, d, gw)
    if d * (c - top) > 0:
        partner = c - 10 * d
        for j in range(sizes[seat]):
            if hands[seat, j] == partner:
                alt = _waste(placed, top, partner, d, gw) - 1
                if alt < sc:
                    sc = alt
                break
    return sc


@numba.njit(inline=INLINE)
def bestplays_decide(params, hands, seat, sizes, tops, placed, played, required):
    """The best play (lowest waste; ties: lowest pile, then hand index) while the minimum is
    owed or it wastes at most the limit; else end the turn. `params` = `BESTPLAYS_PARAMS`."""
    extra, extra_last, gw = params[0], params[1], params[2]
    best_s = 1e18
    best_p = -1
    best_i = -1
    for p in range(4):
        top = tops[p]
        for i in range(sizes[seat]):
            if not engine.fits(hands[seat, i], top, p):
                continue
            sc = play_score(placed, hands, seat, sizes, top, p, i, gw)
            if sc < best_s or (sc == best_s and (p < best_p or (p == best_p and i < best_i))):
                best_s = sc
                best_p = p
                best_i = i
    limit = extra if required > 1 else extra_last
    if played < required or best_s <= limit:
        return best_p * engine.MAX_HAND + best_i
    return engine.END_TURN


@numba.njit(cache=True)
def _scores_and_move(params, hands, seat, sizes, tops, placed, played, required, scores):
    for p in range(4):
        for i in range(sizes[seat]):
            if engine.fits(hands[seat, i], tops[p], p):
                scores[p, i] = play_score(placed, hands, seat, sizes, tops[p], p, i, params[2])
    return bestplays_decide(params, hands, seat, sizes, tops, placed, played, required)


def bestplays_view_scores(view: View, params: np.ndarray = BESTPLAYS_PARAMS) -> tuple[np.ndarray, int]:
    """Bestplays' waste scores `[4, len(hand)]` of the acting `view`'s plays (NaN where the card does not fit)
    and its decision there (a kernel move: `pile * MAX_HAND + index` or `END_TURN`)."""
    hand = np.asarray(view.hand, np.int64)
    hands = hand[None, :].copy() if len(hand) else np.zeros((1, 1), np.int64)
    sizes = np.array([len(hand)], np.int64)
    tops = np.array(view.tops, np.int64)
    placed = np.zeros(102, np.int64)
    for pile in view.piles:
        placed[list(pile[1:])] = 1
    scores = np.full((4, max(len(hand), 1)), np.nan)
    move = _scores_and_move(np.ascontiguousarray(params, dtype=np.float64), hands, 0, sizes, tops, placed,
                            view.played_this_turn, view.required, scores)
    return scores[:, :len(hand)], int(move)


@numba.njit(cache=True)
def _batch(orders, n, hand_size, min_cards, skip_empty, params, info):
    for g in range(orders.shape[0]):
        engine.play_game(bestplays_decide, orders[g], n, hand_size, min_cards, skip_empty, params, info[g])


@numba.njit(cache=True)
def _rollouts(hands, sizes, deck, dn, tops, placed, total, player, played, min_cards, skip_empty, params, firsts,
              orders, shuffle, out):
    info = np.zeros(3, np.int64)
    for c in range(firsts.shape[0]):
        for k in range(out.shape[1]):
            h, sz, dk, tp, pl = hands.copy(), sizes.copy(), deck.copy(), tops.copy(), placed.copy()
            if shuffle:
                engine.redeal(h, sz, dk, dn, player, orders[k])
            engine.play_on(bestplays_decide, h, sz, dk, dn, tp, pl, total, player, played, firsts[c], min_cards,
                           skip_empty, params, info)
            out[c, k] = info[0]  # -1: the first decision was illegal


def kernel_move(hand: tuple[int, ...], action: int) -> int:
    """The engine action id `action` (a play or `END_TURN`) as a kernel move of the seat holding `hand`."""
    if action == END_TURN:
        return engine.END_TURN
    card, pile = decode_play(action)
    return pile * engine.MAX_HAND + hand.index(card)


def bestplays_rollouts(config: Config, state: State, firsts: list[int], orders: np.ndarray | None = None,
                       params: np.ndarray = BESTPLAYS_PARAMS) -> np.ndarray:
    """Cards left `[len(firsts), K]` when `the_game/bestplays` plays every seat on from `state`, the
    acting seat's first decision being `firsts[c]`; with `orders` rollout k first deals the unseen cards in `orders[k]`.

    Raises:
        IllegalActionError: a first decision the rules forbid.
    """
    if config.rules != "official" or config.communication != "none":
        raise ValueError("the compiled rollouts play rules='official', communication='none' only")
    packed = engine.pack_state(config, state)
    shuffle = orders is not None
    if orders is None:
        orders = np.zeros((1, 0), np.int64)
    out = np.zeros((len(firsts), len(orders)), np.int64)
    _rollouts(*packed, config.resolved_min_cards, engine.skip_empty(config),
              np.ascontiguousarray(params, dtype=np.float64), np.asarray(firsts, np.int64),
              np.ascontiguousarray(orders, dtype=np.int64), shuffle, out)
    if (out < 0).any():
        c = int(np.flatnonzero((out < 0).any(axis=1))[0])
        raise IllegalActionError(int(firsts[c]), state.player, "first decision of a rollout (pile * MAX_HAND + index)")
    return out


def bestplays_cards_left(num_players: int, games: int, seed: int = 0, min_cards_per_turn: int | None = None,
                         hand_size: int | None = None, orders: np.ndarray | None = None,
                         empty_hand: str = "skip") -> np.ndarray:
    """Cards left in each of `games` official-rules games of `the_game/bestplays` (default parameters,
    no communication) in every seat; the same games as `simulate(game, "the_game/bestplays", games, seed)`."""
    cfg = Config(num_players=num_players, min_cards_per_turn=min_cards_per_turn, hand_size=hand_size,
                 empty_hand=empty_hand)
    return cards_left("the_game/bestplays", cfg, games, seed, orders)


#: `SimplestStrategy`'s parameter without communication: (close-play limit,).
SIMPLEST_PARAMS = np.array([3.0])


@numba.njit(inline=INLINE)
def simplest_decide(params, hands, seat, sizes, tops, placed, played, required):
    """`the_game/simplest` without communication (R. Weinmeister's ruleset 2.1), the decisions of
    `agents.the_game.SimplestStrategy`: the first backwards trick (pile, then hand order); else the
    closest play within `params[0]` whose card has no ±10 partner in the hand; else, while the
    minimum is owed, the closest play; else end the turn. Ties: lower pile, then hand index."""
    limit = params[0]
    n = sizes[seat]
    for p in range(4):
        for i in range(n):
            c = hands[seat, i]
            if (c == tops[p] - 10) if p < 2 else (c == tops[p] + 10):
                return p * engine.MAX_HAND + i
    close_c, close_p, close_i = 1 << 30, -1, -1
    any_c, any_p, any_i = 1 << 30, -1, -1
    for p in range(4):
        for i in range(n):
            c = hands[seat, i]
            cost = c - tops[p] if p < 2 else tops[p] - c
            if cost <= 0:
                continue  # does not fit (tricks were taken above)
            if cost < any_c:
                any_c, any_p, any_i = cost, p, i
            if cost <= limit and cost < close_c:
                partnered = False
                for j in range(n):
                    if hands[seat, j] == c + 10 or hands[seat, j] == c - 10:
                        partnered = True
                        break
                if not partnered:
                    close_c, close_p, close_i = cost, p, i
    if close_p >= 0:
        return close_p * engine.MAX_HAND + close_i
    if played < required and any_p >= 0:
        return any_p * engine.MAX_HAND + any_i
    return engine.END_TURN


@numba.njit(cache=True)
def _batch_simplest(orders, n, hand_size, min_cards, skip_empty, params, info):
    for g in range(orders.shape[0]):
        engine.play_game(simplest_decide, orders[g], n, hand_size, min_cards, skip_empty, params, info[g])


#: Agent id -> (batch kernel, parameters) of the strategies with a compiled twin (no communication).
KERNELS = {
    "the_game/simplest": (_batch_simplest, SIMPLEST_PARAMS),
    "the_game/bestplays": (_batch, BESTPLAYS_PARAMS),
}


def cards_left(agent_id: str, config: Config, games: int, seed: int = 0,
               orders: np.ndarray | None = None) -> np.ndarray:
    """Cards left in each of `games` games of `agent_id` (a key of `KERNELS`) in every seat, the same
    games as `evaluate.the_game.simulate`.

    Raises:
        ValueError: an agent without a compiled twin, or options the kernel does not play.
    """
    if agent_id not in KERNELS:
        raise ValueError(f"no compiled kernel for {agent_id!r}; the compiled ones are {sorted(KERNELS)}")
    batch, params = KERNELS[agent_id]
    if orders is None:
        orders = engine.deal_orders(games, seed)
    return engine.play_games(config, orders, batch, params)


__all__ = ["BESTPLAYS", "BESTPLAYS_PARAMS", "KERNELS", "KERNEL_IDS", "SIMPLEST", "VECTOR_KERNELS", "opponent_kernel",
           "vector_decide", "SIMPLEST_PARAMS", "bestplays_cards_left", "bestplays_decide",
           "bestplays_rollouts", "bestplays_view_scores", "cards_left", "kernel_move", "play_score", "simplest_decide",
           "play_seated", "tournament_games", "action_keys_rows"]


# --- the vector env's teammates: the strategies' decide kernels compiled into the engine's vector kernels ---------
#: Kernel codes of the strategies (`OpponentKernel.code`; a seat's `params` row is (code, *the strategy's)).
SIMPLEST, BESTPLAYS = 0, 1
NUM_VECTOR_PARAMS = 1 + max(len(SIMPLEST_PARAMS), len(BESTPLAYS_PARAMS))


@numba.njit(cache=True)
def vector_decide(params, hands, seat, sizes, tops, placed, played, required):
    """The decision of the strategy seated at `seat` of a vector table: `params` is the table's (n, P) block,
    row `seat` = (code, the strategy's parameters)."""
    if params[seat, 0] == SIMPLEST:
        return simplest_decide(params[seat, 1:], hands, seat, sizes, tops, placed, played, required)
    return bestplays_decide(params[seat, 1:], hands, seat, sizes, tops, placed, played, required)


@numba.njit(cache=True, _nrt=False)
def _vector_reset(T, B, S, fresh):
    engine.vec_reset(vector_decide, T, B, S, fresh)


@numba.njit(cache=True, _nrt=False)
def _vector_step(T, B, S, actions):
    engine.vec_step(vector_decide, T, B, S, actions)


#: `envs.the_game.fast.vec_reset` / `vec_step` with `vector_decide` inlined (what `opponent_kernel` carries).
VECTOR_KERNELS = engine.VectorKernels(_vector_reset, _vector_step)
_VECTOR_CODES = {"the_game/simplest": (SIMPLEST, SIMPLEST_PARAMS), "the_game/bestplays": (BESTPLAYS, BESTPLAYS_PARAMS)}
#: The agent ids `opponent_kernel` resolves.
KERNEL_IDS = ("random", *_VECTOR_CODES)


def opponent_kernel(agent_id: str, options: dict | None = None):
    """The `OpponentKernel` of `agent_id` for `envs.the_game_v0.vector_env`, or None when the agent
    has no kernel (`random` is the uniformly random legal move, not `the_game/random`)."""
    from envs.core.vector import RANDOM, OpponentKernel

    if agent_id == "random":
        return RANDOM
    if agent_id in _VECTOR_CODES:
        code, params = _VECTOR_CODES[agent_id]
        return OpponentKernel(agent_id, code, (float(code), *map(float, params)), VECTOR_KERNELS)
    return None


# --- tournaments: `GameAgents.compiled_games` ------------------------------------------------------------------
@numba.njit(cache=True)
def _batch_seated(orders, n, hand_size, min_cards, skip_empty, params, info):
    for g in range(orders.shape[0]):
        engine.play_game(vector_decide, orders[g], n, hand_size, min_cards, skip_empty, params[g], info[g])


def tournament_games(game: Any, ids: list[str] | tuple[str, ...], max_turns: int | None = None,
                     policies: list | None = None):
    """The compiled runner `play(keys, seatings, streams=None) -> (returns, winners, turns)` of a
    tournament between `ids` (`GameAgents.compiled_games`); `policies[e]` seats a saved network (`play_seated`).

    Raises:
        NoKernelError: an entrant without a deterministic kernel and no policy, options the compiled loop does not
            play, or a move limit (`max_turns`).
    """
    from envs.core.spec import NoKernelError

    if max_turns is not None:
        raise NoKernelError.move_limit()
    c = game.config
    if c.rules != "official" or c.communication != "none" or c.starter != 0:
        raise NoKernelError(None, options_note="rules=official, communication=none, starter=0")
    policies = list(policies) if policies is not None else [None] * len(ids)
    rows = []
    for agent_id, policy in zip(ids, policies):
        kernel = _VECTOR_CODES.get(agent_id)
        if kernel is None and policy is None:
            raise NoKernelError(agent_id, tuple(_VECTOR_CODES))
        code, params = kernel if policy is None else (engine.PAUSE_CODE, ())
        row = np.zeros(NUM_VECTOR_PARAMS)
        row[0], row[1:1 + len(params)] = code, params
        rows.append(row)
    entrants = np.array(rows)
    table = np.array([game.placed_returns(p) for p in range(99)])  # the engine's returns by cards placed
    seated = any(p is not None for p in policies)

    def play(keys: list, seatings: np.ndarray, streams: np.ndarray | None = None
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        seatings = np.asarray(seatings, np.int64)
        rot, n = seatings.shape
        d = len(keys)
        orders = np.repeat(np.array(keys, np.int64).reshape(d, -1), rot, axis=0)
        steps = np.zeros(d * rot, np.int64)
        params = np.tile(entrants[seatings], (d, 1, 1))
        if seated:
            players = np.tile(np.where(entrants[seatings, 0] == engine.PAUSE_CODE, seatings, -1), (d, 1))
            left = play_seated(game, orders, params, players, policies,
                               None if streams is None else np.asarray(streams, np.uint64).reshape(d * rot, n), steps)
        else:
            left = engine.play_games(c, orders, _batch_seated, params, steps)
        returns = table[98 - left].reshape(d, rot, n)
        winners = np.repeat((left == 0)[:, None], n, axis=1).reshape(d, rot, n)
        return returns, winners, steps.reshape(d, rot)

    # what a first run compiles (the progress bar says so)
    play.kernels = (_advance_tables, engine.inputs_rows, action_keys_rows) if seated else (_batch_seated,)
    return play


@numba.njit(cache=True)
def action_keys_rows(obs, gaps, hand, hand_size, slot_head, none, out):
    """`TheGameEncoder.action_keys` of the observations `obs` (B, D) into `out` (B, A), key for key: a play's gap
    numerator on its pile (read back from the `gaps` field at `gaps`), plus 201 where its backwards-trick partner is
    in the hand (the `hand` field); `none` (the encoder's `num_action_keys`) for every other action. With
    `slot_head` slot k is the k-th lowest held card (`hand_size` slots), else the head is card-major."""
    C, P = 98, 4
    for b in range(obs.shape[0]):
        out[b, :] = none
        k = 0
        for ci in range(C):
            if slot_head:
                if obs[b, hand + ci] <= 0.5:
                    continue
                if k == hand_size:
                    break
                base = k * P
                k += 1
            else:
                base = ci * P
            for p in range(P):
                key = int(np.float32(obs[b, gaps + p * C + ci] * np.float32(200.0)) + np.float32(0.5))
                if p < 2 and ci >= 10 and obs[b, hand + ci - 10] > 0.5:
                    key += 201
                elif p >= 2 and ci < C - 10 and obs[b, hand + ci + 10] > 0.5:
                    key += 201
                out[b, base + p] = key


@numba.njit(cache=True)
def _advance_tables(T, S, rows, actions, status, bad):
    """`envs.the_game.fast.run_row` at tables `rows` (the strategies' `vector_decide` at their seats), `actions[k]`
    the action id of the seat to move (-1: none; `head_move` makes it the loop's move); `status[k]` why it
    stopped, `bad[k]` a refused move."""
    hs = T.hands.shape[2]
    for k in range(rows.shape[0]):
        r = rows[k]
        first = engine.NO_MOVE if actions[k] < 0 else engine.head_move(T, r, actions[k], S.slot, hs)
        status[k], bad[k], _ = engine.run_row(vector_decide, T, r, S, first, -1)


def play_seated(game: Any, orders: np.ndarray, params: np.ndarray, players: np.ndarray, policies: list,
                streams: np.ndarray | None = None, steps: np.ndarray | None = None) -> np.ndarray:
    """Cards left in the game of each deck order of `orders`, game g's seat s played by
    `policies[players[g, s]]` where that is >= 0, else by `vector_decide` with its `params` row.

    Raises:
        IllegalActionError: a move the rules forbid (by a strategy kernel or a policy).
    """
    from agents.vector import play_paused
    from envs.the_game.encoding import TheGameEncoder

    c = game.config
    g, n = players.shape
    hs = c.resolved_hand_size
    T = engine.new_tables(g, n, hs, params.shape[2])
    T.codes[:] = params[:, :, 0].astype(np.int64)
    T.params[:] = params
    for r in range(g):  # the deal, by the plain engine (rows of one deck order share it)
        if r == 0 or not np.array_equal(orders[r], orders[r - 1]):
            start = engine.pack_state(c, game.deal_from(orders[r]))
        for field, value in zip(("hands", "sizes", "deck", "dn", "tops", "placed", "total", "player", "played"),
                                start):
            getattr(T, field)[r] = value
    line = np.zeros((1, 1), np.int64)
    S = engine.Settings(min_cards=c.resolved_min_cards, skip_empty=engine.skip_empty(c), starter=0,
                        slot=bool(game.slot_head), win_bonus=0.0, card_reward=0.0, fixed_seat=-1, max_turns=-1,
                        illegal_reward=0.0, all_seats=False, line_codes=line,
                        line_params=np.zeros((1, 1, params.shape[2])), line_cum=np.ones(1))
    encoder = TheGameEncoder(game)
    width = encoder.observation_space.shape[0]
    at = (encoder._gaps, encoder._hand, encoder.hand_size, bool(encoder.slot_head), encoder.num_action_keys)

    def advance(rows: np.ndarray, actions: np.ndarray) -> np.ndarray:
        status, bad = np.zeros(rows.size, np.int64), np.zeros(rows.size, np.int64)
        _advance_tables(T, S, rows, np.asarray(actions, np.int64), status, bad)
        if (status == engine.STOP_ILLEGAL).any():
            k = int(np.flatnonzero(status == engine.STOP_ILLEGAL)[0])
            raise IllegalActionError(int(bad[k]), int(T.player[rows[k]]), f"in game {int(rows[k])} "
                                     "(move = pile * MAX_HAND + index)")
        return status == engine.STOP_SEAT

    def inputs(rows: np.ndarray, seats: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        obs = np.zeros((rows.size, width), np.float32)
        mask = np.zeros((rows.size, game.num_actions), np.int8)
        engine.inputs_rows(T, rows, seats, S.slot, S.min_cards, obs, mask)
        keys = np.empty((rows.size, game.num_actions), np.int16)
        action_keys_rows(obs, *at, keys)  # what a network's action table reads, without its numpy pass per batch
        return obs, mask.view(np.bool_), keys

    play_paused(advance, inputs, lambda rows: T.player[rows], players, policies, streams)
    if steps is not None:
        steps[:] = T.turns
    return 98 - T.total
