"""The engine's compiled kernels for the seed's 2-player game (numba, `cache=True`).

Covers exactly the configuration the seed studies: 2 players, `steal_choice="max"`,
no revealed operand, any `cards_per_player`, versions 1 and 2, seat 0 = the
holder of card 2. Everything here is differential-tested against the plain
engine (`envs.primi_composti.rules`): same deals, same moves, same stacks and scores.
The players' kernels built on these (greedy, minimax) live with the players, in
`agents.primi_composti.fast`; the exact solvers in `agents.primi_composti.solvers`.

Layout: `hands[p, i]` is seat p's i-th dealt card, `alive[p]` a bit mask of the
positions not yet played; `stacks[s, h]` with heights `heights[s]` (s = 2·seat
primes, 2·seat+1 composites); `scores[p]`. Operand pairs are the 6 stack pairs
(i < j) in index order, as in the plain engine. `value` and `valid` are
`rules.VALUE` and `rules.VALID` (passed in, so one compiled kernel serves all callers).

Also here: the deal of a seed (`shuffle_cards`, `deal_seed`: `PrimiCompostiGame.deal(seed)` compiled) and
the vector env's kernels (`vec_reset` / `vec_step`, many tables one row each, on the same `do_move`;
`envs.primi_composti.vector`).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit

from envs.core import kernels
from envs.core.vector import BATCH_CODE, SKIP, nb_episode_seeds, nb_next, nb_pick_line_up
from envs.core.vector import Buffers as SharedBuffers
from envs.primi_composti.rules import MAX_CARD

_PA = np.array([0, 0, 0, 1, 1, 2], dtype=np.int64)
_PB = np.array([1, 2, 3, 2, 3, 3], dtype=np.int64)


@njit(cache=True)
def best_bonus(version, c, mover, stacks, heights, value, valid):
    """(bonus, pair) of the seed's choice for card c: v1 best VALUE(A)+VALUE(B),
    v2 most stolen value; first best pair on ties; (0, -1) if none."""
    best = 0
    bp = -1
    for k in range(6):
        i = _PA[k]
        j = _PB[k]
        if heights[i] == 0 or heights[j] == 0:
            continue
        a = stacks[i, heights[i] - 1]
        b = stacks[j, heights[j] - 1]
        if not valid[c, a, b]:
            continue
        if version == 1:
            v = value[a] + value[b]
        else:
            v = 0
            if i // 2 != mover:
                v += value[a]
            if j // 2 != mover:
                v += value[b]
        if v > best:
            best = v
            bp = k
    return best, bp


@njit(cache=True)
def do_move(version, c, mover, stacks, heights, scores, value, valid):
    """Play card c for `mover` in place; returns an undo code (bit 0: took the
    opponent's prime top, bit 1: its composite top)."""
    bonus, bp = best_bonus(version, c, mover, stacks, heights, value, valid)
    undo = 0
    if version == 1:
        scores[mover] += bonus + value[c]
    else:
        opp = 1 - mover
        if bp >= 0:
            for s in (_PA[bp], _PB[bp]):
                if s // 2 == opp:
                    card = stacks[s, heights[s] - 1]
                    heights[s] -= 1
                    own = 2 * mover + (s % 2)
                    stacks[own, heights[own]] = card
                    heights[own] += 1
                    undo |= 1 << (s % 2)
        scores[mover] += bonus + value[c]
        scores[opp] -= bonus
    own = 2 * mover + (0 if value[c] == 2 else 1)
    stacks[own, heights[own]] = c
    heights[own] += 1
    return undo, bonus


@njit(cache=True)
def undo_move(version, c, mover, stacks, heights, scores, undo, bonus, value):
    """Reverse `do_move`."""
    own = 2 * mover + (0 if value[c] == 2 else 1)
    heights[own] -= 1
    if version == 1:
        scores[mover] -= bonus + value[c]
        return
    opp = 1 - mover
    for t in range(2):
        if undo & (1 << t):
            o = 2 * mover + t
            card = stacks[o, heights[o] - 1]
            heights[o] -= 1
            s = 2 * opp + t
            stacks[s, heights[s]] = card
            heights[s] += 1
    scores[mover] -= bonus + value[c]
    scores[opp] += bonus


@njit(cache=True)
def deal_halves(deck, k, swap, hands, alive, heights, scores):
    """Seat 0 gets deck[:k] and seat 1 deck[k:2k] (the halves swapped where `swap`), every card alive; the stacks
    empty and the scores 0 (the start of `setup` and `deal_seed`)."""
    for i in range(k):
        hands[0, i] = deck[k + i] if swap else deck[i]
        hands[1, i] = deck[i] if swap else deck[k + i]
    full = (1 << k) - 1
    alive[0] = full
    alive[1] = full
    for s in range(4):
        heights[s] = 0
    scores[0] = 0
    scores[1] = 0


@njit(cache=True)
def setup(deck, k, hands, alive, stacks, heights, scores):
    """Deal `deck` (seat 0 gets deck[:k], seat 1 deck[k:2k]; halves swapped if card 2
    is not in seat 0's) into the given buffers."""
    swap = True
    for i in range(k):
        if deck[i] == 2:
            swap = False
    deal_halves(deck, k, swap, hands, alive, heights, scores)


def random_decks(rng: np.random.Generator, n: int, k: int) -> np.ndarray:
    """n shuffled decks of the cards 2..2k+1 (one row each), from `rng`."""
    base = np.tile(np.arange(2, 2 * k + 2, dtype=np.int64), (n, 1))
    return rng.permuted(base, axis=1)


def state_arrays(game, state):
    """The fast-path buffers of a plain-engine state (2 players, seed configuration)."""
    return position_arrays(state.hands, state.stacks, state.scores, game.cards_per_player)


def position_arrays(hands_in, stacks_in, scores_in, k: int):
    """The fast-path buffers (hands, alive, stacks, heights, scores) of a 2-player position
    with `k` cards dealt to each player: the hands' remaining cards keep their relative dealt
    order, played positions are dead."""
    hands = np.zeros((2, k), dtype=np.int64)
    alive = np.zeros(2, dtype=np.int64)
    for p in range(2):
        h = hands_in[p]
        for i, c in enumerate(h):
            hands[p, i] = c
        alive[p] = (1 << len(h)) - 1
    stacks = np.zeros((4, 2 * k), dtype=np.int64)
    heights = np.zeros(4, dtype=np.int64)
    for s in range(4):
        for h, c in enumerate(stacks_in[s]):
            stacks[s, h] = c
        heights[s] = len(stacks_in[s])
    return hands, alive, stacks, heights, np.array(scores_in, dtype=np.int64)


def supports(game) -> bool:
    """Whether the fast path implements `game`'s configuration."""
    cfg = game.config
    return game.num_players == 2 and cfg.steal_choice == "max" and not cfg.allow_revealed_operand and MAX_CARD >= game.max_card


# --- the deal of a seed (`rules.shuffled_cards` compiled) -------------------------------------------------------
_U = np.uint64


@njit(cache=True)
def shuffle_cards(order, m, seed):
    """`order[:m]` = the cards 2..m+1 in the order of deal seed `seed` (`rules.shuffled_cards`, bit for bit)."""
    for i in range(m):
        order[i] = i + 2
    kernels.shuffle(order, m, seed)


@njit(cache=True)
def deal_seed(seed, k, seat0_holds_two, order, hands, alive, stacks, heights, scores):
    """Deal the 2-player game of deal seed `seed` (`PrimiCompostiGame.deal(seed)`) into the buffers (`order` is
    scratch of 2k); returns the seat that plays first (the holder of card 2)."""
    shuffle_cards(order, 2 * k, seed)
    holder = 0
    for i in range(2 * k):
        if order[i] == 2:
            holder = i // k
    deal_halves(order, k, seat0_holds_two and holder == 1, hands, alive, heights, scores)
    return 0 if seat0_holds_two else holder


# --- the vector env's kernels: many tables, one row each ------------------------------------------------------
# Every table is a 2-player game of the seed's configuration in the layout above, one row a table. The learner's
# moves come from outside, the opponent's from a decide kernel passed in (inlined by the caller, as the players'
# kernels in `agents.primi_composti.fast` are), with the signature of `agents.primi_composti.fast.choose`:
#
#     decide(code, version, hands, alive, stacks, heights, scores, first, mover, value, valid) -> hand position
#
# A seat of code `RANDOM_CODE` plays a uniformly random legal card from the table's SplitMix64 stream instead; at a
# seat of a batch policy's code (<= `BATCH_CODE`) the table pauses: the env asks the policy, over every table where
# it is to move, and calls the step kernel again with its moves (`SKIP` at the other tables).

RANDOM_CODE = -1  # the env's own random opponent (`random_position`)
LEARNER_CODE = -2  # the learner's seat: never decided by a kernel
# What `advance` stopped at.
STOP_SEAT = 0  # the seat `stop` is to move
STOP_OVER = 1  # every card is played
STOP_BUDGET = 2  # `budget` moves were played
STOP_BATCH = 3  # a batch policy's seat is to move (the table pauses)
STOP_ILLEGAL = -2  # the decide kernel chose a position that holds no card (nothing was changed)


class Tables(NamedTuple):
    """Every table of a vector env as arrays, one row a table (N tables, k cards a hand).

    The position in `setup`'s layout (`hands` (N, 2, k), `alive` (N, 2),
    `stacks` (N, 4, 2k), `heights` (N, 4), `scores` (N, 2)), cards played
    `turn` and the first mover `first`; the episode's deal seed `seed`; the
    learner's seat `learner` (under `all_seats`: the seat to move); each seat's
    policy code `codes` (N, 2); the table's key `key`, episode counter `episode`
    and random-opponent stream `rng`; `carry`, minus the learner's return at its
    previous decision (0 at the deal: the learner's next reward is its return then
    plus `carry`, the opponent's moves in between included); the episode's return
    `ep_ret` and decisions `ep_len`; the line-up drawn `line`; `phase`: 0 at the
    learner's decision, 1 paused at a batch policy's turn inside the learner's
    step, 2 paused inside a new episode's opening; `order` is scratch (2k,).
    """

    hands: np.ndarray
    alive: np.ndarray
    stacks: np.ndarray
    heights: np.ndarray
    scores: np.ndarray
    turn: np.ndarray
    first: np.ndarray
    seed: np.ndarray
    learner: np.ndarray
    codes: np.ndarray
    key: np.ndarray
    episode: np.ndarray
    rng: np.ndarray
    carry: np.ndarray
    ep_ret: np.ndarray
    ep_len: np.ndarray
    line: np.ndarray
    phase: np.ndarray
    order: np.ndarray


def new_tables(num_envs: int, k: int) -> Tables:
    """Zeroed `Tables` for `num_envs` tables of `k` cards a hand."""
    N = num_envs
    i64 = np.int64
    return Tables(
        np.zeros((N, 2, k), i64), np.zeros((N, 2), i64), np.zeros((N, 4, 2 * k), i64), np.zeros((N, 4), i64),
        np.zeros((N, 2), i64), np.zeros(N, i64), np.zeros(N, i64), np.zeros(N, np.uint64), np.zeros(N, i64),
        np.zeros((N, 2), i64), np.zeros(N, np.uint64), np.zeros(N, i64), np.zeros(N, np.uint64), np.zeros(N),
        np.zeros(N), np.zeros(N, i64), np.zeros(N, i64), np.zeros(N, i64), np.zeros(2 * k, i64),
    )


Buffers = NamedTuple("Buffers", [(name, np.ndarray) for name in (*SharedBuffers._fields, "final_player", "rewards")])
Buffers.__doc__ = """What a vector step hands back (filled in place): the shared `envs.core.vector.Buffers`' fields, then
`final_player` (the seat the final observation is encoded for) and, under `all_seats`, `rewards` (N, 2), every seat's
reward of the step."""


class Settings(NamedTuple):
    """A vector env's fixed settings as the kernels take them: the game (`version`, `k` cards a hand,
    `seat0_holds_two`), the reward (`score_scores`, `score_result`: `Config.reward`'s parts), `hints`
    (`observation_hints`), `max_score` (the encoder's score scale), `fixed_seat` (-1: drawn), `max_turns`
    (-1: none), `illegal_reward`, `all_seats`, the line-ups (`envs.core.vector.compile_line_ups`): `line_codes[i]`
    the opponent's code in line-up i, drawn per episode by the cumulative weights `line_cum`, and `value` /
    `valid` (`rules.VALUE`, `rules.VALID`)."""

    version: int
    k: int
    seat0_holds_two: bool
    score_scores: bool
    score_result: bool
    hints: bool
    max_score: float
    fixed_seat: int
    max_turns: int
    illegal_reward: float
    all_seats: bool
    line_codes: np.ndarray
    line_cum: np.ndarray
    value: np.ndarray
    valid: np.ndarray


class VectorKernels(NamedTuple):
    """The compiled `reset(T, B, S, fresh)` and `step(T, B, S, actions)` of a vector env, built around one
    decide kernel (`vec_reset` / `vec_step` inlined with it as a global)."""

    reset: Any
    step: Any


# Speed: the helpers below take the arrays they use, never the `Tables` tuple. Binding a tuple of arrays to an
# inlined function's argument increfs and decrefs every array in it (measured: ~90 ns a call with 17 arrays, more
# than the rule it serves); a few separate arrays cost a few ns.
@njit(inline="always")
def seat_return(turn, scores, r, s, m, score_scores, score_result):
    """`PrimiCompostiGame.returns(state)[s]` of table r (2 players, `m` cards in all), float for float."""
    terminal = turn[r] >= m
    if score_scores:
        x0 = float(scores[r, 0])
        x1 = float(scores[r, 1])
    elif not terminal:
        return 0.0
    else:
        x0 = 0.0
        x1 = 0.0
    if terminal and score_result:
        if scores[r, 0] > scores[r, 1]:
            x0 = x0 + 1.0
        elif scores[r, 1] > scores[r, 0]:
            x1 = x1 + 1.0
    tot = x0 + x1
    if s == 0:
        return x0 - (tot - x0)
    return x1 - (tot - x1)


@njit(inline="always")
def play_position(hands, alive, stacks, heights, scores, turn, r, mover, i, version, value, valid):
    """Seat `mover` of table r plays the card at position i of its dealt hand (`do_move`)."""
    alive[r, mover] ^= 1 << i
    do_move(version, hands[r, mover, i], mover, stacks[r], heights[r], scores[r], value, valid)
    turn[r] += 1


@njit(inline="always")
def random_position(hands, alive, rng, r, mover, k):
    """A uniformly random legal card of seat `mover` from the stream `rng[r]`: the j-th smallest card in hand,
    j = draw mod the number of cards (as the vector env's `RANDOM` opponent is documented)."""
    live = alive[r, mover]
    count = 0
    for i in range(k):
        if (live >> i) & 1:
            count += 1
    want = np.int64(nb_next(rng, r) % _U(count))
    for i in range(k):
        if (live >> i) & 1:
            c = hands[r, mover, i]
            rank = 0
            for j in range(k):
                if (live >> j) & 1 and hands[r, mover, j] < c:
                    rank += 1
            if rank == want:
                return i
    return -1


@njit(inline="always")
def advance(decide, hands, alive, stacks, heights, scores, turn, first, codes, rng, r, stop, budget, version, k,
            value, valid):
    """Play table r on until seat `stop` is to move, every card is played, `budget` moves were played (-1:
    no limit), or a batch policy is to move; returns (status `STOP_*`, the refused position when `STOP_ILLEGAL`)."""
    steps = 0
    while turn[r] < 2 * k:
        cur = (first[r] + turn[r]) % 2
        if cur == stop:
            return STOP_SEAT, -1
        if steps == budget:
            return STOP_BUDGET, -1  # before a batch policy's turn: a truncated table does not pause
        code = codes[r, cur]
        if code <= BATCH_CODE:
            return STOP_BATCH, -1
        if code == RANDOM_CODE:
            i = random_position(hands, alive, rng, r, cur, k)
        else:
            i = decide(code, version, hands[r], alive[r], stacks[r], heights[r], scores[r], first[r], cur, value,
                       valid)
        if i < 0 or i >= k or not (alive[r, cur] >> i) & 1:
            return STOP_ILLEGAL, i
        play_position(hands, alive, stacks, heights, scores, turn, r, cur, i, version, value, valid)
        steps += 1
    return STOP_OVER, -1


@njit(inline="always")
def observe_row(hands, alive, stacks, heights, scores, turn, r, seat, k, version, max_score, hints, value, valid,
                out, o):
    """`PrimiCompostiEncoder.encode(game.view(state, seat))` of table r into `out[o]` (float32, bit for bit; 2
    players, so the opponent's hand is known)."""
    m = 2 * k
    # the encoder's layout with 2 players (checked against `Layout` by the env): own hand, the other hand, unseen,
    # stack membership (4 stacks), stack tops (4), stack heights, scores (2), hand sizes (2), turn, hand gains
    other_at, unseen_at, member_at, top_at, height_at = m, 2 * m, 3 * m, 7 * m, 11 * m
    score_at = 12 * m
    for j in range(out.shape[1]):
        out[o, j] = 0.0
    for c in range(m):
        out[o, unseen_at + c] = 1.0
    for rel in range(2):
        s = (seat + rel) % 2
        live = alive[r, s]
        base = 0 if rel == 0 else other_at
        left = 0
        for i in range(k):
            if (live >> i) & 1:
                left += 1
                c = hands[r, s, i] - 2
                out[o, base + c] = 1.0
                if rel == 0:
                    out[o, unseen_at + c] = 0.0
        for t in range(2):
            st = 2 * s + t
            slot = 2 * rel + t
            h = heights[r, st]
            for j in range(h):
                c = stacks[r, st, j] - 2
                out[o, member_at + slot * m + c] = 1.0
                out[o, height_at + c] = (j + 1) / m
                out[o, unseen_at + c] = 0.0
            if h > 0:
                out[o, top_at + slot * m + stacks[r, st, h - 1] - 2] = 1.0
        out[o, score_at + rel] = scores[r, s] / max_score
        out[o, score_at + 2 + rel] = left / k
    out[o, score_at + 4] = turn[r] / m
    if hints:
        gain_at = score_at + 5
        live = alive[r, seat]
        for i in range(k):
            if (live >> i) & 1:
                c = hands[r, seat, i]
                bonus, _ = best_bonus(version, c, seat, stacks[r], heights[r], value, valid)
                out[o, gain_at + c - 2] = min(1.0, (bonus + value[c]) / 8.0)


@njit(inline="always")
def mask_row(hands, alive, turn, first, r, k, out, o):
    """`PrimiCompostiGame.legal_mask` of table r's seat to move into `out[o]` (int8; action c − 2 plays card c)."""
    for a in range(out.shape[1]):
        out[o, a] = 0
    if turn[r] < 2 * k:
        cur = (first[r] + turn[r]) % 2
        live = alive[r, cur]
        for i in range(k):
            if (live >> i) & 1:
                out[o, hands[r, cur, i] - 2] = 1


@njit(inline="always")
def _observe(T, S, r, seat, out, o):
    observe_row(T.hands, T.alive, T.stacks, T.heights, T.scores, T.turn, r, seat, S.k, S.version, S.max_score,
                S.hints, S.value, S.valid, out, o)


@njit(cache=True)
def observe_rows(T, rows, seats, S, out):
    """`out[j]` = the observation of table `rows[j]` from seat `seats[j]` (as `PrimiCompostiEncoder`)."""
    for j in range(rows.shape[0]):
        _observe(T, S, rows[j], seats[j], out, j)


@njit(inline="always")
def position_of(hands, alive, turn, r, seat, a, k):
    """The hand position of seat `seat` at table r that holds the card of action `a` (-1: none, or the game is
    over)."""
    pos = -1
    if 0 <= a < 2 * k and turn[r] < 2 * k:
        live = alive[r, seat]
        for i in range(k):
            if (live >> i) & 1 and hands[r, seat, i] == a + 2:
                pos = i
    return pos


@njit(cache=True)
def mask_rows(T, rows, k, out):
    """`out[j]` = the legal actions of the seat to move at table `rows[j]` (int8, as `legal_mask`)."""
    for j in range(rows.shape[0]):
        mask_row(T.hands, T.alive, T.turn, T.first, rows[j], k, out, j)


@njit(inline="always")
def deal_row(T, S, r):
    """Deal table r's next episode: deal seed, learner's seat, line-up and random stream from its key and episode
    counter, the line-up seated (under `all_seats` the seat to move is the learner). The opening (`open_row`)
    follows. Every deal reaches the learner's first decision (each hand holds a card): no deal is dealt again."""
    e = T.episode[r]
    T.episode[r] = e + 1
    deal, drawn, stream = nb_episode_seeds(T.key[r], e, 2)
    T.seed[r] = deal
    T.rng[r] = stream
    T.first[r] = deal_seed(deal, S.k, S.seat0_holds_two, T.order, T.hands[r], T.alive[r], T.stacks[r],
                           T.heights[r], T.scores[r])
    T.turn[r] = 0
    T.carry[r] = 0.0  # minus the learner's return at the deal: every return is 0 before the first card
    T.ep_ret[r] = 0.0
    T.ep_len[r] = 0
    if S.all_seats:
        T.learner[r] = T.first[r]  # the seat to move
        T.codes[r, 0] = LEARNER_CODE
        T.codes[r, 1] = LEARNER_CODE
        T.phase[r] = 0
        return
    seat = drawn if S.fixed_seat < 0 else S.fixed_seat
    li = nb_pick_line_up(S.line_cum, T.key[r], e)
    T.line[r] = li
    T.learner[r] = seat
    T.codes[r, seat] = LEARNER_CODE
    T.codes[r, 1 - seat] = S.line_codes[li]
    T.phase[r] = 2  # in the episode's opening until the learner's first decision (`open_row`)


@njit(inline="always")
def open_row(decide, T, B, S, r):
    """Play table r's opening (from its deal, or on from a batch policy's move) up to the learner's first decision
    (the opponent's reward counts in the learner's first one, through `carry`). Returns False where it stops at a
    batch policy's turn (phase 2: the step kernel plays that policy's move and comes back here), else True (phase
    0: the caller observes the table)."""
    if S.all_seats:
        return True  # nobody plays before the seat to move
    seat = T.learner[r]
    status, bad = advance(decide, T.hands, T.alive, T.stacks, T.heights, T.scores, T.turn, T.first, T.codes, T.rng,
                          r, seat, S.max_turns - T.turn[r] if S.max_turns > 0 else -1, S.version, S.k, S.value,
                          S.valid)
    if status == STOP_BATCH:
        return False
    if status < 0:
        kernels.fail(B.err, r, status, (T.first[r] + T.turn[r]) % 2, bad)
    T.phase[r] = 0
    return True


# Two kernels (reset and step) with `advance` inlined at three sites (one in reset, two in step), as before batch
# policies and as L.A.M.A.'s (`envs.lama.fast`): the opening of an episode dealt anew (or resumed from a batch
# policy's move) has its own site, and every table reaching a decision is observed at one site, the loop body's end.
@njit(inline="always")
def vec_reset(decide, T, B, S, fresh):
    """Start every table's next episode (`fresh`: from episode 0 of its key) and observe it (a table paused at a
    batch policy's turn is observed when the step kernel goes on there)."""
    B.err[0] = -1
    for r in range(T.seed.shape[0]):
        if fresh:
            T.episode[r] = 0
        deal_row(T, S, r)
        if open_row(decide, T, B, S, r):
            _observe(T, S, r, T.learner[r], B.obs, r)
            mask_row(T.hands, T.alive, T.turn, T.first, r, S.k, B.mask, r)


@njit(inline="always")
def vec_step(decide, T, B, S, actions):
    """One decision per table (`actions[r]`: the learner's, or under `all_seats` the seat to move), then (one
    seat) the opponent up to the learner's next one; an ended episode is observed into `final_obs` and the
    table dealt anew in the same call (same-step autoreset).

    A refused action (out of range, or a card not in the hand) changes nothing at the table and ends its
    episode with `illegal_reward`. Rewards: the change of the learner's return since its previous decision (the
    deal, for its first: the opponent's opening move counts), through `carry`; under `all_seats`
    `B.rewards[r, s]` is the change of seat s's return in the step and the reward the mover's.

    Batch policies: a table reaching a batch policy's turn pauses (`phase` 1 inside the learner's step, 2 inside
    an episode's opening) with its outputs unwritten; the env calls this kernel again with that policy's move at
    the paused tables and `SKIP` at the others, until no table is paused.
    """
    # the arrays and settings as locals, once (see the note on speed above)
    hands, alive, stacks, heights, scores, turn, first = T.hands, T.alive, T.stacks, T.heights, T.scores, T.turn, T.first
    learner, codes, rng, carry, ep_ret, ep_len = T.learner, T.codes, T.rng, T.carry, T.ep_ret, T.ep_len
    phase = T.phase
    obs, mask, rewards = B.obs, B.mask, B.rewards
    version, k, value, valid = S.version, S.k, S.value, S.valid
    ss, sres, max_turns, all_seats = S.score_scores, S.score_result, S.max_turns, S.all_seats
    m = 2 * k
    B.err[0] = -1
    for r in range(T.seed.shape[0]):
        a = actions[r]
        if a == SKIP:
            continue
        ph = phase[r]
        L = learner[r]
        cur = (first[r] + turn[r]) % 2  # the learner (phase 0) or a batch policy (phases 1 and 2)
        pos = position_of(hands, alive, turn, r, cur, a, k)
        if ph == 0:
            kernels.unrefused(B, r)
        if pos < 0 and ph == 0:
            # the learner's action was refused: nothing changed at the table
            rew, term, trunc = kernels.refuse(B, r, a, S.illegal_reward)
            if all_seats:
                rewards[r, L] = rew
                rewards[r, 1 - L] = 0.0
        elif all_seats:
            b0 = seat_return(turn, scores, r, 0, m, ss, sres)
            b1 = seat_return(turn, scores, r, 1, m, ss, sres)
            play_position(hands, alive, stacks, heights, scores, turn, r, L, pos, version, value, valid)
            r0 = seat_return(turn, scores, r, 0, m, ss, sres) - b0
            r1 = seat_return(turn, scores, r, 1, m, ss, sres) - b1
            rewards[r, 0] = r0
            rewards[r, 1] = r1
            rew = r0 if L == 0 else r1
            term = turn[r] >= m
            trunc = (not term) and max_turns > 0 and turn[r] >= max_turns
        else:
            status, bad = STOP_ILLEGAL, a  # a batch policy's move that holds no card (the env checks them first)
            if pos >= 0:
                play_position(hands, alive, stacks, heights, scores, turn, r, cur, pos, version, value, valid)
                status, bad = STOP_SEAT, -1
                if ph != 2:  # (phase 2: a batch policy's move in the opening, which goes on below)
                    status, bad = advance(decide, hands, alive, stacks, heights, scores, turn, first, codes, rng, r,
                                          L, max_turns - turn[r] if max_turns > 0 else -1, version, k, value, valid)
                    if status == STOP_BATCH:
                        phase[r] = 1  # the env calls again with the batch policy's move
                        continue
            if status < 0:
                kernels.fail(B.err, r, status, (first[r] + turn[r]) % 2, bad)
            now = seat_return(turn, scores, r, L, m, ss, sres)
            rew = now + carry[r]  # the change of the learner's return since its previous decision
            if ph != 2:  # (phase 2: the opening goes on, its moves count in the learner's first reward)
                carry[r] = -now
            term = turn[r] >= m
            trunc = (not term) and (status < 0 or (max_turns > 0 and turn[r] >= max_turns))
        if ph != 2:  # the step has ended: its reward and flags (phase 2 is still in the episode's opening)
            phase[r] = 0
            if all_seats:
                # player_0's return (zero-sum: player_1's is its negative)
                ep_ret[r] += rew if L == 0 else (0.0 if pos < 0 else -rew)
            else:
                ep_ret[r] += rew
            ep_len[r] += 1
            if kernels.step_outputs(B, r, rew, term, trunc):
                observe_row(hands, alive, stacks, heights, scores, turn, r, L, k, version, S.max_score, S.hints,
                            value, valid, B.final_obs, r)
                kernels.record_final(T, B, r, 0 if all_seats else L)
                B.final_player[r] = L
                deal_row(T, S, r)  # phase 2 (one seat): its opening below
        if phase[r] == 2 and not open_row(decide, T, B, S, r):
            continue  # paused at a batch policy's turn in the opening
        if all_seats:
            learner[r] = (first[r] + turn[r]) % 2  # the seat to move
        observe_row(hands, alive, stacks, heights, scores, turn, r, learner[r], k, version, S.max_score, S.hints,
                    value, valid, obs, r)
        mask_row(hands, alive, turn, first, r, k, mask, r)


@njit(inline="always")
def _no_decide(code, version, hands, alive, stacks, heights, scores, first, mover, value, valid):
    return -1  # only random seats (`RANDOM_CODE`) are played by the env's own kernels


@njit(cache=True)
def _random_reset(T, B, S, fresh):
    vec_reset(_no_decide, T, B, S, fresh)


@njit(cache=True)
def _random_step(T, B, S, actions):
    vec_step(_no_decide, T, B, S, actions)


#: The env's own kernels: the opponent plays random legal cards (`RANDOM_CODE`); `all_seats` needs no other.
RANDOM_KERNELS = VectorKernels(_random_reset, _random_step)
