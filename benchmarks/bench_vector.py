"""Batched compiled environments: steps a second of `vector_env` against `OpponentEnv` and `env()` in one process.

(a) Learner steps/s of `envs.lama_v0.vector_env` (via `agents.vector_env`) at
    `num_envs` 1, 64, 1,024 against three strategy-1 players, random legal
    actions drawn in a compiled kernel; beside it `OpponentEnv` (same game, same
    opponents, Python agents) and `lama_v0.env()` (all seats' steps, random
    legal play), printed as ratios. Target: >= 1,000,000 learner
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
    (a), with `minimax?depth=2`/`4` opponents beside it, version 2 under its official options (the player's
    choice of operands, the revealed operand) against the seed's rules of version 2, and MaskablePPO on it against
    the cost-free env as (b);
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

from benchmarks.common import per_cpu_second  # noqa: E402
from envs.core.vector import nb_next  # noqa: E402

LAMA = ("lama", ["lama/first"] * 3, {"rules": "official", "reward": "dense"})
POKER = ("simple_poker", ["simple_poker/nash"], {})
PRIMI = ("primi_composti", ["primi_composti/greedy_rand"], {"version": 1})
PRIMI_V2_OPTIONS = (("the seed's rules", {}), ("allow_revealed_operand", {"allow_revealed_operand": True}),
                    ("steal_choice=player", {"steal_choice": "player"}),
                    ("both", {"steal_choice": "player", "allow_revealed_operand": True}))
ROBORALLY = {"board": "race_easy", "num_robots": 2, "rules": "seed", "reward": "progress", "max_turns": 40}
THE_GAME_CASES = (("solo", {"num_players": 1, "actions": "slot"}, []),
                  ("2 players, teammate the_game/bestplays", {"num_players": 2, "actions": "slot"},
                   ["the_game/bestplays"]))
SIZES = ((1, True), (64, True), (1024, True), (1024, False))


@numba.njit(cache=True)
def random_legal_actions(mask, state, out):
    """One uniformly random legal action per row of the int8/bool `mask` (SplitMix64 stream `state[0]`)."""
    for r in range(mask.shape[0]):
        m = 0
        for a in range(mask.shape[1]):
            if mask[r, a]:
                m += 1
        k = np.int64(nb_next(state, 0) % np.uint64(m))
        for a in range(mask.shape[1]):
            if mask[r, a]:
                if k == 0:
                    out[r] = a
                    break
                k -= 1


def vector_steps_per_sec(game: str, opponents: list[str], options: dict, num_envs: int, seconds: float,
                         copy: bool = True, batch: int = 20) -> float:
    """Learner steps/s of the game's vector env under random legal actions (drawn in a compiled kernel), `batch`
    steps between clock reads."""
    import agents

    venv = agents.vector_env(game, num_envs, opponents=opponents, seed=0, copy=copy, **options)
    venv.reset()
    state = np.ones(1, np.uint64)
    acts = np.zeros(num_envs, np.int64)
    random_legal_actions(venv.action_masks(), state, acts)  # compile / load the action kernel
    venv.step(acts)

    def step() -> int:
        for _ in range(batch):
            random_legal_actions(venv.action_masks(), state, acts)
            venv.step(acts)
        return batch * num_envs

    return per_cpu_second(step, seconds)


def opponent_env_steps_per_sec(game: str, opponents: list[str], options: dict, seconds: float) -> float:
    """Learner steps/s of `OpponentEnv` (the same opponents as Python agents) under random legal actions."""
    import agents
    import envs
    from envs.core import OpponentEnv

    spec = envs.spec(game)
    engine = spec.game_class(spec.config_class(**options))
    opps = [agents.make(i, engine, np.random.default_rng(k)) for k, i in enumerate(opponents)]
    env = OpponentEnv(engine, spec.encoder_class(engine), opps, seed=0)
    rng = np.random.default_rng(0)
    env.reset()

    def step() -> int:
        legal = np.flatnonzero(env.action_masks())
        _, _, term, trunc, _ = env.step(int(legal[rng.integers(len(legal))]))
        if term or trunc:
            env.reset()
        return 1

    return per_cpu_second(step, seconds)


def aec_steps_per_sec(game: str, options: dict, seconds: float) -> float:
    """Steps/s (all seats) of `<game>_v0.env()` under random legal play."""
    import importlib

    env = importlib.import_module(f"envs.{game}_v0").env(**options)
    rng = np.random.default_rng(0)
    env.reset(seed=0)

    def step() -> int:
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.reset()
            return 0
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
        return 1

    return per_cpu_second(step, seconds)


def kernels_ready(title: str, game: str, lineups: list[list[str]], options: dict) -> None:
    """Build one table per line-up (numba compiles or loads its cache) and say how long it took."""
    import agents

    t0 = time.perf_counter()
    for opponents in lineups:
        agents.vector_env(game, 1, opponents=opponents, seed=0, **options).reset()
    print(f"{title} vector env kernels ready in {time.perf_counter() - t0:.1f} s (numba compile or cache load)")


def game_rows(title: str, game: str, opponents: list[str], options: dict, seconds: float, target: str,
              aec: bool = True, batch: int = 20) -> None:
    """One game's rows: `OpponentEnv` (and `env()` where `aec`), then the vector env at every size in `SIZES`,
    as ratios to them; `target` printed beside the 1,024-table `copy=False` row."""
    opp = opponent_env_steps_per_sec(game, opponents, options, seconds)
    print(f"{title}, random legal learner actions, per CPU-second:")
    print(f"  OpponentEnv (Python agents)          {opp:>12,.0f} learner steps/s")
    if aec:
        base = aec_steps_per_sec(game, options, seconds)
        print(f"  {game + '_v0.env() (AEC, all seats)':<37}{base:>12,.0f} steps/s")
    for n, copy in SIZES:
        v = vector_steps_per_sec(game, opponents, options, n, seconds, copy=copy, batch=batch)
        label = f"num_envs={n}" + ("" if copy else " copy=False")
        ratios = f"= {v / opp:,.1f}x OpponentEnv" + (f", {v / base:,.1f}x env()" if aec else "")
        tail = f"  (target >= {target})" if n == 1024 and not copy and target else ""
        print(f"  vector_env {label:<25} {v:>12,.0f} learner steps/s  {ratios}{tail}")


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
    t0 = time.process_time()
    model.learn(total, reset_num_timesteps=False)
    return total / (time.process_time() - t0)


def ppo_rows(game: str, opponents: list[str], options: dict, total: int, num_envs: int = 1024) -> None:
    """MaskablePPO on `to_sb3(vector_env)` against the same on the cost-free env of the same spaces."""
    import agents

    def make():
        return agents.vector_env(game, num_envs, opponents=opponents, seed=0, **options)

    free = ppo_steps_per_sec(lambda: CostFree(make()), total, num_envs)
    real = ppo_steps_per_sec(make, total, num_envs)
    print(f"  MaskablePPO (n_steps 64, batch 8192, 2 epochs, {num_envs} envs, torch 1 thread), {total:,} steps:")
    print(f"  MaskablePPO, cost-free batched env   {free:>12,.0f} learner steps/s")
    print(f"  MaskablePPO on to_sb3(vector_env)    {real:>12,.0f} learner steps/s  = {real / free:.2f} of the "
          "cost-free ceiling (target >= 0.5)")


def roborally_rows(seconds: float) -> None:
    """(d): RoboRally's vector env against OpponentEnv, random and greedy opponents."""
    lineups = [["random"], ["roborally/greedy"]]
    kernels_ready("RoboRally", "roborally", lineups, ROBORALLY)
    for opponents in lineups:
        game_rows(f"RoboRally (race_easy, 2 robots, rules=seed, register by register, progress, 40 turns) vs "
                  f"{opponents[0]}", "roborally", opponents, ROBORALLY, seconds,
                  "100,000" if opponents == ["random"] else "", aec=False, batch=5)


def all_seats_rows(seconds: float) -> None:
    """`control="all_seats"` (one policy for every seat, random legal moves) against `env()` of the same game, all
    seats' decisions a second, like with like: L.A.M.A. and RoboRally, whose all-seat kernels are the one-seat ones
    with a flag."""
    for title, game, options in (("L.A.M.A. (official, 4 players, dense)", *LAMA[::2]),
                                 ("RoboRally (race_easy, 2 robots, rules=seed, progress, 40 turns)", "roborally",
                                  ROBORALLY)):
        base = aec_steps_per_sec(game, options, seconds)
        v = vector_steps_per_sec(game, [], {**options, "control": "all_seats"}, 1024, seconds, copy=False, batch=5)
        print(f"{title}, control='all_seats', every seat's decisions per CPU-second:")
        print(f"  {game + '_v0.env() (AEC, all seats)':<37}{base:>12,.0f} steps/s")
        print(f"  vector_env num_envs=1024 copy=False   {v:>12,.0f} steps/s  = {v / base:,.1f}x env()")


def primi_table(seconds: float, ppo_steps: int) -> None:
    """(e): Primi Composti's rows."""
    game, opponents, options = PRIMI
    kernels_ready("Primi Composti", game, [opponents], options)
    game_rows("Primi Composti (version 1, 2 players, 12 cards each) vs primi_composti/greedy_rand", *PRIMI, seconds,
              "1,000,000")
    for depth, n in ((2, 1024), (4, 64)):
        v = vector_steps_per_sec(game, [f"primi_composti/minimax?depth={depth}"], options, n, seconds, copy=False)
        print(f"  vs minimax?depth={depth}, num_envs={n:<5}     {v:>12,.0f} learner steps/s  "
              f"({1e6 / v:,.1f} us a step, the opponent's search included)")
    # Version 2 under its official options (the rules' footnote and the player's own choice of operands) beside the
    # seed's rules of the same version, in this run: the player's choice multiplies the action head by 1 + the pairs.
    base = None
    for label, extra in PRIMI_V2_OPTIONS:
        v = vector_steps_per_sec(game, ["primi_composti/greedy_rand"], {"version": 2, **extra}, 1024, seconds,
                                 copy=False)
        base = base or v
        print(f"  version 2, {label:<34} {v:>12,.0f} learner steps/s  ({v / base:.2f}x the seed's rules)")
    ppo_rows(*PRIMI, ppo_steps)


def the_game_rows(seconds: float) -> None:
    """(f): The Game's vector env against `OpponentEnv` (Python agents) of the same options, as ratios."""
    for label, opts, opp_ids in THE_GAME_CASES:
        game_rows(f"The Game ({label}, {', '.join(f'{k}={v}' for k, v in opts.items())})", "the_game", opp_ids,
                  opts, seconds, "500,000", aec=False)


def main(argv: list[str] | None = None) -> int:
    """Print the table."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=2.0)
    p.add_argument("--ppo-steps", type=int, default=4 * 64 * 1024)
    args = p.parse_args(argv)
    kernels_ready("L.A.M.A.", LAMA[0], [LAMA[1]], LAMA[2])
    game_rows(f"L.A.M.A. ({LAMA[2]['rules']}, 4 players, dense) vs 3 x lama/first", *LAMA, args.seconds, "1,000,000")
    game_rows("simple poker (n=3) vs simple_poker/nash", *POKER, args.seconds, "2,000,000")
    roborally_rows(args.seconds)
    all_seats_rows(args.seconds)
    primi_table(args.seconds, args.ppo_steps)
    the_game_rows(args.seconds)
    print("L.A.M.A.:")
    ppo_rows(*LAMA, args.ppo_steps)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
