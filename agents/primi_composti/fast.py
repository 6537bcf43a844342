"""Compiled kernels of the seed's Primi Composti players (numba), differential-tested against
`agents.primi_composti.strategies`, and the whole-game loop of tournaments and reproductions.

Policy codes: 0 asc, 1 desc, 2 rand (dealt order), 3 greedy_asc, 4 greedy_desc, 5 greedy_rand, 10 + d = minimax_d
(2 players only).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from envs.primi_composti import fast as engine
from envs.primi_composti.fast import best_pair, deal_deck, do_move, state_arrays, undo_move
from envs.primi_composti.rules import VALID, VALUE

ASC, DESC, RAND, GREEDY_ASC, GREEDY_DESC, GREEDY_RAND = 0, 1, 2, 3, 4, 5
MINIMAX = 10
POLICY_CODES = {"asc": 0, "desc": 1, "rand": 2, "greedy_asc": 3, "greedy_desc": 4, "greedy_rand": 5}


def policy_code(name: str) -> int:
    """The fast-path code of a player name (`asc` … `greedy_rand`, `minimax_<d>`)."""
    if name in POLICY_CODES:
        return POLICY_CODES[name]
    if name.startswith("minimax_") and name[8:].isdigit() and int(name[8:]) >= 1:
        return MINIMAX + int(name[8:])
    raise ValueError(f"unknown player {name!r}; players: {', '.join(POLICY_CODES)}, minimax_<d>")


@njit(cache=True)
def alphabeta(version, hands, alive, stacks, heights, scores, first, mover, depth, alpha, beta, value, valid,
              revealed=False):
    """Minimax value (score[first] − score[other]) of the position `depth` plies
    deep, alpha-beta in dealt order (rules §5); `revealed`: the official footnote's operand pairs too."""
    return search(version, hands, alive, stacks, heights, scores, first, mover, depth, alpha, beta, value, valid,
                  revealed)


# `alphabeta`'s recursion, `revealed` without a default: numba 0.68.1 crashes (a segfault) on a recursive kernel
# called with an omitted default argument.
@njit(cache=True)
def search(version, hands, alive, stacks, heights, scores, first, mover, depth, alpha, beta, value, valid, revealed):
    """`alphabeta`."""
    if depth == 0 or alive[mover] == 0:
        return scores[first] - scores[1 - first]
    k = hands.shape[1]
    maximizing = mover == first
    best = -1000000 if maximizing else 1000000
    for i in range(k):
        if not (alive[mover] >> i) & 1:
            continue
        c = hands[mover, i]
        alive[mover] ^= 1 << i
        if revealed:
            undo, bonus = do_move(version, c, mover, stacks, heights, scores, value, valid, True)
        else:  # (`do_move` as the seed's rules compile it: speed)
            undo, bonus = do_move(version, c, mover, stacks, heights, scores, value, valid)
        v = search(version, hands, alive, stacks, heights, scores, first, 1 - mover, depth - 1, alpha, beta, value,
                   valid, revealed)
        undo_move(version, c, mover, stacks, heights, scores, undo, bonus, value)
        alive[mover] ^= 1 << i
        if maximizing:
            if v > best:
                best = v
            if best > alpha:
                alpha = best
        else:
            if v < best:
                best = v
            if best < beta:
                beta = best
        if beta <= alpha:
            break
    return best


# minimax_choice repeats alphabeta's loop on purpose: one recursive kernel returning (value, position) would fold
# them, but numba's on-disk cache of a recursive kernel with a tuple result crashes when it is loaded again
# (a segfault in the second process; numba 0.68.1).
@njit(cache=True)
def minimax_choice(version, hands, alive, stacks, heights, scores, first, mover, depth, value, valid, revealed=False):
    """Position (in the mover's dealt hand) of the card minimax_depth plays: the
    first child, in dealt order, with the strictly best value."""
    k = hands.shape[1]
    maximizing = mover == first
    alpha = -1000000
    beta = 1000000
    best = -1000000 if maximizing else 1000000
    best_i = -1
    for i in range(k):
        if not (alive[mover] >> i) & 1:
            continue
        c = hands[mover, i]
        alive[mover] ^= 1 << i
        if revealed:
            undo, bonus = do_move(version, c, mover, stacks, heights, scores, value, valid, True)
        else:  # (`do_move` as the seed's rules compile it: speed)
            undo, bonus = do_move(version, c, mover, stacks, heights, scores, value, valid)
        v = search(version, hands, alive, stacks, heights, scores, first, 1 - mover, depth - 1, alpha, beta, value,
                   valid, revealed)
        undo_move(version, c, mover, stacks, heights, scores, undo, bonus, value)
        alive[mover] ^= 1 << i
        if maximizing:
            if v > best:
                best = v
                best_i = i
            if best > alpha:
                alpha = best
        else:
            if v < best:
                best = v
                best_i = i
            if best < beta:
                beta = best
    return best_i


@njit(cache=True, _nrt=True)
def choose(policy, version, hands, alive, stacks, heights, scores, first, mover, value, valid, revealed=False):
    """Position (in the mover's dealt hand) of the card `policy` plays (rules §5; `revealed`: with the official
    footnote's operand pairs, `allow_revealed_operand`). The card is played with the seed's operand pair (`do_move`'s
    default), under either `steal_choice`, as `SeedPlayer` plays it."""
    k = hands.shape[1]
    if policy >= 10:
        return minimax_choice(version, hands, alive, stacks, heights, scores, first, mover, policy - 10, value, valid,
                              revealed)
    if policy == 0 or policy == 1 or policy == 2:
        best_i = -1
        for i in range(k):
            if not (alive[mover] >> i) & 1:
                continue
            if policy == 2:
                return i
            if best_i < 0 or (policy == 0 and hands[mover, i] < hands[mover, best_i]) or (
                policy == 1 and hands[mover, i] > hands[mover, best_i]
            ):
                best_i = i
        return best_i
    # Greedy: scan in the tie-break order, keep the first strictly better card, up to the most a card can gain
    # (v2 with 2 players: one opponent's prime and composite tops, 3, plus a prime's 2; the revealed operand: two
    # primes of one opponent's stack, 4, plus 2).
    top = 6 if version == 1 or hands.shape[0] > 2 or revealed else 5
    if policy == 5:
        # greedy_rand scans in dealt order: no order array to build (the vector env's hot opponent)
        best = -1
        best_i = -1
        for i in range(k):
            if (alive[mover] >> i) & 1:
                c = hands[mover, i]
                bonus, _ = best_pair(version, c, mover, stacks, heights, value, valid, revealed)
                s = bonus + value[c]  # `immediate_score` (see there why not called)
                if s > best:
                    best = s
                    best_i = i
                    if s >= top:
                        break
        return best_i
    order = np.empty(k, dtype=np.int64)
    n = 0
    for i in range(k):
        if (alive[mover] >> i) & 1:
            order[n] = i
            n += 1
    if policy != 5:
        # Insertion sort of the positions by card (ascending or descending).
        for a in range(1, n):
            x = order[a]
            b = a - 1
            while b >= 0 and ((policy == 3 and hands[mover, order[b]] > hands[mover, x]) or (
                policy == 4 and hands[mover, order[b]] < hands[mover, x]
            )):
                order[b + 1] = order[b]
                b -= 1
            order[b + 1] = x
    best = -1
    best_i = -1
    for t in range(n):
        i = order[t]
        c = hands[mover, i]
        bonus, _ = best_pair(version, c, mover, stacks, heights, value, valid, revealed)
        s = bonus + value[c]  # `immediate_score`
        if s > best:
            best = s
            best_i = i
            if s >= top:
                break
    return best_i


@njit(cache=True)
def play_games(version, k, pols, decks, seat0_holds_two, value, valid, revealed=False):
    """Play one game per deck row (`deal_deck`: the holder of card 2 starts), seat p with policy `pols[p]`, as many
    seats as `pols`; returns the final scores (games, n) and the cards played (games, n·k). `revealed`: version 2
    with the official footnote's operand pairs (`allow_revealed_operand`); every card is played with the seed's
    operand pair (`choose`), under either `steal_choice`."""
    games = decks.shape[0]
    n = pols.shape[0]
    out = np.zeros((games, n), dtype=np.int64)
    moves = np.zeros((games, n * k), dtype=np.int64)
    hands = np.zeros((n, k), dtype=np.int64)
    alive = np.zeros(n, dtype=np.int64)
    stacks = np.zeros((2 * n, n * k), dtype=np.int64)
    heights = np.zeros(2 * n, dtype=np.int64)
    scores = np.zeros(n, dtype=np.int64)
    for g in range(games):
        first = deal_deck(decks[g], k, seat0_holds_two, hands, alive, heights, scores)
        for t in range(n * k):
            mover = (first + t) % n
            c = 0
            if revealed:  # two call sites: the seed's rules keep `do_move` compiled with the option as a constant
                i = choose(pols[mover], version, hands, alive, stacks, heights, scores, first, mover, value, valid,
                           True)
                c = hands[mover, i]
                do_move(version, c, mover, stacks, heights, scores, value, valid, True)
            else:
                i = choose(pols[mover], version, hands, alive, stacks, heights, scores, first, mover, value, valid)
                c = hands[mover, i]
                do_move(version, c, mover, stacks, heights, scores, value, valid)
            alive[mover] ^= 1 << i
            moves[g, t] = c
        for p in range(n):
            out[g, p] = scores[p]
    return out, moves


def simulate(version: int, k: int, p0: str, p1: str, decks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Final scores (n, 2) and played cards (n, 2k) of `p0` (seat 0, starts) vs `p1` on `decks`."""
    pols = np.array([policy_code(p0), policy_code(p1)], np.int64)
    return play_games(int(version), int(k), pols, np.ascontiguousarray(decks, dtype=np.int64), True, VALUE, VALID)


def choose_card(game, state, policy: str) -> int:
    """The card `policy` plays in a plain-engine `state`, computed by the fast path."""
    hands, alive, stacks, heights, scores = state_arrays(game, state)
    mover = game.current_player(state)
    i = choose(policy_code(policy), game.version, hands, alive, stacks, heights, scores, state.first, mover, VALUE,
               VALID, bool(game.config.allow_revealed_operand))
    return int(hands[mover, i])


# --- the vector env's opponents: `choose` compiled into the engine's vector kernels ------------------------------
@njit(cache=True, _nrt=False)
def _vector_reset(T, B, S, fresh):
    engine.vec_reset(choose, T, B, S, fresh, False, 1)


@njit(cache=True, _nrt=False)
def _vector_step(T, B, S, actions):
    engine.vec_step(choose, T, B, S, actions, False, 1)


@njit(cache=True, _nrt=False)
def _vector_reset_official(T, B, S, fresh):
    engine.vec_reset(choose, T, B, S, fresh, S.revealed, S.choices)


@njit(cache=True, _nrt=False)
def _vector_step_official(T, B, S, actions):
    engine.vec_step(choose, T, B, S, actions, S.revealed, S.choices)


#: `envs.primi_composti.fast.vec_reset` / `vec_step` with the seed players' `choose` (what `opponent_kernel` carries;
#: the seed's rules and the official options, `VectorKernels`).
VECTOR_KERNELS = engine.VectorKernels(_vector_reset, _vector_step, _vector_reset_official, _vector_step_official)
#: The agent ids `opponent_kernel` resolves (and the family `primi_composti/minimax?depth=N`).
KERNEL_IDS = ("random", *(f"primi_composti/{p}" for p in POLICY_CODES), "primi_composti/minimax?depth=N")


def opponent_kernel(agent_id: str, options: dict | None = None):
    """The `OpponentKernel` of `agent_id` for `envs.primi_composti_v0.vector_env`, or None when
    the agent has no kernel.

    Raises:
        ValueError: a minimax id without its depth, or under `num_players` other than 2.
    """
    from agents.base import parse_id
    from envs.core.vector import RANDOM, OpponentKernel

    if agent_id == "random":
        return RANDOM
    base, kwargs = parse_id(agent_id)  # the registry's grammar (old spellings such as minimax_4 rewritten)
    name = base.removeprefix("primi_composti/")
    if base.startswith("primi_composti/") and name in POLICY_CODES and not kwargs:
        return OpponentKernel(agent_id, POLICY_CODES[name], (), VECTOR_KERNELS)
    if base == "primi_composti/minimax":
        depth = kwargs.get("depth")
        if set(kwargs) != {"depth"} or not str(depth).isdigit() or int(depth) < 1:
            raise ValueError(f"primi_composti/minimax takes its search depth: primi_composti/minimax?depth=N "
                             f"(N >= 1); got {agent_id!r}")
        players = (options or {}).get("num_players", 2)
        if players != 2:
            raise ValueError(f"{agent_id} plays num_players=2 only (a 2-player search of complete information); "
                             f"got num_players={players}")
        return OpponentKernel(agent_id, MINIMAX + int(depth), (), VECTOR_KERNELS)
    return None


# --- tournaments: `agents.part(game).compiled_games` ---------------------------------------------------------
def tournament_games(game, ids, max_turns=None, policies=None):
    """The compiled runner `play(keys, seatings, streams=None) -> (returns, winners, turns)` of a
    tournament between `ids` (`agents.part(game).compiled_games`); `policies[e]` seats a saved network (`play_seated`).

    Raises:
        NoKernelError: an entrant without a deterministic kernel and no policy (minimax beyond 2 players), or a move
            limit (`max_turns`).
    """
    from envs.core.spec import NoKernelError

    if max_turns is not None:
        raise NoKernelError.move_limit()

    # Every option set: the kernels play the seed's operand pair under either `steal_choice`, as their Python agents.
    revealed = bool(game.config.allow_revealed_operand)
    allowed = tuple(k for k in KERNEL_IDS if k != "random")
    policies = list(policies) if policies is not None else [None] * len(ids)
    codes = []
    for agent_id, policy in zip(ids, policies):
        if policy is not None:
            codes.append(engine.BATCH_CODE)
            continue
        try:
            kernel = opponent_kernel(agent_id, {"num_players": game.num_players}) if isinstance(agent_id, str) else None
        except ValueError:
            kernel = None  # an id outside the players' grammar (a learned agent)
        if kernel is None or kernel.code < 0:
            raise NoKernelError(agent_id, allowed)
        codes.append(kernel.code)
    k, version, n = game.config.cards_per_player, int(game.version), game.num_players
    seat0 = bool(game.config.seat0_holds_two)
    codes = np.array(codes, np.int64)
    seated = any(p is not None for p in policies)

    def play(keys, seatings, streams=None):
        seatings = np.asarray(seatings, np.int64)
        decks = np.array(keys, np.int64).reshape(len(keys), -1)
        d, rows = decks.shape[0], seatings.shape[0]
        if seated:
            players = np.tile(np.where(codes[seatings] == engine.BATCH_CODE, seatings, -1), (d, 1))
            finals = play_seated(game, np.repeat(decks, rows, axis=0), np.tile(codes[seatings], (d, 1)), players,
                                 policies, None if streams is None else np.asarray(streams, np.uint64).reshape(-1, n))
            finals = finals.reshape(d, rows, n)
        else:
            finals = np.zeros((d, rows, n), np.int64)
            for r in range(rows):
                finals[:, r] = play_games(version, k, codes[seatings[r]], decks, seat0, VALUE, VALID, revealed)[0]
        return _endings(game, decks, finals)

    play.kernels = (_advance_tables, engine.observe_rows, engine.mask_rows) if seated else (play_games,)
    return play


def _endings(game, decks, finals):
    """(returns, winners, turns) of games that ended with the scores `finals` (deals, rows, n): the engine's
    returns and winners of a finished game, once per distinct set of final scores."""
    import dataclasses

    d, rows, n = finals.shape
    turns = game.num_cards
    ends_at, which = np.unique(finals.reshape(-1, n), axis=0, return_inverse=True)
    start = game.deal_from(decks[0].tolist()) if d else None
    ends = [dataclasses.replace(start, scores=tuple(int(x) for x in e), turn=turns) for e in ends_at]
    ret = np.array([game.returns(e) for e in ends], np.float64).reshape(-1, n)
    won = np.array([[s in game.winners(e) for s in range(n)] for e in ends], bool).reshape(-1, n)
    which = which.reshape(-1)
    return ret[which].reshape(d, rows, n), won[which].reshape(d, rows, n), np.full((d, rows), turns, np.int64)


@njit(cache=True)
def _deal_tables(T, S, decks):
    """Table r: the start of the game of deck order `decks[r]` (`deal_deck`, as `play_games` deals it)."""
    for r in range(decks.shape[0]):
        T.first[r] = engine.deal_deck(decks[r], S.k, S.seat0_holds_two, T.hands[r], T.alive[r], T.heights[r],
                                      T.scores[r])
        T.turn[r] = 0


@njit(cache=True)
def _advance_tables(T, S, rows, actions, status, bad):
    """Tables `rows` played on by `envs.primi_composti.fast.advance` (the seed players' `choose` at their seats)
    until a network's seat is to move or every card is played, after `actions[j]` (>= 0: the action id of the seat
    to move, played as the vector env plays it: `position_of`, `choice_of`); `status[j]` why it stopped, `bad[j]`
    a refused action."""
    n = T.hands.shape[1]
    for j in range(rows.shape[0]):
        r = rows[j]
        a = actions[j]
        if a >= 0:
            cur = (T.first[r] + T.turn[r]) % n
            pos = engine.position_of(T.hands, T.alive, T.stacks, T.heights, T.turn, r, cur, a, S.k, S.choices, S.valid)
            if pos < 0:
                status[j], bad[j] = engine.STOP_ILLEGAL, a
                continue
            engine.play_position(T.hands, T.alive, T.stacks, T.heights, T.scores, T.turn, r, cur, pos, S.version,
                                 S.value, S.valid, S.revealed, engine.choice_of(a, S.choices))
        status[j], bad[j] = engine.advance(choose, T.hands, T.alive, T.stacks, T.heights, T.scores, T.turn, T.first,
                                           T.codes, T.rng, r, -1, -1, S.version, S.k, S.value, S.valid, S.revealed,
                                           S.choices, T.legal)


def seated_tables(game, decks, codes):
    """(`Tables`, `Settings`) of `game` at the start of the game of each deck order of `decks` (one table a row),
    seat s of table g played by the seed player of code `codes[g, s]` (`engine.BATCH_CODE`: the table pauses there,
    `_advance_tables`)."""
    from envs.primi_composti.encoding import PrimiCompostiEncoder

    cfg = game.config
    g, n = codes.shape
    T = engine.new_tables(g, n, cfg.cards_per_player, int(game.num_choices))
    T.codes[:] = codes
    S = engine.Settings(version=int(cfg.version), k=int(cfg.cards_per_player),
                        seat0_holds_two=bool(cfg.seat0_holds_two), score_scores=cfg.reward != "result",
                        score_result=cfg.reward != "score",
                        hints=bool(cfg.observation_hints), max_score=float(PrimiCompostiEncoder(game).max_score),
                        fixed_seat=-1, max_turns=-1, illegal_reward=0.0, all_seats=False,
                        line_codes=np.zeros((1, 1), np.int64), line_cum=np.ones(1), value=VALUE, valid=VALID,
                        revealed=bool(cfg.allow_revealed_operand), choices=int(game.num_choices))
    _deal_tables(T, S, np.ascontiguousarray(decks, np.int64))
    return T, S


def play_seated(game, decks, codes, players, policies, streams=None):
    """The final scores (games, n) of the game of each deck order of `decks`, seat s of game g played
    by `policies[players[g, s]]` where that is >= 0, else by the seed player of code `codes[g, s]`.

    Raises:
        IllegalActionError: a move the rules forbid (by a player's kernel or a policy).
    """
    from agents.vector import play_paused
    from envs.core.game import IllegalActionError
    from envs.primi_composti.encoding import PrimiCompostiEncoder

    g, n = codes.shape
    encoder = PrimiCompostiEncoder(game)
    T, S = seated_tables(game, decks, codes)

    def advance(rows, actions):
        status, bad = np.zeros(rows.size, np.int64), np.zeros(rows.size, np.int64)
        _advance_tables(T, S, rows, np.asarray(actions, np.int64), status, bad)
        if (status == engine.STOP_ILLEGAL).any():
            j = int(np.flatnonzero(status == engine.STOP_ILLEGAL)[0])
            r = int(rows[j])
            raise IllegalActionError(int(bad[j]), int((T.first[r] + T.turn[r]) % n), f"in game {r}")
        return status == engine.STOP_BATCH

    def inputs(rows, seats):
        obs = np.zeros((rows.size, encoder.observation_space.shape[0]), np.float32)
        mask = np.zeros((rows.size, game.num_actions), np.int8)
        engine.observe_rows(T, rows, seats, S, obs)
        engine.mask_rows(T, rows, S, mask)
        return obs, mask.view(np.bool_)

    play_paused(advance, inputs, lambda rows: (T.first[rows] + T.turn[rows]) % n, players, policies, streams,
                tables=(T, S))
    return T.scores.copy()
