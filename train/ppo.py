"""`--learner sb3`: sb3-contrib's MaskablePPO on the game's compiled vector env (`envs.core.to_sb3`), driven by the
default learner's frame (`train.vector_ppo`) through `SB3Learner`: the same run folder, plus `model.zip` and, with a
self-play pool (`train.pool`), `snapshots.pt`. A game with no compiled vector env trains on Python tables.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

import agents as agent_registry
import envs
from agents.policy import TorchPolicyAgent
from train.checkpoint import (
    atomic_path,
    legacy_numpy_state,
    misfit,
    rng_state,
    set_legacy_numpy_state,
    set_rng_state,
)
from train.config import TrainConfig
from train.pool import OpponentPool, VectorPool, simulated_match_value
from train.presets import GameHooks, hooks
from train.run import (
    check_out,
    seat_line_up,
    student_folder,
)
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
    """Who the learner plays: fixed ids, or a self-play pool."""

    ids: list[str]
    pool: OpponentPool | None
    vector: Any = None  # the pool seated in the vector env (`VectorPool`), where self-play runs there


def build_opponents(run: Run) -> Opponents:
    """The opponents' ids and the self-play pool (baselines from the agents stream)."""
    cfg, n = run.cfg, run.game.num_players
    pool = None
    if cfg.control == "all_seats" and not envs.spec(cfg.game).cooperative:
        # one SB3 trajectory through every seat's moves would credit each seat with the others' returns
        raise ValueError(f"control='all_seats' with MaskablePPO is for cooperative games (one team return); "
                         f"{cfg.game}'s seats each have their own: use --self-play, --opponents, or the default "
                         f"learner: `python -m train {cfg.game} --learner cleanrl --control all_seats`")
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
        ids = seat_line_up(cfg.opponents, n)
    return Opponents(ids, pool)


#: Bytes a rollout buffer may take (observations, masks, values...): a larger n_envs x n_steps is refused.
MAX_BUFFER_BYTES = 8 * 2**30


def build_envs(run: Run, opponents: Opponents, resumed_at: int = 0) -> Any:
    """The run's compiled env as one monitored SB3 `VecEnv`: the fixed line-up's kernels, or a two-player self-play
    pool seated as batch policies and kernels (`opponents.vector`); Python tables without one (`python_tables`). A
    resumed run whose tables a checkpoint cannot hold (`resumed_at`: its step) plays fresh, reseeded tables.

    Raises:
        ValueError: the run cannot have a compiled vector env (one line saying why).
    """
    from stable_baselines3.common.vec_env import VecMonitor

    from agents.vector import has_vector_env, resolve_opponents, vector_env
    from envs.core.sb3 import to_sb3

    cfg = run.cfg
    obs_size = int(np.prod(run.encoder.observation_space.shape))
    need = cfg.n_envs * cfg.n_steps * (obs_size + run.game.num_actions + 8) * 4
    if need > MAX_BUFFER_BYTES:
        raise ValueError(f"n_envs x n_steps = {cfg.n_envs} x {cfg.n_steps} needs a rollout buffer of "
                         f"{need / 2**30:.1f} GiB (at most {MAX_BUFFER_BYTES / 2**30:.0f}): lower --n-envs or n_steps")
    if not has_vector_env(cfg.game):
        return python_tables(run, opponents, resumed_at)
    if opponents.pool is not None and run.game.num_players != 2:
        raise ValueError(f"a self-play pool plays on the compiled vector env in two-player games; {cfg.game} seats "
                         f"{run.game.num_players} here: use --control all_seats (one policy in every seat) or "
                         "--opponents")
    seed = (run.seeds.resumed(resumed_at) if resumed_at else run.seeds).env_seed(0)
    if opponents.pool is not None:
        kernels = resolve_opponents(cfg.game, list(cfg.baselines), cfg.options)
        twin = run.hooks.opponent_kernel
        vp = VectorPool(opponents.pool, None, kernels, (lambda a: twin(run.game, a)) if twin else None)
        venv = vp.venv = vector_env(cfg.game, cfg.n_envs, opponents=vp.opponents(), seed=seed, **cfg.options)
        opponents.vector = vp
        why = "self-play: the pool's snapshots and live policy are batch policies, one forward a turn"
    else:
        # control="all_seats" goes to the game's vector env too; one without it refuses (ValueError: the reason)
        control = {} if cfg.control == "one_seat" else {"control": cfg.control}
        venv = vector_env(cfg.game, cfg.n_envs, opponents=opponents.ids, seed=seed, **control, **cfg.options)
        why = (f"control={cfg.control}: the policy plays every seat of the compiled tables" if control else
               f"opponents {', '.join(opponents.ids)} are compiled kernels" if opponents.ids else
               "no opponents (one seat)")
    print(f"train {cfg.game}: vector env ({cfg.n_envs} compiled tables): {why}", flush=True)
    return VecMonitor(to_sb3(venv))


def python_tables(run: Run, opponents: Opponents, resumed_at: int = 0) -> Any:
    """`n_envs` `OpponentEnv`s in a `DummyVecEnv`, for a game with no compiled vector env (slow, the same frame).

    Raises:
        ValueError: a self-play pool (it plays on a compiled vector env only).
    """
    from stable_baselines3.common.vec_env import DummyVecEnv, VecMonitor

    from envs.core.single_agent import OpponentEnv

    cfg = run.cfg
    if opponents.pool is not None:
        raise ValueError(f"a self-play pool plays on a compiled vector env, which {cfg.game} has not: use --opponents")
    seeds = run.seeds.resumed(resumed_at) if resumed_at else run.seeds
    print(f"train {cfg.game}: OpponentEnv ({cfg.n_envs} Python tables): {cfg.game} has no compiled vector env",
          flush=True)

    def table(i: int) -> Any:
        opps = () if cfg.control == "all_seats" else run.build(opponents.ids, child(seeds.envs[i], 0))
        return lambda: OpponentEnv(run.game, run.encoder, opps, control=cfg.control, seed=seeds.env_seed(i))

    return VecMonitor(DummyVecEnv([table(i) for i in range(cfg.n_envs)]))


def build_learner(run: Run, vec: Any) -> Any:
    """The MaskablePPO model (CPU, seeded with the run's seed), started from `init_from`'s student if given."""
    from sb3_contrib import MaskablePPO

    from agents.policy import activation_fn

    cfg = run.cfg
    model = MaskablePPO(
        "MlpPolicy", vec, seed=cfg.seed, device="cpu", verbose=0,
        n_steps=cfg.n_steps, batch_size=cfg.batch_size, n_epochs=cfg.n_epochs,
        learning_rate=cfg.learning_rate, ent_coef=cfg.ent_coef, gamma=cfg.gamma,
        policy_kwargs={"net_arch": list(cfg.net_arch), "activation_fn": activation_fn(cfg.activation)},
    )
    if cfg.init_from:
        init_from_student(model.policy, student_folder(cfg.init_from), run)
    return model


def init_from_student(policy: Any, folder: str, run: Run) -> None:
    """Copy a `masked_policy` student's weights into an SB3 `MlpPolicy` of its sizes: its body and logits are the
    actor, its body and value head the critic.

    Raises:
        ValueError: a student of another kind, game, observation or action count, or a network that differs.
    """
    import torch

    from agents.learned import load_student
    from train.networks import copy_actor

    student = load_student(folder)
    what = f"--init-from {folder!r}"
    if student.kind != "masked_policy":
        raise ValueError(f"{what} is an {student.kind} student; MaskablePPO starts only from masked_policy students "
                         "(one logit per action over the observation)")
    if student.action_table:
        raise ValueError(f"{what} adds an action table to its logits, which SB3's MlpPolicy has no place for; continue "
                         "it with the default learner (python -m train GAME --learner cleanrl --init-from FOLDER)")
    obs_dim = int(np.prod(run.encoder.observation_space.shape))
    if (student.game_name, student.dims["obs_dim"], student.num_actions) != (run.cfg.game, obs_dim,
                                                                              run.game.num_actions):
        raise ValueError(f"{what} plays {student.game_name} with options {student.options} (observation "
                         f"{student.dims['obs_dim']}, {student.num_actions} actions); this run plays {run.cfg.game} "
                         f"(observation {obs_dim}, {run.game.num_actions} actions)")
    if list(run.cfg.net_arch) != student.hidden or run.cfg.activation != student.activation:
        raise ValueError(f"{what} has hidden layers {student.hidden} with {student.activation}; the run's network is "
                         f"{list(run.cfg.net_arch)} with {run.cfg.activation}")
    src = student.net.state_dict()
    extractor = policy.mlp_extractor
    copy_actor(src, [*(m for m in extractor.policy_net if isinstance(m, torch.nn.Linear)), policy.action_net])
    critic = {**src, "logits.weight": src["value.weight"], "logits.bias": src["value.bias"]}
    copy_actor(critic, [*(m for m in extractor.value_net if isinstance(m, torch.nn.Linear)), policy.value_net])


def episodes_callback(ended: list[tuple[float, int]]) -> Any:
    """The SB3 callback of a rollout: appends the return and length of each episode that ends to `ended`."""
    from stable_baselines3.common.callbacks import BaseCallback

    class Episodes(BaseCallback):
        def _on_step(self) -> bool:
            for info in self.locals.get("infos", []):
                ep = info.get("episode")
                if ep is not None:
                    ended.append((float(ep["r"]), int(ep["l"])))
            return True

    return Episodes()


#: The SB3 logger's figures of an update, under the history's names (the default learner's).
SB3_FIGURES = {"pg_loss": "train/policy_gradient_loss", "v_loss": "train/value_loss", "approx_kl": "train/approx_kl",
               "clipfrac": "train/clip_fraction", "explained_variance": "train/explained_variance",
               "lr": "train/learning_rate"}


class SB3Learner:
    """MaskablePPO driven an update at a time by the run frame (`train.vector_ppo.learn`), as the default learner is.

    SB3 samples from torch's and NumPy's global generators: their states are kept between updates (so evaluation
    games between them change nothing) and in `state()`, with the weights, optimiser, monitor and every compiled
    table's game: a fixed line-up on the compiled env resumes to the bit (Python tables and a pool's tables are
    dealt afresh)."""

    title = "MaskablePPO"

    def __init__(self, run: Run, model: Any, opponents: Opponents, restorable: bool):
        import torch

        cfg = run.cfg
        self.run, self.model, self.opponents, self.restorable = run, model, opponents, restorable
        self.max_seconds = 60.0 * cfg.max_minutes if cfg.max_minutes else None
        self.snapshot_every = max(1, min(cfg.snapshot_every, cfg.timesteps // 10 or 1))
        self.snapshots_taken = 0
        self.ended: list[tuple[float, int]] = []
        self.evaluator: PoolEvaluator | None = None
        self.total, self.callback = model._setup_learn(cfg.timesteps, episodes_callback(self.ended),
                                                      reset_num_timesteps=True)
        self.callback.on_training_start(locals(), globals())
        self.rngs = (torch.get_rng_state(), legacy_numpy_state())
        self.wall_before, self.start = 0.0, time.perf_counter()

    @property
    def policy(self) -> Any:
        """SB3's `MaskableActorCriticPolicy`."""
        return self.model.policy

    @property
    def steps(self) -> int:
        """Learner steps so far."""
        return int(self.model.num_timesteps)

    @property
    def done(self) -> bool:
        """Whether the planned steps are made."""
        return self.steps >= self.run.cfg.timesteps

    def wall(self) -> float:
        """Seconds of learning in all (this process's and a resumed run's before)."""
        return self.wall_before + time.perf_counter() - self.start

    def update(self) -> dict[str, Any]:
        """Collect one rollout and learn from it; returns the update's history entry."""
        import torch

        model, cfg = self.model, self.run.cfg
        torch.set_rng_state(self.rngs[0])
        set_legacy_numpy_state(self.rngs[1])
        before = self.steps
        for module in (model.policy.mlp_extractor.policy_net, model.policy.action_net):  # frozen: the critic alone
            for p in module.parameters():
                p.requires_grad_(before >= cfg.critic_warmup)
        self.ended.clear()
        t = time.perf_counter()
        model.collect_rollouts(model.env, self.callback, model.rollout_buffer, model.n_steps, use_masking=True)
        collect_s = time.perf_counter() - t
        model._update_current_progress_remaining(model.num_timesteps, self.total)
        t = time.perf_counter()
        model.train()
        learn_s = time.perf_counter() - t
        self.rngs = (torch.get_rng_state(), legacy_numpy_state())
        if self.opponents.pool is not None and before // self.snapshot_every < self.steps // self.snapshot_every:
            self._snapshot()
        figures = model.logger.name_to_value
        wall = self.wall()
        returns = [r for r, _ in self.ended]
        return {"update": model._n_updates // model.n_epochs, "steps": self.steps, "wall_s": wall,
                "steps_per_s": self.steps / wall, "collect_s": collect_s, "learn_s": learn_s,
                "episodes": len(returns), "mean_return": float(np.mean(returns)) if returns else float("nan"),
                "mean_length": float(np.mean([n for _, n in self.ended])) if self.ended else float("nan"),
                **{k: float(figures.get(v, float("nan"))) for k, v in SB3_FIGURES.items()},
                "entropy": -float(figures.get("train/entropy_loss", float("nan")))}

    def _snapshot(self) -> None:
        """Freeze the live policy into the self-play pool and seat the pool anew."""
        pool, t = self.opponents.pool, self.steps
        first = len(pool.baselines) + 1  # the agents stream's children: the baselines, the live policy, snapshots
        seq = child(self.run.seeds.agents, first + self.snapshots_taken)
        frozen = self._frozen(self.model.policy.state_dict(), f"snapshot@{t}", None)
        frozen.rng = np.random.default_rng(seq)
        pool.add(frozen)
        if self.opponents.vector is not None:
            self.opponents.vector.sync()
        self.snapshots_taken += 1

    def student(self) -> Any:
        """The actor as it is saved: a `masked_policy` student (`play="sample"`; its value head zero: the critic's
        own body is in `model.zip` only)."""
        import torch

        from train.networks import masked_student
        from train.vector_ppo import rules_of

        cfg, policy = self.run.cfg, self.model.policy
        linears = [*(m for m in policy.mlp_extractor.policy_net if isinstance(m, torch.nn.Linear)), policy.action_net]
        return masked_student(linears, cfg.game, rules_of(cfg.options), game_obj=self.run.game,
                              activation=cfg.activation, play="sample")

    def write_policy(self, folder: str, prov: dict[str, Any]) -> str:
        """Write the actor in the one saved-policy format (`learned:<folder>` plays it)."""
        from agents.learned import save_student

        return save_student(self.student(), folder, provenance=prov | {"options": self.run.cfg.options,
                                                                        "opponents": self.opponents.ids})

    def final_files(self, out: str) -> dict[str, Any]:
        """SB3's own files of a finished run: `model.zip` and, for self-play, the shipped mixture (`snapshots.pt`:
        the pool's meta-strategy, or the least exploitable one measured); returns what `config.json` adds."""
        import torch

        with atomic_path(os.path.join(out, "model.zip")) as tmp:
            self.model.save(tmp)
        pool = self.opponents.pool
        if pool is None or not pool.snapshots:
            return {"play": "last"}
        final = pool.mixture(np.random.default_rng(0))
        members, weights, extra = final.members, final.weights, {"play": "average"}
        best = self.evaluator.best if self.evaluator is not None else {"exploitability": None}
        if best["exploitability"] is not None:
            members, weights = best["members"], best["weights"]
            extra["selected"] = {"by": "exact exploitability (lowest measured)", "timesteps": best["timesteps"],
                                 "exploitability": best["exploitability"]}
            print(f"train {self.run.cfg.game}: ships the mixture of step {best['timesteps']} (the lowest exact "
                  f"exploitability measured: {best['exploitability']:.4f})", flush=True)
        with atomic_path(os.path.join(out, "snapshots.pt")) as tmp:
            torch.save([a.policy.state_dict() for a in members], tmp)
        return extra | {"mixture_weights": [float(w) for w in weights]}

    def state(self) -> dict[str, Any]:
        """Everything the run is after its last update: `{"numbers", "tensors", "arrays"}` (`train.checkpoint`)."""
        from envs.core.vector_state import vector_state

        model, pool, monitor = self.model, self.opponents.pool, self.model.env
        numbers: dict[str, Any] = {"steps": self.steps, "updates": model._n_updates, "wall_s": self.wall(),
                                   "numpy_rng": self.rngs[1], "snapshots_taken": self.snapshots_taken}
        tensors: dict[str, Any] = {"policy": model.policy.state_dict(), "torch_rng": self.rngs[0],
                                   "optimizer": model.policy.optimizer.state_dict()}
        arrays = {"monitor/returns": np.asarray(monitor.episode_returns, np.float64),
                  "monitor/lengths": np.asarray(monitor.episode_lengths, np.int64)}
        if self.restorable:
            arrays |= {f"venv/{k}": v for k, v in vector_state(model.env.venv.venv).items()}
            arrays |= {"last_obs": np.asarray(model._last_obs), "last_starts": np.asarray(model._last_episode_starts)}
        if pool is not None:
            numbers["pool"] = {"names": [a.name for a in pool.snapshots],
                               "rngs": [rng_state(a.rng) for a in pool.snapshots],
                               "baseline_rngs": [rng_state(getattr(a, "rng", None)) for a in pool.baselines],
                               "live_rng": rng_state(pool.live.rng), "payoff": np.asarray(pool.payoff).tolist(),
                               "weights": np.asarray(pool.weights).tolist()}
            tensors["snapshots"] = [a.policy.state_dict() for a in pool.snapshots]
        best = self.evaluator.best if self.evaluator is not None else {"exploitability": None}
        if best["exploitability"] is not None:
            numbers["best"] = {"exploitability": best["exploitability"], "timesteps": best["timesteps"],
                               "weights": np.asarray(best["weights"]).tolist(),
                               "names": [m.name for m in best["members"]]}
            tensors["best"] = [m.policy.state_dict() for m in best["members"]]
        return {"numbers": numbers, "tensors": tensors, "arrays": arrays}

    def load_state(self, state: dict[str, Any]) -> None:
        """Put `state()`'s output back into a learner built alike (a ValueError of one line where it does not fit)."""
        from envs.core.vector_state import load_vector_state

        numbers, tensors, arrays = state["numbers"], state["tensors"], state["arrays"]
        model, monitor = self.model, self.model.env
        try:
            model.policy.load_state_dict(tensors["policy"])
            model.policy.optimizer.load_state_dict(tensors["optimizer"])
            self.rngs = (tensors["torch_rng"], numbers["numpy_rng"])
            model.num_timesteps, model._n_updates = int(numbers["steps"]), int(numbers["updates"])
            self.snapshots_taken = int(numbers["snapshots_taken"])
            monitor.episode_returns[:] = arrays["monitor/returns"]
            monitor.episode_lengths[:] = arrays["monitor/lengths"]
            if self.restorable:
                load_vector_state(model.env.venv.venv, {k[5:]: v for k, v in arrays.items() if k.startswith("venv/")})
                model._last_obs = np.array(arrays["last_obs"])
                model._last_episode_starts = np.array(arrays["last_starts"])
            if "pool" in numbers:
                self._load_pool(numbers["pool"], tensors["snapshots"])
            if "best" in numbers and self.evaluator is not None:
                b = numbers["best"]
                self.evaluator.best.update(exploitability=float(b["exploitability"]), timesteps=int(b["timesteps"]),
                                           weights=np.array(b["weights"], dtype=float),
                                           members=[self._frozen(sd, n, None) for sd, n in zip(tensors["best"],
                                                                                               b["names"])])
        except (KeyError, TypeError, ValueError, RuntimeError, IndexError) as e:
            raise misfit(e, self.run.cfg.out) from None
        self.wall_before, self.start = float(numbers["wall_s"]), time.perf_counter()

    def _frozen(self, weights: Any, name: str, rng: Any) -> TorchPolicyAgent:
        """A frozen snapshot of the learner's network with `weights`, its generator in state `rng`."""
        from agents.policy import build_policy

        cfg = self.run.cfg
        policy = build_policy(self.run.encoder, self.run.game.num_actions, list(cfg.net_arch), cfg.activation)
        policy.load_state_dict(weights)
        agent = TorchPolicyAgent(policy, self.run.encoder, np.random.default_rng(0), name=name)
        set_rng_state(agent.rng, rng)
        return agent

    def _load_pool(self, ps: dict[str, Any], snapshots: list[Any]) -> None:
        pool = self.opponents.pool
        pool.snapshots = [self._frozen(sd, n, rs) for sd, n, rs in zip(snapshots, ps["names"], ps["rngs"])]
        for a, rs in zip(pool.baselines, ps["baseline_rngs"]):
            set_rng_state(getattr(a, "rng", None), rs)
        set_rng_state(pool.live.rng, ps["live_rng"])
        pool.payoff = np.array(ps["payoff"], dtype=float).reshape(len(ps["payoff"]), len(ps["payoff"]))
        pool.weights = np.array(ps["weights"], dtype=float)
        if self.opponents.vector is not None:
            self.opponents.vector.sync()


class PoolEvaluator:
    """The curve's evaluation of an SB3 run: the frame's games (`base`, or None), a self-play pool's meta-strategy
    in the policy's place once it has snapshots, the game's `GameHooks.metrics`, and the least exploitable mixture
    measured (`best`)."""

    def __init__(self, run: Run, opponents: Opponents, base: Any):
        self.run, self.pool, self.base = run, opponents.pool, base
        self.levels = getattr(base, "levels", None)
        self.metrics: tuple[str, ...] = ()
        self.best: dict[str, Any] = {"exploitability": None}
        self.learner: Any = None  # the run's `SB3Learner` (the step of the best mixture)

    def measure(self, student: Any) -> dict[str, float]:
        """The figures of the policy (`student`: as it is saved) or of the pool's meta-strategy."""
        from agents.learned import LearnedAgent

        rng = np.random.default_rng(child(self.run.seeds.eval, 0))  # the same generator at every point
        pool = self.pool
        mixture = pool is not None and bool(pool.snapshots)
        agent = (pool.mixture(rng) if mixture else self.base.as_agent(student) if self.base is not None
                 else LearnedAgent(student, rng, sample=True, name="learner"))
        row = self.base.measure_agent(agent) if self.base is not None else {}
        if self.run.hooks.metrics is not None:
            found = self.run.hooks.metrics(self.run.game, agent)
            self.metrics = tuple(dict.fromkeys((*self.metrics, *found)))
            row.update(found)
        if mixture and "exploitability" in row and (self.best["exploitability"] is None
                                                     or row["exploitability"] < self.best["exploitability"]):
            self.best.update(exploitability=row["exploitability"], timesteps=self.learner.steps,
                             members=list(agent.members), weights=agent.weights.copy())
        return row

    def references(self) -> Any:
        """The base evaluator's reference lines (zero exploitability for self-play)."""
        refs = dict(self.base.references() or {}) if self.base is not None else {}
        if "exploitability" in self.metrics:
            refs["exploitability"] = [(0.0, "Nash equilibrium (0)")]
        return refs or None


def evaluator_of(run: Run, opponents: Opponents) -> PoolEvaluator:
    """The curve's evaluation of an SB3 run: a self-play run plays its baselines (or random)."""
    from train.curve import Evaluator
    from train.vector_ppo import evaluator_for

    cfg = run.cfg
    base = evaluator_for(cfg)
    if cfg.self_play and cfg.eval_games > 0:
        base = Evaluator(cfg.game, cfg.options, list(cfg.baselines) or ["random"], cfg.eval_games, cfg.seed,
                         list(cfg.eval_baselines))
    return PoolEvaluator(run, opponents, base)


def train(cfg: TrainConfig, progress: bool = True, verbose: bool = True, resume: Any = None,
          overwrite: bool = False) -> dict[str, Any]:
    """Run one MaskablePPO job inside the run frame; returns a summary (also written under `cfg.out`). The arguments
    and errors are `train.vector_ppo.train`'s (but a self-play pool and Python tables run here)."""
    import torch
    from stable_baselines3.common.utils import set_random_seed

    from agents.vector import has_vector_env
    from train.vector_ppo import run_learner, warm_up

    t0 = time.time()
    cfg.out = cfg.out or cfg.default_out()
    check_out(cfg.out, resume is not None, overwrite)
    set_random_seed(cfg.seed)
    torch.set_num_threads(1)
    game = envs.make_game(cfg.game, **cfg.options)
    run = Run(cfg, game, envs.make_encoder(cfg.game, game), RunSeeds.from_seed(cfg.seed, cfg.n_envs), hooks(cfg.game))
    opponents = build_opponents(run)
    restorable = has_vector_env(cfg.game) and opponents.pool is None
    start = int(resume[0]["step"]) if resume is not None and not restorable else 0
    model = build_learner(run, build_envs(run, opponents, start))
    if restorable:  # the kernels compiled (timed and said) before learning: --max-minutes counts learning only
        warm_up(cfg, lambda line: print(line, flush=True))
    if opponents.pool is not None:
        live_seq = child(run.seeds.agents, len(opponents.pool.baselines))  # after the baselines
        opponents.pool.live = TorchPolicyAgent(model.policy, run.encoder, np.random.default_rng(live_seq), name="live")
        if opponents.vector is not None:
            opponents.vector.attach_live(model.policy)
    learner = SB3Learner(run, model, opponents, restorable)
    learner.evaluator = evaluator = evaluator_of(run, opponents)
    evaluator.learner = learner
    return run_learner(cfg, learner, resume, overwrite, t0, evaluator, progress, verbose)
