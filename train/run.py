"""Training for every game: MaskablePPO (sb3-contrib) through `OpponentEnv`.

The learner takes a random seat each episode among opponent agents given by id,
or — with self-play — among opponents drawn each episode from a pool of frozen
snapshots of itself, its live policy, and baseline agents. Every run writes to
its folder:

- `model.zip` — the MaskablePPO model (`ppo:<folder>` plays it in `evaluate`),
- `config.json` — game, options, opponents, hyperparameters, seed, versions,
- `curve.csv` and `curve.png` — the learning curve: mean episode return, the
  periodic evaluation's win rate / mean score against the baselines, and any
  game-specific metric (simple poker: exact exploitability),
- `eval.json` — the final evaluation: `{"tournaments": [...]}`, one per line-up
  (self-play: the shipped policy against each baseline, or `random`).
"""

from __future__ import annotations

import copy
import csv
import dataclasses
import importlib
import importlib.util
import os
import platform
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import agents as agent_registry
import envs
from envs.core.single_agent import OpponentEnv
from evaluate.jsonio import write_json

DEFAULTS: dict[str, Any] = {
    "timesteps": 50_000,
    "opponents": ["random"],
    "control": "one_seat",
    "options": {},
    "n_envs": 4,
    "n_steps": 256,
    "batch_size": 256,
    "n_epochs": 4,
    "learning_rate": 3e-4,
    "net_arch": [64, 64],
    "ent_coef": 0.01,
    "gamma": 0.99,
    "eval_every": 10_000,
    "eval_games": 200,
    "final_eval_games": 2000,
    "snapshot_every": 10_000,
    "pool_size": 50,
    "baselines": [],
    "meta_solver": "uniform",
    "meta_games": 200,
}


@dataclass
class TrainConfig:
    """Everything that defines a training run (saved as `config.json`)."""

    game: str
    options: dict[str, Any] = field(default_factory=dict)
    opponents: list[str] = field(default_factory=lambda: ["random"])
    self_play: bool = False
    baselines: list[str] = field(default_factory=list)
    control: str = "one_seat"
    timesteps: int = 50_000
    seed: int = 0
    n_envs: int = 4
    n_steps: int = 256
    batch_size: int = 256
    n_epochs: int = 4
    learning_rate: float = 3e-4
    net_arch: list[int] = field(default_factory=lambda: [64, 64])
    ent_coef: float = 0.01
    gamma: float = 0.99
    eval_every: int = 10_000
    eval_games: int = 200
    final_eval_games: int = 2000
    snapshot_every: int = 10_000
    pool_size: int = 50
    meta_solver: str = "uniform"
    meta_games: int = 200
    out: str = ""

    def __post_init__(self) -> None:
        if self.timesteps < 1:
            raise ValueError(f"timesteps must be >= 1, got {self.timesteps}")
        if self.n_envs < 1:
            raise ValueError(f"n_envs must be >= 1, got {self.n_envs}")
        if self.control not in ("one_seat", "all_seats"):
            raise ValueError(f"control must be 'one_seat' or 'all_seats', got {self.control!r}")
        if self.meta_solver not in ("uniform", "nash"):
            raise ValueError(f"meta_solver must be 'uniform' or 'nash', got {self.meta_solver!r}")


def preset(game: str) -> dict[str, Any]:
    """The game's training preset (`train/presets/<game>.py`) over the defaults."""
    out = dict(DEFAULTS)
    name = f"train.presets.{game}"
    if importlib.util.find_spec(name) is not None:
        out.update(importlib.import_module(name).PRESET)
    return out


def _game_metrics_fn(game_name: str):
    name = f"evaluate.{game_name}"
    if importlib.util.find_spec(name) is None:
        return None
    return getattr(importlib.import_module(name), "training_metrics", None)


class OpponentPool:
    """Opponents for self-play: frozen snapshots of the learner and baseline
    agents, drawn for each opponent seat by the pool's meta-strategy.

    `meta_solver="uniform"` weighs every member equally (fictitious play: the
    learner trains against, and the run ships, the average of its past
    policies). `"nash"` (two-player zero-sum games) keeps the payoff matrix
    between members and weighs them by its Nash equilibrium, solved exactly by
    LP (PSRO's meta-solver). The live policy plays only until the first
    snapshot exists: training against one's own last iterate cycles in games
    whose equilibria are mixed.
    """

    def __init__(self, game: Any, baselines: list[Any], pool_size: int, meta_solver: str = "uniform",
                 match_value: Any = None):
        self.game = game
        self.baselines = list(baselines)
        self.pool_size = pool_size
        self.meta_solver = meta_solver
        self.match_value = match_value
        self.snapshots: list[Any] = []
        self.live: Any = None
        self.payoff = np.zeros((0, 0))  # payoff[i, j]: member i's mean result against member j
        self.weights = np.zeros(0)

    def members(self) -> list[Any]:
        """Everything an opponent seat can be drawn from."""
        out = list(self.snapshots) + self.baselines
        if not self.snapshots and self.live is not None:
            out.append(self.live)
        return out

    def add(self, agent: Any) -> None:
        """Add a snapshot (dropping the oldest past `pool_size`) and re-solve the meta-game."""
        if self.meta_solver == "nash":
            members = list(self.snapshots) + self.baselines
            row = np.array([self.match_value(agent, m) for m in members])
            k = len(members)
            grown = np.zeros((k + 1, k + 1))
            grown[:k, :k] = self.payoff
            grown[k, :k] = row
            grown[:k, k] = -row
            # keep snapshots first, baselines last
            ns = len(self.snapshots)
            order = list(range(ns)) + [k] + list(range(ns, k))
            self.payoff = grown[np.ix_(order, order)]
        self.snapshots.append(agent)
        if len(self.snapshots) > self.pool_size:
            self.snapshots.pop(0)
            if self.meta_solver == "nash":
                self.payoff = self.payoff[1:, 1:]
        self._solve()

    def _solve(self) -> None:
        k = len(self.snapshots) + len(self.baselines)
        if self.meta_solver == "uniform" or k == 0:
            self.weights = np.full(k, 1.0 / max(k, 1))
            return
        from agents.search.matrix_game import solve_matrix_game

        _, p = solve_matrix_game(self.payoff.T)  # column player = the mixture, rows = its opponents
        self.weights = p

    def draw(self, rng: np.random.Generator) -> list[Any]:
        """`num_players - 1` opponents for one episode."""
        members = self.members()
        n_opp = self.game.num_players - 1
        if not self.snapshots and not self.baselines:
            return [self.live] * n_opp
        w = self.weights if len(self.weights) == len(members) else None
        return [members[int(rng.choice(len(members), p=w))] for _ in range(n_opp)]

    def mixture(self, rng: np.random.Generator) -> Any:
        """The pool's meta-strategy as one agent (what a self-play run ships)."""
        from agents.policy import MixtureAgent

        k = len(self.snapshots)
        w = self.weights[:k] if len(self.weights) else np.ones(k)
        if w.sum() <= 0:  # the meta-Nash is all on baselines: fall back to the newest snapshot
            w = np.eye(k)[-1]
        return MixtureAgent(list(self.snapshots), rng, weights=w)


def simulated_match_value(game: Any, games: int, seed: int):
    """`value(a, b)`: a's mean return against b over `games` seeded deals, each
    played from both seats (two-player games)."""
    from envs.core.play import play_game

    def value(a: Any, b: Any) -> float:
        rng = np.random.default_rng(seed)
        total = 0.0
        for _ in range(games):
            start = game.initial_state(rng)
            total += play_game(game, [a, b], start)[0][0] + play_game(game, [b, a], start)[0][1]
        return total / (2 * games)

    return value


def _expand_opponents(ids: list[str], n: int) -> list[str]:
    from evaluate.tournament import expand_agent_ids

    ids = expand_agent_ids(ids)
    if len(ids) == 1 and n - 1 > 1:
        ids = ids * (n - 1)
    if len(ids) != n - 1:
        raise ValueError(f"this game seats {n} players: give 1 or {n - 1} opponent ids, got {len(ids)}: {ids}")
    return ids


def evaluate_policy_agent(game: Any, learner: Any, opponents: list[Any], games: int, rng: np.random.Generator) -> dict[str, float]:
    """Win rate and mean score of `learner` over `games` games at random seats."""
    from envs.core.play import play_game

    n = game.num_players
    wins, score = 0.0, 0.0
    for _ in range(games):
        seat = int(rng.integers(n))
        others = [opponents[int(rng.integers(len(opponents)))] for _ in range(n - 1)]
        seated = others[:seat] + [learner] + others[seat:]
        state = game.initial_state(rng)
        ret, won, _ = play_game(game, seated, state)
        wins += seat in won
        score += ret[seat]
    return {"eval_win_rate": wins / games, "eval_mean_score": score / games}


def train(cfg: TrainConfig, progress: bool = True, verbose: bool = True) -> dict[str, Any]:
    """Run one training job; returns a summary (also written under `cfg.out`)."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.utils import set_random_seed
    from stable_baselines3.common.vec_env import DummyVecEnv, VecMonitor

    from agents.policy import TorchPolicyAgent
    from evaluate.tournament import format_table, run_tournament

    t0 = time.time()
    out = cfg.out or os.path.join("runs", f"{cfg.game}-{time.strftime('%Y%m%d-%H%M%S')}")
    os.makedirs(out, exist_ok=True)
    cfg.out = out
    set_random_seed(cfg.seed)
    torch.set_num_threads(1)
    game = envs.make_game(cfg.game, **cfg.options)
    encoder = envs.make_encoder(cfg.game, game)
    n = game.num_players
    root = np.random.SeedSequence(cfg.seed)
    env_seqs = root.spawn(cfg.n_envs)
    agent_seq, eval_seq = root.spawn(2)[0], root.spawn(3)[2]

    def build(ids: list[str], seq: np.random.SeedSequence) -> list[Any]:
        return [agent_registry.make(a, game, np.random.default_rng(s), game_name=cfg.game) for a, s in zip(ids, seq.spawn(len(ids)))]

    pool: OpponentPool | None = None
    if cfg.control == "all_seats":
        opponent_ids: list[str] = []
    elif cfg.self_play:
        opponent_ids = list(cfg.baselines)
        match_value = None
        if cfg.meta_solver == "nash":
            if n != 2:
                raise ValueError(f"meta_solver='nash' needs a two-player zero-sum game; {cfg.game} seats {n}")
            hook = getattr(importlib.import_module(f"evaluate.{cfg.game}"), "exact_match_value", None) if importlib.util.find_spec(f"evaluate.{cfg.game}") else None
            match_value = (lambda a, b: hook(game, a, b)) if hook else simulated_match_value(game, cfg.meta_games, cfg.seed)
        pool = OpponentPool(game, build(opponent_ids, agent_seq), cfg.pool_size, cfg.meta_solver, match_value)
    else:
        opponent_ids = _expand_opponents(cfg.opponents, n)

    def make_env(i: int):
        def thunk():
            if cfg.control == "all_seats":
                opps: Any = ()
            elif pool is not None:
                opps = pool.draw
            else:
                opps = build(opponent_ids, env_seqs[i].spawn(1)[0])
            seed = int(env_seqs[i].generate_state(1)[0])
            return OpponentEnv(game, encoder, opps, control=cfg.control, seed=seed)

        return thunk

    vec = VecMonitor(DummyVecEnv([make_env(i) for i in range(cfg.n_envs)]))
    # Tiny runs still get a curve and a pool: at least ~10 points of each.
    eval_every = max(1, min(cfg.eval_every, cfg.timesteps // 10 or 1))
    snapshot_every = max(1, min(cfg.snapshot_every, cfg.timesteps // 10 or 1))
    model = MaskablePPO(
        "MlpPolicy", vec, seed=cfg.seed, device="cpu", verbose=0,
        n_steps=cfg.n_steps, batch_size=cfg.batch_size, n_epochs=cfg.n_epochs,
        learning_rate=cfg.learning_rate, ent_coef=cfg.ent_coef, gamma=cfg.gamma,
        policy_kwargs={"net_arch": list(cfg.net_arch)},
    )
    if pool is not None:
        pool.live = TorchPolicyAgent(model.policy, encoder, np.random.default_rng(agent_seq.spawn(1)[0]), name="live")
    eval_rng = np.random.default_rng(eval_seq)
    eval_opponents = build(opponent_ids or ["random"], eval_seq.spawn(1)[0]) if cfg.control == "one_seat" else []
    metrics_fn = _game_metrics_fn(cfg.game)
    rows: list[dict[str, float]] = []
    recent: deque[float] = deque(maxlen=200)

    def measure(step: int) -> dict[str, float]:
        learner: Any = TorchPolicyAgent(model.policy, encoder, np.random.default_rng(eval_rng.integers(2**32)))
        if pool is not None and pool.snapshots:
            # Measure what the run ships: the pool's meta-strategy over snapshots.
            learner = pool.mixture(np.random.default_rng(eval_rng.integers(2**32)))
        row: dict[str, float] = {"timesteps": float(step), "mean_return": float(np.mean(recent)) if recent else float("nan")}
        if cfg.control == "one_seat" and cfg.eval_games > 0:
            row.update(evaluate_policy_agent(game, learner, eval_opponents, cfg.eval_games, eval_rng))
        elif cfg.control == "all_seats" and cfg.eval_games > 0:
            from envs.core.play import play_game

            team = [learner] * n
            res = [play_game(game, team, game.initial_state(eval_rng)) for _ in range(cfg.eval_games)]
            row["eval_mean_score"] = float(np.mean([r[0][0] for r in res]))
            row["eval_win_rate"] = float(np.mean([len(r[1]) > 0 for r in res]))
        if metrics_fn is not None:
            row.update(metrics_fn(game, learner))
        if pool is not None and pool.snapshots and "exploitability" in row:
            # An exact exploitability is a true score of the mixture: keep the best one.
            if best["exploitability"] is None or row["exploitability"] < best["exploitability"]:
                best.update(exploitability=row["exploitability"], timesteps=step, members=list(learner.members), weights=learner.weights.copy())
        return row

    best: dict[str, Any] = {"exploitability": None}

    class Hooks(BaseCallback):
        def __init__(self):
            super().__init__()
            self.next_eval = eval_every
            self.next_snap = snapshot_every
            self.bar = None

        def _on_training_start(self) -> None:
            if progress:
                from tqdm import tqdm

                self.bar = tqdm(total=cfg.timesteps, desc=f"train {cfg.game}", unit="step", leave=False)
            rows.append(measure(0))

        def _on_step(self) -> bool:
            for info in self.locals.get("infos", []):
                ep = info.get("episode")
                if ep is not None:
                    recent.append(float(ep["r"]))
            t = self.num_timesteps
            if self.bar is not None:
                self.bar.update(t - self.bar.n)
            if pool is not None and t >= self.next_snap:
                frozen = copy.deepcopy(model.policy)
                frozen.set_training_mode(False)
                pool.add(TorchPolicyAgent(frozen, encoder, np.random.default_rng(agent_seq.spawn(1)[0]), name=f"snapshot@{t}"))
                self.next_snap += snapshot_every
            if t >= self.next_eval:
                rows.append(measure(t))
                self.next_eval += eval_every
            return True

        def _on_training_end(self) -> None:
            if self.bar is not None:
                self.bar.close()

    model.learn(total_timesteps=cfg.timesteps, callback=Hooks())
    if rows[-1]["timesteps"] < model.num_timesteps:
        rows.append(measure(model.num_timesteps))
    model.save(os.path.join(out, "model.zip"))
    config = dataclasses.asdict(cfg)
    config["play"] = "last"
    if pool is not None and pool.snapshots:
        # Self-play ships the pool's meta-strategy (a mixture: each game is played
        # by one snapshot drawn by weight) — with an exact exploitability, the
        # least exploitable one measured during the run.
        final = pool.mixture(np.random.default_rng(0))
        members, weights = final.members, final.weights
        if best["exploitability"] is not None:
            members, weights = best["members"], best["weights"]
            config["selected"] = {"by": "exact exploitability (lowest measured)", "timesteps": best["timesteps"],
                                  "exploitability": best["exploitability"], "final_exploitability": rows[-1].get("exploitability")}
        torch.save([a.policy.state_dict() for a in members], os.path.join(out, "snapshots.pt"))
        config["play"] = "average"
        config["mixture_weights"] = [float(w) for w in weights]
    import gymnasium
    import pettingzoo
    import sb3_contrib

    config["versions"] = {
        "python": platform.python_version(), "torch": torch.__version__, "sb3_contrib": sb3_contrib.__version__,
        "pettingzoo": pettingzoo.__version__, "gymnasium": gymnasium.__version__, "numpy": np.__version__,
    }
    config["train_seconds"] = time.time() - t0
    write_json(os.path.join(out, "config.json"), config)
    write_curve(rows, out, title=f"{cfg.game} — MaskablePPO{' self-play' if cfg.self_play else ''}")
    summary: dict[str, Any] = {"out": out, "train_seconds": config["train_seconds"], "final": rows[-1]}
    if cfg.final_eval_games > 0:
        me = f"ppo:{out}"
        if cfg.control == "all_seats":
            lineups = [[me] * n]
        elif pool is not None:
            # Self-play: the shipped policy against each baseline (or random) in every other seat.
            lineups = [[me] + [b] * (n - 1) for b in dict.fromkeys(cfg.baselines or ["random"])]
        else:
            lineups = [[me] + opponent_ids]
        results = []
        for ids in lineups:
            result = run_tournament(cfg.game, ids, games=cfg.final_eval_games, seed=cfg.seed + 1, options=cfg.options, progress=False)
            results.append(result.to_dict())
            if verbose:
                print(format_table(result))
        write_json(os.path.join(out, "eval.json"), {"tournaments": results})
        summary["evaluation"] = results
    if verbose:
        extra = {k: round(v, 4) for k, v in rows[-1].items() if k != "timesteps"}
        print(f"saved {out}/model.zip, config.json, curve.csv, curve.png ({config['train_seconds']:.0f} s); final: {extra}")
        if "selected" in config:
            sel = config["selected"]
            print(f"shipped the mixture of step {sel['timesteps']} ({sel['by']}: {sel['exploitability']:.4f})")
    return summary


def write_curve(rows: list[dict[str, float]], out: str, title: str) -> None:
    """Write the learning curve as CSV and PNG."""
    keys = sorted({k for r in rows for k in r if k != "timesteps"})
    with open(os.path.join(out, "curve.csv"), "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["timesteps"] + keys)
        for r in rows:
            w.writerow([int(r["timesteps"])] + [r.get(k, "") for k in keys])
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(keys), 1, figsize=(7, 2.2 * len(keys)), sharex=True, squeeze=False)
    x = [r["timesteps"] for r in rows]
    for ax, k in zip(axes[:, 0], keys):
        ax.plot(x, [r.get(k, float("nan")) for r in rows], marker="o", ms=3)
        ax.set_ylabel(k.replace("_", " "), fontsize=8)
        ax.grid(alpha=0.3)
    axes[-1, 0].set_xlabel("timesteps")
    axes[0, 0].set_title(title)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "curve.png"), dpi=110)
    plt.close(fig)
