"""Compiled RoboRally playout policies and the playout kernel of the seed's Algorithm 1 (numba).

`random_program` is uniform over a hand's reduced programs (the playout policy, `roborally/random`);
`greedy_program` is the flag seeker (`roborally/greedy`); `playouts_kernel` scores each candidate program of
robot `me` by playouts of `depth` turns, the opponents' hands dealt from the cards `me` cannot see, with common
random numbers across candidates. v̂ is `EVAL_DEFAULT` (`agents.roborally.mc.DefaultValue`) or `EVAL_TURNS`
(`TurnsValue`). `tournament_games` plays races on the vector env's compiled turn loop.
"""

from __future__ import annotations

import numba
import numpy as np

from envs.core.jit import INLINE
from envs.roborally.fast import (
    ADV_FAIL,
    ADV_PAUSE,
    M_DECK,
    M_TURN,
    M_WINNER,
    RAF,
    RAX,
    RAY,
    RDMG,
    RELIM,
    RF,
    RLIVES,
    RNF,
    RON,
    RX,
    RY,
    FastEngine,
    FastState,
    VectorKernels,
    advance_row,
    classes_to_cards,
    count_programs_k,
    deal_kernel,
    free_regs,
    hand_classes,
    hand_multiplicities,
    mask_rows,
    new_tables,
    next_node,
    observe_rows,
    race_over,
    rng_below,
    rng_seed,
    seat_return,
    set_programs,
    solo_register,
    turn_kernel,
    unrank_k,
    vec_reset,
    vec_step,
)
from envs.roborally.joint import deal_world
from envs.roborally.rules import HAND, REGISTERS

GREEDY = 0  # the decide code of `roborally/greedy`
RANDOM_PROGRAM = 1  # the decide code of `roborally/random`
#: The playout policies: their decide codes.
POLICIES = {"random": RANDOM_PROGRAM, "greedy": GREEDY}
EVAL_DEFAULT, EVAL_TURNS = 0, 1
EVALS = {"default": EVAL_DEFAULT, "turns": EVAL_TURNS}
WIN, LOSS = 10_000.0, -10_000.0


@numba.njit(cache=True, _nrt=True)
def random_program(hand, n, k, kinds, rng, out):
    """A uniform reduced program of the sorted `hand[:n]` with k free registers, as cards into out[:5]."""
    m, cls, mults = hand_multiplicities(hand, n, kinds)
    k = min(k, n)
    seq = np.zeros(REGISTERS, np.int64)
    if k > 0:
        unrank_k(mults, m, k, rng_below(rng, count_programs_k(mults, m, k)), seq)
    classes_to_cards(hand, n, cls, seq, k, out)


SEEN_SIZE = 4096  # > 4 × the at most 9 + 72 + 504 inner nodes of a 5-register search


@numba.njit(cache=True, _nrt=False)
def seen_before(seen, depth, x, y, f, nf, mults, m):
    """Whether the search node (registers done, robot alone, classes left) was met before; records it if not.

    Nodes are packed into one int64 (x, y < 64, flags < 16, multiplicities < 16) in an open-addressing table."""
    key = ((((depth * 64 + x) * 64 + y) * 4 + f) * 16 + nf)
    for c in range(m):
        key = key * 16 + mults[c]
    key += 1  # 0 marks an empty slot
    h = ((key * 0x2545F4914F6CDD1D) >> 40) & (SEEN_SIZE - 1)  # int64 multiplier (wraps); its high bits mix
    while seen[h] != 0:
        if seen[h] == key:
            return True
        h = (h + 1) & (SEEN_SIZE - 1)
    seen[h] = key
    return False


@numba.njit(cache=True, _nrt=True)
def greedy_program(bd, R, regs, i, hand, n, kinds, out):
    """The flag seeker's program for robot i holding the sorted `hand[:n]`, as cards into out[:5] (free registers;
    the locked ones are simulated after them): a depth-first search over reduced programs in rank order, each
    register simulated once per prefix (`solo_register`), a prefix stopped at death or at the last flag (its
    completions end there) and a node met before skipped (`seen_before`); the end best by alive, then more flags,
    then fewer BFS steps, the lowest rank among equals (a prefix stopped early completed by the lowest classes
    left). The search runs in `_greedy_search`, without reference counting (`envs.core.jit`)."""
    m, cls, mults = hand_multiplicities(hand, n, kinds)
    free = free_regs(R, i)
    k = min(free, n)
    for j in range(REGISTERS):
        out[j] = 0
    if k == 0:
        return
    card = np.zeros(HAND, np.int64)  # a card of each class (they move a lone robot alike)
    for s in range(n):
        card[cls[s]] = hand[s]
    best = np.zeros(REGISTERS, np.int64)
    _greedy_search(bd, R, regs, i, k, free, card, mults, m, np.empty((REGISTERS + 1, 4), np.int64),
                   np.full(REGISTERS, -1, np.int64), best, np.zeros(SEEN_SIZE, np.int64))
    classes_to_cards(hand, n, cls, best, k, out)


@numba.njit(cache=True, _nrt=False)
def _greedy_search(bd, R, regs, i, k, free, card, mults, m, st, seq, best, seen):
    """`greedy_program`'s search over its k free registers, the best program's classes into `best[:k]`; `st` holds
    the robot before each register (x, y, facing, next flag), `seq` the walk (all -1), `seen` the visited nodes."""
    nflags, dist = bd[9], bd[15]
    st[0, 0], st[0, 1], st[0, 2], st[0, 3] = R[i, RX], R[i, RY], R[i, RF], R[i, RNF]
    least, blen = np.inf, 0
    depth = next_node(seq, mults, m, 0)
    while depth >= 0:
        x, y, f, nf, alive = solo_register(bd, st[depth, 0], st[depth, 1], st[depth, 2], st[depth, 3],
                                           card[seq[depth]], depth, True)
        if alive and nf < nflags and depth < k - 1:
            if depth == 0 or nflags >= 16 or not seen_before(seen, depth, x, y, f, nf, mults, m):
                st[depth + 1, 0], st[depth + 1, 1], st[depth + 1, 2], st[depth + 1, 3] = x, y, f, nf
                depth += 1
                seq[depth] = -1
        else:
            if alive and nf < nflags:  # the last free register: the empty ones, then the locked ones follow
                for j in range(k, REGISTERS):
                    x, y, f, nf, alive = solo_register(bd, x, y, f, nf, regs[i, j] if j >= free else 0, j, True)
                    if not alive or nf >= nflags:
                        break
            # (dead, -flags, steps) as one number: steps < 1e6, flags < 16
            v = 1e12 if not alive else -1e6 * nf + (dist[nf, y, x] if nf < nflags else 0)
            if v < least:
                least, blen = v, depth + 1
                for j in range(blen):
                    best[j] = seq[j]
        depth = next_node(seq, mults, m, depth)
    for j in range(blen):  # the walk gave every class back: take the best prefix's, then the lowest left, in order
        mults[best[j]] -= 1
    for j in range(blen, k):
        q = 0
        while mults[q] == 0:
            q += 1
        best[j] = q
        mults[q] -= 1


@numba.njit(cache=True)
def value(bd, R, meta, me, lives0, eval_code, table):
    """v̂ of robot `me` (see the module docstring)."""
    w = meta[M_WINNER]
    if w >= 0:
        return WIN if w == me else LOSS
    if R[me, RELIM]:
        return LOSS
    nf = R[me, RNF]
    if R[me, RON]:
        x, y, f = R[me, RX], R[me, RY], R[me, RF]
    else:
        x, y, f = R[me, RAX], R[me, RAY], R[me, RAF]
    more = nf < bd[9]  # a board without flags has no next flag to measure
    if eval_code == EVAL_TURNS:
        t = (table[nf, y, x, f] if more else 0.0) + (0.0 if R[me, RON] else 1.0)
        return -t - R[me, RDMG] / 3.0 - 3.0 * (lives0 - R[me, RLIVES])
    steps = bd[15][nf, y, x] if more else 0
    return 100.0 * nf - steps - 2.0 * R[me, RDMG] - 50.0 * (lives0 - R[me, RLIVES])


@numba.njit(cache=True)
def sample_world(bd, R, regs, me, unseen, hand_sizes, policy, rng, deck, meta, programs):
    """Deal the opponents' hands from `unseen` (`envs.roborally.joint.deal_world`) and program them with the policy
    into `programs`; the rest of `unseen` becomes `deck[:meta[M_DECK]]`. Returns the dealt hands [n, 9]."""
    n = R.shape[0]
    hands = np.zeros((n, HAND), np.int64)
    lens = np.zeros(n, np.int64)
    meta[M_DECK] = deal_world(R, regs, me, hand_sizes, unseen, unseen.shape[0], rng, deck, hands, lens)
    for i in range(n):
        if i != me:
            decide(policy, bd, R, regs, i, hands[i], lens[i], bd[14], rng, programs[i])
    return hands


@numba.njit(cache=True)
def playouts_kernel(bd, R0, regs0, meta0, me, candidates, unseen, hand_sizes, depth, n_per, policy, seed,
                    eval_code, table):
    """(mean [P], population variance [P]) of v̂ over `n_per` playouts of each candidate program
    [P, 5] from the turn start R0, regs0, meta0 (`FastState` arrays; the deck rebuilt from `unseen`)."""
    n = R0.shape[0]
    P = candidates.shape[0]
    kinds = bd[14]
    lives0 = R0[me, RLIVES]
    mean = np.zeros(P)
    m2 = np.zeros(P)
    rng = np.zeros(1, np.uint64)
    deck0 = np.zeros(84, np.int32)
    meta_w = meta0.copy()
    programs0 = np.zeros((n, REGISTERS), np.int64)
    programs = np.zeros((n, REGISTERS), np.int64)
    hands = np.zeros((n, HAND), np.int64)
    hand_len = np.zeros(n, np.int64)
    trace = np.zeros((0, n, R0.shape[1]), np.int32)
    R = R0.copy()
    regs = regs0.copy()
    deck = deck0.copy()
    meta = meta0.copy()
    one = np.zeros(REGISTERS, np.int64)
    for t in range(n_per):
        rng_seed(rng, seed, t)
        for i in range(n):
            for j in range(REGISTERS):
                programs0[i, j] = 0
        sample_world(bd, R0, regs0, me, unseen, hand_sizes, policy, rng, deck0, meta_w, programs0)
        after_world = rng[0]
        for p in range(P):
            R[:, :] = R0
            regs[:, :] = regs0
            deck[:] = deck0
            meta[:] = meta_w
            programs[:, :] = programs0
            for j in range(REGISTERS):
                programs[me, j] = candidates[p, j]
            set_programs(R, regs, programs)
            turn_kernel(bd, R, regs, deck, meta, trace)
            rng[0] = after_world
            for _ in range(depth - 1):
                if race_over(R, meta):
                    break
                deal_kernel(R, regs, deck, meta, hands, hand_len, rng)
                for i in range(n):
                    decide(policy, bd, R, regs, i, hands[i], hand_len[i], kinds, rng, one)
                    for j in range(REGISTERS):
                        programs[i, j] = one[j]
                set_programs(R, regs, programs)
                turn_kernel(bd, R, regs, deck, meta, trace)
            v = value(bd, R, meta, me, lives0, eval_code, table)
            delta = v - mean[p]
            mean[p] += delta / (t + 1)
            m2[p] += delta * (v - mean[p])
    return mean, m2 / max(n_per, 1)


class FastPlayouts:
    """The playout kernel bound to one `FastEngine` (see the module docstring)."""

    def __init__(self, engine: FastEngine, table: np.ndarray | None = None):
        self.engine = engine
        b = engine.game.board
        #: The `EVAL_TURNS` table [flags, H, W, 4] (expected turns to finish), if given.
        self.table = np.zeros((1, 1, 1, 4)) if table is None else np.ascontiguousarray(table, np.float64)
        if table is not None and self.table.shape != (len(b.flags), b.height, b.width, 4):
            raise ValueError(f"table must have shape {(len(b.flags), b.height, b.width, 4)}, got {self.table.shape}")

    def playouts(self, fs: FastState, me: int, candidates, unseen, hand_sizes, depth: int = 1,
                 n_per_candidate: int = 1, policy: str = "random", seed: int = 0,
                 eval: str = "default") -> tuple[np.ndarray, np.ndarray]:
        """(mean, variance) of v̂ per candidate program ([P, 5] cards of me's free registers)."""
        if policy not in POLICIES:
            raise ValueError(f"policy must be one of {list(POLICIES)}, got {policy!r}")
        if eval not in EVALS:
            raise ValueError(f"eval must be one of {list(EVALS)}, got {eval!r}")
        if EVALS[eval] == EVAL_TURNS and self.table.shape[0] != len(self.engine.game.board.flags):
            raise ValueError("eval='turns' needs the table given to FastPlayouts")
        if depth < 1:
            raise ValueError(f"depth must be a positive integer, got {depth!r}")
        cands = np.asarray(candidates, np.int64).reshape(-1, REGISTERS)
        return playouts_kernel(self.engine.board, fs.robots, fs.registers, fs.meta, int(me), cands,
                               np.asarray(unseen, np.int32), np.asarray(hand_sizes, np.int64), int(depth),
                               int(n_per_candidate), POLICIES[policy], int(seed), EVALS[eval], self.table)

    def greedy(self, fs: FastState, i: int, hand) -> np.ndarray:
        """The flag seeker's cards [5] for robot i holding `hand`."""
        h, n, out = _hand_buffers(hand)
        greedy_program(self.engine.board, fs.robots, fs.registers, int(i), h, n, self.engine.kinds, out)
        return out

    def random(self, fs: FastState, i: int, hand, seed: int) -> np.ndarray:
        """A uniform reduced program's cards [5] for robot i holding `hand`, drawn from `seed`."""
        h, n, out = _hand_buffers(hand)
        rng = np.zeros(1, np.uint64)
        rng_seed(rng, int(seed), 0)
        random_program(h, n, free_regs(fs.robots, int(i)), self.engine.kinds, rng, out)
        return out


def _hand_buffers(hand) -> tuple[np.ndarray, int, np.ndarray]:
    """(the sorted hand padded to 9 cards, its size, an empty program [5]) for the program kernels."""
    cards = np.sort(np.asarray(hand, np.int64))
    h = np.zeros(HAND, np.int64)
    h[:cards.size] = cards
    return h, cards.size, np.zeros(REGISTERS, np.int64)


# --- the vector env's opponents: the flag seeker compiled into the engine's vector kernels ------------------------


@numba.njit(inline=INLINE)
def decide(code, bd, R, regs, seat, hand, n, kinds, rng, out):
    """The program (cards into out[:5]) of robot `seat` holding the sorted `hand[:n]` under decide code `code`:
    `GREEDY` the flag seeker (`greedy_program`, what `roborally/greedy` plays), `RANDOM_PROGRAM` a uniform reduced
    program drawn from the table's stream `rng` (uint64 [1]; `random_program`, `roborally/random`'s rule)."""
    if code == GREEDY:
        greedy_program(bd, R, regs, seat, hand, n, kinds, out)
    else:
        random_program(hand, n, free_regs(R, seat), kinds, rng, out)


@numba.njit(cache=True, _nrt=False)
def _vector_reset(bd, T, B, S, fresh):
    vec_reset(decide, bd, T, B, S, fresh)


@numba.njit(cache=True, _nrt=False)
def _vector_step(bd, T, B, S, actions):
    vec_step(decide, bd, T, B, S, actions)


#: `envs.roborally.fast.vec_reset` / `vec_step` with the flag seeker inlined (what `opponent_kernel` carries).
VECTOR_KERNELS = VectorKernels(_vector_reset, _vector_step)
#: The agent ids `opponent_kernel` resolves: `random` (uniform over each sub-step's legal actions, the generic
#: agent), the flag seeker (`roborally/greedy`, move for move as `agents.roborally.strategies.GreedyProgram`) and
#: `roborally/random` (`RandomProgram`'s rule: one uniform reduced program a turn, drawn from the table's stream).
KERNEL_IDS = ("random", "roborally/greedy", "roborally/random")


def opponent_kernel(agent_id: str, options: dict | None = None):
    """The `OpponentKernel` of `agent_id` for `envs.roborally_v0.vector_env` (any game `options`), or None when
    the agent has no kernel."""
    from envs.core.vector import RANDOM, OpponentKernel

    codes = {"roborally/greedy": GREEDY, "roborally/random": RANDOM_PROGRAM}
    if agent_id == "random":
        return RANDOM
    return OpponentKernel(agent_id, codes[agent_id], (), VECTOR_KERNELS) if agent_id in codes else None


__all__ = ["EVALS", "GREEDY", "KERNEL_IDS", "POLICIES", "RANDOM_PROGRAM", "VECTOR_KERNELS", "FastPlayouts", "decide",
           "greedy_program", "opponent_kernel", "playouts_kernel", "random_program", "sample_world",
           "tournament_games", "value"]


# --- tournaments: the game's compiled whole-game runner ----------------------------------------------------------
@numba.njit(cache=True)
def _advance_tables(bd, T, B, S, rows, firsts, status):
    """`envs.roborally.fast.advance_row` (the flag seeker's `decide` at its seats) at tables `rows`, `firsts[k]` the
    sub-step of the seat to move (-1: none): each table plays on to its game's end (`ADV_DONE`; no table has a
    learner) or to a saved policy's choice (`ADV_PAUSE`); `ADV_FAIL`: a plan that is not legal."""
    for k in range(rows.shape[0]):
        status[k] = advance_row(decide, bd, T, B, rows[k], S, firsts[k])


@numba.njit(cache=True)
def _results(bd, T, S, returns, winners, moves):
    """Each table's `RoboRallyGame.returns` per seat, its winner (bool per seat) and its moves (sub-steps: every
    seat's in every round of every turn played; in program mode a program a seat and turn, as the rules engine
    counts them)."""
    n = T.R.shape[1]
    per_turn = n if S.program else S.rounds * n
    for r in range(T.R.shape[0]):
        for s in range(n):
            returns[r, s] = seat_return(bd, T, r, S, s)
            winners[r, s] = T.meta[r, M_WINNER] == s
        moves[r] = T.meta[r, M_TURN] * per_turn


def _settings(game, engine):
    """The kernels' `envs.roborally.fast.Settings` for tables of `game` without a learner or line-up (the vector
    env's, as `envs.roborally.vector` fills them for a race)."""
    from envs.core.vector import compile_line_ups
    from envs.roborally.encoding import RoboRallyEncoder
    from envs.roborally.vector import kernel_settings

    encoder = RoboRallyEncoder(game)
    return encoder, kernel_settings(game, engine, encoder, compile_line_ups([], 0, 0))


def _seat_tables(game, engine, starts, codes):
    """`Tables` (`envs.roborally.fast.new_tables`) holding the plain engine's initial states `starts`, table g's
    seat s moving by policy code `codes[g, s]` (`GREEDY`, or a batch policy's: the kernels pause there)."""
    n = game.num_players
    T = new_tables(len(starts), n, game.num_actions)
    for r, state in enumerate(starts):
        fs = engine.pack(state)
        T.R[r], T.regs[r], T.deck[r], T.meta[r] = fs.robots, fs.registers, fs.deck, fs.meta
        T.seed[r], T.step[r] = np.uint64(state.seed), state.step
        for i, hand in enumerate(state.hands):
            T.hands[r, i, :len(hand)] = hand
            T.hand_len[r, i] = len(hand)
            hand_classes(T.hands[r, i], len(hand), engine.kinds, T.cls[r, i])
    T.learner[:] = -1  # no table has a learner: the kernels play every seat, pausing at a saved policy's choice
    T.codes[:] = codes
    return T


def _buffers(num_obs: int, num_actions: int):
    """The kernels' buffers with room for nothing but `err` (the one field `advance_row` writes)."""
    from envs.roborally.fast import Buffers

    z = np.zeros(0)
    return Buffers(np.zeros((0, num_obs), np.float32), np.zeros((0, num_actions), np.int8), z, z.astype(np.bool_),
                   z.astype(np.bool_), np.zeros((0, num_obs), np.float32), z.astype(np.bool_), z.astype(np.int64),
                   z.astype(np.int64), z.astype(np.uint64), z, z.astype(np.int64), z.astype(np.bool_),
                   np.full(4, -1, np.int64), z.astype(np.int64), np.zeros((0, 1)))


def tournament_games(game, ids, max_turns=None, policies=None):
    """The compiled runner `play(keys, seatings, streams=None) -> (returns, winners, turns)` of a
    RoboRally tournament between `ids`: the flag seeker by its kernel, `policies[e]` (a saved network) as a batch
    policy paused at its robots' sub-steps; under `action_mode="program"` a program scorer chooses among
    `envs.roborally.choice.observe_tables`'s candidates.

    Raises:
        NoKernelError: an entrant without a deterministic kernel and no policy, under `action_mode="program"` a
            policy that is not a program scorer, or a move limit (`max_turns`).
    """
    from envs.core.spec import NoKernelError
    from envs.core.vector import BATCH_CODE

    if max_turns is not None:
        raise NoKernelError.move_limit()
    program = game.config.action_mode == "program"
    policies = list(policies) if policies is not None else [None] * len(ids)
    for agent_id, policy in zip(ids, policies):
        if policy is None and agent_id != "roborally/greedy":
            raise NoKernelError(agent_id, ("roborally/greedy",))
        if program and policy is not None and policy.features not in PROGRAM_SCORERS:
            raise NoKernelError(agent_id, ("roborally/greedy", "program scorers (roborally/ppo-program)"))
    seated = np.array([p is not None for p in policies])
    joint, seat_policies = _program_rows_of(policies) if program else (None, policies)
    engine = FastEngine(game)
    encoder, S = _settings(game, engine)

    def play(keys, seatings, streams=None):
        seatings = np.asarray(seatings, np.int64)
        rot, n = seatings.shape
        d = len(keys)
        starts = [state for state in keys for _ in range(rot)]
        players = np.tile(np.where(seated[seatings], seatings, -1), (d, 1))
        T = _seat_tables(game, engine, starts, np.where(players >= 0, BATCH_CODE, GREEDY))
        noise = None if streams is None else np.asarray(streams, np.uint64).reshape(d * rot, n)
        moves = _program_moves(game, engine, T, S, joint) if program else _register_moves(engine.board, T, S, encoder)
        _play_tables(T, players, seat_policies, noise, *moves)
        returns, winners, moves = np.zeros((d * rot, n)), np.zeros((d * rot, n), np.bool_), np.zeros(d * rot, np.int64)
        _results(engine.board, T, S, returns, winners, moves)
        return returns.reshape(d, rot, n), winners.reshape(d, rot, n), moves.reshape(d, rot)

    play.kernels = (_advance_tables, observe_rows, mask_rows, _results)  # what a first run compiles (the bar says so)
    return play


def _advancer(bd, T, S):
    """`advance(rows, firsts) -> paused` of `play_paused` over tables `T`."""
    from envs.core.game import IllegalActionError

    B = _buffers(0, S.num_actions)

    def advance(rows, firsts):
        status = np.zeros(rows.size, np.int64)
        _advance_tables(bd, T, B, S, rows, np.asarray(firsts, np.int64), status)
        if (status == ADV_FAIL).any():
            k = int(np.flatnonzero(status == ADV_FAIL)[0])
            raise IllegalActionError(int(B.err[3]), int(B.err[2]), f"planned by roborally/greedy at table {rows[k]}")
        return status == ADV_PAUSE

    return advance


#: The feature sets of program scorers the compiled runner seats.
PROGRAM_SCORERS = ("roborally_program", "roborally_program_joint")


def _program_rows_of(policies):
    """(joint, policies) for program scorers `policies`: the `JointTurn` the runner's rows carry (None where no
    policy reads joint columns), and the policies, those of the solo rows reading the first FEATURE_DIM columns of
    each candidate where the rows carry joint ones."""
    from agents.learned import FEATURES
    from envs.roborally.choice import CANDIDATES, CONTEXT_DIM, FEATURE_DIM

    joint = next((FEATURES[p.features].joint() for p in policies if p is not None and p.features != PROGRAM_SCORERS[0]),
                 None)
    if joint is None:
        return None, policies
    keep = np.r_[np.arange(CONTEXT_DIM), (CONTEXT_DIM + np.arange(CANDIDATES)[:, None] * (FEATURE_DIM + joint.dim)
                                          + np.arange(FEATURE_DIM)[None, :]).reshape(-1)]

    def solo(policy):
        return policy._replace(logits=lambda obs, mask, keys=None: policy.logits(obs[:, keep], mask, keys))

    return joint, [solo(p) if p is not None and p.features == PROGRAM_SCORERS[0] else p for p in policies]


def _program_moves(game, engine, T, S, joint=None):
    """(inputs, advance) of `play_paused` under `action_mode="program"`: the program scorers choose among their
    candidates (`envs.roborally.choice.observe_tables`, with `joint`'s columns where given), each choice played as
    its program-mode action."""
    from envs.roborally.choice import CANDIDATES, PER_END, observe_tables
    from envs.roborally.fast import solo_laser_map
    from envs.roborally.vector import default_turns, program_table

    bd = engine.board
    lmap, turns = solo_laser_map(bd), default_turns(game.board)
    advance, offered = _advancer(bd, T, S), {}

    def inputs(rows, seats):
        table = program_table(bd, T, rows, seats, S, lmap, turns)
        obs, offered["actions"], mask, _, _ = observe_tables(game, bd, T, rows, seats, table, CANDIDATES, PER_END,
                                                             joint, turns)
        return obs, mask

    def play(rows, firsts):
        firsts = np.asarray(firsts, np.int64)
        chosen = firsts >= 0
        if chosen.any():
            firsts = np.where(chosen, offered["actions"][np.arange(rows.size), np.maximum(firsts, 0)], -1)
        return advance(rows, firsts)

    return inputs, play


def _register_moves(bd, T, S, encoder):
    """(inputs, advance) of `play_paused` under `action_mode="register"`: the encoder's observation and mask."""
    width = encoder.observation_space.shape[0]

    def inputs(rows, seats):
        obs = np.zeros((rows.size, width), np.float32)
        mask = np.zeros((rows.size, S.num_actions), np.int8)
        observe_rows(bd, T, rows, seats, S, obs)
        mask_rows(T, rows, seats, S, mask)
        return obs, mask.view(np.bool_)

    return inputs, _advancer(bd, T, S)


def _play_tables(T, players, policies, streams, inputs, advance):
    """Every table of `T` to its race's end (`agents.vector.play_paused` with `inputs` and `advance`).

    Raises:
        IllegalActionError: a flag seeker's plan that is not legal (a kernel failure, never expected).
    """
    from agents.vector import play_paused

    n = T.R.shape[1]
    if (players >= 0).any():
        play_paused(advance, inputs, lambda rows: T.step[rows] % n, players, policies, streams)
    else:
        advance(np.arange(T.R.shape[0], dtype=np.int64), np.full(T.R.shape[0], -1, np.int64))
