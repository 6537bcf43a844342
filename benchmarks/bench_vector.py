"""Batched compiled environments: steps a second of `vector_env` against `OpponentEnv` and `env()` in one process.

(a) Learner steps/s of `envs.lama_v0.vector_env` (via `agents.vector_env`) at
    `num_envs` 1, 64, 1,024 against three strategy-1 players, random legal
    actions drawn in a compiled kernel; beside it `OpponentEnv` (same game, same
    opponents, Python agents) and `lama_v0.env()` (all seats' steps, random
    legal play), printed as ratios. Issue 28's target: >= 1,000,000 learner
    steps/s at 1,024 tables on one core.
(b) Learner steps/s of MaskablePPO on `to_sb3(vector_env)` against the same
    MaskablePPO on a batched env that costs nothing (same observation and
    action sizes, a fixed mask): n_steps 64, batch 8,192, 2 epochs, 1,024
    tables. Target: at least half the cost-free ceiling.
(c) Simple poker's (numpy) vector env against `simple_poker/nash`, as (a); target >= 2,000,000.
(d) RoboRally's vector env (the training preset's race: `race_easy`, 2 robots, `rules="seed"`, register by
    register, progress reward, 40 turns) against `random` (target >= 100,000 at 1,024 tables) and
    `roborally/greedy`, as (a), beside `OpponentEnv` with the same opponents.
(e) Primi Composti's vector env (version 1, 2 players, 12 cards each) against `primi_composti/greedy_rand`, as
    (a), with `minimax?depth=2`/`4` opponents beside it, and MaskablePPO on it against the cost-free env as (b);
    target >= 1,000,000 learner steps/s at 1,024 tables.
(f) The Game's vector env (`actions="slot"`), solo and with a `the_game/bestplays` teammate, as (a), against
    `OpponentEnv` of the same options in the same process; target >= 500,000 at 1,024 tables.

Rates are per CPU-second of this process (`time.process_time`; the machine is
shared) with torch and numba on one thread.

    python benchmarks/bench_vector.py [--seconds 2] [--ppo-steps 200000]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

# this checkout's code (not an installed copy's) when run as a script from anywhere
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numba  # noqa: E402
import numpy as np  # noqa: E402

OPPONENTS = ["lama/first"] * 3
OPTIONS = {"rules": "official", "reward": "dense"}
POKER_OPPONENTS = ["simple_poker/nash"]
PRIMI_OPPONENTS = ["primi_composti/greedy_rand"]
PRIMI_OPTIONS = {"version": 1}


def _clock() -> float:
    return time.process_time()


@numba.njit(cache=True)
def random_legal_actions(mask, state, out):
    """One uniformly random legal action per row of the int8/bool `mask` (SplitMix64 stream `state[0]`)."""
    for r in range(mask.shape[0]):
        m = 0
        for a in range(mask.shape[1]):
            if mask[r, a]:
                m += 1
        state[0] += np.uint64(0x9E3779B97F4A7C15)
        z = state[0]
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
        k = np.int64(z % np.uint64(m))
        for a in range(mask.shape[1]):
            if mask[r, a]:
                if k == 0:
                    out[r] = a
                    break
                k -= 1


def vector_steps_per_sec(num_envs: int, seconds: float, copy: bool = True, game: str = "lama",
                         opponents: list[str] | None = None) -> float:
    """Learner steps/s of the vector env under random legal actions."""
    import agents

    if game == "lama":
        venv = agents.vector_env("lama", num_envs, opponents=OPPONENTS, seed=0, copy=copy, **OPTIONS)
    elif game == "primi_composti":
        venv = agents.vector_env(game, num_envs, opponents=opponents or PRIMI_OPPONENTS, seed=0, copy=copy,
                                 **PRIMI_OPTIONS)
    else:
        venv = agents.vector_env(game, num_envs, opponents=POKER_OPPONENTS, seed=0, copy=copy)
    venv.reset()
    state = np.ones(1, np.uint64)
    acts = np.zeros(num_envs, np.int64)
    mask = venv.action_masks()
    random_legal_actions(mask, state, acts)
    venv.step(acts)
    steps = 0
    t0 = _clock()
    while _clock() - t0 < seconds:
        for _ in range(20):
            random_legal_actions(venv.action_masks(), state, acts)
            venv.step(acts)
        steps += 20 * num_envs
    return steps / (_clock() - t0)


def opponent_env_steps_per_sec(seconds: float, game_name: str = "lama") -> float:
    """Learner steps/s of `OpponentEnv` (Python agents) under random legal actions."""
    import agents
    from envs.core import OpponentEnv

    if game_name == "lama":
        from envs.lama.encoding import LamaEncoder
        from envs.lama.rules import Config, LamaGame

        game = LamaGame(Config(**OPTIONS))
        enc, opp_ids = LamaEncoder(game), OPPONENTS
    elif game_name == "primi_composti":
        from envs.primi_composti.encoding import PrimiCompostiEncoder
        from envs.primi_composti.rules import Config as PrimiConfig
        from envs.primi_composti.rules import PrimiCompostiGame

        game = PrimiCompostiGame(PrimiConfig(**PRIMI_OPTIONS))
        enc, opp_ids = PrimiCompostiEncoder(game), PRIMI_OPPONENTS
    else:
        from envs.simple_poker.encoding import SimplePokerEncoder
        from envs.simple_poker.rules import SimplePokerGame

        game = SimplePokerGame()
        enc, opp_ids = SimplePokerEncoder(game), POKER_OPPONENTS
    opps = [agents.make(i, game, np.random.default_rng(k)) for k, i in enumerate(opp_ids)]
    env = OpponentEnv(game, enc, opps, seed=0)
    rng = np.random.default_rng(0)
    env.reset()
    steps = 0
    t0 = _clock()
    while _clock() - t0 < seconds:
        legal = np.flatnonzero(env.action_masks())
        _, _, term, trunc, _ = env.step(int(legal[rng.integers(len(legal))]))
        steps += 1
        if term or trunc:
            env.reset()
    return steps / (_clock() - t0)


def aec_steps_per_sec(seconds: float, game: str = "lama") -> float:
    """Steps/s (all seats) of `<game>_v0.env()` under random legal play."""
    import importlib

    env = importlib.import_module(f"envs.{game}_v0").env(**{"lama": OPTIONS, "primi_composti": PRIMI_OPTIONS}.get(
        game, {}))
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    steps = 0
    t0 = _clock()
    while _clock() - t0 < seconds:
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.reset()
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
        steps += 1
    return steps / (_clock() - t0)


class CostFree:
    """A batched env that costs nothing: the same spaces as the vector env, a constant observation and mask."""

    def __init__(self, venv):
        self.num_envs = venv.num_envs
        self.single_observation_space = venv.single_observation_space
        self.single_action_space = venv.single_action_space
        self.metadata = venv.metadata
        self.copy = True
        self.render_mode = None
        self._obs = np.zeros((self.num_envs, *venv.single_observation_space.shape), np.float32)
        venv.reset()
        self._mask = venv.action_masks()
        self._zeros = np.zeros(self.num_envs, np.float32)
        self._false = np.zeros(self.num_envs, np.bool_)

    def reset(self, seed=None, options=None):
        return self._obs.copy(), {}

    def step(self, actions):
        return self._obs.copy(), self._zeros.copy(), self._false.copy(), self._false.copy(), {}

    def action_masks(self):
        return self._mask

    def close(self):
        pass


def ppo_steps_per_sec(make_env, total: int, num_envs: int) -> float:
    """Learner steps/s of MaskablePPO (n_steps 64, batch 8,192, 2 epochs) on `to_sb3(make_env())`."""
    import torch
    from sb3_contrib import MaskablePPO

    from envs.core import to_sb3

    torch.set_num_threads(1)
    model = MaskablePPO("MlpPolicy", to_sb3(make_env()), n_steps=64, batch_size=8192, n_epochs=2, seed=0,
                        device="cpu", verbose=0)
    model.learn(64 * num_envs)  # warm-up: one rollout and update
    t0 = _clock()
    model.learn(total, reset_num_timesteps=False)
    return total / (_clock() - t0)


ROBORALLY = {"board": "race_easy", "num_robots": 2, "rules": "seed", "reward": "progress", "max_turns": 40}


def roborally_rows(seconds: float) -> None:
    """(d): RoboRally's vector env against OpponentEnv, random and greedy opponents."""
    import agents
    from envs.core import OpponentEnv
    from envs.roborally.encoding import RoboRallyEncoder
    from envs.roborally.rules import Config, RoboRallyGame

    game = RoboRallyGame(Config(**ROBORALLY))
    t0 = time.perf_counter()
    for opp in ("random", "roborally/greedy"):
        agents.vector_env("roborally", 1, opponents=[opp], seed=0, **ROBORALLY).reset()
    print(f"RoboRally vector env kernels ready in {time.perf_counter() - t0:.1f} s (numba compile or cache load)")
    print("RoboRally (race_easy, 2 robots, rules=seed, register by register, progress, 40 turns), random legal "
          "learner actions, per CPU-second:")
    for opp in ("random", "roborally/greedy"):
        env = OpponentEnv(game, RoboRallyEncoder(game), [agents.make(opp, game, np.random.default_rng(1))], seed=0)
        rng = np.random.default_rng(0)
        env.reset()
        steps = 0
        t0 = _clock()
        while _clock() - t0 < seconds:
            legal = np.flatnonzero(env.action_masks())
            _, _, term, trunc, _ = env.step(int(legal[rng.integers(len(legal))]))
            steps += 1
            if term or trunc:
                env.reset()
        base = steps / (_clock() - t0)
        print(f"  vs {opp}: OpponentEnv (Python agent) {base:>10,.0f} learner steps/s")
        for n, copy in ((1, True), (64, True), (1024, True), (1024, False)):
            venv = agents.vector_env("roborally", n, opponents=[opp], seed=0, copy=copy, **ROBORALLY)
            venv.reset()
            state = np.ones(1, np.uint64)
            acts = np.zeros(n, np.int64)
            random_legal_actions(venv.action_masks(), state, acts)  # compile / load the action kernel
            venv.step(acts)
            steps = 0
            t0 = _clock()
            while _clock() - t0 < seconds:
                for _ in range(5):
                    random_legal_actions(venv.action_masks(), state, acts)
                    venv.step(acts)
                steps += 5 * n
            v = steps / (_clock() - t0)
            label = f"num_envs={n}" + ("" if copy else " copy=False")
            target = "  (target >= 100,000)" if n == 1024 and not copy and opp == "random" else ""
            print(f"    vector_env {label:<24} {v:>10,.0f} learner steps/s = {v / base:,.0f}x OpponentEnv{target}")
def primi_table(seconds: float, ppo_steps: int) -> None:
    """(e): Primi Composti's rows."""
    import agents

    g = "primi_composti"
    t0 = time.perf_counter()
    agents.vector_env(g, 1, opponents=PRIMI_OPPONENTS, seed=0, **PRIMI_OPTIONS).reset()
    print(f"Primi Composti vector env kernels ready in {time.perf_counter() - t0:.1f} s (numba compile or cache load)")
    opp = opponent_env_steps_per_sec(seconds, g)
    aec = aec_steps_per_sec(seconds, g)
    print("Primi Composti (version 1, 2 players, 12 cards each) vs primi_composti/greedy_rand, random legal learner "
          "actions, per CPU-second:")
    print(f"  OpponentEnv (Python agent)           {opp:>12,.0f} learner steps/s")
    print(f"  primi_composti_v0.env() (AEC)        {aec:>12,.0f} steps/s")
    for n in (1, 64, 1024):
        v = vector_steps_per_sec(n, seconds, game=g)
        print(f"  vector_env num_envs={n:<5}            {v:>12,.0f} learner steps/s  "
              f"= {v / opp:,.0f}x OpponentEnv, {v / aec:,.0f}x env()")
    v = vector_steps_per_sec(1024, seconds, copy=False, game=g)
    print(f"  vector_env num_envs=1024 copy=False  {v:>12,.0f} learner steps/s  (target >= 1,000,000)")
    for depth, n in ((2, 1024), (4, 64)):
        v = vector_steps_per_sec(n, seconds, copy=False, game=g, opponents=[f"primi_composti/minimax?depth={depth}"])
        print(f"  vs minimax?depth={depth}, num_envs={n:<5}     {v:>12,.0f} learner steps/s  "
              f"({1e6 / v:,.1f} us a step, the opponent's search included)")
    n = 1024
    free = ppo_steps_per_sec(lambda: CostFree(agents.vector_env(g, n, opponents=PRIMI_OPPONENTS, seed=0,
                                                                **PRIMI_OPTIONS)), ppo_steps, n)
    real = ppo_steps_per_sec(lambda: agents.vector_env(g, n, opponents=PRIMI_OPPONENTS, seed=0, **PRIMI_OPTIONS),
                             ppo_steps, n)
    print(f"  MaskablePPO (as above), cost-free    {free:>12,.0f} learner steps/s")
    print(f"  MaskablePPO on to_sb3(vector_env)    {real:>12,.0f} learner steps/s  = {real / free:.2f} of the "
          "cost-free ceiling (target >= 0.5)")


THE_GAME_CASES = (("solo", {"num_players": 1, "actions": "slot"}, []),
                  ("2 players, teammate the_game/bestplays", {"num_players": 2, "actions": "slot"},
                   ["the_game/bestplays"]))


def the_game_rows(seconds: float) -> None:
    """(f): The Game's vector env against `OpponentEnv` (Python agents) of the same options, as ratios."""
    import agents
    from envs.core import OpponentEnv
    from envs.the_game.encoding import TheGameEncoder
    from envs.the_game.rules import Config, TheGame

    for label, opts, opp_ids in THE_GAME_CASES:
        game = TheGame(Config(**opts))
        opps = [agents.make(i, game, np.random.default_rng(k)) for k, i in enumerate(opp_ids)]
        env = OpponentEnv(game, TheGameEncoder(game), opps, seed=0)
        rng = np.random.default_rng(0)
        env.reset()
        steps = 0
        t0 = _clock()
        while _clock() - t0 < seconds:
            legal = np.flatnonzero(env.action_masks())
            _, _, term, trunc, _ = env.step(int(legal[rng.integers(len(legal))]))
            steps += 1
            if term or trunc:
                env.reset()
        opp = steps / (_clock() - t0)
        print(f"The Game ({label}, {', '.join(f'{k}={v}' for k, v in opts.items())}), random legal learner "
              "actions, per CPU-second:")
        print(f"  OpponentEnv (Python agents)          {opp:>12,.0f} learner steps/s")
        for n, copy in ((1, True), (64, True), (1024, True), (1024, False)):
            venv = agents.vector_env("the_game", n, opponents=opp_ids, seed=0, copy=copy, **opts)
            venv.reset()
            state = np.ones(1, np.uint64)
            acts = np.zeros(n, np.int64)
            random_legal_actions(venv.action_masks(), state, acts)
            venv.step(acts)
            steps = 0
            t0 = _clock()
            while _clock() - t0 < seconds:
                for _ in range(20):
                    random_legal_actions(venv.action_masks(), state, acts)
                    venv.step(acts)
                steps += 20 * n
            v = steps / (_clock() - t0)
            tail = "  (target >= 500,000)" if not copy else ""
            print(f"  vector_env num_envs={n:<5}{' copy=False' if not copy else '           '}"
                  f" {v:>12,.0f} learner steps/s  = {v / opp:,.0f}x OpponentEnv{tail}")


def main(argv: list[str] | None = None) -> int:
    """Print the table."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=2.0)
    p.add_argument("--ppo-steps", type=int, default=4 * 64 * 1024)
    args = p.parse_args(argv)
    import agents

    t0 = time.perf_counter()
    agents.vector_env("lama", 1, opponents=OPPONENTS, seed=0, **OPTIONS).reset()
    print(f"vector env kernels ready in {time.perf_counter() - t0:.1f} s (numba compile or cache load)")
    opp = opponent_env_steps_per_sec(args.seconds)
    aec = aec_steps_per_sec(args.seconds)
    print(f"L.A.M.A. ({OPTIONS['rules']}, 4 players, dense) vs 3 x lama/first, random legal learner actions, "
          "per CPU-second:")
    print(f"  OpponentEnv (Python agents)          {opp:>12,.0f} learner steps/s")
    print(f"  lama_v0.env() (AEC, all seats)       {aec:>12,.0f} steps/s")
    for n in (1, 64, 1024):
        v = vector_steps_per_sec(n, args.seconds)
        print(f"  vector_env num_envs={n:<5}            {v:>12,.0f} learner steps/s  "
              f"= {v / opp:,.0f}x OpponentEnv, {v / aec:,.0f}x env()")
    v = vector_steps_per_sec(1024, args.seconds, copy=False)
    print(f"  vector_env num_envs=1024 copy=False  {v:>12,.0f} learner steps/s  (target >= 1,000,000)")
    opp = opponent_env_steps_per_sec(args.seconds, "simple_poker")
    aec = aec_steps_per_sec(args.seconds, "simple_poker")
    print("simple poker (n=3) vs simple_poker/nash, random legal learner actions, per CPU-second:")
    print(f"  OpponentEnv (Python agent)           {opp:>12,.0f} learner steps/s")
    print(f"  simple_poker_v0.env() (AEC)          {aec:>12,.0f} steps/s")
    for n in (1, 64, 1024):
        v = vector_steps_per_sec(n, args.seconds, game="simple_poker")
        print(f"  vector_env num_envs={n:<5}            {v:>12,.0f} learner steps/s  "
              f"= {v / opp:,.0f}x OpponentEnv, {v / aec:,.1f}x env()")
    v = vector_steps_per_sec(1024, args.seconds, copy=False, game="simple_poker")
    print(f"  vector_env num_envs=1024 copy=False  {v:>12,.0f} learner steps/s  (target >= 2,000,000)")
    roborally_rows(args.seconds)
    primi_table(args.seconds, args.ppo_steps)
    the_game_rows(args.seconds)
    n = 1024
    free = ppo_steps_per_sec(lambda: CostFree(agents.vector_env("lama", n, opponents=OPPONENTS, seed=0,
                                                                **OPTIONS)), args.ppo_steps, n)
    real = ppo_steps_per_sec(lambda: agents.vector_env("lama", n, opponents=OPPONENTS, seed=0, **OPTIONS),
                             args.ppo_steps, n)
    print(f"MaskablePPO (n_steps 64, batch 8192, 2 epochs, {n} envs, torch 1 thread), {args.ppo_steps:,} steps:")
    print(f"  cost-free batched env                {free:>12,.0f} learner steps/s")
    print(f"  to_sb3(vector_env)                   {real:>12,.0f} learner steps/s  = {real / free:.2f} of the "
          "cost-free ceiling (target >= 0.5)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
