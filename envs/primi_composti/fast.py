"""The engine's compiled kernels (numba, `cache=True`): Primi Composti for 2 to 6 players, every option.

Covers every `Config` (`SUPPORTED`): version 2's official options are arguments (`choice` of `do_move`, `revealed`)
with the seed's rules as defaults, so the seed's max-steal callers (the players' kernels, the fast solvers) compile
without them (`seed_rules`). Differential-tested against `envs.primi_composti.rules`. The number of seats is the
arrays' (`hands.shape[0]`): one compiled kernel serves every player count.

Layout: `hands[p, i]` seat p's i-th dealt card, `alive[p]` a bit mask of the positions not yet played; `stacks[s, h]`
with heights `heights[s]` (s = 2·seat primes, 2·seat+1 composites); `scores[p]`. Operand pairs are the plain
engine's `operand_pairs`, in its order. `value` and `valid` are `rules.VALUE` and `rules.VALID`. Also here: the deal
of a seed (`shuffle_cards`, `deal_seed`) and the vector env's kernels (`vec_reset` / `vec_step` on the same
`do_move`).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit

from envs.core import kernels, tables
from envs.core.jit import INLINE
from envs.core.vector import BATCH_CODE, SKIP, nb_next
from envs.core.vector import SeatBuffers as Buffers  # noqa: F401 - the vector env's; shared with L.A.M.A.
from envs.primi_composti.rules import MAX_CARD, VALID, VALUE


@njit(inline=INLINE)
def is_stolen(mover, s):
    """`rules.is_stolen`: whether version 2's `mover` takes an operand lying on stack s (another seat's)."""
    return s // 2 != mover


@njit(inline=INLINE)
def operand_value(version, mover, s, card, value):
    """`rules.operand_value`: what operand `card` on stack s adds to `mover`'s bonus (VALUE in version 1; in
    version 2 VALUE where it is stolen, else 0)."""
    return value[card] if version == 1 or is_stolen(mover, s) else 0


@njit(inline=INLINE)
def top_pairs_bonus(version, c, mover, stacks, heights, value, valid, ns, revealed):
    """`best_pair` over the first `ns` stacks (the loop, with its bound as an argument)."""
    best = 0
    bp = -1
    for i in range(ns - 1):
        if heights[i] == 0:
            continue
        a = stacks[i, heights[i] - 1]
        va = operand_value(version, mover, i, a, value)
        for j in range(i + 1, ns):
            if heights[j] == 0:
                continue
            b = stacks[j, heights[j] - 1]
            if not valid[c, a, b]:
                continue
            v = va + operand_value(version, mover, j, b, value)
            if v > best:
                best = v
                bp = i * ns + j
                if v == 4:  # the most a pair can give: later ties never win
                    return best, bp
    if revealed:
        # then the one-stack pairs (top, the card it covers), after every two-stack pair (`operand_pairs`)
        for i in range(ns):
            h = heights[i]
            if h < 2:
                continue
            a = stacks[i, h - 1]
            b = stacks[i, h - 2]
            if not valid[c, a, b]:
                continue
            v = operand_value(version, mover, i, a, value) + operand_value(version, mover, i, b, value)
            if v > best:
                best = v
                bp = i * ns + i
                if v == 4:
                    return best, bp
    return best, bp


@njit(cache=True)
def best_pair(version, c, mover, stacks, heights, value, valid, revealed=False):
    """`PrimiCompostiGame.best_pair` compiled, as (bonus, pair): the seed's choice for card c, v1 the best
    VALUE(A)+VALUE(B), v2 the most stolen value (`operand_value`); the first best pair on ties, in
    `PrimiCompostiGame.operand_pairs` order: the tops of stacks i < j in index order, then (`revealed`: the official
    footnote) each stack's top with the card below it; pair = i·S + j (S stacks; i = j for a one-stack pair), (0, -1)
    if none. The number of stacks (2 a seat) is the arrays'."""
    if heights.shape[0] == 4:
        # 2 players, the hot path of the searches and the vector env: a constant bound the compiler can unroll.
        # Measured against the 2-player-only kernels (best of 6 alternating runs, loaded 2-core machine): with the
        # bound read from the array alone greedy_rand-vs-rand games/s 0.90x, the vector env vs greedy_rand 0.96x;
        # with this branch 1.02x and 1.02x
        return top_pairs_bonus(version, c, mover, stacks, heights, value, valid, 4, revealed)
    return top_pairs_bonus(version, c, mover, stacks, heights, value, valid, heights.shape[0], revealed)


@njit(inline=INLINE)
def pair_stacks(q, ns):
    """The stacks (i, j) of operand pair q (`PrimiCompostiGame.operand_pairs[q]` of `ns` stacks): the pairs of
    tops i < j in index order, then i = j (a stack's top and the card below it: the revealed operand)."""
    for i in range(ns - 1):
        if q < ns - 1 - i:
            return i, i + 1 + q
        q -= ns - 1 - i
    return q, q


@njit(inline=INLINE)
def pair_cards(q, stacks, heights):
    """(i, j, a, b): the stacks of operand pair q (`pair_stacks`) and its two cards, the tops of i and j or (i = j)
    the top of i and the card below it; card 0 (which combines with nothing) where a position is empty."""
    i, j = pair_stacks(q, heights.shape[0])
    hi = heights[i]
    a = stacks[i, hi - 1] if hi > 0 else 0
    if i == j:
        b = stacks[i, hi - 2] if hi > 1 else 0
    else:
        b = stacks[j, heights[j] - 1] if heights[j] > 0 else 0
    return i, j, a, b


# Out of line (not inlined into `do_move`): inlined, it made `do_move`/`undo_move` of the seed's rules ~10% slower
# (measured).
@njit(cache=True)
def pair_bonus(version, c, q, mover, stacks, heights, value, valid):
    """`PrimiCompostiGame.pair_bonus` compiled, as (bonus, pair): operand pair q played with card c
    (`steal_choice="player"`), pair = i·S + j as `best_pair` gives it, or (0, -1) where q < 0 (no operation);
    (-1, -1) where the pair does not combine to c (an empty position is card 0, which combines with nothing). The
    bonus: both operands' `operand_value`."""
    if q < 0:
        return 0, -1
    i, j, a, b = pair_cards(q, stacks, heights)
    if not valid[c, a, b]:
        return -1, -1
    return operand_value(version, mover, i, a, value) + operand_value(version, mover, j, b, value), \
        i * heights.shape[0] + j


@njit(inline=INLINE)
def immediate_score(version, c, mover, stacks, heights, value, valid, revealed):
    """`PrimiCompostiGame.immediate_score` compiled: the seed's pair's bonus for card c (`best_pair`) +
    VALUE(c), what the greedy players maximise (their kernels add VALUE(c) themselves: through this function their games
    ran at 0.60-0.67x the speed)."""
    bonus, _ = best_pair(version, c, mover, stacks, heights, value, valid, revealed)
    return bonus + value[c]


#: Bit `UNDO_TWICE + s` of an undo code: two cards were taken from stack s (a one-stack pair, the revealed operand).
UNDO_TWICE = 16


@njit(cache=True)
def do_move(version, c, mover, stacks, heights, scores, value, valid, revealed=False, choice=-1):
    """`PrimiCompostiGame.apply` compiled: play card c for `mover` in place; returns (undo code, bonus), the undo
    code with bit s set for each stack s whose top the mover took (version 2: the operands `is_stolen`, first operand
    first; both from stack s: bits s and `UNDO_TWICE` + s). `choice` -1: the seed's pair (`best_pair`, over the
    revealed operand's pairs too under `revealed`); 0: no operation; q + 1: operand pair q
    (`steal_choice="player"`; the caller checked that it combines to c: `pair_bonus`)."""
    if choice < 0:
        bonus, bp = best_pair(version, c, mover, stacks, heights, value, valid, revealed)
    else:
        bonus, bp = pair_bonus(version, c, choice - 1, mover, stacks, heights, value, valid)
    undo = 0
    scores[mover] += bonus + value[c]
    if version == 2 and bp >= 0:
        ns = heights.shape[0]
        for s in (bp // ns, bp % ns):
            if is_stolen(mover, s):
                card = stacks[s, heights[s] - 1]
                heights[s] -= 1
                own = 2 * mover + (s % 2)  # a prime stack holds primes only
                stacks[own, heights[own]] = card
                heights[own] += 1
                scores[s // 2] -= value[card]
                undo |= 1 << s
        if revealed and undo and bp // ns == bp % ns:  # two cards from one stack: the top, then the one below
            undo |= undo << UNDO_TWICE
    own = 2 * mover + (0 if value[c] == 2 else 1)
    stacks[own, heights[own]] = c
    heights[own] += 1
    return undo, bonus


@njit(inline=INLINE)
def give_back(mover, s, stacks, heights, scores, value):
    """Move the top of the mover's own stack of stack s's kind back onto stack s (a taken card, undone)."""
    o = 2 * mover + (s % 2)
    card = stacks[o, heights[o] - 1]
    heights[o] -= 1
    stacks[s, heights[s]] = card
    heights[s] += 1
    scores[s // 2] += value[card]


@njit(cache=True)
def undo_move(version, c, mover, stacks, heights, scores, undo, bonus, value):
    """Reverse `do_move`."""
    own = 2 * mover + (0 if value[c] == 2 else 1)
    heights[own] -= 1
    scores[mover] -= bonus + value[c]
    s = heights.shape[0] - 1
    while undo:  # the taken cards back, last taken first
        if (undo >> s) & 1:
            give_back(mover, s, stacks, heights, scores, value)
            undo ^= 1 << s
            if undo >> UNDO_TWICE:  # two cards of stack s (its only take): the one taken first goes back too
                give_back(mover, s, stacks, heights, scores, value)
                undo = 0
        s -= 1


@njit(cache=True)
def deal_hands(deck, k, swap, hands, alive, heights, scores):
    """Seat p gets deck[p·k:(p+1)·k], seats 0 and `swap` exchanging theirs (swap 0: none), every card alive; the
    stacks empty and the scores 0 (the start of `deal_deck`; the number of seats is the arrays')."""
    n = hands.shape[0]
    full = (1 << k) - 1
    for p in range(n):
        src = swap if p == 0 else (0 if p == swap else p)
        for i in range(k):
            hands[p, i] = deck[src * k + i]
        alive[p] = full
        scores[p] = 0
    for s in range(2 * n):
        heights[s] = 0


@njit(cache=True)
def deal_deck(deck, k, seat0_holds_two, hands, alive, heights, scores):
    """`PrimiCompostiGame.deal_from(deck)` into the buffers (as many seats as `hands` has rows): seat p gets
    deck[p·k:(p+1)·k], the holder of card 2 swapping hands with seat 0 under `seat0_holds_two` (the seed's deal);
    returns the seat that plays first (the holder of card 2)."""
    n = hands.shape[0]
    holder = 0
    for i in range(n * k):
        if deck[i] == 2:
            holder = i // k
    deal_hands(deck, k, holder if seat0_holds_two else 0, hands, alive, heights, scores)
    return 0 if seat0_holds_two else holder


def random_decks(rng: np.random.Generator, n: int, k: int) -> np.ndarray:
    """n shuffled decks of a 2-player game's cards 2..2k+1 (one row each), from `rng`."""
    base = np.tile(np.arange(2, 2 * k + 2, dtype=np.int64), (n, 1))
    return rng.permuted(base, axis=1)


def state_arrays(game, state):
    """The fast-path buffers of a plain-engine state."""
    return position_arrays(state.hands, state.stacks, state.scores, game.cards_per_player)


def position_arrays(hands_in, stacks_in, scores_in, k: int):
    """The fast-path buffers (hands, alive, stacks, heights, scores) of a position of `len(hands_in)` seats with `k`
    cards dealt to each: the hands' remaining cards keep their relative dealt order, played positions are dead."""
    n = len(hands_in)
    hands = np.zeros((n, k), dtype=np.int64)
    alive = np.zeros(n, dtype=np.int64)
    for p in range(n):
        hands[p, :len(hands_in[p])] = hands_in[p]
        alive[p] = (1 << len(hands_in[p])) - 1
    stacks = np.zeros((2 * n, n * k), dtype=np.int64)
    heights = np.zeros(2 * n, dtype=np.int64)
    for s in range(2 * n):
        stacks[s, :len(stacks_in[s])] = stacks_in[s]
        heights[s] = len(stacks_in[s])
    return hands, alive, stacks, heights, np.array(scores_in, dtype=np.int64)


#: What the compiled engine plays, for the messages of those that refuse other options.
SUPPORTED = ("versions 1 and 2, steal_choice='max' or 'player', allow_revealed_operand False or True, any "
             "num_players 2..6 and cards_per_player")


def supports(game) -> bool:
    """Whether the compiled engine implements `game`'s configuration (`SUPPORTED`: every `Config`)."""
    return MAX_CARD >= game.max_card


def seed_rules(game) -> bool:
    """Whether `game` plays the seed's rules (what the fast exact solvers play): the max-steal choice among the tops of
    two stacks, no revealed operand."""
    cfg = game.config
    return cfg.steal_choice == "max" and not cfg.allow_revealed_operand and supports(game)


def official_options(game) -> tuple[bool, int]:
    """(revealed, npairs) of `game`, as the kernels take them: `revealed` the revealed-operand rule, `npairs` the
    number of operand pairs a move may name under `steal_choice="player"` (0: the seed's max-steal pair)."""
    return bool(game.config.allow_revealed_operand), len(game.operand_pairs) if game.player_choice else 0


def legal_choices(c, mover, stacks, heights, npairs):
    """`PrimiCompostiGame.valid_pairs` as operand choices: those card c may be played with under
    `steal_choice="player"` (`npairs` pairs, version 2), 0 (no operation) and q + 1 for each pair q that combines to
    c (`pair_bonus`), ascending."""
    return [q for q in range(npairs + 1) if pair_bonus(2, c, q - 1, mover, stacks, heights, VALUE, VALID)[0] >= 0]


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
    """Deal the game of deal seed `seed` (`PrimiCompostiGame.deal(seed)`; as many seats as `hands` has rows) into the
    buffers (`order` is scratch of n·k); returns the seat that plays first (the holder of card 2)."""
    shuffle_cards(order, hands.shape[0] * k, seed)
    return deal_deck(order, k, seat0_holds_two, hands, alive, heights, scores)


# --- the vector env's kernels: many tables, one row each ------------------------------------------------------
# Every table is a game of n seats (2..6) in the layout above, one row a table (n is the arrays'). The learner's
# moves come from outside, the opponents' from a decide kernel passed in (inlined by the caller, as the players'
# kernels in `agents.primi_composti.fast` are), with the signature of `agents.primi_composti.fast.choose`:
#
#     decide(code, version, hands, alive, stacks, heights, scores, first, mover, value, valid[, revealed]) -> position
#
# (the card is played with the seed's operand pair, as `SeedPlayer` plays it under either `steal_choice`). A seat of
# code `RANDOM_CODE` plays a uniformly random legal action from the table's SplitMix64 stream instead (the j-th legal
# action in id order, j = draw mod their number: `random_position`, `random_action`); at a
# seat of a batch policy's code (<= `BATCH_CODE`) the table pauses: the env asks the policy, over every table where
# it is to move, and calls the step kernel again with its moves (`SKIP` at the other tables).

RANDOM_CODE = -1  # the env's own random opponent (`random_position`, `random_action`)
LEARNER_CODE = -2  # the learner's seat: never decided by a kernel
# What `advance` stopped at.
STOP_SEAT = 0  # the seat `stop` is to move
STOP_OVER = 1  # every card is played
STOP_BUDGET = 2  # `budget` moves were played
STOP_BATCH = 3  # a batch policy's seat is to move (the table pauses)
STOP_ILLEGAL = -2  # the decide kernel chose a position that holds no card (nothing was changed)


Tables = tables.tables_type(__name__, """Every table of a vector env as arrays, one row a table (N tables, k cards
a hand).

The position of n seats in the layout above (`hands` (N, n, k), `alive` (N, n), `stacks` (N, 2n, n·k), `heights`
(N, 2n), `scores` (N, n)), cards played `turn` and the first mover `first`; `mark` the learner's return at its
decision or, inside a step, after its card (its `carry` is summed as `OpponentEnv` sums it: the opponents' opening
before its first decision, then its own move's change of its return); `order` (n·k,), `before` (n,: every seat's
return before an `all_seats` move) and `legal` (1, actions: a random seat's legal actions under
`steal_choice="player"`) are scratch.""", (
    "hands", "alive", "stacks", "heights", "scores", "turn", "first", "mark", "order", "before", "legal"))


def new_tables(num_envs: int, num_players: int, k: int, choices: int = 1) -> Tables:
    """Zeroed `Tables` for `num_envs` tables of `num_players` seats, `k` cards a hand and `choices` operand choices
    a card (`PrimiCompostiGame.num_choices`)."""
    N, n = num_envs, num_players
    i64 = np.int64
    return tables.new_tables(
        Tables, N, n, hands=np.zeros((N, n, k), i64), alive=np.zeros((N, n), i64),
        stacks=np.zeros((N, 2 * n, n * k), i64), heights=np.zeros((N, 2 * n), i64), scores=np.zeros((N, n), i64),
        turn=np.zeros(N, i64), first=np.zeros(N, i64), mark=np.zeros(N), order=np.zeros(n * k, i64),
        before=np.zeros(n), legal=np.zeros((1, n * k * choices), np.int8),
    )


Settings = tables.settings_type(__name__, """A vector env's fixed settings as the kernels take them: the game
(`version`, `k` cards a hand, `seat0_holds_two`), the reward (`score_scores`, `score_result`: `Config.reward`'s parts),
`hints`, `max_score` (the encoder's score scale), `value` / `valid`, `revealed`, `choices`
(`PrimiCompostiGame.num_choices`), then the line-up fields but `line_params` (`envs.core.tables.SETTINGS`).""",
                                ("version", "k", "seat0_holds_two", "score_scores", "score_result", "hints",
                                 "max_score", "value", "valid", "revealed", "choices"), line_params=False)


class VectorKernels(NamedTuple):
    """The compiled `reset(T, B, S, fresh)` and `step(T, B, S, actions)` of a vector env, built around one
    decide kernel (`vec_reset` / `vec_step` inlined with it as a global): `reset`/`step` for the seed's rules (the
    options compiled out as constants), `official_reset`/`official_step` for version 2's official options (read
    from `Settings`); `of(game)` picks the pair a game plays."""

    reset: Any
    step: Any
    official_reset: Any
    official_step: Any

    def of(self, game) -> VectorKernels:
        """These kernels as `game` plays them: `reset`/`step` are the official ones unless `seed_rules(game)`."""
        if seed_rules(game):
            return self
        return VectorKernels(self.official_reset, self.official_step, self.official_reset, self.official_step)


# Speed: the helpers below take the arrays they use, never the `Tables` tuple. Binding a tuple of arrays to an
# inlined function's argument increfs and decrefs every array in it (measured: ~90 ns a call with 17 arrays, more
# than the rule it serves); a few separate arrays cost a few ns.
@njit(inline=INLINE)
def seat_return(turn, scores, r, s, m, score_scores, score_result):
    """`PrimiCompostiGame.returns(state)[s]` of table r (`m` cards in all), float for float: x(s) − mean of the
    others' x, x the score and/or the result (+1 for each seat of the highest score unless all are equal)."""
    n = scores.shape[1]
    terminal = turn[r] >= m
    if not score_scores and not terminal:
        return 0.0
    best = scores[r, 0]
    draw = True
    if terminal and score_result:
        for p in range(1, n):
            if scores[r, p] != best:
                draw = False
            if scores[r, p] > best:
                best = scores[r, p]
    tot = 0.0
    xs = 0.0
    for p in range(n):
        x = float(scores[r, p]) if score_scores else 0.0
        if terminal and score_result and not draw and scores[r, p] == best:
            x = x + 1.0
        tot += x
        if p == s:
            xs = x
    return xs - (tot - xs) / (n - 1)


@njit(inline=INLINE)
def play_position(hands, alive, stacks, heights, scores, turn, r, mover, i, version, value, valid, revealed, choice):
    """Seat `mover` of table r plays the card at position i of its dealt hand with operand choice `choice` (-1: the
    seed's pair; `do_move`)."""
    alive[r, mover] ^= 1 << i
    if choice < 0 and not revealed:  # the seed's rules: `do_move` as the players' kernels compile it (speed)
        do_move(version, hands[r, mover, i], mover, stacks[r], heights[r], scores[r], value, valid)
    else:
        do_move(version, hands[r, mover, i], mover, stacks[r], heights[r], scores[r], value, valid, revealed, choice)
    turn[r] += 1


@njit(inline=INLINE)
def choice_of(a, choices):
    """The operand choice of action `a` as `do_move` takes it: -1 (the seed's pair) when a card has one choice
    (`steal_choice="max"`), else `a mod choices` (0: no operation, q + 1: operand pair q)."""
    return -1 if choices == 1 else a % choices


@njit(inline=INLINE)
def random_position(hands, alive, rng, r, mover, k):
    """A uniformly random legal card of seat `mover` from the stream `rng[r]`: the j-th smallest card in hand,
    j = draw mod the number of cards (the vector env's `RANDOM` opponent)."""
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


@njit(cache=True)
def random_action(hands, alive, stacks, heights, turn, first, rng, r, k, revealed, choices, valid, legal):
    """A uniformly random legal action of table r's seat to move when a card has several operand choices, from the
    stream `rng[r]`: the j-th legal action in id order, j = draw mod their number; `legal` (1, actions) is scratch."""
    mask_row(hands, alive, stacks, heights, turn, first, r, k, revealed, choices, valid, legal, 0)
    count = 0
    for a in range(legal.shape[1]):
        count += legal[0, a]
    want = np.int64(nb_next(rng, r) % _U(count))
    for a in range(legal.shape[1]):
        if legal[0, a]:
            if want == 0:
                return a
            want -= 1
    return -1


@njit(inline="always")
def advance(decide, hands, alive, stacks, heights, scores, turn, first, codes, rng, r, stop, budget, version, k,
            value, valid, revealed, choices, legal):
    """Play table r on until seat `stop` is to move, every card is played, `budget` moves were played (-1:
    no limit), or a batch policy is to move; returns (status `STOP_*`, the refused position when `STOP_ILLEGAL`).
    A random seat draws a card (`random_position`), or with several operand choices a card and its choice
    (`random_action`); a decide kernel picks a card, played with the seed's pair (as `SeedPlayer` plays it)."""
    n = hands.shape[1]
    steps = 0
    while turn[r] < n * k:
        cur = (first[r] + turn[r]) % n
        if cur == stop:
            return STOP_SEAT, -1
        if steps == budget:
            return STOP_BUDGET, -1  # before a batch policy's turn: a truncated table does not pause
        code = codes[r, cur]
        if code <= BATCH_CODE:
            return STOP_BATCH, -1
        choice = -1
        if code == RANDOM_CODE:
            if choices == 1:
                i = random_position(hands, alive, rng, r, cur, k)
            else:
                a = random_action(hands, alive, stacks, heights, turn, first, rng, r, k, revealed, choices, valid,
                                  legal)
                choice = a % choices
                i = position_of(hands, alive, stacks, heights, turn, r, cur, a, k, choices, valid)
        elif revealed:
            i = decide(code, version, hands[r], alive[r], stacks[r], heights[r], scores[r], first[r], cur, value,
                       valid, True)
        else:  # (the seed's rules: the decide kernel as the players' kernels compile it; speed)
            i = decide(code, version, hands[r], alive[r], stacks[r], heights[r], scores[r], first[r], cur, value,
                       valid)
        if i < 0 or i >= k or not (alive[r, cur] >> i) & 1:
            return STOP_ILLEGAL, i
        play_position(hands, alive, stacks, heights, scores, turn, r, cur, i, version, value, valid, revealed, choice)
        steps += 1
    return STOP_OVER, -1


@njit(inline=INLINE)
def observe_row(hands, alive, stacks, heights, scores, turn, r, seat, k, version, max_score, hints, value, valid,
                revealed, out, o):
    """`PrimiCompostiEncoder.encode(game.view(state, seat))` of table r into `out[o]` (float32, bit for bit): the
    other hands are shown with 2 players only (`View`: with more they are hidden, their cards unseen)."""
    n = hands.shape[1]
    m = n * k
    # the encoder's layout (checked against `Layout` by the env): own hand, the other hands ((n - 1)·m), unseen,
    # stack membership (2n stacks), stack tops (2n), stack heights, scores (n), hand sizes (n), turn, hand gains
    other_at, unseen_at, member_at = m, n * m, (n + 1) * m
    top_at = member_at + 2 * n * m
    height_at = top_at + 2 * n * m
    score_at = height_at + m
    for j in range(out.shape[1]):
        out[o, j] = 0.0
    for c in range(m):
        out[o, unseen_at + c] = 1.0
    for rel in range(n):
        s = (seat + rel) % n
        live = alive[r, s]
        left = 0
        for i in range(k):
            if (live >> i) & 1:
                left += 1
                c = hands[r, s, i] - 2
                if rel == 0:
                    out[o, c] = 1.0
                    out[o, unseen_at + c] = 0.0
                elif n == 2:
                    out[o, other_at + c] = 1.0
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
        out[o, score_at + n + rel] = left / k
    out[o, score_at + 2 * n] = turn[r] / m
    if hints:
        gain_at = score_at + 2 * n + 1
        live = alive[r, seat]
        for i in range(k):
            if (live >> i) & 1:
                c = hands[r, seat, i]
                bonus, _ = best_pair(version, c, seat, stacks[r], heights[r], value, valid, revealed)
                out[o, gain_at + c - 2] = min(1.0, (bonus + value[c]) / 8.0)  # `immediate_score`


# The choices of `steal_choice="player"` out of line (`cache=True`, not inlined): the seed's rules' hot path stays
# as small as before them (measured: inlined, the vector env's default path lost 5-7%).
@njit(cache=True)
def choice_mask(hands, alive, stacks, heights, r, cur, k, revealed, choices, valid, out, o):
    """`mask_row`'s actions of seat `cur` at table r with `choices` > 1 operand choices a card (`out[o]` zeroed)."""
    n = hands.shape[1]
    live = alive[r, cur]
    ns = 2 * n
    for i in range(k):
        if (live >> i) & 1:
            c = hands[r, cur, i]
            q = (c - 2) * choices
            out[o, q] = 1
            # the operand pairs in `operand_pairs` order (`pair_stacks`)
            for x in range(ns - 1):
                hx = heights[r, x]
                if hx == 0:
                    q += ns - 1 - x
                    continue
                a = stacks[r, x, hx - 1]
                for y in range(x + 1, ns):
                    q += 1
                    hy = heights[r, y]
                    if hy > 0 and valid[c, a, stacks[r, y, hy - 1]]:
                        out[o, q] = 1
            if revealed:
                for x in range(ns):
                    q += 1
                    hx = heights[r, x]
                    if hx > 1 and valid[c, stacks[r, x, hx - 1], stacks[r, x, hx - 2]]:
                        out[o, q] = 1


@njit(inline=INLINE)
def mask_row(hands, alive, stacks, heights, turn, first, r, k, revealed, choices, valid, out, o):
    """`PrimiCompostiGame.legal_mask` of table r's seat to move into `out[o]` (int8): action c − 2 plays card c, or
    with K = `choices` > 1 a card (`steal_choice="player"`) action (c − 2)·K plays it alone and (c − 2)·K + q + 1
    with operand pair q, where that pair combines to c (`valid_pairs`)."""
    n = hands.shape[1]
    m = n * k
    for a in range(out.shape[1]):
        out[o, a] = 0
    if turn[r] < m:
        cur = (first[r] + turn[r]) % n
        live = alive[r, cur]
        if choices == 1:
            for i in range(k):
                if (live >> i) & 1:
                    out[o, hands[r, cur, i] - 2] = 1
            return
        choice_mask(hands, alive, stacks, heights, r, cur, k, revealed, choices, valid, out, o)


@njit(inline=INLINE)
def _observe(T, S, r, seat, out, o):
    observe_row(T.hands, T.alive, T.stacks, T.heights, T.scores, T.turn, r, seat, S.k, S.version, S.max_score,
                S.hints, S.value, S.valid, S.revealed, out, o)


@njit(cache=True)
def observe_rows(T, rows, seats, S, out):
    """`out[j]` = the observation of table `rows[j]` from seat `seats[j]` (as `PrimiCompostiEncoder`)."""
    for j in range(rows.shape[0]):
        _observe(T, S, rows[j], seats[j], out, j)


@njit(inline=INLINE)
def position_of(hands, alive, stacks, heights, turn, r, seat, a, k, choices, valid):
    """The hand position of seat `seat` at table r that holds the card of action `a` (`choices` operand choices a
    card, as `mask_row`; -1: no such card, an operand pair that does not combine to it, or the game is over)."""
    m = hands.shape[1] * k
    pos = -1
    if choices == 1:  # (the seed's rules: no division on their hot path)
        if 0 <= a < m and turn[r] < m:
            live = alive[r, seat]
            for i in range(k):
                if (live >> i) & 1 and hands[r, seat, i] == a + 2:
                    pos = i
    elif 0 <= a < m * choices and turn[r] < m:
        pos = choice_position(hands, alive, stacks, heights, r, seat, a, k, choices, valid)
    return pos


@njit(cache=True)
def choice_position(hands, alive, stacks, heights, r, seat, a, k, choices, valid):
    """`position_of` with `choices` > 1 operand choices a card (out of line, as `choice_mask`)."""
    c = a // choices + 2
    live = alive[r, seat]
    pos = -1
    for i in range(k):
        if (live >> i) & 1 and hands[r, seat, i] == c:
            pos = i
    if pos >= 0 and a % choices > 0:
        _, _, x, y = pair_cards(a % choices - 1, stacks[r], heights[r])
        if not valid[c, x, y]:
            pos = -1
    return pos


@njit(cache=True)
def mask_rows(T, rows, S, out):
    """`out[j]` = the legal actions of the seat to move at table `rows[j]` (int8, as `legal_mask`)."""
    for j in range(rows.shape[0]):
        mask_row(T.hands, T.alive, T.stacks, T.heights, T.turn, T.first, rows[j], S.k, S.revealed, S.choices, S.valid,
                 out, j)


@njit(inline=INLINE)
def deal_row(T, S, r):
    """Deal table r's next episode: deal seed, learner's seat, line-up and random stream from its key and episode
    counter, the line-up seated (under `all_seats` the seat to move is the learner). The opening (`open_row`)
    follows. Every deal reaches the learner's first decision (each hand holds a card): no deal is dealt again."""
    deal, _ = kernels.next_episode(T, S, r, False, LEARNER_CODE)
    T.first[r] = deal_seed(deal, S.k, S.seat0_holds_two, T.order, T.hands[r], T.alive[r], T.stacks[r],
                           T.heights[r], T.scores[r])
    T.turn[r] = 0
    T.carry[r] = 0.0
    if S.all_seats:
        T.learner[r] = T.first[r]  # the seat to move
        T.phase[r] = 0
        return
    T.phase[r] = 2  # in the episode's opening until the learner's first decision (`open_row`)


@njit(inline="always")
def open_row(decide, T, B, S, r, revealed, choices):
    """Play table r's opening (from its deal, or on from a batch policy's move) up to the learner's first decision
    (the opponents' rewards count in the learner's first one, through `carry`). Returns False where it stops at a
    batch policy's turn (phase 2: the step kernel plays that policy's move and comes back here), else True (phase
    0: the caller observes the table)."""
    if S.all_seats:
        return True  # nobody plays before the seat to move
    seat = T.learner[r]
    status, bad = advance(decide, T.hands, T.alive, T.stacks, T.heights, T.scores, T.turn, T.first, T.codes, T.rng,
                          r, seat, S.max_turns - T.turn[r] if S.max_turns > 0 else -1, S.version, S.k, S.value,
                          S.valid, revealed, choices, T.legal)
    if status == STOP_BATCH:
        return False
    if status < 0:
        kernels.fail(B.err, r, status, (T.first[r] + T.turn[r]) % T.hands.shape[1], bad)
    # the opponents' opening, paid with the learner's first reward (every return is 0 at the deal)
    T.carry[r] = seat_return(T.turn, T.scores, r, seat, T.hands.shape[1] * S.k, S.score_scores, S.score_result)
    T.mark[r] = T.carry[r]
    T.phase[r] = 0
    return True


# Two kernels (reset and step) with `advance` inlined at three sites (one in reset, two in step), as before batch
# policies and as L.A.M.A.'s (`envs.lama.fast`): the opening of an episode dealt anew (or resumed from a batch
# policy's move) has its own site, and every table reaching a decision is observed at one site, the loop body's end.
@njit(inline="always")
def vec_reset(decide, T, B, S, fresh, revealed, choices):
    """Start every table's next episode (`fresh`: from episode 0 of its key) and observe it (a table paused at a
    batch policy's turn is observed when the step kernel goes on there)."""
    B.err[0] = -1
    for r in range(T.seed.shape[0]):
        if fresh:
            T.episode[r] = 0
        deal_row(T, S, r)
        if open_row(decide, T, B, S, r, revealed, choices):
            _observe(T, S, r, T.learner[r], B.obs, r)
            mask_row(T.hands, T.alive, T.stacks, T.heights, T.turn, T.first, r, S.k, revealed, choices, S.valid,
                     B.mask, r)


# One kernel of 107 lines: split into inlined parts (92 lines) it ran the all-seats vector env at 0.96x the speed
# (4 alternating rounds, numba 0.68.1).
@njit(inline="always")
def vec_step(decide, T, B, S, actions, revealed, choices):
    """One decision per table (`actions[r]`: the learner's, or under `all_seats` the seat to move's), then the opponents
    up to the learner's next one; an ended episode is observed into `final_obs` and the table dealt anew in the same
    call (same-step autoreset).

    A refused action (out of range, a card not in the hand, a pair that does not combine to the card) changes nothing
    and ends the episode with `illegal_reward`. The reward is the change of the learner's return since its previous
    decision (through `carry`); under `all_seats` `B.rewards[r, s]` each seat's. A table reaching a batch policy's turn
    pauses (`phase` 1, or 2 in an episode's opening); the env calls this kernel again with that policy's move at the
    paused tables and `SKIP` at the others.
    """
    # the arrays and settings as locals, once (see the note on speed above)
    hands, alive, stacks, heights, scores = T.hands, T.alive, T.stacks, T.heights, T.scores
    turn, first = T.turn, T.first
    learner, codes, rng, carry, ep_ret, ep_len = T.learner, T.codes, T.rng, T.carry, T.ep_ret, T.ep_len
    phase, mark = T.phase, T.mark
    obs, mask, rewards = B.obs, B.mask, B.rewards
    version, k, value, valid = S.version, S.k, S.value, S.valid
    legal = T.legal
    ss, sres, max_turns, all_seats = S.score_scores, S.score_result, S.max_turns, S.all_seats
    n = hands.shape[1]
    m = n * k
    before = T.before
    B.err[0] = -1
    for r in range(T.seed.shape[0]):
        a = actions[r]
        if a == SKIP:
            continue
        ph = phase[r]
        L = learner[r]
        cur = (first[r] + turn[r]) % n  # the learner (phase 0) or a batch policy (phases 1 and 2)
        pos = position_of(hands, alive, stacks, heights, turn, r, cur, a, k, choices, valid)
        choice = choice_of(a, choices)
        rew = 0.0
        p0 = 0.0
        if ph == 0:
            kernels.unrefused(B, r)
        if pos < 0 and ph == 0:
            # the learner's action was refused: nothing changed at the table
            rew, term, trunc = kernels.refuse(B, r, a, S.illegal_reward)
            if all_seats:
                for s in range(n):
                    rewards[r, s] = rew if s == L else 0.0
                p0 = rew if L == 0 else 0.0
        elif all_seats:
            for s in range(n):
                before[s] = seat_return(turn, scores, r, s, m, ss, sres)
            play_position(hands, alive, stacks, heights, scores, turn, r, L, pos, version, value, valid, revealed,
                          choice)
            for s in range(n):
                d = seat_return(turn, scores, r, s, m, ss, sres) - before[s]
                rewards[r, s] = d
                if s == L:
                    rew = d
                if s == 0:
                    p0 = d
            term = turn[r] >= m
            trunc = (not term) and max_turns > 0 and turn[r] >= max_turns
        else:
            status, bad = STOP_ILLEGAL, a  # a batch policy's move that holds no card (the env checks them first)
            if pos >= 0:
                if ph == 0:
                    # the learner's reward as `OpponentEnv` sums it, float for float (returns are fractions with
                    # more than 2 players): ((R1 - R0) + carry) + (R2 - R1), R0 at its decision (`mark`), R1 after
                    # its card, R2 at its next decision
                    play_position(hands, alive, stacks, heights, scores, turn, r, cur, pos, version, value, valid,
                                  revealed, choice)
                    now = seat_return(turn, scores, r, L, m, ss, sres)
                    carry[r] = (now - mark[r]) + carry[r]
                    mark[r] = now
                else:
                    play_position(hands, alive, stacks, heights, scores, turn, r, cur, pos, version, value, valid,
                                  revealed, choice)
                status, bad = STOP_SEAT, -1
                if ph != 2:  # (phase 2: a batch policy's move in the opening, which goes on below)
                    status, bad = advance(decide, hands, alive, stacks, heights, scores, turn, first, codes, rng, r,
                                          L, max_turns - turn[r] if max_turns > 0 else -1, version, k, value, valid,
                                          revealed, choices, legal)
                    if status == STOP_BATCH:
                        phase[r] = 1  # the env calls again with the batch policy's move
                        continue
            if status < 0:
                kernels.fail(B.err, r, status, (first[r] + turn[r]) % n, bad)
            if ph != 2:  # (phase 2: the opening goes on, its moves count in the learner's first reward)
                now = seat_return(turn, scores, r, L, m, ss, sres)
                rew = carry[r] + (now - mark[r])
                carry[r] = 0.0
                mark[r] = now
            term = turn[r] >= m
            trunc = (not term) and (status < 0 or (max_turns > 0 and turn[r] >= max_turns))
        if ph != 2:  # the step has ended: its reward and flags (phase 2 is still in the episode's opening)
            phase[r] = 0
            ep_ret[r] += p0 if all_seats else rew  # all_seats: player_0's return
            ep_len[r] += 1
            if kernels.step_outputs(B, r, rew, term, trunc):
                observe_row(hands, alive, stacks, heights, scores, turn, r, L, k, version, S.max_score, S.hints,
                            value, valid, revealed, B.final_obs, r)
                kernels.record_final(T, B, r, 0 if all_seats else L)
                B.final_player[r] = L
                deal_row(T, S, r)  # phase 2 (one seat): its opening below
        if phase[r] == 2 and not open_row(decide, T, B, S, r, revealed, choices):
            continue  # paused at a batch policy's turn in the opening
        if all_seats:
            learner[r] = (first[r] + turn[r]) % n  # the seat to move
        observe_row(hands, alive, stacks, heights, scores, turn, r, learner[r], k, version, S.max_score, S.hints,
                    value, valid, revealed, obs, r)
        mask_row(hands, alive, stacks, heights, turn, first, r, k, revealed, choices, valid, mask, r)


@njit(inline=INLINE)
def _no_decide(code, version, hands, alive, stacks, heights, scores, first, mover, value, valid, revealed=False):
    return -1  # only random seats (`RANDOM_CODE`) are played by the env's own kernels


# Each decide kernel compiles twice: the seed's rules with the options as constants (their hot path as small as
# before the options: measured, reading them from `Settings` made it ~5% slower), and the official options read
# from `Settings` (compiled on first use).
@njit(cache=True, _nrt=False)
def _random_reset(T, B, S, fresh):
    vec_reset(_no_decide, T, B, S, fresh, False, 1)


@njit(cache=True, _nrt=False)
def _random_step(T, B, S, actions):
    vec_step(_no_decide, T, B, S, actions, False, 1)


@njit(cache=True, _nrt=False)
def _random_reset_official(T, B, S, fresh):
    vec_reset(_no_decide, T, B, S, fresh, S.revealed, S.choices)


@njit(cache=True, _nrt=False)
def _random_step_official(T, B, S, actions):
    vec_step(_no_decide, T, B, S, actions, S.revealed, S.choices)


#: The env's own kernels: the opponents play random legal moves (`RANDOM_CODE`); `all_seats` needs no other.
RANDOM_KERNELS = VectorKernels(_random_reset, _random_step, _random_reset_official, _random_step_official)
