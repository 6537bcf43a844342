"""Training method "ppo": MaskablePPO (sb3-contrib) through `OpponentEnv`.

The learner takes a random seat each episode among opponent agents given by id,
or — with self-play — among opponents drawn each episode from a pool of frozen
snapshots of itself, its live policy, and baseline agents (`train.pool`). With
`control="all_seats"` one policy acts for every seat (cooperative games). Every
run writes to its folder:

- `model.zip` — the MaskablePPO model (`ppo:<folder>` plays it in `evaluate`),
- `config.json` — game, options, opponents, hyperparameters, seed, versions,
- `curve.csv` and `curve.png` — the learning curve: mean episode return, the
  periodic evaluation's win rate / mean score against the baselines, and any
  game-specific metric (`train.presets` hooks; simple poker: exact exploitability),
- `snapshots.pt` (self-play) — the shipped mixture's member policies,
- `eval.json` — the final evaluation: `{"tournaments": [...]}`, one per line-up
  (self-play: the shipped policy against each baseline, or `random`).

`train(cfg)` runs the steps in order: `build_opponents`, `build_envs`,
`build_learner`, learning with `CurveCallback`, then `save`.
"""

from __future__ import annotations

import copy
import os
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import agents as agent_registry
import envs
from agents.policy import TorchPolicyAgent
from envs.core.single_agent import OpponentEnv
from train.config import TrainConfig
from train.curve import evaluate_policy_agent, evaluate_team, write_curve
from train.pool import OpponentPool, simulated_match_value
from train.presets import GameHooks, hooks
from train.seeds import RunSeeds, child, children


@dataclass
class Run:
    """A run's fixed parts: its config, engine, encoder, random streams and game hooks."""

    cfg: TrainConfig
    game: Any
    encoder: Any
    seeds: RunSeeds
    hooks: GameHooks

    def build(self, ids: list[str], seq: np.random.SeedSequence) -> list[Any]:
        """Agents by id, agent j drawing from child j of `seq`."""
        return [agent_registry.make(a, self.game, np.random.default_rng(s), game_name=self.cfg.game)
                for a, s in zip(ids, children(seq, len(ids)))]


@dataclass
class Opponents:
    """Who the learner plays: fixed ids, or a self-play pool; and whom the curve measures it against."""

    ids: list[str]
    pool: OpponentPool | None
    eval_agents: list[Any] = field(default_factory=list)


def expand_opponents(ids: list[str], n: int) -> list[str]:
    """Opponent ids for the n - 1 other seats: one id (repeated) or one per seat; `NAME*K` repeats."""
    ids = agent_registry.expand_agent_ids(ids)
    if len(ids) == 1 and n - 1 > 1:
        ids = ids * (n - 1)
    if len(ids) != n - 1:
        raise ValueError(f"this game seats {n} players: give 1 or {n - 1} opponent ids, got {len(ids)}: {ids}")
    return ids


def build_opponents(run: Run) -> Opponents:
    """The opponents' ids, the self-play pool (baselines from the agents stream) and the evaluation line-up."""
    cfg, n = run.cfg, run.game.num_players
    pool = None
    if cfg.control == "all_seats":
        ids: list[str] = []
    elif cfg.self_play:
        ids = list(cfg.baselines)
        match_value = None
        if cfg.meta_solver == "nash":
            if n != 2:
                raise ValueError(f"meta_solver='nash' needs a two-player zero-sum game; {cfg.game} seats {n}")
            exact = run.hooks.match_value
            match_value = ((lambda a, b: exact(run.game, a, b)) if exact is not None
                           else simulated_match_value(run.game, cfg.meta_games, cfg.seed))
        pool = OpponentPool(run.game, run.build(ids, run.seeds.agents), cfg.pool_size, cfg.meta_solver, match_value)
    else:
        ids = expand_opponents(cfg.opponents, n)
    eval_agents = run.build(ids or ["random"], child(run.seeds.eval, 0)) if cfg.control == "one_seat" else []
    return Opponents(ids, pool, eval_agents)


def build_envs(run: Run, opponents: Opponents) -> Any:
    """`n_envs` monitored `OpponentEnv`s in a `DummyVecEnv`; env i's fixed opponents draw from its stream's child 0."""
    from stable_baselines3.common.vec_env import DummyVecEnv, VecMonitor

    cfg = run.cfg

    def make_env(i: int):
        def thunk():
            if cfg.control == "all_seats":
                opps: Any = ()
            elif opponents.pool is not None:
                opps = opponents.pool.draw
            else:
                opps = run.build(opponents.ids, child(run.seeds.envs[i], 0))
            return OpponentEnv(run.game, run.encoder, opps, control=cfg.control, seed=run.seeds.env_seed(i))

        return thunk

    return VecMonitor(DummyVecEnv([make_env(i) for i in range(cfg.n_envs)]))


def build_learner(run: Run, vec: Any) -> Any:
    """The MaskablePPO model (CPU, seeded with the run's seed)."""
    from sb3_contrib import MaskablePPO

    cfg = run.cfg
    return MaskablePPO(
        "MlpPolicy", vec, seed=cfg.seed, device="cpu", verbose=0,
        n_steps=cfg.n_steps, batch_size=cfg.batch_size, n_epochs=cfg.n_epochs,
        learning_rate=cfg.learning_rate, ent_coef=cfg.ent_coef, gamma=cfg.gamma,
        policy_kwargs={"net_arch": list(cfg.net_arch)},
    )


class Curve:
    """Measures the learner for the learning curve and keeps the least exploitable self-play mixture."""

    def __init__(self, run: Run, model: Any, opponents: Opponents):
        self.run = run
        self.model = model
        self.opponents = opponents
        self.rng = np.random.default_rng(run.seeds.eval)
        self.rows: list[dict[str, float]] = []
        self.recent: deque[float] = deque(maxlen=200)
        self.best: dict[str, Any] = {"exploitability": None}

    def measure(self, step: int) -> None:
        """Append one curve point at `step`."""
        cfg, game, pool = self.run.cfg, self.run.game, self.opponents.pool
        learner: Any = TorchPolicyAgent(self.model.policy, self.run.encoder, np.random.default_rng(self.rng.integers(2**32)))
        if pool is not None and pool.snapshots:
            # Measure what the run ships: the pool's meta-strategy over snapshots.
            learner = pool.mixture(np.random.default_rng(self.rng.integers(2**32)))
        row = {"timesteps": float(step), "mean_return": float(np.mean(self.recent)) if self.recent else float("nan")}
        if cfg.control == "one_seat" and cfg.eval_games > 0:
            row.update(evaluate_policy_agent(game, learner, self.opponents.eval_agents, cfg.eval_games, self.rng))
        elif cfg.control == "all_seats" and cfg.eval_games > 0:
            row.update(evaluate_team(game, learner, cfg.eval_games, self.rng))
        if self.run.hooks.metrics is not None:
            row.update(self.run.hooks.metrics(game, learner))
        if pool is not None and pool.snapshots and "exploitability" in row:
            # An exact exploitability is a true score of the mixture: keep the best one.
            if self.best["exploitability"] is None or row["exploitability"] < self.best["exploitability"]:
                self.best.update(exploitability=row["exploitability"], timesteps=step, members=list(learner.members),
                                 weights=learner.weights.copy())
        self.rows.append(row)


def curve_callback(run: Run, model: Any, opponents: Opponents, curve: Curve, progress: bool) -> Any:
    """The SB3 callback: episode returns, self-play snapshots and curve points on schedule, a progress bar."""
    from stable_baselines3.common.callbacks import BaseCallback

    cfg = run.cfg
    # Tiny runs still get a curve and a pool: at least ~10 points of each.
    eval_every = max(1, min(cfg.eval_every, cfg.timesteps // 10 or 1))
    snapshot_every = max(1, min(cfg.snapshot_every, cfg.timesteps // 10 or 1))
    pool = opponents.pool
    first_snapshot_child = len(pool.baselines) + 1 if pool is not None else 0  # after the baselines and the live policy

    class CurveCallback(BaseCallback):
        def __init__(self):
            super().__init__()
            self.next_eval = eval_every
            self.next_snap = snapshot_every
            self.snapshots_taken = 0
            self.bar = None

        def _on_training_start(self) -> None:
            if progress:
                from tqdm import tqdm

                self.bar = tqdm(total=cfg.timesteps, desc=f"train {cfg.game}", unit="step", leave=False)
            curve.measure(0)

        def _on_step(self) -> bool:
            for info in self.locals.get("infos", []):
                ep = info.get("episode")
                if ep is not None:
                    curve.recent.append(float(ep["r"]))
            t = self.num_timesteps
            if self.bar is not None:
                self.bar.update(t - self.bar.n)
            if pool is not None and t >= self.next_snap:
                frozen = copy.deepcopy(model.policy)
                frozen.set_training_mode(False)
                seq = child(run.seeds.agents, first_snapshot_child + self.snapshots_taken)
                pool.add(TorchPolicyAgent(frozen, run.encoder, np.random.default_rng(seq), name=f"snapshot@{t}"))
                self.snapshots_taken += 1
                self.next_snap += snapshot_every
            if t >= self.next_eval:
                curve.measure(t)
                self.next_eval += eval_every
            return True

        def _on_training_end(self) -> None:
            if self.bar is not None:
                self.bar.close()

    return CurveCallback()


def save(run: Run, model: Any, opponents: Opponents, curve: Curve, t0: float, verbose: bool) -> dict[str, Any]:
    """Write the model, what the run ships, `config.json`, the curve and the final tournaments; return a summary."""
    import torch

    from train.report import final_tournaments, library_versions, write_config

    cfg, pool, n = run.cfg, opponents.pool, run.game.num_players
    model.save(os.path.join(cfg.out, "model.zip"))
    extra: dict[str, Any] = {"play": "last"}
    if pool is not None and pool.snapshots:
        # Self-play ships the pool's meta-strategy (a mixture: each game is played
        # by one snapshot drawn by weight) — with an exact exploitability, the
        # least exploitable one measured during the run.
        final = pool.mixture(np.random.default_rng(0))
        members, weights = final.members, final.weights
        best = curve.best
        if best["exploitability"] is not None:
            members, weights = best["members"], best["weights"]
            extra["selected"] = {"by": "exact exploitability (lowest measured)", "timesteps": best["timesteps"],
                                 "exploitability": best["exploitability"],
                                 "final_exploitability": curve.rows[-1].get("exploitability")}
        torch.save([a.policy.state_dict() for a in members], os.path.join(cfg.out, "snapshots.pt"))
        extra["play"] = "average"
        extra["mixture_weights"] = [float(w) for w in weights]
    extra["versions"] = library_versions()
    extra["train_seconds"] = time.time() - t0
    config = write_config(cfg, extra)
    write_curve(curve.rows, cfg.out, title=f"{cfg.game} — MaskablePPO{' self-play' if cfg.self_play else ''}")
    summary: dict[str, Any] = {"out": cfg.out, "train_seconds": config["train_seconds"], "final": curve.rows[-1]}
    if cfg.final_eval_games > 0:
        me = f"ppo:{cfg.out}"
        if cfg.control == "all_seats":
            lineups = [[me] * n]
        elif pool is not None:
            # Self-play: the shipped policy against each baseline (or random) in every other seat.
            lineups = [[me] + [b] * (n - 1) for b in dict.fromkeys(cfg.baselines or ["random"])]
        else:
            lineups = [[me] + opponents.ids]
        summary["evaluation"] = final_tournaments(cfg, lineups, verbose)
    if verbose:
        last = {k: round(v, 4) for k, v in curve.rows[-1].items() if k != "timesteps"}
        print(f"saved {cfg.out}/model.zip, config.json, curve.csv, curve.png ({config['train_seconds']:.0f} s); final: {last}")
        if "selected" in config:
            sel = config["selected"]
            print(f"shipped the mixture of step {sel['timesteps']} ({sel['by']}: {sel['exploitability']:.4f})")
    return summary


def train(cfg: TrainConfig, progress: bool = True, verbose: bool = True) -> dict[str, Any]:
    """Run one training job; returns a summary (also written under `cfg.out`)."""
    import torch
    from stable_baselines3.common.utils import set_random_seed

    t0 = time.time()
    cfg.out = cfg.out or os.path.join("runs", f"{cfg.game}-{time.strftime('%Y%m%d-%H%M%S')}")
    os.makedirs(cfg.out, exist_ok=True)
    set_random_seed(cfg.seed)
    torch.set_num_threads(1)
    game = envs.make_game(cfg.game, **cfg.options)
    run = Run(cfg, game, envs.make_encoder(cfg.game, game), RunSeeds.from_seed(cfg.seed, cfg.n_envs), hooks(cfg.game))
    opponents = build_opponents(run)
    model = build_learner(run, build_envs(run, opponents))
    if opponents.pool is not None:
        live_seq = child(run.seeds.agents, len(opponents.pool.baselines))  # after the baselines
        opponents.pool.live = TorchPolicyAgent(model.policy, run.encoder, np.random.default_rng(live_seq), name="live")
    curve = Curve(run, model, opponents)
    model.learn(total_timesteps=cfg.timesteps, callback=curve_callback(run, model, opponents, curve, progress))
    if curve.rows[-1]["timesteps"] < model.num_timesteps:
        curve.measure(model.num_timesteps)
    return save(run, model, opponents, curve, t0, verbose)
