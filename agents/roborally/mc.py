"""`roborally/mc`: the Monte-Carlo robot of the seed report on a Monte-Carlo strategy for RoboRally (Algorithm 1).

For each reduced program of its hand the robot plays out `depth` turns from states sampled from its view, the other
robots and later turns programmed by the playout policy π, scores the end by v̂ and plays the program of highest
mean. Its options (`OPTIONS`), the screening, successive halving and the two v̂ are described in docs/roborally.md
("Agents").
"""
from __future__ import annotations

import math
from typing import Any

import numba
import numpy as np

from agents.roborally.fast import SEEN_SIZE, seen_before
from agents.roborally.solo import ProgramPlanner, Solo, SoloSimulator, greedy_program, program_tail, solo_of
from envs.roborally.fast import hand_multiplicities, next_class, solo_kernel, solo_register
from envs.roborally.programs import count_programs, equivalence_classes, program_cards, reduced_programs, unrank
from envs.roborally.rules import HAND, REGISTERS, RoboRallyGame, State, View, free_registers, public_state

#: Option name -> (allowed values or type, default); the agent registry parses an id's query (`MC_PARAMS`).
OPTIONS = {
    "budget": (int, 2000),
    "depth": ((1, 2, 3), 1),
    "policy": (("random", "greedy"), "random"),
    "eval": (("default", "turns"), "default"),
    "top": (int, 32),
    "engine": (("fast", "plain"), "fast"),
}
DEFAULTS = {k: v for k, (_, v) in OPTIONS.items()}
#: At most this many screened programs per distinct solo end state.
PER_END = 4
WIN, LOSS = 10_000.0, -10_000.0


class _Value:
    """What both evaluations share: the race's outcome."""

    def solo(self, s: Solo) -> float:
        """v̂ of a robot alone at the solo end state `s`."""
        raise NotImplementedError

    @staticmethod
    def outcome(state: State, seat: int) -> float | None:
        """WIN or LOSS once the race is decided for `seat` (a winner, or `seat` eliminated), else None."""
        if state.winner >= 0:
            return WIN if state.winner == seat else LOSS
        return LOSS if state.robots[seat].eliminated else None


class DefaultValue(_Value):
    """The spec's heuristic v̂ (see the module docstring)."""

    def __init__(self, sim: SoloSimulator):
        self.sim = sim

    def solo(self, s: Solo) -> float:
        """v̂ of a robot alone at `s` (screening: damage and lives as they were)."""
        x, y, _, nf, alive = s
        if not alive:
            return -50.0 - 100.0 * len(self.sim.flags)
        if nf >= len(self.sim.flags):
            return WIN
        return 100.0 * nf - self.sim.dist[nf][y][x]

    def state(self, state: State, seat: int, lives0: int) -> float:
        """v̂ of `seat` in `state`; `lives0`: its lives when it decided."""
        done = self.outcome(state, seat)
        if done is not None:
            return done
        r = state.robots[seat]
        x, y = (r.x, r.y) if r.on_board else (r.archive_x, r.archive_y)
        return 100.0 * r.next_flag - self.sim.dist[r.next_flag][y][x] - 2.0 * r.damage - 50.0 * (lives0 - r.lives)


class EngineSimulator:
    """Playouts on the plain rules engine (`RoboRallyGame.execute_turn`)."""

    def __init__(self, game: RoboRallyGame, sim: SoloSimulator, policy: str, value):
        self.game = game
        self.sim = sim
        self.policy = policy
        self.value = value

    def pi(self, state: State, i: int, rng: np.random.Generator) -> tuple[int, ...]:
        """Robot i's program under π (cards for its free registers)."""
        hand = state.hands[i]
        if not hand:
            return ()
        robot = state.robots[i]
        if self.policy == "greedy":
            return greedy_program(self.sim, hand, robot, state.registers[i], self.game.numbering)
        k = min(free_registers(robot.damage), len(hand))
        classes = equivalence_classes(hand, self.game.numbering)
        mults = [len(c) for c in classes]
        return program_cards(classes, unrank(mults, k, int(rng.integers(count_programs(mults, k)))))

    def playout(self, state: State, seat: int, cards: tuple[int, ...], depth: int, seed: int) -> State:
        """The state after `depth` turns from `state` (a turn start), `seat` playing `cards` first."""
        g = self.game
        rng = np.random.default_rng(seed)
        n = g.num_players
        state = g.execute_turn(state, [cards if i == seat else self.pi(state, i, rng) for i in range(n)])
        for _ in range(depth - 1):
            if g.is_terminal(state):
                break
            state = g.execute_turn(state, [self.pi(state, i, rng) for i in range(n)])
        return state

    def means(self, view: View, cands: list[tuple[int, ...]], worlds: int, depth: int,
              rng: np.random.Generator) -> np.ndarray:
        """Mean v̂ of each candidate over `worlds` sampled worlds shared by all candidates."""
        total = np.zeros(len(cands))
        lives0 = view.robots[view.seat].lives
        for _ in range(worlds):
            world = self.game.sample_state(view, rng)
            seed = int(rng.integers(2**63 - 1))
            for c, cards in enumerate(cands):
                total[c] += self.value.state(self.playout(world, view.seat, cards, depth, seed), view.seat, lives0)
        return total / worlds


class FastSimulator:
    """Playouts with the compiled kernel (`agents.roborally.fast.FastPlayouts`)."""

    def __init__(self, game: RoboRallyGame, policy: str, eval_name: str, table: np.ndarray | None):
        from agents.roborally.fast import FastPlayouts
        from envs.roborally.fast import FastEngine

        self.game = game
        self.engine = FastEngine(game)
        self.kernel = FastPlayouts(self.engine, table[:-1] if table is not None else None)
        self.policy = policy
        self.eval = eval_name

    def means(self, view: View, cands: list[tuple[int, ...]], worlds: int, depth: int,
              rng: np.random.Generator) -> np.ndarray:
        """Mean v̂ of each candidate over `worlds` worlds shared by all candidates (one kernel call)."""
        n = self.game.num_players
        seen = set(view.hand) | set(view.registers) | {c for lk in view.locked for c in lk}  # and 0, no card
        unseen = [c for c in range(1, 85) if c not in seen]
        fs = self.engine.pack(public_state(view))
        progs = np.zeros((len(cands), REGISTERS), np.int64)
        for c, cards in enumerate(cands):
            progs[c, : len(cards)] = cards
        sizes = [view.hand_sizes[i] if i != view.seat else 0 for i in range(n)]
        mean, _ = self.kernel.playouts(fs, view.seat, progs, unseen, sizes, depth, worlds, self.policy,
                                       int(rng.integers(2**62)), self.eval)
        return mean


class MonteCarloProgram(ProgramPlanner):
    """The seed's Monte-Carlo robot (see the module docstring)."""

    name = "roborally/mc"

    def __init__(self, game: RoboRallyGame, rng: np.random.Generator | None = None, **options):
        super().__init__(game, rng)
        self.options = dict(options) if options else dict(DEFAULTS)
        self.sim = SoloSimulator(game)
        turns = self.options["eval"] == "turns"
        self.value = TurnsValue(self.sim) if turns else DefaultValue(self.sim)
        if self.options["engine"] == "fast":
            self.backend = FastSimulator(game, self.options["policy"], self.options["eval"],
                                         self.value.table if turns else None)
        else:
            self.backend = EngineSimulator(game, self.sim, self.options["policy"], self.value)
        self.last_stats: dict = {}
        self._candidates: Any = None  # a program scorer's features, bound to the game (`scorer_candidates`)

    def screen(self, view: View) -> list[tuple[int, ...]]:
        """The candidate programs (cards in register order), best screen score first."""
        hand = view.hand
        robot = view.robots[view.seat]
        k = min(free_registers(robot.damage), len(hand))
        tail = program_tail(robot, k, view.registers)
        ends, progs = self._solo_ends(solo_of(robot), hand, k, tail)
        score = np.array([self.value.solo(tuple(e)) for e in ends.tolist()]) if len(ends) else np.zeros(0)
        finish = np.flatnonzero(ends[:, 3] >= len(self.sim.flags))
        if len(finish):
            # Programs that finish the race: the earlier the register, the likelier the win against a robot that
            # finishes in the same turn; each finishing register counts as its own end.
            start = solo_of(robot)
            for r in finish.tolist():
                s, reg = start, 0
                while s[3] < len(self.sim.flags):
                    s = self.sim.register(s, int(progs[r, reg]), reg)
                    reg += 1
                score[r] += 10.0 * (REGISTERS - reg)
                ends[r, 2] = reg  # the facing does not matter once finished: the end is the register
        order = np.lexsort((np.arange(len(score)), -score))  # best score, then lowest rank
        out, per_end = [], {}
        for r in order.tolist():
            e = tuple(ends[r].tolist())
            end = e if e[4] else None
            if per_end.get(end, 0) < PER_END:
                per_end[end] = per_end.get(end, 0) + 1
                out.append(tuple(int(c) for c in progs[r, :k]))
                if len(out) == self.options["top"]:
                    break
        return out

    def scorer_candidates(self, view: View) -> tuple[list[int], list[tuple[int, ...]]]:
        """(rules-engine actions, programs as cards for the free registers) of the candidates a program scorer
        offers at `view` (`envs.roborally.choice.ProgramChoiceEnv`'s K, as `agents.roborally.program` maps them to
        the rules engine's program-mode actions). Needs `action_mode="program"`."""
        from agents.roborally.program import ProgramViewFeatures, rules_action

        if self._candidates is None:
            self._candidates = ProgramViewFeatures(self.game)
        _, offered, cards = self._candidates.env().observe_view(view)
        picked = np.flatnonzero(offered)
        return ([rules_action(view.hand, cards[j]) for j in picked],
                [tuple(int(c) for c in cards[j] if c) for j in picked])

    def action_values(self, view: View, action_mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """The `agents.search.teacher.Teacher` values of a program decision (`action_mode="program"`): at each
        candidate a program scorer offers (`scorer_candidates`), its mean v̂ over `budget // candidates` sampled
        worlds shared by all candidates (`means` of the backend, common random numbers); every other legal action
        1 below the least of them; NaN where the mask is 0. A lone candidate (NOOP, or one program) is worth 0,
        with no playouts."""
        legal = np.asarray(action_mask) > 0
        actions, cands = self.scorer_candidates(view)
        means = np.zeros(len(cands))
        if len(cands) > 1:
            worlds = max(1, self.options["budget"] // len(cands))
            means = self.backend.means(view, cands, worlds, self.options["depth"], rng)
        values = np.where(legal, means.min() - 1.0 if len(means) else 0.0, np.nan)
        values[actions] = means
        return values

    def _solo_ends(self, start: Solo, hand: tuple[int, ...], k: int, tail: tuple[int, ...]):
        """(ends [P, 5] as `Solo` rows, programs [P, 5] cards) of every reduced program, in rank order."""
        if isinstance(self.backend, FastSimulator):
            eng = self.backend.engine
            progs = eng.reduced_programs(hand, k).astype(np.int64)
            progs[:, k:] = np.asarray(tail, np.int64)
            return _solo_many_ends(eng.board, *start[:4], progs, self.game.config.crushers), progs
        classes = equivalence_classes(hand, self.game.numbering)
        mults = [len(c) for c in classes]
        progs = [program_cards(classes, prog) + tail for prog in reduced_programs(mults, k)]
        ends = [self.sim.run(start, cards) for cards in progs]  # the register phases are cached (`SoloSimulator`)
        return np.array(ends, np.int64).reshape(-1, 5), np.array(progs, np.int64).reshape(-1, REGISTERS)

    def program(self, view: View) -> tuple[int, ...]:
        """The chosen program as hand slots (screen, then successive halving with common random numbers)."""
        hand = view.hand
        cands = self.screen(view)
        if not cands:
            return ()
        budget, depth = self.options["budget"], self.options["depth"]
        alive = list(range(len(cands)))
        total = np.zeros(len(cands))
        count = np.zeros(len(cands))
        rounds = max(1, math.ceil(math.log2(len(cands))))
        used = 0
        while len(alive) > 1:
            per = max(1, budget // (rounds * len(alive)))
            means = self.backend.means(view, [cands[c] for c in alive], per, depth, self.rng)
            total[alive] += means * per
            count[alive] += per
            used += per * len(alive)
            means = total[alive] / count[alive]
            order = sorted(range(len(alive)), key=lambda i: (-means[i], alive[i]))
            alive = [alive[i] for i in order[: max(1, len(alive) // 2)]]
        self.last_stats = {"candidates": len(cands), "playouts": used}
        return tuple(hand.index(c) for c in cands[alive[0]])


class TurnsValue(_Value):
    """v̂ = −(expected turns to finish the race), from the board's `TurnsTable` (cached per board)."""

    def __init__(self, sim: SoloSimulator):
        self.sim = sim
        self.table = turns_table(sim)

    def _turns(self, x: int, y: int, f: int, nf: int) -> float:
        return float(self.table[nf, y, x, f])

    def solo(self, s: Solo) -> float:
        """Minus the expected turns from the solo end state."""
        x, y, f, nf, alive = s
        if not alive:
            return -float(self.table.max()) - 1.0
        if nf >= len(self.sim.flags):
            return WIN
        return -self._turns(x, y, f, nf)

    def state(self, state: State, seat: int, lives0: int) -> float:
        """Minus the expected turns to finish, minus a turn per 3 damage and 3 turns per life lost."""
        done = self.outcome(state, seat)
        if done is not None:
            return done
        r = state.robots[seat]
        if r.on_board:
            t = self._turns(r.x, r.y, r.facing, r.next_flag)
        else:
            t = self._turns(r.archive_x, r.archive_y, r.archive_facing, r.next_flag) + 1.0
        return -t - r.damage / 3.0 - 3.0 * (lives0 - r.lives)


_TABLES: dict[tuple[str, str, bool], np.ndarray] = {}


def turns_table(sim: SoloSimulator, sweeps: int = 6, seed: int = 0, engine: str = "fast") -> np.ndarray:
    """Expected turns to finish the race from each (next flag, y, x, facing), one robot alone, 9-card hands.

    The freiesMagazin RoboRally contest winner's idea: value iteration over board states with sampled hands,
    E(s) <- (1 − α)·E(s) + α·(1 + min over the sampled hand's reduced programs of E(end)); finishing is 0 and a
    death costs the largest table value + 1 (a stand-in for the restart on the archive). It starts from
    `default_turns` (BFS steps / 3, a robot covering about 3 squares a turn, plus 3 turns per later flag), draws one
    hand per state and sweep (all hands drawn first from `seed`), and uses α = 1 in the first sweep and 1/2 after.
    `engine="fast"` runs the sweeps compiled (1-3 s a board on one core: `_turns_min` searches each hand depth
    first), `"plain"` in Python (the reference: the same hands give the same table).
    Cached per (board, numbering, crushers, sweeps, seed) in memory.
    """
    game = sim.game
    key = (game.config.board, game.numbering, game.config.crushers, sweeps, seed)
    cached = _TABLES.get(key)
    if cached is not None:
        return cached
    from envs.roborally.vector import default_turns

    k_flags = len(sim.flags)
    w, h = sim.w, sim.h
    table = default_turns(game.board)
    rng = np.random.default_rng(seed)
    squares = np.array([(x, y) for y in range(h) for x in range(w) if not sim._off(x, y)], np.int64).reshape(-1, 2)
    # One sorted 9-card hand per (sweep, flag, square, facing).
    keys = rng.random((sweeps, k_flags, len(squares), 4, 84))
    hands = np.sort(np.argsort(keys, axis=-1)[..., :9] + 1, axis=-1).astype(np.int64)
    if engine == "fast":
        from envs.roborally.fast import FastEngine

        _turns_sweeps(FastEngine(game).board, squares, hands, table, game.config.crushers)
    else:
        def end_value(s: Solo) -> float:  # the table's value at the end of a program (`worst` for death)
            return float(table[s[3], s[1], s[0], s[2]]) if s[4] else worst

        for sweep in range(sweeps):
            alpha = 1.0 if sweep == 0 else 0.5
            worst = float(table.max()) + 1.0
            for f in reversed(range(k_flags)):
                for q, (x, y) in enumerate(squares.tolist()):
                    for face in range(4):
                        classes = equivalence_classes(tuple(hands[sweep, f, q, face].tolist()), game.numbering)
                        least, _ = sim.best_program((x, y, face, f, True), [len(c) for c in classes], REGISTERS, (),
                                                    lambda j, u, cl=classes: cl[j][u], value=end_value)
                        target = 1.0 + least
                        table[f, y, x, face] += alpha * (target - table[f, y, x, face])
    _TABLES[key] = table
    return table


@numba.njit(cache=True)
def _turns_sweeps(bd, squares, hands, table, crushers_on):
    """`turns_table`'s sweeps, compiled: the least table value over the reduced programs of each hand
    (`_turns_min`)."""
    sweeps, k_flags = hands.shape[0], hands.shape[1]
    seen = np.zeros(SEEN_SIZE, np.int64)
    for sweep in range(sweeps):
        alpha = 1.0 if sweep == 0 else 0.5
        worst = table.max() + 1.0
        for f in range(k_flags - 1, -1, -1):
            for q in range(squares.shape[0]):
                x, y = squares[q, 0], squares[q, 1]
                for face in range(4):
                    best = _turns_min(bd, x, y, face, f, hands[sweep, f, q, face], table, worst, crushers_on, seen)
                    table[f, y, x, face] += alpha * (1.0 + best - table[f, y, x, face])


@numba.njit(cache=True)
def _turns_min(bd, x0, y0, f0, nf0, hand, table, worst, crushers_on, seen):
    """The least `table` value (`worst` for death) at the end of a reduced 5-register program of the sorted 9-card
    `hand`, the robot alone from (x0, y0, f0) with next flag nf0: the minimum over every program that
    `enumerate_programs` lists, each run as `solo_kernel` runs it, found depth first as the flag seeker searches
    (`agents.roborally.fast.greedy_program`): each register simulated once per prefix, a prefix stopped at death
    or at the last flag (all its completions end there), and a node met before skipped (the same registers done,
    lone-robot state and classes left have the same completions, so the same least value)."""
    nflags = bd[9]
    kinds = bd[14]
    n = hand.shape[0]
    m, cls, mults = hand_multiplicities(hand, n, kinds)
    k = min(REGISTERS, n)
    card = np.zeros(HAND, np.int64)  # a card of each class (they move a lone robot alike)
    for s in range(n):
        card[cls[s]] = hand[s]
    sx = np.empty(REGISTERS + 1, np.int64)
    sy = np.empty(REGISTERS + 1, np.int64)
    sf = np.empty(REGISTERS + 1, np.int64)
    sn = np.empty(REGISTERS + 1, np.int64)
    sx[0], sy[0], sf[0], sn[0] = x0, y0, f0, nf0
    seq = np.full(REGISTERS, -1, np.int64)
    seen[:] = 0
    best = worst
    depth = 0
    while depth >= 0:
        if not next_class(seq, mults, m, depth):
            depth -= 1
            continue
        x, y, f, nf, alive = solo_register(bd, sx[depth], sy[depth], sf[depth], sn[depth], card[seq[depth]], depth,
                                           crushers_on)
        if alive and nf < nflags and depth < k - 1:
            if depth > 0 and nflags < 16 and seen_before(seen, depth, x, y, f, nf, mults, m):
                continue
            sx[depth + 1], sy[depth + 1], sf[depth + 1], sn[depth + 1] = x, y, f, nf
            depth += 1
            continue
        v = table[nf, y, x, f] if alive else worst
        if v < best:
            best = v
    return best


@numba.njit(cache=True)
def _solo_many_ends(bd, x, y, f, nf, programs, crushers_on):
    """`solo_kernel`'s end (x, y, facing, next_flag, alive) of each program [P, 5]."""
    out = np.empty((programs.shape[0], 5), np.int64)
    for p in range(programs.shape[0]):
        ex, ey, ef, enf, alive = solo_kernel(bd, x, y, f, nf, programs[p], crushers_on)
        out[p, 0], out[p, 1], out[p, 2], out[p, 3], out[p, 4] = ex, ey, ef, enf, alive
    return out


def mc_factory(game: RoboRallyGame, rng: np.random.Generator, **options: Any) -> MonteCarloProgram:
    """`roborally/mc` or `roborally/mc?budget=..&depth=..` (the registry parses the query by `MC_PARAMS`)."""
    return MonteCarloProgram(game, rng, **{**DEFAULTS, **options})


def _param(allowed: Any) -> Any:
    from agents.base import choice, positive_int

    return positive_int if allowed is int else choice(*allowed)


#: The query parameters of `roborally/mc` (`agents.base` grammar): name -> converter.
MC_PARAMS = {k: _param(allowed) for k, (allowed, _) in OPTIONS.items()}
