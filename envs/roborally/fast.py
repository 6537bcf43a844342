"""RoboRally's compiled fast path: the turn of `envs.roborally.rules` in numba, turn for turn identical.

`FastEngine(game)` packs the board once (`engine.board`, a tuple of arrays); `engine.pack(state) -> FastState`,
`engine.robots_of(fs)`, `engine.execute_turn(fs, programs)` (programs int [n, 5] of card numbers, 0 = none: the
register phases, cleanup, re-entry and the next turn's start, as `RoboRallyGame.execute_turn` minus the deal) and
`engine.deal(fs, seed)` (this module's SplitMix64 shuffle, not numpy's). `FastState` holds `robots` int32
[n, NFIELDS] (columns `RX` .. `RSTAY`, the fields of `rules.Robot`), `registers` int32 [n, 5], `deck` int32 [84]
(`deck[:meta[M_DECK]]` in draw order) and `meta` int32 [3] (`M_WINNER`, `M_TURN`, `M_DECK`).

Kernels take arrays and modify them in place; `rng` is a uint64 [1] SplitMix64 state (`rng_seed`). The vector
env's kernels (`vec_reset` / `vec_step` around a decide kernel; `RANDOM_KERNELS` for random opponents) are
described in docs/roborally.md ("Batched compiled env").
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from envs.core import kernels, tables
from envs.core.jit import INLINE
from envs.core.vector import BATCH_CODE, ERR_REDEALS, SKIP, VectorKernels, nb_next
from envs.core.vector import SeatBuffers as Buffers  # noqa: F401 - the vector env's; shared with L.A.M.A., Primi
from envs.roborally.board import EXPRESS, GEAR_CCW, GEAR_CW, PIT, REPAIR, REPAIR2
from envs.roborally.cards import KINDS, LAST_ROTATION, NUM_CARDS
from envs.roborally.rules import (
    HAND,
    MAX_DAMAGE,
    NUM_PROGRAMS,
    PROGRAM_NOOP,
    PROGRAM_POWER_DOWN,
    REENTRY_DAMAGE,
    REGISTERS,
    RoboRallyGame,
    Robot,
    State,
)

# Robot columns, in the field order of `rules.Robot`.
RX, RY, RF, RDMG, RLIVES, RNF, RON, RPD, RELIM, RAX, RAY, RAF, RANN, RSTAY = range(14)
NFIELDS = 14
M_WINNER, M_TURN, M_DECK = range(3)

_DX = np.array([0, 1, 0, -1], np.int64)
_DY = np.array([-1, 0, 1, 0], np.int64)
_TURN = np.array([2, 1, 3, 0, 0, 0, 0], np.int64)  # cards.TURN
_STEPS = np.array([0, 0, 0, -1, 1, 2, 3], np.int64)  # cards.STEPS
_RE_DX = np.array([0, 1, 0, -1, 1, 1, -1, -1], np.int64)  # rules.REENTRY_OFFSETS
_RE_DY = np.array([-1, 0, 1, 0, -1, 1, 1, -1], np.int64)

_U = np.uint64
_GOLDEN = _U(0x9E3779B97F4A7C15)
_MIX1 = _U(0xBF58476D1CE4E5B9)
_MIX2 = _U(0x94D049BB133111EB)


@dataclass
class FastState:
    """A RoboRally position as numpy arrays (see the module docstring for the layout)."""

    robots: np.ndarray
    registers: np.ndarray
    deck: np.ndarray
    meta: np.ndarray

    def copy(self) -> FastState:
        """A deep copy."""
        return FastState(self.robots.copy(), self.registers.copy(), self.deck.copy(), self.meta.copy())

    @property
    def winner(self) -> int:
        """The winning robot, -1 while nobody has won."""
        return int(self.meta[M_WINNER])

    @property
    def turn(self) -> int:
        """Executed turns."""
        return int(self.meta[M_TURN])


# --------------------------------------------------------------------------------------------------- random numbers

@numba.njit(cache=True)
def rng_next(rng):
    """The next SplitMix64 output of the uint64 [1] state `rng`."""
    return nb_next(rng, 0)


@numba.njit(cache=True)
def rng_below(rng, m):
    """An integer in 0..m-1 (m >= 1; the modulo bias is below 2**-50 for the sizes used here)."""
    return np.int64(rng_next(rng) % _U(m))


@numba.njit(cache=True)
def rng_seed(rng, a, b):
    """Seed `rng` from two integers (a key and a stream index), mixed so nearby keys give unrelated streams."""
    rng[0] = _U(a) * _MIX1 + _U(b) * _GOLDEN + _MIX2
    rng_next(rng)


@numba.njit(cache=True)
def rng_shuffle(cards, m, rng):
    """Fisher–Yates of `cards[:m]` drawing from `rng` (`envs.core.kernels.shuffle` of its state, the stream then
    advanced past the m − 1 draws, as m − 1 `rng_below` calls)."""
    kernels.shuffle(cards, m, rng[0])
    if m > 1:
        rng[0] += _GOLDEN * _U(m - 1)


# --------------------------------------------------------------------------------------------------- the turn

@numba.njit(cache=True)
def _locked(damage):
    return min(REGISTERS, max(0, damage - 4))


@numba.njit(inline=INLINE)
def free_regs(R, i):
    """Registers robot i fills this turn (`rules.free_registers`; all 5 while off the board)."""
    return REGISTERS - (_locked(R[i, RDMG]) if R[i, RON] else 0)


@numba.njit(inline=INLINE)
def race_over(R, meta):
    """A robot won or every robot is eliminated (`RoboRallyGame.over_reason` but its move cap)."""
    if meta[M_WINNER] >= 0:
        return True
    for i in range(R.shape[0]):
        if not R[i, RELIM]:
            return False
    return True


@numba.njit(cache=True, _nrt=False)
def _destroy(i, R, regs, occ, dorder):
    if R[i, RON] == 0:
        return
    R[i, RON] = 0
    x, y = R[i, RX], R[i, RY]
    if 0 <= x < occ.shape[1] and 0 <= y < occ.shape[0] and occ[y, x] == i:
        occ[y, x] = -1
    R[i, RLIVES] -= 1
    if R[i, RLIVES] <= 0:
        R[i, RELIM] = 1
    dorder[dorder[0] + 1] = i
    dorder[0] += 1
    for j in range(REGISTERS):
        regs[i, j] = 0
    R[i, RPD] = 0
    R[i, RANN] = 0
    R[i, RSTAY] = 0


@numba.njit(cache=True, _nrt=False)
def _place(i, x, y, floor, R, regs, occ, dorder):
    ox, oy = R[i, RX], R[i, RY]
    H, W = occ.shape
    if 0 <= ox < W and 0 <= oy < H and occ[oy, ox] == i:
        occ[oy, ox] = -1
    R[i, RX] = x
    R[i, RY] = y
    if not (0 <= x < W and 0 <= y < H) or floor[y, x] == PIT:
        _destroy(i, R, regs, occ, dorder)
    else:
        occ[y, x] = i


@numba.njit(cache=True, _nrt=False)
def _push_step(i, d, floor, walls, R, regs, occ, dorder, chain):
    """Robot i steps toward d pushing a chain; False when a wall stops it (nobody moves)."""
    H, W = occ.shape
    chain[0] = i
    cl = 1
    x, y = R[i, RX], R[i, RY]
    while True:
        if (walls[y, x] >> d) & 1:
            return False
        x += _DX[d]
        y += _DY[d]
        if not (0 <= x < W and 0 <= y < H):
            break
        j = occ[y, x]
        if j < 0:
            break
        chain[cl] = j
        cl += 1
    for k in range(cl - 1, -1, -1):
        j = chain[k]
        _place(j, R[j, RX] + _DX[d], R[j, RY] + _DY[d], floor, R, regs, occ, dorder)
    return True


@numba.njit(cache=True, _nrt=False)
def _convey(express_only, floor, belt, rot, walls, R, regs, occ, dorder, belts):
    """One belt movement (atomic; converging, swapping, cycling and blocked robots stay). `belts` is int64 [6, n]
    scratch: each robot's target x, y and direction, whether it is on a moving belt, alone heading to its target, and
    moves."""
    n = R.shape[0]
    H, W = occ.shape
    tx, ty, td, cand, unique, moves = belts[0], belts[1], belts[2], belts[3], belts[4], belts[5]
    any_cand = False
    for i in range(n):
        cand[i] = False
        if R[i, RON] == 0:
            continue
        x, y = R[i, RX], R[i, RY]
        d = belt[y, x]
        if d < 0 or (express_only and floor[y, x] != EXPRESS):
            continue
        if (walls[y, x] >> d) & 1:
            continue
        cand[i] = True
        any_cand = True
        tx[i] = x + _DX[d]
        ty[i] = y + _DY[d]
        td[i] = d
    if not any_cand:
        return
    for i in range(n):
        unique[i] = cand[i]
        if cand[i]:
            for j in range(n):
                if j != i and cand[j] and tx[j] == tx[i] and ty[j] == ty[i]:
                    unique[i] = False
                    break
    # Among unique-target movers each square has at most one mover heading into it, so following the occupant of
    # each target either reaches a free square (everyone on the path moves), a robot that does not move (nobody
    # on the path moves), or comes back (a cycle: nobody in it moves).
    for i in range(n):
        moves[i] = False
        if not unique[i]:
            continue
        cur = i
        ok = False
        for _ in range(n + 1):
            x, y = tx[cur], ty[cur]
            if not (0 <= x < W and 0 <= y < H):
                ok = True
                break
            j = occ[y, x]
            if j < 0:
                ok = True
                break
            if not unique[j] or j == i:
                break
            cur = j
        moves[i] = ok
    for i in range(n):
        if moves[i]:
            x, y = R[i, RX], R[i, RY]
            if occ[y, x] == i:
                occ[y, x] = -1
    for i in range(n):
        if not moves[i]:
            continue
        x, y, d = tx[i], ty[i], td[i]
        R[i, RX] = x
        R[i, RY] = y
        if not (0 <= x < W and 0 <= y < H) or floor[y, x] == PIT:
            _destroy(i, R, regs, occ, dorder)
            continue
        occ[y, x] = i
        nd = belt[y, x]
        if nd >= 0 and rot[y, x]:
            t = (nd - d) % 4
            if t == 1 or t == 3:
                R[i, RF] = (R[i, RF] + t) % 4


@numba.njit(cache=True, _nrt=False)
def _damage(i, amount, R, regs, deck, meta, occ, dorder):
    if R[i, RON] == 0 or amount <= 0:
        return
    before = _locked(R[i, RDMG])
    R[i, RDMG] += amount
    if R[i, RDMG] >= MAX_DAMAGE:
        _destroy(i, R, regs, occ, dorder)
        return
    if R[i, RPD]:
        # A powered-down robot's newly locked register takes the deck's top card.
        for j in range(REGISTERS - _locked(R[i, RDMG]), REGISTERS - before):
            if regs[i, j] == 0 and meta[M_DECK] > 0:
                regs[i, j] = deck[0]
                m = meta[M_DECK]
                for k in range(m - 1):
                    deck[k] = deck[k + 1]
                deck[m - 1] = 0
                meta[M_DECK] = m - 1


# The turn's phases, one kernel each, twins of the methods of `rules._Turn` (rulebook §4.4, §4.5), sharing the turn's
# scratch arrays (`occ` square -> robot, `dorder` the destroyed in order, `chain`, `order`, `hits`, `belts`). They run
# in `_turn_phases`, compiled with its helpers without numba's reference counting (`_nrt=False`, stated by each: numba
# otherwise compiles a kernel with its caller's setting; counted, the phases' arrays cost 6-12% of a turn).

@numba.njit(inline=INLINE)
def _move_robots(bd, ri, R, regs, occ, dorder, chain, order):
    """Robots move (twin of `rules._Turn.move_robots`): register `ri`'s cards in descending order, pushing."""
    floor, walls, kinds = bd[2], bd[5], bd[14]
    n = R.shape[0]
    m = 0
    for i in range(n):
        if R[i, RON] and not R[i, RPD] and regs[i, ri] > 0:
            c = regs[i, ri]
            k = m
            while k > 0 and regs[order[k - 1], ri] < c:  # cards are distinct
                order[k] = order[k - 1]
                k -= 1
            order[k] = i
            m += 1
    for k in range(m):
        i = order[k]
        if R[i, RON] == 0:
            continue
        kind = kinds[regs[i, ri]]
        steps = _STEPS[kind]
        if steps == 0:
            R[i, RF] = (R[i, RF] + _TURN[kind]) % 4
            continue
        d = R[i, RF] if steps > 0 else (R[i, RF] + 2) % 4
        for _ in range(abs(steps)):
            if not _push_step(i, d, floor, walls, R, regs, occ, dorder, chain) or R[i, RON] == 0:
                break


@numba.njit(inline=INLINE)
def _board_elements(bd, ri, R, regs, occ, dorder, chain, belts):
    """Board elements (twin of `rules._Turn.board_elements`): express belts, all belts, pushers, gears, crushers."""
    floor, belt, rot, walls, pushers, crushers, gears = bd[2], bd[3], bd[4], bd[5], bd[11], bd[12], bd[13]
    _convey(True, floor, belt, rot, walls, R, regs, occ, dorder, belts)
    _convey(False, floor, belt, rot, walls, R, regs, occ, dorder, belts)
    for p in range(pushers.shape[0]):
        if (pushers[p, 3] >> ri) & 1:
            i = occ[pushers[p, 1], pushers[p, 0]]
            if i >= 0:
                _push_step(i, pushers[p, 2], floor, walls, R, regs, occ, dorder, chain)
    for g in range(gears.shape[0]):
        i = occ[gears[g, 1], gears[g, 0]]
        if i >= 0:
            R[i, RF] = (R[i, RF] + gears[g, 2]) % 4
    for p in range(crushers.shape[0]):
        if (crushers[p, 2] >> ri) & 1:
            i = occ[crushers[p, 1], crushers[p, 0]]
            if i >= 0:
                _destroy(i, R, regs, occ, dorder)


@numba.njit(inline=INLINE)
def _fire_lasers(bd, R, regs, deck, meta, occ, dorder, hits):
    """Lasers (twin of `rules._Turn.fire_lasers`): board and robot beams traced, then the damage dealt."""
    W, H, walls, lasers = bd[0], bd[1], bd[5], bd[10]
    n = R.shape[0]
    for i in range(n):
        hits[i] = 0
    for q in range(lasers.shape[0]):
        x, y, d = lasers[q, 0], lasers[q, 1], lasers[q, 2]
        while True:
            j = occ[y, x]
            if j >= 0:
                hits[j] += lasers[q, 3]
                break
            if (walls[y, x] >> d) & 1:
                break
            nx, ny = x + _DX[d], y + _DY[d]
            if not (0 <= nx < W and 0 <= ny < H):
                break
            x, y = nx, ny
    for i in range(n):
        if R[i, RON] == 0 or R[i, RPD]:
            continue
        x, y, d = R[i, RX], R[i, RY], R[i, RF]
        while not (walls[y, x] >> d) & 1:
            nx, ny = x + _DX[d], y + _DY[d]
            if not (0 <= nx < W and 0 <= ny < H):
                break
            x, y = nx, ny
            j = occ[y, x]
            if j >= 0:
                hits[j] += 1
                break
    for i in range(n):
        if hits[i]:
            _damage(i, hits[i], R, regs, deck, meta, occ, dorder)


@numba.njit(inline=INLINE)
def _touch_checkpoints(bd, R, winner):
    """Checkpoints (twin of `rules._Turn.touch_checkpoints`): archives, flags; returns the winner (-1: none)."""
    archive, flag_at, nflags = bd[7], bd[8], bd[9]
    for i in range(R.shape[0]):
        if R[i, RON] == 0:
            continue
        x, y = R[i, RX], R[i, RY]
        if archive[y, x]:
            R[i, RAX] = x
            R[i, RAY] = y
            R[i, RAF] = R[i, RF]
        f = flag_at[y, x]
        if f >= 0 and f == R[i, RNF]:
            R[i, RNF] += 1
            if R[i, RNF] == nflags and winner < 0:
                winner = i
    return winner


@numba.njit(inline=INLINE)
def _repair(bd, R):
    """Repairs (twin of `rules._Turn.repair`): a robot on a repair site removes its damage."""
    repair = bd[6]
    for i in range(R.shape[0]):
        if R[i, RON]:
            heal = repair[R[i, RY], R[i, RX]]
            if heal:
                R[i, RDMG] = max(0, R[i, RDMG] - heal)


@numba.njit(inline=INLINE)
def _power_down_bookkeeping(R):
    """Power-down bookkeeping (twin of `rules._Turn.power_down_bookkeeping`): stay down or not, announced downs."""
    for i in range(R.shape[0]):
        if R[i, RON] == 0:
            continue
        if R[i, RPD]:
            R[i, RPD] = R[i, RSTAY]
            R[i, RSTAY] = 0
        if R[i, RANN]:
            R[i, RPD] = 1
            R[i, RANN] = 0


@numba.njit(inline=INLINE)
def _destroyed_this_turn(i, dorder):
    """Whether robot `i` is in this turn's destruction order."""
    for k in range(dorder[0]):
        if dorder[k + 1] == i:
            return True
    return False


@numba.njit(inline=INLINE)
def _reenter(bd, R, occ, dorder):
    """Re-entry (twin of `rules._Turn.reenter`): robots waiting from earlier turns, then this turn's destroyed."""
    W, H, floor = bd[0], bd[1], bd[2]
    n = R.shape[0]
    nd = dorder[0]
    for k in range(n + nd):  # the robots in seat order (those destroyed this turn skipped), then dorder's
        i = k if k < n else dorder[k - n + 1]
        if R[i, RELIM] or R[i, RON]:
            continue
        if k < n and _destroyed_this_turn(i, dorder):
            continue
        ax, ay = R[i, RAX], R[i, RAY]
        sx, sy = -1, -1
        if occ[ay, ax] < 0:
            sx, sy = ax, ay
        else:
            for o in range(8):
                x, y = ax + _RE_DX[o], ay + _RE_DY[o]
                if 0 <= x < W and 0 <= y < H and floor[y, x] != PIT and occ[y, x] < 0:
                    sx, sy = x, y
                    break
        if sx < 0:
            continue  # every square taken: it waits for the next turn
        R[i, RX] = sx
        R[i, RY] = sy
        R[i, RF] = R[i, RAF]
        R[i, RON] = 1
        R[i, RDMG] = REENTRY_DAMAGE
        occ[sy, sx] = i


@numba.njit(inline=INLINE)
def _start_next_turn(R, regs):
    """The next turn's deterministic start (twin of `rules.RoboRallyGame._deal`'s first loop): powered-down robots
    discard their damage, unlocked registers clear."""
    for i in range(R.shape[0]):
        if R[i, RPD] and R[i, RDMG]:
            R[i, RDMG] = 0
        for j in range(free_regs(R, i)):
            regs[i, j] = 0


@numba.njit(cache=True, _nrt=False)
def _turn_phases(bd, R, regs, deck, meta, trace, occ, dorder, chain, order, hits, belts):
    """`turn_kernel`'s turn on its scratch arrays: each register phase `_move_robots`, `_board_elements`,
    `_fire_lasers`, `_touch_checkpoints`; then, unless a robot won, `_repair`, `_power_down_bookkeeping`, `_reenter`
    and `_start_next_turn`. Compiled without reference counting (see above)."""
    winner = meta[M_WINNER]
    executed = 0
    for ri in range(REGISTERS):
        _move_robots(bd, ri, R, regs, occ, dorder, chain, order)
        _board_elements(bd, ri, R, regs, occ, dorder, chain, belts)
        _fire_lasers(bd, R, regs, deck, meta, occ, dorder, hits)
        winner = _touch_checkpoints(bd, R, winner)
        executed += 1
        if trace.shape[0] > 0:
            for i in range(R.shape[0]):
                for f in range(NFIELDS):
                    trace[ri, i, f] = R[i, f]
        if winner >= 0:
            break
    meta[M_TURN] += 1
    if winner >= 0:
        meta[M_WINNER] = winner
        return executed
    _repair(bd, R)
    _power_down_bookkeeping(R)
    _reenter(bd, R, occ, dorder)
    _start_next_turn(R, regs)
    return executed


@numba.njit(cache=True, inline=INLINE)
def turn_kernel(bd, R, regs, deck, meta, trace):
    """Execute one turn on filled registers (twin of `rules.RoboRallyGame._execute`), in place: the turn's scratch
    arrays, then `_turn_phases`. Inlined into the kernels that call it (`inline=INLINE`): called from numba's cache,
    it ran bench_roborally's lone robot 45% slower.

    `trace` is int32 [0 or 5, n, NFIELDS]: with 5 rows the robots after each executed register phase are written
    there (rows of phases not reached keep their contents). Returns the number of register phases executed.
    """
    n = R.shape[0]
    occ = np.full((bd[1], bd[0]), -1, np.int64)
    for i in range(n):
        if R[i, RON]:
            occ[R[i, RY], R[i, RX]] = i
    dorder = np.zeros(2 * n + 2, np.int64)
    chain = np.empty(n + 1, np.int64)
    order = np.empty(n, np.int64)
    hits = np.zeros(n, np.int64)
    belts = np.empty((6, n), np.int64)
    return _turn_phases(bd, R, regs, deck, meta, trace, occ, dorder, chain, order, hits, belts)


@numba.njit(cache=True, _nrt=True)
def run_turn(bd, R, regs, deck, meta, trace):
    """`turn_kernel` called, not inlined: a kernel compiled without reference counting (the vector env's) runs the
    turn here, since the turn allocates its scratch."""
    return turn_kernel(bd, R, regs, deck, meta, trace)


@numba.njit(cache=True)
def solo_laser_map(bd):
    """The board-laser beams a lone robot takes on each square (int64 [H, W]): what a register ending there costs it
    in damage. `_fire_lasers` with a powered-down robot (it does not fire) alone on each square in turn."""
    W, H = bd[0], bd[1]
    out = np.zeros((H, W), np.int64)
    R = np.zeros((1, NFIELDS), np.int32)
    regs = np.zeros((1, REGISTERS), np.int32)
    deck = np.zeros(NUM_CARDS, np.int32)
    meta = np.zeros(3, np.int32)
    occ = np.full((H, W), -1, np.int64)
    dorder = np.zeros(4, np.int64)
    hits = np.zeros(1, np.int64)
    for y in range(H):
        for x in range(W):
            R[0, :] = 0
            R[0, RX], R[0, RY], R[0, RON], R[0, RPD], R[0, RLIVES] = x, y, 1, 1, 1
            occ[y, x] = 0
            _fire_lasers(bd, R, regs, deck, meta, occ, dorder, hits)
            occ[y, x] = -1
            out[y, x] = hits[0]
    return out


@numba.njit(cache=True)
def set_programs(R, regs, programs):
    """Write `programs` [n, 5] into the unlocked registers (a robot off the board has none locked)."""
    n = R.shape[0]
    for i in range(n):
        nl = _locked(R[i, RDMG]) if R[i, RON] else 0
        for j in range(REGISTERS - nl):
            regs[i, j] = programs[i, j]


@numba.njit(cache=True)
def take_sorted(deck, pos, k, hand):
    """hand[:k] = deck[pos:pos + k] sorted ascending (insertion sort: k <= 9)."""
    for s in range(k):
        c = deck[pos + s]
        t = s
        while t > 0 and hand[t - 1] > c:
            hand[t] = hand[t - 1]
            t -= 1
        hand[t] = c


@numba.njit(cache=True, _nrt=True)
def _free_cards(regs, deck):
    """Every card not held in a register, ascending, into `deck`; returns how many."""
    n = regs.shape[0]
    held = np.zeros(NUM_CARDS + 1, np.bool_)
    for i in range(n):
        for j in range(REGISTERS):
            held[regs[i, j]] = True
    m = 0
    for c in range(1, NUM_CARDS + 1):
        if not held[c]:
            deck[m] = c
            m += 1
    return m


@numba.njit(cache=True)
def deal_sizes(deck, m, sizes, hands, lens):
    """Deal the shuffled `deck[:m]` in seat order: `sizes[i]` cards (fewer where the deck runs out), sorted, into
    `hands[i]` and their count into `lens[i]` (`lens` may be `sizes`); the rest moves to the front of `deck` in draw
    order, zeros after. Returns how many are left."""
    pos = 0
    for i in range(sizes.shape[0]):
        k = min(sizes[i], m - pos)
        take_sorted(deck, pos, k, hands[i])
        lens[i] = k
        pos += k
    for s in range(m - pos):
        deck[s] = deck[pos + s]
    for s in range(m - pos, deck.shape[0]):
        deck[s] = 0
    return m - pos


@numba.njit(cache=True)
def _deal_hands(R, deck, m, meta, hands, hand_len):
    """Deal the shuffled `deck[:m]` (`deal_sizes`): 9 − damage cards to each robot on the board and not powered
    down; the rest stays in `deck[:meta[M_DECK]]` in draw order."""
    for i in range(R.shape[0]):
        hand_len[i] = HAND - R[i, RDMG] if R[i, RON] and not R[i, RPD] else 0
    meta[M_DECK] = deal_sizes(deck, m, hand_len, hands, hand_len)


@numba.njit(cache=True, _nrt=True)
def deal_kernel(R, regs, deck, meta, hands, hand_len, rng):
    """Shuffle every card not held in a register into the deck (`rng_shuffle`) and deal 9 − damage cards (sorted)
    to each robot on the board and not powered down; the rest stays in `deck[:meta[M_DECK]]` in draw order."""
    m = _free_cards(regs, deck)
    rng_shuffle(deck, m, rng)
    _deal_hands(R, deck, m, meta, hands, hand_len)


@numba.njit(cache=True, _nrt=True)
def deal_seeded(R, regs, deck, meta, hands, hand_len, seed):
    """`deal_kernel` shuffled as the plain engine shuffles (`RoboRallyGame._deal`: numpy's
    `default_rng((seed, turn)).shuffle`, turn = `meta[M_TURN]`), so the hands and the deck equal the plain
    engine's card for card: the vector env's deal."""
    m = _free_cards(regs, deck)
    np_shuffle(deck, m, seed, meta[M_TURN])
    _deal_hands(R, deck, m, meta, hands, hand_len)


# numpy's `default_rng(entropy).shuffle`, bit for bit: SeedSequence (numpy/random/bit_generator.pyx), PCG64 with
# the XSL-RR output (pcg64.h) and bounded draws by masked rejection on 32-bit halves (`random_interval`). The plain
# engine keeps numpy's generator (a readable `np.random.default_rng((seed, turn)).shuffle(deck)`); this is its
# compiled twin, so both engines deal the same cards from one seed.
_M32 = _U(0xFFFFFFFF)
_SS_INIT_A = _U(0x43B0D7E5)
_SS_MULT_A = _U(0x931E8875)
_SS_INIT_B = _U(0x8B51F9DD)
_SS_MULT_B = _U(0x58F38DED)
_SS_MIX_L = _U(0xCA01F9DD)
_SS_MIX_R = _U(0x4973F715)
_PCG_MULT_HI = _U(0x2360ED051FC65DA4)
_PCG_MULT_LO = _U(0x4385DF649FCCF645)


@numba.njit(inline=INLINE)
def _hashmix(value, hc):
    value = value ^ hc[0]
    hc[0] = (hc[0] * _SS_MULT_A) & _M32
    value = (value * hc[0]) & _M32
    return value ^ (value >> _U(16))


@numba.njit(inline=INLINE)
def _ss_mix(x, y):
    r = ((_SS_MIX_L * x) - (_SS_MIX_R * y)) & _M32
    return r ^ (r >> _U(16))


@numba.njit(inline=INLINE)
def _mul64(a, b):
    """The 128-bit product of two uint64, as (high, low)."""
    a0 = a & _M32
    a1 = a >> _U(32)
    b0 = b & _M32
    b1 = b >> _U(32)
    p00 = a0 * b0
    p01 = a0 * b1
    p10 = a1 * b0
    p11 = a1 * b1
    mid = (p00 >> _U(32)) + (p01 & _M32) + (p10 & _M32)
    lo = (p00 & _M32) | ((mid & _M32) << _U(32))
    hi = p11 + (p01 >> _U(32)) + (p10 >> _U(32)) + (mid >> _U(32))
    return hi, lo


@numba.njit(inline=INLINE)
def _pcg_step(st):
    """st = [state_hi, state_lo, inc_hi, inc_lo]: state = state * MULT + inc (mod 2**128)."""
    hi, lo = _mul64(st[1], _PCG_MULT_LO)
    hi = hi + st[0] * _PCG_MULT_LO + st[1] * _PCG_MULT_HI
    lo2 = lo + st[3]
    carry = _U(1) if lo2 < lo else _U(0)
    st[0] = hi + st[2] + carry
    st[1] = lo2


@numba.njit(inline=INLINE)
def _pcg_next64(st):
    _pcg_step(st)
    x = st[0] ^ st[1]
    rot = st[0] >> _U(58)
    return (x >> rot) | (x << ((_U(64) - rot) & _U(63)))


@numba.njit(cache=True, _nrt=True)
def np_shuffle(deck, m, seed, turn):
    """Shuffle `deck[:m]` in place exactly as `np.random.default_rng((seed, turn)).shuffle` does (seed, turn >= 0,
    seed < 2**64)."""
    # SeedSequence: the entropy words of (seed, turn), 32 bits at a time, low first (0 is one word).
    words = np.zeros(6, np.uint64)
    nw = 0
    for v in (_U(seed), _U(turn)):
        if v == _U(0):
            words[nw] = _U(0)
            nw += 1
        while v > _U(0):
            words[nw] = v & _M32
            nw += 1
            v = v >> _U(32)
    hc = np.empty(1, np.uint64)
    hc[0] = _SS_INIT_A
    pool = np.zeros(4, np.uint64)
    for i in range(4):
        pool[i] = _hashmix(words[i] if i < nw else _U(0), hc)
    for i_src in range(4):
        for i_dst in range(4):
            if i_src != i_dst:
                pool[i_dst] = _ss_mix(pool[i_dst], _hashmix(pool[i_src], hc))
    for i_src in range(4, nw):
        for i_dst in range(4):
            pool[i_dst] = _ss_mix(pool[i_dst], _hashmix(words[i_src], hc))
    # generate_state(4, uint64): 8 words from the pool, paired little-endian.
    out = np.zeros(4, np.uint64)
    h = _SS_INIT_B
    for i in range(8):
        d = pool[i % 4] ^ h
        h = (h * _SS_MULT_B) & _M32
        d = (d * h) & _M32
        d = d ^ (d >> _U(16))
        if i % 2 == 0:
            out[i // 2] = d
        else:
            out[i // 2] |= d << _U(32)
    # PCG64 seeding: inc = (initseq << 1) | 1; state = 0; step; state += initstate; step.
    st = np.zeros(4, np.uint64)
    st[2] = (out[2] << _U(1)) | (out[3] >> _U(63))
    st[3] = (out[3] << _U(1)) | _U(1)
    _pcg_step(st)
    lo = st[1] + out[1]
    st[0] = st[0] + out[0] + (_U(1) if lo < st[1] else _U(0))
    st[1] = lo
    _pcg_step(st)
    # Fisher–Yates from the top, j drawn by masked rejection on 32-bit halves of the 64-bit outputs.
    have = False
    half = _U(0)
    for i in range(m - 1, 0, -1):
        mx = _U(i)
        mask = mx
        mask |= mask >> _U(1)
        mask |= mask >> _U(2)
        mask |= mask >> _U(4)
        mask |= mask >> _U(8)
        mask |= mask >> _U(16)
        while True:
            if have:
                have = False
                v = half
            else:
                z = _pcg_next64(st)
                half = z >> _U(32)
                have = True
                v = z & _M32
            v = v & mask
            if v <= mx:
                break
        j = np.int64(v)
        t = deck[i]
        deck[i] = deck[j]
        deck[j] = t


# --------------------------------------------------------------------------------------------------- one robot alone
# The register phase for one robot alone is the one loop beside `turn_kernel` that stays, for speed: the flag seeker's
# search, the mc screening, the turns table and `agents.roborally.solo.SoloSimulator` step a lone robot register by
# register, and `turn_kernel` ends the same programs 3.3x slower (bench_roborally, "one robot alone"), which would cost
# greedy playouts roughly 3x. Differential-tested against `RoboRallyGame.execute_turn` with one robot
# (tests/envs/roborally/test_fast.py).

@numba.njit(inline=INLINE)
def solo_phase(bd, x, y, f, nf, c, ri, crushers_on):
    """Register phase ri (0-based) for one robot alone playing card c (0 = none): its move (walls, pits, the
    edge), belts, pushers, gears, crushers (when `crushers_on` and packed) and its flag; no other robot, no laser.
    Returns (x, y, facing, next_flag, alive, walls): `walls` is 1 when a wall stopped its card's move. The one home
    of the lone robot's register phase (`solo_register` returns it less `walls`; `program_rows` reads them all)."""
    (W, H, floor, belt, rot, walls, repair, archive, flag_at, nflags, lasers, pushers, crushers, gears, kinds,
     _dist) = bd
    wl = 0
    if c > 0:
        kind = kinds[c]
        steps = _STEPS[kind]
        if steps == 0:
            f = (f + _TURN[kind]) % 4
        else:
            d = f if steps > 0 else (f + 2) % 4
            for _ in range(abs(steps)):
                if (walls[y, x] >> d) & 1:
                    wl = 1
                    break
                x += _DX[d]
                y += _DY[d]
                if not (0 <= x < W and 0 <= y < H) or floor[y, x] == PIT:
                    return x, y, f, nf, False, wl
    for express_only in (True, False):
        d = belt[y, x]
        if d >= 0 and not (express_only and floor[y, x] != EXPRESS) and not (walls[y, x] >> d) & 1:
            x += _DX[d]
            y += _DY[d]
            if not (0 <= x < W and 0 <= y < H) or floor[y, x] == PIT:
                return x, y, f, nf, False, wl
            nd = belt[y, x]
            if nd >= 0 and rot[y, x]:
                t = (nd - d) % 4
                if t == 1 or t == 3:
                    f = (f + t) % 4
    for p in range(pushers.shape[0]):
        if (pushers[p, 3] >> ri) & 1 and pushers[p, 0] == x and pushers[p, 1] == y:
            d = pushers[p, 2]
            if not (walls[y, x] >> d) & 1:
                x += _DX[d]
                y += _DY[d]
                if not (0 <= x < W and 0 <= y < H) or floor[y, x] == PIT:
                    return x, y, f, nf, False, wl
    for g in range(gears.shape[0]):
        if gears[g, 0] == x and gears[g, 1] == y:
            f = (f + gears[g, 2]) % 4
    if crushers_on:
        for p in range(crushers.shape[0]):
            if (crushers[p, 2] >> ri) & 1 and crushers[p, 0] == x and crushers[p, 1] == y:
                return x, y, f, nf, False, wl
    fl = flag_at[y, x]
    if fl >= 0 and fl == nf:
        nf += 1
    return x, y, f, nf, True, wl


@numba.njit(cache=True, _nrt=False)
def solo_register(bd, x, y, f, nf, c, ri, crushers_on):
    """Register phase ri (0-based) for one robot alone playing card c (0 = none): `solo_phase` (its move, the
    board elements, its flag; no other robot, no laser). Returns (x, y, facing, next_flag, alive)."""
    x, y, f, nf, alive, _walls = solo_phase(bd, x, y, f, nf, c, ri, crushers_on)
    return x, y, f, nf, alive


@numba.njit(cache=True)
def solo_kernel(bd, x, y, f, nf, cards, crushers_on):
    """Run `cards` (5 registers, 0 = empty) for one robot alone (`solo_register` for each register; it stops at
    death or on claiming the last flag). Returns (x, y, facing, next_flag, alive)."""
    nflags = bd[9]
    for ri in range(REGISTERS):
        x, y, f, nf, alive = solo_register(bd, x, y, f, nf, cards[ri], ri, crushers_on)
        if not alive or nf >= nflags:
            return x, y, f, nf, alive
    return x, y, f, nf, True


# --------------------------------------------------------------------------------------------------- reduced programs

@numba.njit(cache=True, _nrt=True)
def hand_classes(hand, n, kinds, cls):
    """Class index (seed §1.1, as `programs.equivalence_classes`) of each card of the sorted `hand[:n]` into `cls`;
    classes are numbered by their smallest card. Returns the number of classes."""
    first = np.full(7, -1, np.int64)  # rotation kind -> slot of its first card
    raw = np.empty(n, np.int64)  # representative slot of each card's class
    for s in range(n):
        c = hand[s]
        if c <= LAST_ROTATION:
            k = kinds[c]
            if first[k] < 0:
                first[k] = s
            raw[s] = first[k]
        elif s > 0 and hand[s - 1] > LAST_ROTATION and c == hand[s - 1] + 1 and kinds[c] == kinds[hand[s - 1]]:
            raw[s] = raw[s - 1]
        else:
            raw[s] = s
    m = 0
    for s in range(n):
        if raw[s] == s:
            cls[s] = m
            m += 1
        else:
            cls[s] = cls[raw[s]]
    return m


@numba.njit(cache=True, _nrt=True)
def hand_multiplicities(hand, n, kinds):
    """(m, cls, mults) of the sorted `hand[:n]`: its class count, each slot's class (`hand_classes`) and each class's
    size (int64 [9] each)."""
    cls = np.empty(HAND, np.int64)
    mults = np.zeros(HAND, np.int64)
    m = hand_classes(hand, n, kinds, cls)
    for s in range(n):
        mults[cls[s]] += 1
    return m, cls, mults


@numba.njit(cache=True, _nrt=False)
def next_class(seq, mults, m, depth):
    """Depth-first step over class sequences in rank order: give back the class at `seq[depth]` (-1: none yet)
    and take the next available one; False (seq[depth] = -1) when none is left at this depth."""
    if seq[depth] >= 0:
        mults[seq[depth]] += 1
    c = seq[depth] + 1
    while c < m and mults[c] == 0:
        c += 1
    if c >= m:
        seq[depth] = -1
        return False
    seq[depth] = c
    mults[c] -= 1
    return True


@numba.njit(inline=INLINE)
def next_node(seq, mults, m, depth):
    """The depth-first walk over class sequences in rank order, taken to its next node: `next_class` at `depth`,
    backing up a depth while none is left there. Returns the node's depth (its class at `seq[depth]`), -1 when the
    walk is over. Start it at depth 0 with `seq` all -1; to go deeper, set `seq[depth + 1] = -1` and pass depth + 1.
    """
    while depth >= 0 and not next_class(seq, mults, m, depth):
        depth -= 1
    return depth


@numba.njit(cache=True)
def _comb(a, b):
    r = 1
    for i in range(b):
        r = r * (a - i) // (i + 1)
    return r


@numba.njit(cache=True, _nrt=True)
def count_programs_k(mults, m, k):
    """Reduced programs of length k over multiplicities `mults[:m]` (as `programs.count_programs`)."""
    ways = np.zeros(k + 1, np.int64)
    new = np.zeros(k + 1, np.int64)
    ways[0] = 1
    for c in range(m):
        mc = mults[c]
        if mc == 0:
            continue
        for t in range(k + 1):
            new[t] = 0
        for t in range(k + 1):
            if ways[t]:
                for u in range(min(mc, k - t) + 1):
                    new[t + u] += ways[t] * _comb(t + u, u)
        for t in range(k + 1):
            ways[t] = new[t]
    return ways[k]


@numba.njit(cache=True)
def unrank_k(mults, m, k, number, out):
    """The class sequence of rank `number` into out[:k] (as `programs.unrank`); `mults` is restored."""
    r = number
    for i in range(k):
        for c in range(m):
            if mults[c] == 0:
                continue
            mults[c] -= 1
            cnt = count_programs_k(mults, m, k - i - 1)
            if r < cnt:
                out[i] = c
                break
            r -= cnt
            mults[c] += 1
    for i in range(k):
        mults[out[i]] += 1


@numba.njit(cache=True, _nrt=True)
def classes_to_cards(hand, n, cls, seq, k, out):
    """Cards of a reduced program (class sequence `seq[:k]`): each class's cards in ascending order; out[k:5] = 0."""
    taken = np.zeros(HAND, np.int64)
    for i in range(k):
        c = seq[i]
        seen = 0
        for s in range(n):
            if cls[s] == c:
                if seen == taken[c]:
                    out[i] = hand[s]
                    break
                seen += 1
        taken[c] += 1
    for i in range(k, REGISTERS):
        out[i] = 0


@numba.njit(cache=True)
def enumerate_programs(hand, n, k, kinds):
    """Every reduced program of the sorted `hand[:n]` with k free registers, as cards [P, 5], in rank order."""
    m, cls, mults = hand_multiplicities(hand, n, kinds)
    k = min(k, n)
    total = count_programs_k(mults, m, k)
    out = np.zeros((total, REGISTERS), np.int32)
    seq = np.full(REGISTERS, -1, np.int64)
    if k == 0:
        return out
    # Depth-first in lexicographic order of class sequences (= rank order).
    p = 0
    depth = next_node(seq, mults, m, 0)
    while depth >= 0:
        if depth == k - 1:
            classes_to_cards(hand, n, cls, seq, k, out[p])
            p += 1
        else:
            depth += 1
            seq[depth] = -1
        depth = next_node(seq, mults, m, depth)
    return out


@numba.njit(cache=True)
def random_turns(bd, R0, regs0, meta0, turns, max_turns, seed):
    """Play `turns` full turns from the start position (R0, regs0, meta0): deal, a uniformly random card program
    for every robot (the first free-register count of a `rng_shuffle` of its hand), execute; a race that
    ends (a win, everyone out, or `max_turns` turns) starts again. The benchmark's and smoke tests' loop; returns
    the races finished."""
    n = R0.shape[0]
    R = R0.copy()
    regs = regs0.copy()
    meta = meta0.copy()
    deck = np.zeros(NUM_CARDS, np.int32)
    hands = np.zeros((n, HAND), np.int32)
    hand_len = np.zeros(n, np.int64)
    programs = np.zeros((n, REGISTERS), np.int32)
    trace = np.zeros((0, n, NFIELDS), np.int32)
    rng = np.zeros(1, np.uint64)
    rng_seed(rng, seed, 0)
    races = 0
    for _ in range(turns):
        deal_kernel(R, regs, deck, meta, hands, hand_len, rng)
        for i in range(n):
            k = min(hand_len[i], free_regs(R, i))
            rng_shuffle(hands[i], hand_len[i], rng)
            programs[i, :k] = hands[i, :k]
            programs[i, k:] = 0
        set_programs(R, regs, programs)
        turn_kernel(bd, R, regs, deck, meta, trace)
        if race_over(R, meta) or meta[M_TURN] >= max_turns:
            races += 1
            R[:, :] = R0
            regs[:, :] = regs0
            meta[:] = meta0
    return races


@numba.njit(cache=True)
def _program_turn(bd, R, regs, deck, meta, programs, trace):
    """`FastEngine.execute_turn` in place: fill the registers, check the cards (False, nothing run, when a card
    is out of 1..84 or placed twice), take them out of the deck, run the turn."""
    set_programs(R, regs, programs)
    seen = np.zeros(NUM_CARDS + 1, np.bool_)
    for i in range(R.shape[0]):
        for j in range(REGISTERS):
            c = regs[i, j]
            if c == 0:
                continue
            if c < 0 or c > NUM_CARDS or seen[c]:
                return False
            seen[c] = True
    m = meta[M_DECK]
    k = 0
    for s in range(m):
        if not seen[deck[s]]:
            deck[k] = deck[s]
            k += 1
    for s in range(k, deck.shape[0]):
        deck[s] = 0
    meta[M_DECK] = k
    turn_kernel(bd, R, regs, deck, meta, trace)
    return True


# --------------------------------------------------------------------------------------------------- the engine

class FastEngine:
    """The fast path of one `RoboRallyGame` (its board and options packed once; see the module docstring)."""

    def __init__(self, game: RoboRallyGame):
        self.game = game
        c = game.config
        b = game.board
        self.num_robots = game.num_players
        W, H = b.width, b.height
        floor = np.ascontiguousarray(b.floor, np.int64)
        repair = np.zeros((H, W), np.int64)
        repair[floor == REPAIR] = 1
        repair[floor == REPAIR2] = c.double_repair_heals
        archive = np.zeros((H, W), np.bool_)
        archive[repair > 0] = True
        flag_at = np.full((H, W), -1, np.int64)
        for k, (x, y) in enumerate(b.flags):
            flag_at[y, x] = k
            archive[y, x] = True
            if c.flags_repair and repair[y, x] == 0:
                repair[y, x] = 1
        lasers = np.array([(q.x, q.y, q.direction, q.beams) for q in b.lasers], np.int64).reshape(-1, 4)
        pushers = np.array([(p.x, p.y, p.direction, sum(1 << (r - 1) for r in p.registers)) for p in b.pushers],
                           np.int64).reshape(-1, 4)
        crushers = np.array([(p.x, p.y, sum(1 << (r - 1) for r in p.registers)) for p in b.crushers]
                            if c.crushers else [], np.int64).reshape(-1, 3)
        gears = np.array([(x, y, 1 if floor[y, x] == GEAR_CW else 3) for y in range(H) for x in range(W)
                          if floor[y, x] in (GEAR_CW, GEAR_CCW)], np.int64).reshape(-1, 3)
        dist = np.stack([b.distances(xy) for xy in b.flags]).astype(np.int64) if b.flags else \
            np.zeros((0, H, W), np.int64)
        self.kinds = np.array([max(k, 0) for k in KINDS[c.card_numbering]], np.int64)
        #: The packed board: (W, H, floor, belt, rotating, walls, repair, archive, flag_at, nflags, lasers,
        #: pushers, crushers, gears, kinds, dist) — the first argument of every board kernel.
        self.board = (W, H, floor, np.ascontiguousarray(b.belt_dir, np.int64), np.ascontiguousarray(b.rotating),
                      np.ascontiguousarray(b.walls, np.int64), repair, archive, flag_at, len(b.flags), lasers,
                      pushers, crushers, gears, self.kinds, dist)
        self._no_trace = np.zeros((0, self.num_robots, NFIELDS), np.int32)

    def pack(self, state: State) -> FastState:
        """The fast state of a plain `State` (robots, registers as placed, the deck in draw order)."""
        n = self.num_robots
        robots = np.array([[r.x, r.y, r.facing, r.damage, r.lives, r.next_flag, r.on_board, r.powered_down,
                            r.eliminated, r.archive_x, r.archive_y, r.archive_facing, r.announced, r.stay_down]
                           for r in state.robots], np.int32).reshape(n, NFIELDS)
        regs = np.array(state.registers, np.int32).reshape(n, REGISTERS)
        deck = np.zeros(NUM_CARDS, np.int32)
        deck[:len(state.deck)] = state.deck
        meta = np.array([state.winner, state.turn, len(state.deck)], np.int32)
        return FastState(robots, regs, deck, meta)

    def robots_of(self, fs: FastState) -> tuple[Robot, ...]:
        """The `rules.Robot`s of a fast state."""
        out = []
        for row in fs.robots.tolist():
            out.append(Robot(row[RX], row[RY], row[RF], row[RDMG], row[RLIVES], row[RNF], bool(row[RON]),
                             bool(row[RPD]), bool(row[RELIM]), row[RAX], row[RAY], row[RAF], bool(row[RANN]),
                             bool(row[RSTAY])))
        return tuple(out)

    def differences(self, fs: FastState, state: State) -> list[str]:
        """What differs between a fast state and a plain one (robots, registers, winner, turn); [] when equal.
        The deck is not compared: the two engines shuffle differently."""
        out = []
        for i, (a, b) in enumerate(zip(self.robots_of(fs), state.robots)):
            if a != b:
                out.append(f"robot {i + 1}: fast {a} != plain {b}")
        regs = tuple(tuple(r) for r in fs.registers.tolist())
        if regs != tuple(tuple(r) for r in state.registers):
            out.append(f"registers: fast {regs} != plain {state.registers}")
        if fs.winner != state.winner:
            out.append(f"winner: fast {fs.winner} != plain {state.winner}")
        if fs.turn != state.turn:
            out.append(f"turn: fast {fs.turn} != plain {state.turn}")
        return out

    def execute_turn(self, fs: FastState, programs, trace: np.ndarray | None = None) -> FastState:
        """The state after one turn with `programs` int [n, 5] (see the module docstring); `fs` is unchanged.

        Program cards are taken out of the deck (as the plain engine's `execute_turn` does); `trace`, if given,
        is int32 [5, n, NFIELDS] and receives the robots after each register phase."""
        programs = np.asarray(programs, np.int32).reshape(self.num_robots, REGISTERS)
        out = fs.copy()
        if not _program_turn(self.board, out.robots, out.registers, out.deck, out.meta, programs,
                             self._no_trace if trace is None else trace):
            raise ValueError(f"programs must use distinct cards 1..{NUM_CARDS}, got {programs.tolist()} "
                             f"(registers {fs.registers.tolist()})")
        return out

    def deal(self, fs: FastState, seed: int) -> tuple[FastState, np.ndarray, np.ndarray]:
        """(state with the new deck, hands int32 [n, 9] sorted, hand sizes [n]) of the next deal, shuffled by
        SplitMix64 from `seed`."""
        out = fs.copy()
        hands = np.zeros((self.num_robots, HAND), np.int32)
        sizes = np.zeros(self.num_robots, np.int32)
        rng = np.zeros(1, np.uint64)
        rng_seed(rng, seed, out.meta[M_TURN])
        deal_kernel(out.robots, out.registers, out.deck, out.meta, hands, sizes, rng)
        return out, hands, sizes

    def reduced_programs(self, hand, k: int) -> np.ndarray:
        """Every reduced program of a hand (any order of cards) with k free registers, as cards int32 [P, 5] in
        rank order (the order of `programs.reduced_programs`)."""
        h = np.sort(np.asarray(hand, np.int64))
        buf = np.zeros(HAND, np.int64)
        buf[:h.size] = h
        return enumerate_programs(buf, h.size, k, self.kinds)


# --------------------------------------------------------------------------------------------------- the vector env

#: A seat's policy code in the vector env: `RANDOM_CODE` plays a uniformly random legal action from the table's
#: stream; `LEARNER_CODE` marks the learner's seat; codes >= 0 are passed to the decide kernel the env's kernels
#: were compiled around (`agents.roborally.fast`).
RANDOM_CODE = -1
LEARNER_CODE = -2
#: `Buffers.err[1]` status: an opponent's plan was not legal (`ERR_REDEALS`: ten thousand deals ended before the
#: learner decided).
ERR_OFF_PLAN = -2
#: What `advance_row` stopped at: the learner's decision or the game's end / a batch policy's choice / a failure.
ADV_DONE, ADV_PAUSE, ADV_FAIL = 0, 1, -1
#: `opponent_action`'s answer at a batch policy's seat with a choice to make (the kernels pause there).
WAIT = -2
#: Observation fields the kernels write (offsets in `Settings.off`, in this order); the rest is `Settings.static`.
OBS_FIELDS = ("own_robot", "other_robots", "facing", "own_next_flag", "own_archive", "hand", "registers", "locked",
              "robots", "round", "turn")


Tables = tables.tables_type(__name__, """Every table of a vector env as arrays, one row a table (N tables, n robots).

The position: robots `R` (N, n, NFIELDS) int32, `regs` (N, n, 5) int32, `deck` (N, 84) int32 and `meta` (N, 3)
int32 (a `FastState` per row), the hands as dealt `hands` (N, n, 9) int32 with `hand_len`, the placed slots `used`
(bit masks), each slot's card class `cls` (N, n, 9), the programming sub-step `step` (seat = step mod n, round =
step div n), `over` and `capped` (over by `max_turns`). The planning opponents' slots `plan` (N, n, 5) with the turn
they were planned `plan_turn` (-1: none) and their length `plan_len` (in program mode also the learner's and the
batch policies' programs, with their power choice `plan_power`); `mid` the learner's return where the opponents'
moves began (after its move, or at the deal) and `acc` the step's reward up to there; `scratch` (1, A) int8,
`cards` (5,) int64 and `trace` (0, n, NFIELDS) are scratch.""", (
    "R", "regs", "deck", "meta", "hands", "hand_len", "used", "cls", "step", "over", "capped", "plan", "plan_turn",
    "plan_len", "plan_power", "mid", "acc", "scratch", "cards", "trace"))


def new_tables(num_envs: int, num_robots: int, num_actions: int) -> Tables:
    """Zeroed `Tables` for `num_envs` tables of `num_robots` robots (no plan: `plan_turn` -1)."""
    N, n = num_envs, num_robots
    i64, i32 = np.int64, np.int32
    return tables.new_tables(
        Tables, N, n, R=np.zeros((N, n, NFIELDS), i32), regs=np.zeros((N, n, REGISTERS), i32),
        deck=np.zeros((N, NUM_CARDS), i32), meta=np.zeros((N, 3), i32), hands=np.zeros((N, n, HAND), i32),
        hand_len=np.zeros((N, n), i64), used=np.zeros((N, n), i64), cls=np.zeros((N, n, HAND), i64),
        step=np.zeros(N, i64), over=np.zeros(N, np.bool_), capped=np.zeros(N, np.bool_),
        plan=np.zeros((N, n, REGISTERS), i64), plan_turn=np.full((N, n), -1, i64), plan_len=np.zeros((N, n), i64),
        plan_power=np.zeros((N, n), np.bool_), mid=np.zeros(N), acc=np.zeros(N),
        scratch=np.zeros((1, min(num_actions, HAND + 2)), np.int8), cards=np.zeros(REGISTERS, i64),
        trace=np.zeros((0, n, NFIELDS), i32),
    )


Settings = tables.settings_type(__name__, """A vector env's fixed settings: `num_actions`, `rounds` (5, or 6 with the
power round), `progress` (the shaped reward), the start robots `R0` (n, NFIELDS) and their potentials `phi0`; for
observations `lives`, `static` (the board planes, D float32), `off` (offsets of `OBS_FIELDS`) and `flags` (K, 2);
`card_classes`, `program` (`action_mode="program"`), then the line-up fields but `line_params`
(`envs.core.tables.SETTINGS`; `max_turns` in game turns).""",
                                ("num_actions", "rounds", "progress", "R0", "phi0", "lives", "static", "off", "flags",
                                 "card_classes", "program"), line_params=False)


@numba.njit(inline=INLINE)
def potential_of(bd, R, i):
    """`rules.potential` of robot i of the robots `R` (the same float arithmetic)."""
    W, H, nflags, dist = bd[0], bd[1], bd[9], bd[15]
    nf = R[i, RNF]
    if R[i, RELIM] or nf >= nflags:
        return 0.0
    if R[i, RON]:
        x, y = R[i, RX], R[i, RY]
    else:
        x, y = R[i, RAX], R[i, RAY]
    big = W + H
    d = dist[nf, y, x]
    if d < 0:
        d = big
    return (nf + 1 - min(d, big) / big) / nflags


@numba.njit(inline=INLINE)
def learner_return(bd, T, r, S):
    """`RoboRallyGame.returns(state)[learner]` of table r."""
    return seat_return(bd, T, r, S, T.learner[r])


@numba.njit(inline=INLINE)
def seat_return(bd, T, r, S, L):
    """`RoboRallyGame.returns(state)[L]` of table r."""
    R = T.R[r]
    w = 1.0 if T.meta[r, M_WINNER] == L else 0.0
    if not S.progress:
        return w
    pot = 0.0 if race_over(R, T.meta[r]) else potential_of(bd, R, L)
    return w + pot - S.phi0[L]


@numba.njit(inline=INLINE)
def _may_power(R, i):
    if R[i, RON] == 0 or R[i, RELIM]:
        return False
    if R[i, RPD]:
        return True
    return R[i, RDMG] >= 1 and R[i, RANN] == 0


@numba.njit(inline=INLINE)
def mask_row(T, r, S, seat, out, o):
    """`RoboRallyGame.seat_mask` (register mode) of `seat` at table r into `out[o]` (int8); returns the count."""
    for a in range(HAND + 1 + S.rounds - REGISTERS):
        out[o, a] = 0
    n = T.R.shape[1]
    rnd = T.step[r] // n
    if rnd < REGISTERS:
        hl = T.hand_len[r, seat]
        free = REGISTERS - _locked(T.R[r, seat, RDMG])
        if hl == 0 or rnd >= min(free, hl):
            out[o, HAND] = 1
            return 1
        used = T.used[r, seat]
        seen = 0
        count = 0
        for i in range(hl):
            if not (used >> i) & 1:
                c = T.cls[r, seat, i] if S.card_classes else i
                if not (seen >> c) & 1:
                    seen |= 1 << c
                    out[o, i] = 1
                    count += 1
        return count
    out[o, HAND] = 1
    if _may_power(T.R[r], seat):
        out[o, HAND + 1] = 1
        return 2
    return 1


# Program mode (`action_mode="program"`, docs/roborally.md): one decision per robot per turn at its first sub-step,
# action a < NUM_PROGRAMS the reduced program of rank a (`unrank_k`), its registers then played as register mode's
# sub-steps (`planned_action`). The kernels run once a decision are called, not inlined: inlined at each site of the
# step kernels they would multiply the step kernels' compile time.
@numba.njit(cache=True, _nrt=True)
def seat_programs(T, r, S, seat):
    """(k, m, count, power, cls, mults) of `seat`'s program choice at table r: k registers to fill (0: no cards,
    NOOP only), m card classes (each card its own class without `card_classes`), the number of reduced programs,
    whether the seat may also power down (`RoboRallyGame._legal_program`), each slot's class and each class's
    size."""
    hl = T.hand_len[r, seat]
    k = min(REGISTERS - _locked(T.R[r, seat, RDMG]), hl)
    cls = np.empty(HAND, np.int64)
    mults = np.zeros(HAND, np.int64)
    m = 0
    for s in range(hl):
        c = T.cls[r, seat, s] if S.card_classes else s
        cls[s] = c
        mults[c] += 1
        m = max(m, c + 1)
    count = count_programs_k(mults, m, k) if k > 0 else 0
    power = S.rounds > REGISTERS and _may_power(T.R[r], seat)
    return k, m, count, power, cls, mults


@numba.njit(cache=True, _nrt=True)
def program_mask_row(T, r, S, seat, out, o):
    """`RoboRallyGame.seat_mask` in program mode of `seat` at table r into `out[o]` (int8), the programs numbered
    by rank; returns the count of legal actions."""
    for a in range(out.shape[1]):
        out[o, a] = 0
    k, m, count, power, cls, mults = seat_programs(T, r, S, seat)
    if k == 0:
        out[o, PROGRAM_NOOP] = 1
        if power:
            out[o, PROGRAM_POWER_DOWN] = 1
        return 2 if power else 1
    for p in range(count):
        out[o, p] = 1
        if power:
            out[o, NUM_PROGRAMS + p] = 1
    return 2 * count if power else count


@numba.njit(cache=True, _nrt=True)
def program_legal(T, r, S, seat, a):
    """Whether program-mode action `a` is legal for `seat` at table r (`program_mask_row` without the row)."""
    if not 0 <= a < S.num_actions:
        return False
    k, m, count, power, cls, mults = seat_programs(T, r, S, seat)
    if k == 0:
        return a == PROGRAM_NOOP or (power and a == PROGRAM_POWER_DOWN)
    if a >= NUM_PROGRAMS:
        if not power or a >= 2 * NUM_PROGRAMS:
            return False
        a -= NUM_PROGRAMS
    return a < count


@numba.njit(cache=True, _nrt=True)
def only_program(T, r, S, seat):
    """The one legal program-mode action of `seat` at table r, or -1 when it has a choice."""
    k, m, count, power, cls, mults = seat_programs(T, r, S, seat)
    if power:
        return -1
    if k == 0:
        return PROGRAM_NOOP
    return 0 if count == 1 else -1


@numba.njit(cache=True, _nrt=True)
def choose_program(T, r, S, seat, a):
    """`seat` at table r chooses the legal program-mode action `a`: its program's hand slots go to `T.plan` (its
    length to `plan_len`, the power choice to `plan_power`) for this turn. Returns its round-0 sub-step."""
    T.plan_turn[r, seat] = T.meta[r, M_TURN]
    T.plan_power[r, seat] = a == PROGRAM_POWER_DOWN or NUM_PROGRAMS <= a < PROGRAM_NOOP
    T.plan_len[r, seat] = 0
    if a >= PROGRAM_NOOP:
        return HAND
    k, m, count, power, cls, mults = seat_programs(T, r, S, seat)
    seq = np.zeros(REGISTERS, np.int64)
    unrank_k(mults, m, k, a % NUM_PROGRAMS, seq)
    hl = T.hand_len[r, seat]
    classes_to_cards(T.hands[r, seat], hl, cls, seq, k, T.cards)
    for j in range(k):
        for s in range(hl):
            if T.hands[r, seat, s] == T.cards[j]:
                T.plan[r, seat, j] = s
    T.plan_len[r, seat] = k
    return T.plan[r, seat, 0]


@numba.njit(inline=INLINE)
def planned_action(T, r, S, seat):
    """The register-mode sub-step of `seat`'s program (`choose_program`) at table r's sub-step now: the slot of
    this round's register, NOOP past the program, the power choice in the power round."""
    rnd = T.step[r] // T.R.shape[1]
    if rnd >= REGISTERS:
        return HAND + 1 if T.plan_power[r, seat] else HAND
    if rnd < T.plan_len[r, seat]:
        return T.plan[r, seat, rnd]
    return HAND


@numba.njit(inline=INLINE)
def decision_mask_row(T, r, S, seat, out, o):
    """The mask of `seat`'s decision at table r into `out[o]`: `program_mask_row` in program mode, else
    `mask_row`."""
    if S.program:
        return program_mask_row(T, r, S, seat, out, o)
    return mask_row(T, r, S, seat, out, o)


#: The per-program features `program_rows` writes (the last axis), each of the program run by the robot alone from
#: its square (`solo_phase`, the lone-robot register phase `solo_register` runs; its locked
#: registers after the free ones): `alive` (1: it survives), `flags` (flags it claims), `finished` (it claims the
#: last one), `fell` (destroyed in a pit or off the board), `walls` (card steps a wall stopped), `damage` (board
#: laser beams at its register ends, `solo_laser_map`), `distance` (BFS steps from the end to its next flag then,
#: over W + H; 0 finished, 1 dead or no path), `turns` (turns to go from the end: the env's turns table, the
#: largest value + 1 when dead), `died_at` (the register it was destroyed in over 5; 1 alive), `x`, `y` (the end
#: square over W - 1, H - 1), `facing_n` .. `facing_w` (its end facing, one-hot) and `repair` (it ends on a repair
#: site).
PROGRAM_FEATURES = ("alive", "flags", "finished", "fell", "walls", "damage", "distance", "turns", "died_at", "x", "y",
                    "facing_n", "facing_e", "facing_s", "facing_w", "repair")
_SX, _SY, _SF, _SN, _SALIVE, _SWALLS, _SDMG, _SDIED = range(8)


@numba.njit(inline=INLINE)
def _solo_program_step(bd, lmap, ri, card, st, i):
    """st[i + 1] = the lone robot of st[i] (x, y, facing, next flag, alive, walls, damage, died at) after register
    ri with `card`: `solo_phase` (`solo_register`'s), plus the beams taken; a dead robot or one past the
    last flag stays as it is (the program stops there, as `solo_kernel` stops)."""
    for q in range(st.shape[1]):
        st[i + 1, q] = st[i, q]
    if st[i, _SALIVE] == 0 or st[i, _SN] >= bd[9]:
        return
    x, y, f, nf, alive, walls = solo_phase(bd, st[i, _SX], st[i, _SY], st[i, _SF], st[i, _SN], card, ri, True)
    st[i + 1, _SWALLS] += walls
    st[i + 1, _SX], st[i + 1, _SY], st[i + 1, _SF], st[i + 1, _SN] = x, y, f, nf
    if not alive:
        st[i + 1, _SALIVE] = 0
        st[i + 1, _SDIED] = ri
        return
    st[i + 1, _SDMG] += lmap[y, x]  # the lasers fire where the board elements left it (touching moves nobody)


@numba.njit(inline=INLINE)
def _program_features(bd, st, nf0, turns, worst, out):
    """The `PROGRAM_FEATURES` of a program's end `st` (a row of `_solo_program_step`) into `out`."""
    W, H, floor, repair, nflags, dist = bd[0], bd[1], bd[2], bd[6], bd[9], bd[15]
    x, y, f, nf = st[_SX], st[_SY], st[_SF], st[_SN]
    alive = st[_SALIVE] == 1
    for q in range(out.shape[0]):
        out[q] = 0.0
    out[0] = 1.0 if alive else 0.0
    out[1] = nf - nf0
    out[2] = 1.0 if nf >= nflags else 0.0
    inside = 0 <= x < W and 0 <= y < H
    out[3] = 1.0 if not alive and (not inside or floor[y, x] == PIT) else 0.0
    out[4] = st[_SWALLS]
    out[5] = st[_SDMG]
    big = W + H
    if not alive:
        out[6], out[7] = 1.0, worst
    elif nf >= nflags:
        out[6], out[7] = 0.0, 0.0
    else:
        d = dist[nf, y, x]
        out[6] = 1.0 if d < 0 else min(d, big) / big
        out[7] = turns[nf, y, x, f]
    out[8] = st[_SDIED] / REGISTERS
    if inside:
        out[9] = x / max(W - 1, 1)
        out[10] = y / max(H - 1, 1)
        if alive:
            out[15] = 1.0 if repair[y, x] > 0 else 0.0
    out[11 + f] = 1.0


@numba.njit(cache=True)
def program_counts_rows(T, rows, seats, S, out):
    """`out[q]` = the number of reduced programs of seat `seats[q]` at table `rows[q]` (0: no cards)."""
    for q in range(rows.shape[0]):
        out[q] = seat_programs(T, rows[q], S, seats[q])[2]


@numba.njit(cache=True)
def program_rows(bd, T, rows, seats, S, lmap, turns, cards, feats):
    """Every reduced program of seat `seats[q]` at table `rows[q]`, in rank order (program-mode action p = rank p):
    its cards into `cards[q, p]` (int32 [5], free registers; 0 after) and its `PROGRAM_FEATURES` into `feats[q, p]`
    (float32), run alone (`_solo_program_step`) depth first over the class sequences as the flag seeker searches:
    each register simulated once per prefix. `lmap` is `solo_laser_map`, `turns` [flags + 1, H, W, 4] the turns to
    go (row `flags`: finished, zeros)."""
    worst = turns.max() + 1.0
    card = np.zeros(HAND, np.int64)  # a card of each class (they move a lone robot alike)
    seq = np.full(REGISTERS, -1, np.int64)
    st = np.zeros((REGISTERS + 1, 8), np.int64)
    for q in range(rows.shape[0]):
        r, seat = rows[q], seats[q]
        k, m, count, power, cls, mults = seat_programs(T, r, S, seat)
        if k == 0:
            continue
        hl = T.hand_len[r, seat]
        hand = T.hands[r, seat]
        for s in range(hl):
            card[cls[s]] = hand[s]
        R = T.R[r]
        st[0, _SX], st[0, _SY], st[0, _SF], st[0, _SN] = R[seat, RX], R[seat, RY], R[seat, RF], R[seat, RNF]
        st[0, _SALIVE], st[0, _SWALLS], st[0, _SDMG], st[0, _SDIED] = 1, 0, 0, REGISTERS
        for j in range(REGISTERS):
            seq[j] = -1
        p = 0
        depth = next_node(seq, mults, m, 0)
        while depth >= 0:
            _solo_program_step(bd, lmap, depth, card[seq[depth]], st, depth)
            if depth < k - 1:
                depth += 1
                seq[depth] = -1
            else:
                for j in range(k, REGISTERS):  # the locked registers (empty ones past a short hand)
                    _solo_program_step(bd, lmap, j, T.regs[r, seat, j], st, j)
                classes_to_cards(hand, hl, cls, seq, k, cards[q, p])
                _program_features(bd, st[REGISTERS], R[seat, RNF], turns, worst, feats[q, p])
                p += 1
            depth = next_node(seq, mults, m, depth)


@numba.njit(inline=INLINE)
def _card_code(out, o, at, card, kinds):
    out[o, at + kinds[card]] = 1.0
    out[o, at + 7] = card / NUM_CARDS


@numba.njit(inline=INLINE)
def observe_row(bd, T, r, seat, S, out, o):
    """`RoboRallyEncoder.encode(game.view(state, seat))` of table r into `out[o]` (float32, bit for bit)."""
    W, H, kinds = bd[0], bd[1], bd[14]
    nflags = bd[9]
    off = S.off
    hw = H * W
    for j in range(S.static.shape[0]):  # a loop: the slice assignment allocates, which the vector kernels may not
        out[o, j] = S.static[j]
    R = T.R[r]
    n = R.shape[0]
    for i in range(n):
        if R[i, RON] == 0:
            continue
        sq = R[i, RY] * W + R[i, RX]
        out[o, (off[0] if i == seat else off[1]) + sq] = 1.0
        out[o, off[2] + R[i, RF] * hw + sq] = 1.0
    nf = R[seat, RNF]
    if nf < nflags:
        out[o, off[3] + S.flags[nf, 1] * W + S.flags[nf, 0]] = 1.0
    if R[seat, RAX] >= 0:
        out[o, off[4] + R[seat, RAY] * W + R[seat, RAX]] = 1.0
    used = T.used[r, seat]
    for s in range(T.hand_len[r, seat]):
        _card_code(out, o, off[5] + s * 9, T.hands[r, seat, s], kinds)
        out[o, off[5] + s * 9 + 8] = float((used >> s) & 1)
    for j in range(REGISTERS):
        c = T.regs[r, seat, j]
        if c:
            _card_code(out, o, off[6] + j * 8, c, kinds)
    lives = max(S.lives, 1)
    for rel in range(n):
        i = (seat + rel) % n
        for j in range(free_regs(R, i), REGISTERS):
            c = T.regs[r, i, j]
            if c:
                _card_code(out, o, off[7] + (rel * REGISTERS + j) * 8, c, kinds)
        b = off[8] + rel * 14
        out[o, b] = min(R[i, RDMG], 10) / 10
        out[o, b + 1] = min(R[i, RLIVES], lives) / lives
        out[o, b + 2] = R[i, RNF] / nflags
        out[o, b + 3] = R[i, RON]
        out[o, b + 4] = R[i, RPD]
        out[o, b + 5] = R[i, RANN]
        out[o, b + 6] = R[i, RSTAY]
        out[o, b + 7] = R[i, RELIM]
        out[o, b + 8] = min(max(R[i, RX], 0), W - 1) / max(W - 1, 1)
        out[o, b + 9] = min(max(R[i, RY], 0), H - 1) / max(H - 1, 1)
        out[o, b + 10 + R[i, RF]] = 1.0
    out[o, off[9] + min(T.step[r] // n, REGISTERS)] = 1.0
    if S.max_turns > 0:
        out[o, off[10]] = min(T.meta[r, M_TURN] / S.max_turns, 1.0)


@numba.njit(cache=True)
def observe_rows(bd, T, rows, seats, S, out):
    """`out[k]` = the observation of table `rows[k]` from seat `seats[k]` (as `RoboRallyEncoder`)."""
    for k in range(rows.shape[0]):
        observe_row(bd, T, rows[k], seats[k], S, out, k)


@numba.njit(cache=True)
def mask_rows(T, rows, seats, S, out):
    """`out[k]` = the legal actions of seat `seats[k]` at table `rows[k]` (int8, as `RoboRallyGame.seat_mask`; its
    program mode's under `S.program`)."""
    for k in range(rows.shape[0]):
        decision_mask_row(T, rows[k], S, seats[k], out, k)


@numba.njit(inline=INLINE)
def _new_hands(bd, T, r):
    """Deal table r's turn (the plain engine's shuffle) and class every hand's slots."""
    deal_seeded(T.R[r], T.regs[r], T.deck[r], T.meta[r], T.hands[r], T.hand_len[r], T.seed[r])
    for i in range(T.R.shape[1]):
        hand_classes(T.hands[r, i], T.hand_len[r, i], bd[14], T.cls[r, i])


@numba.njit(inline=INLINE)
def _check_over(T, r, S):
    """`RoboRallyGame.over_reason`: a win, every robot eliminated, or `max_turns` (capped)."""
    if race_over(T.R[r], T.meta[r]):
        T.over[r] = True
    elif S.max_turns > 0 and T.meta[r, M_TURN] >= S.max_turns:
        T.over[r] = True
        T.capped[r] = True


@numba.njit(inline=INLINE)
def apply_row(bd, T, r, S, seat, a):
    """`RoboRallyGame.apply` (register mode) of `seat`'s legal action `a` at table r: place the card or the power
    choice; after the turn's last sub-step the turn runs (`turn_kernel`) and the next one is dealt."""
    n = T.R.shape[1]
    rnd = T.step[r] // n
    if rnd < REGISTERS:
        if a != HAND:
            T.regs[r, seat, rnd] = T.hands[r, seat, a]
            T.used[r, seat] |= 1 << a
    elif a == HAND + 1:
        if T.R[r, seat, RPD]:
            T.R[r, seat, RSTAY] = 1
        else:
            T.R[r, seat, RANN] = 1
    T.step[r] += 1
    if T.step[r] < S.rounds * n:
        return
    run_turn(bd, T.R[r], T.regs[r], T.deck[r], T.meta[r], T.trace)
    T.step[r] = 0
    for i in range(n):
        T.used[r, i] = 0
    if T.meta[r, M_WINNER] >= 0:
        for i in range(n):
            T.hand_len[r, i] = 0  # a won game deals no more
    else:
        _new_hands(bd, T, r)
    _check_over(T, r, S)


@numba.njit(inline=INLINE)
def _nth_legal(row, k):
    for a in range(row.shape[0]):
        if row[a]:
            if k == 0:
                return a
            k -= 1
    return -1


@numba.njit(inline="always")
def opponent_action(decide, bd, T, r, S, seat):
    """The action of the opponent at `seat` of table r: uniformly random legal (`RANDOM_CODE`, the table's
    stream), or as `agents.roborally.solo.ProgramPlanner.act` plays `decide`'s program (planned at its first
    decision of a turn that offers a choice; the only legal action where there is one; NOOP in the power
    round). `decide` draws from the table's stream (`T.rng[r:r + 1]`, the same SplitMix64 state as `nb_next`'s)
    where it is random. -1: the plan is not legal; `WAIT`: a batch policy's seat with a choice to make (in program
    mode at its first sub-step of the turn, a forced choice played without asking; its program after)."""
    n = T.R.shape[1]
    code = T.codes[r, seat]
    if S.program and code <= BATCH_CODE:
        if T.step[r] >= n:
            return planned_action(T, r, S, seat)
        a = only_program(T, r, S, seat)
        return WAIT if a < 0 else choose_program(T, r, S, seat, a)
    count = mask_row(T, r, S, seat, T.scratch, 0)
    row = T.scratch[0]
    if count == 1:
        return _nth_legal(row, 0)
    if code <= BATCH_CODE:
        return WAIT  # a batch policy's choice: the env asks it (a forced sub-step was played above)
    if code == RANDOM_CODE:
        return _nth_legal(row, np.int64(nb_next(T.rng, r) % np.uint64(count)))
    rnd = T.step[r] // n
    if rnd >= REGISTERS:
        return HAND
    turn = T.meta[r, M_TURN]
    if T.plan_turn[r, seat] != turn or T.plan_len[r, seat] <= rnd:
        hl = T.hand_len[r, seat]
        decide(code, bd, T.R[r], T.regs[r], seat, T.hands[r, seat], hl, bd[14], T.rng[r:r + 1], T.cards)
        k = min(REGISTERS - _locked(T.R[r, seat, RDMG]), hl)
        for j in range(k):
            T.plan[r, seat, j] = -1
            for s in range(hl):
                if T.hands[r, seat, s] == T.cards[j]:
                    T.plan[r, seat, j] = s
        T.plan_turn[r, seat] = turn
        T.plan_len[r, seat] = k
    if rnd >= T.plan_len[r, seat]:
        return -1
    s = T.plan[r, seat, rnd]
    if s < 0 or not row[s]:
        return -1
    return s


@numba.njit(inline="always")
def advance_row(decide, bd, T, B, r, S, first):
    """Play table r's opponents until the learner is to act, the game ends or a batch policy has a choice to make
    (`ADV_DONE`, `ADV_PAUSE`; `ADV_FAIL`: an opponent's plan was not legal). `first` >= 0 is the move of the seat to
    move now (a batch policy's, the env checked it; in program mode its program), played before the kernels go on.
    In program mode the learner decides at its first sub-step of a turn and its later ones are its program's."""
    n = T.R.shape[1]
    L = T.learner[r]
    while not T.over[r]:
        seat = T.step[r] % n
        if first >= 0:
            a = choose_program(T, r, S, seat, first) if S.program else first
            first = -1
        elif seat == L:
            if not S.program or T.step[r] < n:
                return ADV_DONE
            a = planned_action(T, r, S, seat)
        else:
            a = opponent_action(decide, bd, T, r, S, seat)
            if a == WAIT:
                return ADV_PAUSE
            if a < 0:
                kernels.fail(B.err, r, ERR_OFF_PLAN, seat, a)
                return ADV_FAIL
        apply_row(bd, T, r, S, seat, a)
    return ADV_DONE


# Not inlined: a call per episode costs nothing, and its four call sites would each compile a copy of the deal.
@numba.njit(cache=True, _nrt=True)
def deal_row(bd, T, S, r, keep_seat):
    """Deal table r's next episode: deal seed, learner's seat, line-up and random stream from its key and
    episode counter, the line-up seated; the table enters its opening (phase 2, `open_row`). `keep_seat` (a deal dealt
    again) keeps the seat and line-up; RoboRally never needs it (the learner programs in the first turn)."""
    n = T.R.shape[1]
    deal_seed, _ = kernels.next_episode(T, S, r, keep_seat, LEARNER_CODE)  # all_seats: every robot, robot 0 to move
    for i in range(n):
        for f in range(NFIELDS):
            T.R[r, i, f] = S.R0[i, f]
        for j in range(REGISTERS):
            T.regs[r, i, j] = 0
        T.used[r, i] = 0
        T.plan_turn[r, i] = -1
        T.plan_len[r, i] = 0
        T.plan_power[r, i] = False
    T.meta[r, M_WINNER] = -1
    T.meta[r, M_TURN] = 0
    T.meta[r, M_DECK] = 0
    T.step[r] = 0
    T.over[r] = False
    T.capped[r] = False
    _new_hands(bd, T, r)
    T.mid[r] = learner_return(bd, T, r, S)
    T.phase[r] = 0 if S.all_seats else 2  # all_seats: nobody moves before the seat to move (no opening)


@numba.njit(inline="always")
def open_row(decide, bd, T, B, S, r, first):
    """Play table r's opening (from its deal, or on from a batch policy's move `first` >= 0) up to the learner's
    first decision (phase 0; the caller observes the table): the opponents' return goes to `carry`. Pauses (phase
    stays 2) where a batch policy has a choice to make. A deal that ends before the learner decides is dealt again
    from the next episode index (up to 10,000 times)."""
    for _attempt in range(10_000):
        status = advance_row(decide, bd, T, B, r, S, first)
        first = -1
        if status == ADV_PAUSE:
            return
        if status == ADV_FAIL:
            T.phase[r] = 0
            return
        if not T.over[r]:
            T.phase[r] = 0
            T.carry[r] = learner_return(bd, T, r, S) - T.mid[r]
            return
        deal_row(bd, T, S, r, True)
    T.phase[r] = 0
    kernels.fail(B.err, r, ERR_REDEALS, -1, -1)


# Two kernels (reset and step) with `advance_row` (the opponents' loop, the decide kernel inlined in it) at three
# sites: one in reset (the opening), two in step (the learner's step, then an ended episode's next opening).
@numba.njit(inline="always")
def vec_reset(decide, bd, T, B, S, fresh):
    """Start every table's next episode (`fresh`: from episode 0 of its key) and observe it (a table paused at a
    batch policy's choice is observed when the step kernel goes on there)."""
    B.err[0] = -1
    for r in range(T.seed.shape[0]):
        if fresh:
            T.episode[r] = 0
        deal_row(bd, T, S, r, False)
        open_row(decide, bd, T, B, S, r, -1)
        if T.phase[r] == 0:
            _observe_learner(bd, T, B, S, r)


@numba.njit(inline=INLINE)
def finish_step(bd, T, B, S, r, refused, a):
    """Table r's learner step has ended (the learner's next decision, the game's end, or its action `a` refused):
    write its reward and flags; an ended episode is observed into `final_obs` and the table dealt anew (returns
    True: the caller plays its opening, same-step autoreset)."""
    L = T.learner[r]
    if refused:
        rew, term, trunc = kernels.refuse(B, r, a, S.illegal_reward)
    else:
        rew = T.acc[r] + (learner_return(bd, T, r, S) - T.mid[r])
        trunc = T.capped[r]
        term = T.over[r] and not trunc
    done = kernels.end_step(T, B, r, rew, term, trunc)
    if done:
        observe_row(bd, T, r, L, S, B.final_obs, r)
        kernels.record_final(T, B, r, L)
        deal_row(bd, T, S, r, False)
    return done


@numba.njit(inline="always")
def vec_step(decide, bd, T, B, S, actions):
    """One learner decision per table (`actions[r]`), the opponents up to its next one; an ended episode is observed
    into `final_obs` and the table dealt anew in the same call (same-step autoreset).

    A refused action changes nothing at the table and ends its episode with `illegal_reward`. Rewards as `OpponentEnv`
    adds them, the `carry` of the opponents' opening included; a game stopped by `max_turns` is a truncation. A table
    where a batch policy has a choice to make pauses (`phase` 1, or 2 in an episode's opening); the env calls this
    kernel again with that policy's move at the paused tables and `SKIP` at the others. `control="all_seats"` is
    `_step_all_seats`, which only the env's own kernels call (it would double the opponents' kernels' compile time).
    """
    B.err[0] = -1
    for r in range(T.seed.shape[0]):
        a = actions[r]
        if a == SKIP:
            continue
        opening = T.phase[r] == 2
        if not opening:
            refused = False
            first = -1
            if T.phase[r] == 0:
                L = T.learner[r]
                kernels.unrefused(B, r)
                if _legal(T, r, S, L, a):
                    before = learner_return(bd, T, r, S)
                    apply_row(bd, T, r, S, L, choose_program(T, r, S, L, a) if S.program else a)
                    mid = learner_return(bd, T, r, S)
                    T.acc[r] = (mid - before) + T.carry[r]
                    T.mid[r] = mid
                    T.phase[r] = 1
                else:
                    refused = True
            else:
                first = a  # the batch policy's move, checked by the env
            if not refused:
                status = advance_row(decide, bd, T, B, r, S, first)
                if status == ADV_PAUSE:
                    continue
            opening = finish_step(bd, T, B, S, r, refused, a)
            a = -1  # an ended episode: the next one's opening from the deal
        if opening:
            open_row(decide, bd, T, B, S, r, a)
        if T.phase[r] == 0:  # at the learner's decision (one observation site for every path)
            _observe_learner(bd, T, B, S, r)


@numba.njit(inline=INLINE)
def _legal(T, r, S, seat, a):
    """Whether `a` is one of `seat`'s legal decisions at table r (`program_legal` in program mode; else its mask
    written to `T.scratch[0]`)."""
    if S.program:
        return program_legal(T, r, S, seat, a)
    if not 0 <= a < S.num_actions:
        return False
    mask_row(T, r, S, seat, T.scratch, 0)
    return T.scratch[0, a] != 0


@numba.njit(inline=INLINE)
def _observe_learner(bd, T, B, S, r):
    """Write table r's observation and mask from its learner's seat (the robot to move) to `B.obs`, `B.mask`."""
    observe_row(bd, T, r, T.learner[r], S, B.obs, r)
    decision_mask_row(T, r, S, T.learner[r], B.mask, r)


@numba.njit(cache=True, _nrt=True)
def _step_all_seats(bd, T, B, S, actions):
    """`vec_step` under `control="all_seats"`: `actions[r]` is the sub-step of table r's robot to move (its
    `learner`); `B.rewards[r, s]` is the change of robot s's return in the step, the reward the mover's, `ep_ret`
    robot 0's return; an ended episode's final observation is the mover's (`B.final_player`). A refused action
    changes nothing and ends the episode with `illegal_reward` to the mover. In program mode each robot decides at
    its first sub-step of a turn; the sub-steps after the last robot's decision are the programs'."""
    B.err[0] = -1
    n = T.R.shape[1]
    before = np.zeros(n)
    for r in range(T.seed.shape[0]):
        a = actions[r]
        L = T.learner[r]
        kernels.unrefused(B, r)
        if _legal(T, r, S, L, a):
            for s in range(n):
                before[s] = seat_return(bd, T, r, S, s)
            apply_row(bd, T, r, S, L, choose_program(T, r, S, L, a) if S.program else a)
            while S.program and T.step[r] >= n and not T.over[r]:
                seat = T.step[r] % n
                apply_row(bd, T, r, S, seat, planned_action(T, r, S, seat))
            for s in range(n):
                B.rewards[r, s] = seat_return(bd, T, r, S, s) - before[s]
            rew = B.rewards[r, L]
            trunc = T.capped[r]
            term = T.over[r] and not trunc
        else:
            rew, term, trunc = kernels.refuse(B, r, a, S.illegal_reward)
            for s in range(n):
                B.rewards[r, s] = rew if s == L else 0.0
        T.phase[r] = 0
        T.ep_ret[r] += B.rewards[r, 0]
        T.ep_len[r] += 1
        if kernels.step_outputs(B, r, rew, term, trunc):
            observe_row(bd, T, r, L, S, B.final_obs, r)
            kernels.record_final(T, B, r, 0)
            B.final_player[r] = L
            deal_row(bd, T, S, r, False)
        T.learner[r] = T.step[r] % n  # the robot to move
        _observe_learner(bd, T, B, S, r)


@numba.njit(inline=INLINE)
def _no_decide(code, bd, R, regs, seat, hand, n, kinds, rng, out):
    for j in range(out.shape[0]):
        out[j] = 0  # only random seats (`RANDOM_CODE`) are played by the env's own kernels


@numba.njit(cache=True, _nrt=False)
def _random_reset(bd, T, B, S, fresh):
    vec_reset(_no_decide, bd, T, B, S, fresh)


@numba.njit(cache=True, _nrt=False)
def _random_step(bd, T, B, S, actions):
    if S.all_seats:  # only the env's own kernels play every robot (an env under all_seats takes no opponents)
        _step_all_seats(bd, T, B, S, actions)
    else:
        vec_step(_no_decide, bd, T, B, S, actions)


#: The env's own kernels: every opponent plays random legal actions (`RANDOM_CODE`).
RANDOM_KERNELS = VectorKernels(_random_reset, _random_step)
