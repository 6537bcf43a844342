"""RoboRally speed, as ratios measured in one process.

(a) full turns/s (deal, a random program per robot, the five register phases, cleanup) with 2, 4 and 8 robots
    on the 12×12 `race_easy` board, lives unlimited so the whole table stays in the race: the plain engine
    (`RoboRallyGame.execute_turn`), the fast path's Python API
    (`FastEngine.execute_turn`, one call per turn) and its compiled loop (`fast.random_turns`). Goal for the fast
    path: ≥ 30,000 turns/s with 2 robots and ≥ 10,000 with 8 on one core; the pure-Python peer engine of the
    project's RoboRally peer study does about 1,075 / 710 / 464 (2 / 4 / 8 robots);
(b) `roborally_v0.env()` and `parallel_env()` steps/s under random legal play against PettingZoo's
    `tictactoe_v3.env()`, in alternating rounds;
(c) playouts/s of the mc agent's inner loop (`agents.roborally.fast.playouts_kernel`, every reduced program of a
    9-card hand, policy `random`) with 2, 4 and 8 robots at depth 1 and 2. Goal: ≥ 10,000 depth-1 playouts in a
    1-second decision on one core with 2 robots;
(d) one robot alone: programs/s of the lone-robot loop `fast.solo_kernel` (what the flag seeker, the greedy
    playouts and the mc screening run) against `fast.turn_kernel` on a one-robot table, the same ends: the gap
    that keeps the separate loop (see `fast.solo_register`);
(e) the vector env's program mode (`action_mode="program"`, one decision a turn) against its register mode (one
    decision a sub-step) in the same run: learner turns/s of 256 tables against `random` opponents, the learner
    playing uniformly random legal programs (program mode: a uniform rank below `program_counts`; register mode:
    a uniform legal sub-step), and the per-program features (`program_table`) in tables/s and programs/s.

Rates are per CPU-second of this process (`time.process_time`); each figure is the median of `--repeats`
alternating rounds and ratios are medians of the per-round ratios.

    python benchmarks/bench_roborally.py [--seconds 1] [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numba
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import compare, per_cpu_second, tictactoe_env  # noqa: E402

from envs.roborally.fast import NFIELDS, RF, RLIVES, RNF, RON, RX, RY, solo_kernel, turn_kernel  # noqa: E402

BOARD = "race_easy"
LIVES = 10**6
PEER_TURNS = {2: 1075, 4: 710, 8: 464}  # the pure-Python peer engine (peer study §6), turns/s


def _game(n: int):
    from envs.roborally.rules import Config, RoboRallyGame

    # Lives unlimited keeps every robot in the race (a destroyed one re-enters next turn), as the peer's count
    # of turns "while the whole table is alive" and the plain-engine table of docs/roborally.md.
    return RoboRallyGame(Config(board=BOARD, num_robots=n, lives=LIVES))


def plain_turns_per_sec(n: int, seconds: float, seed: int = 0) -> float:
    """Turns/s of the plain engine with uniformly random card programs (a race restarts when it ends)."""
    from envs.roborally.rules import free_registers

    game = _game(n)
    rng = np.random.default_rng(seed)
    state = game.initial_state(rng)

    def turn() -> int:
        nonlocal state
        if game.is_terminal(state):
            state = game.initial_state(rng)
        programs = []
        for i, hand in enumerate(state.hands):
            k = min(free_registers(state.robots[i].damage), len(hand))
            programs.append(tuple(rng.permutation(hand)[:k].tolist()) if hand else ())
        state = game.execute_turn(state, programs)
        return 1

    return per_cpu_second(turn, seconds)


def fast_api_turns_per_sec(n: int, seconds: float, seed: int = 0) -> float:
    """Turns/s of `FastEngine.deal` + `FastEngine.execute_turn` called from Python once per turn."""
    from envs.roborally.fast import RDMG, RELIM, RON, FastEngine

    game = _game(n)
    fe = FastEngine(game)
    rng = np.random.default_rng(seed)
    start = fe.pack(game.initial_state(rng))
    fs = start
    turns = 0
    programs = np.zeros((n, 5), np.int32)
    fe.execute_turn(fe.deal(fs, seed)[0], programs)  # compile / load the cache

    def turn() -> int:
        nonlocal fs, turns
        if fs.winner >= 0 or fs.turn >= 100 or fs.robots[:, RELIM].all():
            fs = start
        fs, hands, sizes = fe.deal(fs, seed + turns)
        for i in range(n):
            k = min(int(sizes[i]), 5 - (max(0, min(5, int(fs.robots[i, RDMG]) - 4)) if fs.robots[i, RON] else 0))
            programs[i] = 0
            programs[i, :k] = rng.permutation(hands[i, :sizes[i]])[:k]
        fs = fe.execute_turn(fs, programs)
        turns += 1
        return 1

    return per_cpu_second(turn, seconds)


def fast_loop_turns_per_sec(n: int, seconds: float, seed: int = 0) -> float:
    """Turns/s of the compiled loop `fast.random_turns` (no Python per turn)."""
    from envs.roborally.fast import FastEngine, random_turns

    game = _game(n)
    fe = FastEngine(game)
    fs = fe.pack(game.initial_state(np.random.default_rng(seed)))
    random_turns(fe.board, fs.robots, fs.registers, fs.meta, 10, 100, seed)  # compile / load the cache
    turns = 2000
    while True:
        t0 = time.process_time()
        random_turns(fe.board, fs.robots, fs.registers, fs.meta, turns, 100, seed)
        dt = time.process_time() - t0
        if dt >= seconds:
            return turns / dt
        turns = int(turns * min(10.0, 1.5 * seconds / max(dt, 1e-3)))


def playouts_per_sec(n: int, depth: int, seconds: float, seed: int = 0, policy: str = "random") -> tuple[float, int]:
    """(playouts/s, candidates) of the playout kernel for robot 0's reduced programs."""
    from agents.roborally.fast import FastPlayouts
    from envs.roborally.cards import NUM_CARDS
    from envs.roborally.fast import FastEngine

    game = _game(n)
    fe = FastEngine(game)
    fp = FastPlayouts(fe)
    state = game.initial_state(np.random.default_rng(seed))
    fs = fe.pack(state)
    hand = state.hands[0]
    cands = fe.reduced_programs(hand, 5)
    unseen = [c for c in range(1, NUM_CARDS + 1) if c not in hand]
    sizes = [len(h) for h in state.hands]
    fp.playouts(fs, 0, cands[:2], unseen, sizes, depth, 1, policy)  # compile / load the cache
    per = 1
    while True:
        t0 = time.process_time()
        fp.playouts(fs, 0, cands, unseen, sizes, depth, per, policy, seed=seed)
        dt = time.process_time() - t0
        if dt >= seconds or per > 10_000:
            return len(cands) * per / dt, len(cands)
        per = max(per + 1, int(per * min(10.0, 1.5 * seconds / max(dt, 1e-3))))


@numba.njit(cache=True)
def _lone_robot_ends(bd, starts, programs, mode, out):
    """The end (x, y, facing, next_flag, alive) of every program [P, 5] from every start [S, 4] (x, y, facing,
    next flag) into `out` [S, P, 5]: `mode` 0 runs `solo_kernel`, 1 runs `turn_kernel` on a one-robot table (the
    board packed without lasers; the robot read from the trace of its last executed register phase)."""
    R0 = np.zeros((1, NFIELDS), np.int32)
    R0[0, RLIVES] = 3
    R0[0, RON] = 1
    deck = np.zeros(84, np.int32)
    meta = np.zeros(3, np.int32)
    regs = np.zeros((1, 5), np.int32)
    trace = np.zeros((5, 1, NFIELDS), np.int32)
    for s in range(starts.shape[0]):
        for p in range(programs.shape[0]):
            if mode == 0:
                x, y, f, nf, alive = solo_kernel(bd, starts[s, 0], starts[s, 1], starts[s, 2], starts[s, 3],
                                                 programs[p], True)
            else:
                R = R0.copy()
                R[0, RX], R[0, RY], R[0, RF], R[0, RNF] = starts[s, 0], starts[s, 1], starts[s, 2], starts[s, 3]
                for j in range(5):
                    regs[0, j] = programs[p, j]
                meta[0], meta[1], meta[2] = -1, 0, 0
                done = turn_kernel(bd, R, regs, deck, meta, trace)
                last = trace[done - 1, 0]
                x, y, f, nf, alive = last[RX], last[RY], last[RF], last[RNF], last[RON] == 1
            out[s, p, 0], out[s, p, 1], out[s, p, 2], out[s, p, 3], out[s, p, 4] = x, y, f, nf, alive


def lone_robot_programs_per_sec(seconds: float, seed: int = 0) -> tuple[float, float, int]:
    """(solo programs/s, one-robot-turn programs/s, disagreements): every reduced program of a 9-card hand run
    alone from random squares of `race_easy` with its lasers taken out, by `fast.solo_kernel` (the lone-robot loop
    the flag seeker and the mc screening use) and by `fast.turn_kernel` with one robot (what folding the solo loop
    into the turn would cost). The ends must agree (alive, flags, and square and facing while alive)."""
    from dataclasses import replace

    from envs.roborally.board import PIT, board_to_text
    from envs.roborally.fast import FastEngine
    from envs.roborally.rules import Config, RoboRallyGame

    game = _game(2)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "board.rrb"
        path.write_text(board_to_text(replace(game.board, lasers=())))
        fe = FastEngine(RoboRallyGame(Config(board=str(path), crushers=True)))
    bd = fe.board
    b = game.board
    rng = np.random.default_rng(seed)
    free = [(x, y) for y in range(b.height) for x in range(b.width) if b.floor[y, x] != PIT]
    starts = np.array([(*free[rng.integers(len(free))], rng.integers(4), rng.integers(len(b.flags)))
                       for _ in range(64)], np.int64)
    hand = tuple(sorted(int(c) for c in rng.choice(np.arange(1, 85), 9, replace=False)))
    programs = fe.reduced_programs(hand, 5).astype(np.int64)
    outs = [np.zeros((len(starts), len(programs), 5), np.int64) for _ in range(2)]
    for mode in (0, 1):
        _lone_robot_ends(bd, starts[:1], programs[:2], mode, outs[mode][:1, :2])  # compile / load the cache
    rates = []
    for mode in (0, 1):
        reps = 0
        t0 = time.process_time()
        while time.process_time() - t0 < seconds or reps == 0:
            _lone_robot_ends(bd, starts, programs, mode, outs[mode])
            reps += 1
        rates.append(reps * len(starts) * len(programs) / (time.process_time() - t0))
    a, t = outs
    alive = a[..., 4] == 1
    differ = (a[..., 4] != t[..., 4]) | (a[..., 3] != t[..., 3]) | (alive & (a[..., :3] != t[..., :3]).any(-1))
    return rates[0], rates[1], int(differ.sum())


def vector_turns_per_sec(mode: str, seconds: float, seed: int = 0, num_envs: int = 256) -> float:
    """Learner turns/s of `roborally_v0.vector_env` in `mode` ("program" or "register"), 2 robots, against random."""
    from envs.core.vector import RANDOM
    from envs.roborally.rules import PROGRAM_NOOP
    from envs.roborally.vector import vector_env

    env = vector_env(num_envs, opponents=[RANDOM], seed=seed, board=BOARD, action_mode=mode, copy=False)
    env.reset()
    rng = np.random.default_rng(seed)
    per_turn = 1 if mode == "program" else env._settings.rounds

    def act() -> np.ndarray:
        if mode == "program":
            counts = env.program_counts()
            return np.where(counts > 0, (rng.random(num_envs) * counts).astype(np.int64), PROGRAM_NOOP)
        return (env.action_masks() * rng.random((num_envs, env.num_actions))).argmax(1)

    env.step(act())  # compile / load the cache
    steps = 0
    t0 = time.process_time()
    while time.process_time() - t0 < seconds or steps == 0:
        env.step(act())
        steps += 1
    return steps * num_envs / per_turn / (time.process_time() - t0)


def program_table_rates(seconds: float, seed: int = 0, num_envs: int = 64) -> tuple[float, float]:
    """(tables/s, programs/s) of `RoboRallyVectorEnv.program_table` (every reduced program's cards and features)
    at the learner's decisions of program-mode tables."""
    from envs.core.vector import RANDOM
    from envs.roborally.vector import vector_env

    env = vector_env(num_envs, opponents=[RANDOM], seed=seed, board=BOARD, action_mode="program")
    env.reset()
    env.program_table()  # compile / load the cache
    tables = programs = 0
    t0 = time.process_time()
    while time.process_time() - t0 < seconds or tables == 0:
        _, _, counts = env.program_table()
        tables += num_envs
        programs += int(counts.sum())
        env.step(np.zeros(num_envs, np.int64) + np.where(counts > 0, 0, env.game.noop))
    dt = time.process_time() - t0
    return tables / dt, programs / dt


def mc_decision_seconds(agent_id: str, n: int, decisions: int, seed: int = 0) -> float:
    """Median CPU seconds of one `program(view)` decision of `agent_id` at the start of fresh races."""
    from agents.base import make

    game = _game(n)
    rng = np.random.default_rng(seed)
    agent = make(agent_id, game, np.random.default_rng(seed + 1))
    agent.program(game.view(game.initial_state(rng), 0))  # compile / load the caches
    times = []
    for _ in range(decisions):
        view = game.view(game.initial_state(rng), 0)
        t0 = time.process_time()
        agent.program(view)
        times.append(time.process_time() - t0)
    return statistics.median(times)


def parallel_random_steps_per_sec(seconds: float, seed: int = 0) -> float:
    """Steps/s of `roborally_v0.parallel_env()` under random legal play (one step = every robot's action)."""
    from envs import roborally_v0

    env = roborally_v0.parallel_env()
    rng = np.random.default_rng(seed)
    steps = 0
    t0 = time.process_time()
    first = True
    while time.process_time() - t0 < seconds:
        obs, _ = env.reset(seed=seed if first else None)
        first = False
        while env.agents:
            actions = {}
            for a in env.agents:
                legal = np.flatnonzero(obs[a]["action_mask"])
                actions[a] = int(legal[rng.integers(len(legal))])
            obs, *_ = env.step(actions)
            steps += 1
    return steps / (time.process_time() - t0)


def _ttt_steps_per_sec(seconds: float) -> float:
    from common import random_play_steps_per_sec

    return random_play_steps_per_sec(tictactoe_env, seconds)


def main() -> None:
    """Print the table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    sec, reps = args.seconds, args.repeats

    print(f"RoboRally on {BOARD!r} (12x12), per CPU-second, median of {reps} alternating rounds")
    print(f"{'robots':>6} {'plain turns/s':>14} {'fast API':>10} {'fast loop':>11} {'loop/plain':>11} "
          f"{'loop/peer':>10}  goal")
    for n in (2, 4, 8):
        plain, api, loop, ratio = [], [], [], []
        for r in range(reps):
            p = plain_turns_per_sec(n, sec, seed=r)
            a = fast_api_turns_per_sec(n, sec, seed=r)
            f = fast_loop_turns_per_sec(n, sec, seed=r)
            plain.append(p)
            api.append(a)
            loop.append(f)
            ratio.append(f / p)
        goal = {2: ">= 30,000", 4: "", 8: ">= 10,000"}[n]
        f = statistics.median(loop)
        print(f"{n:>6} {statistics.median(plain):>14,.0f} {statistics.median(api):>10,.0f} {f:>11,.0f} "
              f"{statistics.median(ratio):>10.0f}x {f / PEER_TURNS[n]:>9.0f}x  {goal}")

    print("\nplayouts of the mc kernel (every reduced program of robot 0's first hand)")
    print(f"{'policy':>6} {'robots':>6} {'depth':>5} {'programs':>8} {'playouts/s':>11}")
    runs = [("random", n, depth) for n in (2, 4, 8) for depth in (1, 2)] + [("greedy", 2, 1), ("greedy", 2, 2)]
    for policy, n, depth in runs:
        rates = []
        for r in range(reps):
            rate, cands = playouts_per_sec(n, depth, sec, seed=r, policy=policy)
            rates.append(rate)
        print(f"{policy:>6} {n:>6} {depth:>5} {cands:>8} {statistics.median(rates):>11,.0f}"
              + ("   goal >= 10,000 (depth 1, 2 robots)" if (policy, n, depth) == ("random", 2, 1) else ""))

    print("\none robot alone (race_easy without lasers, every reduced program of a 9-card hand from 64 squares)")
    solo, turn, ratio, differ = [], [], [], 0
    for r in range(reps):
        a, t, d = lone_robot_programs_per_sec(sec, seed=r)
        solo.append(a)
        turn.append(t)
        ratio.append(a / t)
        differ += d
    print(f"solo_kernel {statistics.median(solo):12,.0f} programs/s   turn_kernel with one robot "
          f"{statistics.median(turn):10,.0f}   solo/turn {statistics.median(ratio):.2f}x   ends that differ: {differ}")

    print("\nvector env, 256 tables, 2 robots against random: learner turns/s, program mode vs register mode")
    prog, regm, ratio = [], [], []
    for r in range(reps):
        p = vector_turns_per_sec("program", sec, seed=r)
        g = vector_turns_per_sec("register", sec, seed=r)
        prog.append(p)
        regm.append(g)
        ratio.append(p / g)
    tab, progs = zip(*(program_table_rates(sec, seed=r) for r in range(reps)))
    print(f"program mode {statistics.median(prog):10,.0f} turns/s   register mode {statistics.median(regm):10,.0f} "
          f"turns/s   program/register {statistics.median(ratio):.2f}x")
    print(f"program_table (cards + features of every reduced program): {statistics.median(tab):8,.0f} tables/s "
          f"{statistics.median(progs):12,.0f} programs/s")

    print("\none roborally/mc decision at the start of a race (median CPU seconds)")
    for agent_id in ("roborally/mc", "roborally/mc?engine=plain&budget=200"):
        for n in (2, 4):
            t = mc_decision_seconds(agent_id, n, decisions=3 * reps)
            print(f"{agent_id:<38} {n} robots {t:8.3f} s")

    from envs import roborally_v0

    print("\nPettingZoo steps/s against tictactoe_v3.env() (random legal play)")
    aec = compare(lambda: roborally_v0.env(), tictactoe_env, rounds=reps, seconds=sec)
    print(f"roborally_v0.env()          {aec['ours_steps_per_s']:10,.0f}  tictactoe {aec['peer_steps_per_s']:10,.0f}"
          f"  ratio {aec['ratio']:.2f}x")
    par, ttt, ratios = [], [], []
    for r in range(reps):
        p = parallel_random_steps_per_sec(sec, seed=r)
        t = _ttt_steps_per_sec(sec)
        par.append(p)
        ttt.append(t)
        ratios.append(p / t)
    print(f"roborally_v0.parallel_env() {statistics.median(par):10,.0f}  tictactoe {statistics.median(ttt):10,.0f}"
          f"  ratio {statistics.median(ratios):.2f}x  (one parallel step = a round of every robot)")


if __name__ == "__main__":
    main()
