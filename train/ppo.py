"""`--learner sb3`: sb3-contrib's MaskablePPO on the game's compiled vector env (`envs.core.to_sb3`).

The learner holds one seat against opponent agents given by id (compiled kernels), or, with self-play, against a
pool of frozen snapshots of itself, its live policy and baseline agents (`train.pool`: meta-strategy uniform or
meta-Nash); with `control="all_seats"` one policy acts for every seat of a cooperative game. A run writes the
frame's files (`policy/`, `config.json`, `curve.csv`/`curve.png`, `eval.json`) plus `model.zip` (SB3's format) and,
for self-play, `snapshots.pt` (the shipped mixture's members, with a game's exact exploitability the least
exploitable one measured). Checkpoints every `checkpoint_every` steps and at SIGTERM or Ctrl-C; `train(cfg,
resume=...)` (`python -m train --resume RUN`) continues it to the planned timesteps.
"""

from __future__ import annotations

import copy
import dataclasses
import os
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import agents as agent_registry
import envs
from agents.policy import TorchPolicyAgent
from train.checkpoint import (
    atomic_path,
    legacy_numpy_state,
    misfit,
    remove_checkpoint,
    rng_state,
    set_legacy_numpy_state,
    set_rng_state,
    write_checkpoint,
)
from train.config import TrainConfig
from train.curve import (
    WALL,
    baseline_levels,
    evaluate_policy_agent,
    evaluate_team,
    lineup_label,
    references_for,
    summary_line,
    write_curve,
)
from train.pool import OpponentPool, VectorPool, simulated_match_value
from train.presets import GameHooks, hooks
from train.run import (
    StopSignals,
    TrainingStoppedError,
    check_out,
    expand_opponents,
    make_out,
    provenance,
    student_folder,
)
from train.seeds import RunSeeds, child, children

#: The run's policy in the one saved-policy format (`agents.learned`), beside SB3's `model.zip`.
POLICY_DIR = "policy"


@dataclass
class Run:
    """A run's fixed parts: its config, engine, encoder, random streams and game hooks."""

    cfg: TrainConfig
    game: Any
    encoder: Any
    seeds: RunSeeds
    hooks: GameHooks
    #: The commit of the code the run started with (a checkpointed run may resume under another).
    commit: str = ""

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
    vector: Any = None  # the pool seated in the vector env (`VectorPool`), where self-play runs there


def build_opponents(run: Run) -> Opponents:
    """The opponents' ids, the self-play pool (baselines from the agents stream) and the evaluation line-up."""
    cfg, n = run.cfg, run.game.num_players
    pool = None
    if cfg.control == "all_seats" and envs.spec(cfg.game).zero_sum:
        # SB3 would credit each seat with the other's moves: zero-sum self-play needs sign-flipped advantages
        raise ValueError(f"control='all_seats' with MaskablePPO is for cooperative games; {cfg.game} is zero-sum: "
                         f"use --self-play, or the default learner: `python -m train {cfg.game} --learner cleanrl "
                         "--control all_seats`")
    if cfg.control == "all_seats" and not envs.spec(cfg.game).cooperative:
        # each seat has its own return: one SB3 trajectory through every seat's moves would mix them
        raise ValueError(f"control='all_seats' with MaskablePPO is for cooperative games (one team return); "
                         f"{cfg.game}'s seats each have their own: use --self-play or --opponents")
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


#: Bytes a rollout buffer may take (observations, masks, values...): a larger n_envs x n_steps is refused.
MAX_BUFFER_BYTES = 8 * 2**30


def build_envs(run: Run, opponents: Opponents, resumed_at: int = 0) -> Any:
    """The run's batched compiled env as one monitored SB3 `VecEnv` (`envs.core.to_sb3`): the fixed line-up's
    compiled kernels inside its step, or a two-player self-play pool as batch policies (snapshots, the live policy)
    and kernels (baselines), `opponents.vector` keeping it seated. The first line printed says which. A resumed run
    plays fresh tables: the env's seed is drawn from the resumed streams (`RunSeeds.resumed`).

    A game with no compiled vector env plays Python tables instead (`python_tables`).

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
    """A game with no compiled vector env (one added by its files alone, say): `n_envs` `OpponentEnv`s in a
    `DummyVecEnv`, table i's opponents drawing from child 0 of its stream (a fixed line-up, or none under
    `control="all_seats"`). Slow (Python tables), but the same frame: run folder, curve, checkpoints, evaluation.

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
    """Copy a `masked_policy` student's weights into an SB3 `MlpPolicy` built with its hidden sizes and activation.

    The student's body and logits become the actor (`mlp_extractor.policy_net`, `action_net`), so the policy
    starts out acting as the student; the critic (`mlp_extractor.value_net`, `value_net`) starts from the same body
    and the student's value head.

    Raises:
        ValueError: a student of another kind, game, observation or action count, or a network that differs.
    """
    import torch

    from agents.learned import load_student

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
    body = [k.split(".")[1] for k in src if k.startswith("body.") and k.endswith(".weight")]
    state = policy.state_dict()
    with torch.no_grad():
        for i in body:
            for part in ("weight", "bias"):
                state[f"mlp_extractor.policy_net.{i}.{part}"].copy_(src[f"body.{i}.{part}"])
                state[f"mlp_extractor.value_net.{i}.{part}"].copy_(src[f"body.{i}.{part}"])
        for part in ("weight", "bias"):
            state[f"action_net.{part}"].copy_(src[f"logits.{part}"])
            state[f"value_net.{part}"].copy_(src[f"value.{part}"])
    policy.load_state_dict(state)


def to_student(policy: Any, cfg: TrainConfig, game: Any) -> Any:
    """The actor of an SB3 `MlpPolicy` as a `masked_policy` student (`agents.learned`, the one saved-policy format):
    its hidden layers and activation, `play="sample"` (a PPO policy acts by sampling). The student's value head is
    zero: the critic has a body of its own, which the student format does not hold (`model.zip` keeps it).
    """
    import torch

    from agents.learned import Student

    student = Student(cfg.game, cfg.options, "masked_policy", list(cfg.net_arch), game=game,
                      activation=cfg.activation, play="sample")
    src = policy.state_dict()
    state = {k.replace("mlp_extractor.policy_net.", "body."): v for k, v in src.items()
             if k.startswith("mlp_extractor.policy_net.")}
    state["logits.weight"], state["logits.bias"] = src["action_net.weight"], src["action_net.bias"]
    state["value.weight"] = torch.zeros_like(student.net.value.weight)
    state["value.bias"] = torch.zeros_like(student.net.value.bias)
    student.net.load_state_dict({k: v.detach().cpu().clone() for k, v in state.items()})
    student.net.eval()
    return student


def export_checkpoint(cfg: TrainConfig, state: dict[str, Any], tensors: dict[str, Any], folder: str = "") -> str:
    """Write the live policy of a run's checkpoint (`train.checkpoint.read_checkpoint`) in the one saved-policy
    format, to `folder` (default `<run>/policy-<step>`), so a stopped or still-running run can be played and
    measured (`learned:<folder>`); returns the folder. A self-play run's checkpoint gives its live policy, not
    the pool's mixture.

    Raises:
        ValueError: a checkpoint whose policy does not fit the run's network.
    """
    from agents.learned import save_student
    from agents.policy import build_policy

    game = envs.make_game(cfg.game, **cfg.options)
    policy = build_policy(envs.make_encoder(cfg.game, game), game.num_actions, list(cfg.net_arch), cfg.activation)
    try:
        policy.load_state_dict(tensors["policy"])
    except (KeyError, RuntimeError) as e:
        raise ValueError(f"the checkpoint in {cfg.out!r} holds no policy of the run's network "
                         f"({str(e)[:200]})") from None
    step = int(state["step"])
    folder = folder or os.path.join(cfg.out, f"{POLICY_DIR}-{step}")
    prov = provenance("finetune" if cfg.init_from else "ppo")
    return save_student(to_student(policy, cfg, game), folder,
                        provenance=prov | {"seed": cfg.seed, "options": cfg.options, "opponents": cfg.opponents,
                                           "timesteps": step, "exported_from": f"{cfg.out} checkpoint, step {step}"})


def set_actor_frozen(policy: Any, frozen: bool) -> None:
    """Freeze (or unfreeze) the actor's parameters: while frozen, PPO's updates train the critic alone."""
    for module in (policy.mlp_extractor.policy_net, policy.action_net):
        for p in module.parameters():
            p.requires_grad_(not frozen)


class Curve:
    """Measures the learner for the learning curve and keeps the least exploitable self-play mixture."""

    def __init__(self, run: Run, model: Any, opponents: Opponents):
        self.run = run
        self.model = model
        self.opponents = opponents
        self.rng = np.random.default_rng(run.seeds.eval)
        self.rows: list[dict[str, float]] = []
        self.recent: deque[float] = deque(maxlen=200)
        self.started = time.perf_counter()  # wall-clock of the curve points: since this process began training,
        self.wall_before = 0.0  # plus the seconds of the run before a resume
        self.best: dict[str, Any] = {"exploitability": None}

    def measure(self, step: int) -> None:
        """Append one curve point at `step`."""
        cfg, game, pool = self.run.cfg, self.run.game, self.opponents.pool
        learner: Any = TorchPolicyAgent(self.model.policy, self.run.encoder,
                                        np.random.default_rng(self.rng.integers(2**32)))
        if pool is not None and pool.snapshots:
            # Measure what the run ships: the pool's meta-strategy over snapshots.
            learner = pool.mixture(np.random.default_rng(self.rng.integers(2**32)))
        row = {"timesteps": float(step), "mean_return": float(np.mean(self.recent)) if self.recent else float("nan"),
               WALL: self.wall_before + time.perf_counter() - self.started}
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


def schedule(cfg: TrainConfig) -> dict[str, int]:
    """Steps between curve points, snapshots and checkpoints, and the first of each (a fresh run's callback state)."""
    # Tiny runs still get a curve and a pool: at least ~10 points of each, but at most a curve point a rollout (the
    # policy changes only between rollouts; a run shorter than ten rollouts of 128 tables measured at every step).
    every = {"eval": max(1, min(cfg.eval_every, cfg.timesteps // 10 or 1),
                         min(cfg.eval_every, cfg.n_envs * cfg.n_steps)),
             "snap": max(1, min(cfg.snapshot_every, cfg.timesteps // 10 or 1)),
             "ckpt": cfg.checkpoint_every or max(1, cfg.timesteps // 10)}
    return {"eval_every": every["eval"], "snapshot_every": every["snap"], "checkpoint_every": every["ckpt"],
            "next_eval": every["eval"], "next_snap": every["snap"], "next_ckpt": every["ckpt"], "snapshots_taken": 0}


def checkpoint_contents(run: Run, model: Any, opponents: Opponents, curve: Curve,
                        sched: dict[str, int]) -> tuple[dict[str, Any], dict[str, Any]]:
    """What a checkpoint holds: JSON-able state and a dict of tensors (`train.checkpoint`)."""
    import torch

    pool = opponents.pool
    state: dict[str, Any] = {
        "config": dataclasses.asdict(run.cfg), "schedule": dict(sched), "curve": curve.rows,
        "recent": list(curve.recent),
        "rng": {"curve": rng_state(curve.rng), "numpy": legacy_numpy_state(),
                "eval_agents": [rng_state(getattr(a, "rng", None)) for a in opponents.eval_agents]},
    }
    tensors: dict[str, Any] = {"policy": model.policy.state_dict(), "optimizer": model.policy.optimizer.state_dict(),
                               "torch_rng": torch.get_rng_state()}
    if pool is not None:
        state["pool"] = {"names": [a.name for a in pool.snapshots], "rngs": [rng_state(a.rng) for a in pool.snapshots],
                         "baseline_rngs": [rng_state(getattr(a, "rng", None)) for a in pool.baselines],
                         "live_rng": rng_state(pool.live.rng), "payoff": pool.payoff,
                         "payoff_shape": list(pool.payoff.shape), "weights": pool.weights}
        tensors["snapshots"] = [a.policy.state_dict() for a in pool.snapshots]
    if curve.best["exploitability"] is not None:
        state["best"] = {"exploitability": curve.best["exploitability"], "timesteps": curve.best["timesteps"],
                         "weights": curve.best["weights"], "names": [m.name for m in curve.best["members"]]}
        tensors["best"] = [m.policy.state_dict() for m in curve.best["members"]]
    return state, tensors


def restore(run: Run, model: Any, opponents: Opponents, curve: Curve, sched: dict[str, int],
            state: dict[str, Any], tensors: dict[str, Any]) -> None:
    """Put a checkpoint's contents back into a freshly built run.

    Raises:
        ValueError: one line, if the checkpoint does not fit this run.
    """
    import torch

    from agents.policy import build_policy

    def frozen(sd: Any, name: str, rs: Any) -> TorchPolicyAgent:
        policy = build_policy(run.encoder, int(model.action_space.n), list(run.cfg.net_arch), run.cfg.activation)
        policy.load_state_dict(sd)
        agent = TorchPolicyAgent(policy, run.encoder, np.random.default_rng(), name=name)
        set_rng_state(agent.rng, rs)
        return agent

    pool = opponents.pool
    try:
        model.policy.load_state_dict(tensors["policy"])
        model.policy.optimizer.load_state_dict(tensors["optimizer"])
        torch.set_rng_state(tensors["torch_rng"])
        set_legacy_numpy_state(state["rng"]["numpy"])
        model.num_timesteps = int(state["step"])
        sched.update({k: int(v) for k, v in state["schedule"].items()})
        # JSON keeps an undefined figure as null: back to NaN, as the run had it.
        curve.rows = [{k: float("nan") if v is None else float(v) for k, v in r.items()} for r in state["curve"]]
        curve.wall_before = curve.rows[-1].get(WALL, 0.0) if curve.rows else 0.0
        curve.recent.extend(float(x) for x in state["recent"])
        set_rng_state(curve.rng, state["rng"]["curve"])
        for a, rs in zip(opponents.eval_agents, state["rng"]["eval_agents"]):
            set_rng_state(getattr(a, "rng", None), rs)
        if pool is not None:
            ps = state["pool"]
            pool.snapshots = [frozen(sd, n, rs) for sd, n, rs in zip(tensors["snapshots"], ps["names"], ps["rngs"])]
            for a, rs in zip(pool.baselines, ps["baseline_rngs"]):
                set_rng_state(getattr(a, "rng", None), rs)
            set_rng_state(pool.live.rng, ps["live_rng"])
            pool.payoff = np.array(ps["payoff"], dtype=float).reshape(ps["payoff_shape"])
            pool.weights = np.array(ps["weights"], dtype=float)
        if "best" in state:
            b = state["best"]
            members = [frozen(sd, n, None) for sd, n in zip(tensors["best"], b["names"])]
            curve.best.update(exploitability=float(b["exploitability"]), timesteps=int(b["timesteps"]), members=members,
                              weights=np.array(b["weights"], dtype=float))
    except (KeyError, TypeError, ValueError, RuntimeError, IndexError) as e:
        raise misfit(e, run.cfg.out) from None


def curve_callback(run: Run, model: Any, opponents: Opponents, curve: Curve, progress: bool,
                   sched: dict[str, int], stop: StopSignals) -> Any:
    """The SB3 callback: episode returns, self-play snapshots and curve points on
    schedule (`sched`, updated in place), checkpoints at rollout starts, a progress bar."""
    from stable_baselines3.common.callbacks import BaseCallback

    cfg = run.cfg
    pool = opponents.pool
    first_snapshot_child = len(pool.baselines) + 1 if pool is not None else 0  # after the baselines and the live policy

    class CurveCallback(BaseCallback):
        def __init__(self):
            super().__init__()
            self.bar = None

        def _on_training_start(self) -> None:
            if progress:
                from tqdm import tqdm

                self.bar = tqdm(total=cfg.timesteps, initial=model.num_timesteps, desc=f"train {cfg.game}", unit="step",
                                leave=False)
            if not curve.rows:
                curve.measure(0)

        def _on_rollout_start(self) -> None:
            # Between rollouts nothing is half done but the episodes under way: the place to checkpoint.
            t = model.num_timesteps
            set_actor_frozen(model.policy, t < cfg.critic_warmup)
            if stop.signum is None and t < sched["next_ckpt"]:
                return
            if t >= sched["next_ckpt"]:
                sched["next_ckpt"] = (t // sched["checkpoint_every"] + 1) * sched["checkpoint_every"]
            write_checkpoint(cfg.out, t, *checkpoint_contents(run, model, opponents, curve, sched))
            if stop.signum is not None:
                if self.bar is not None:
                    self.bar.close()
                raise TrainingStoppedError(cfg.out, t, cfg.timesteps, stop.signum)

        def _on_step(self) -> bool:
            for info in self.locals.get("infos", []):
                ep = info.get("episode")
                if ep is not None:
                    curve.recent.append(float(ep["r"]))
            t = self.num_timesteps
            if self.bar is not None:
                self.bar.update(min(t, cfg.timesteps) - self.bar.n)  # a last rollout may pass the planned steps
            if pool is not None and t >= sched["next_snap"]:
                frozen = copy.deepcopy(model.policy)
                frozen.set_training_mode(False)
                seq = child(run.seeds.agents, first_snapshot_child + sched["snapshots_taken"])
                pool.add(TorchPolicyAgent(frozen, run.encoder, np.random.default_rng(seq), name=f"snapshot@{t}"))
                if opponents.vector is not None:
                    opponents.vector.sync()
                sched["snapshots_taken"] += 1
                sched["next_snap"] += sched["snapshot_every"]
            if t >= sched["next_eval"]:
                curve.measure(t)
                sched["next_eval"] += sched["eval_every"]
            return True

        def _on_training_end(self) -> None:
            if self.bar is not None:
                self.bar.close()

    return CurveCallback()


def save(run: Run, model: Any, opponents: Opponents, curve: Curve, t0: float, verbose: bool) -> dict[str, Any]:
    """Write the model, what the run ships, `config.json`, the curve and the final tournaments; return a summary."""
    import torch

    from evaluate.jsonio import write_json
    from evaluate.tournament import format_table, run_tournament

    cfg, pool, n = run.cfg, opponents.pool, run.game.num_players
    with atomic_path(os.path.join(cfg.out, "model.zip")) as tmp:
        model.save(tmp)
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
        with atomic_path(os.path.join(cfg.out, "snapshots.pt")) as tmp:
            torch.save([a.policy.state_dict() for a in members], tmp)
        extra["play"] = "average"
        extra["mixture_weights"] = [float(w) for w in weights]
    prov = provenance("finetune" if cfg.init_from else "ppo", commit=run.commit)
    extra["versions"] = prov["versions"]
    extra["provenance"] = {k: v for k, v in prov.items() if k != "versions"}
    extra["train_seconds"] = time.time() - t0
    if extra["play"] == "last":
        # The one saved-policy format (what `learned:` and the shipped ids load); model.zip stays for SB3 users.
        from agents.learned import save_student

        save_student(to_student(model.policy, cfg, run.game), os.path.join(cfg.out, POLICY_DIR),
                     provenance=prov | {"seed": cfg.seed, "options": cfg.options, "opponents": opponents.ids,
                                        "timesteps": int(model.num_timesteps)})
    # the baselines' levels: each in the learner's place against its evaluation opponents, on one set of games
    levels = (baseline_levels(run.game, cfg.game, list(cfg.eval_baselines), opponents.ids or ["random"],
                              cfg.eval_games, child(run.seeds.eval, 1))
              if cfg.eval_baselines and cfg.control == "one_seat" and cfg.eval_games > 0 else {})
    if levels:
        extra["eval_baseline_levels"] = levels
    config = cfg.write_config(extra)
    spec = envs.spec(cfg.game)
    against = (" self-play" if cfg.self_play else " (one policy in every seat)" if cfg.control == "all_seats"
               else " against " + lineup_label(opponents.ids))
    write_curve(curve.rows, cfg.out, title=f"{spec.title}, {cfg.variant.label()}: MaskablePPO{against}",
                references=references_for(run.game, spec, cfg.control, levels))
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
        results = [run_tournament(cfg.game, ids, games=cfg.final_eval_games, seed=cfg.seed + 1, options=cfg.options,
                                  progress=False) for ids in lineups]  # fresh deals (seed + 1)
        if verbose:
            print("\n".join(format_table(r) for r in results))
        summary["evaluation"] = [r.to_dict() for r in results]
        write_json(os.path.join(cfg.out, "eval.json"), {"tournaments": summary["evaluation"]})
    if verbose:
        saved = "policy/, model.zip" if extra["play"] == "last" else "model.zip, snapshots.pt"
        print(f"saved {cfg.out}/{saved}, config.json, curve.csv, curve.png ({config['train_seconds']:.0f} s)")
        print(summary_line(cfg.game, cfg.options, curve.rows[-1], cfg.eval_games, team=cfg.control == "all_seats"))
        if "selected" in config:
            sel = config["selected"]
            print(f"shipped the mixture of step {sel['timesteps']} ({sel['by']}: {sel['exploitability']:.4f})")
    return summary


def train(cfg: TrainConfig, progress: bool = True, verbose: bool = True, resume: Any = None,
          overwrite: bool = False) -> dict[str, Any]:
    """Run one training job; returns a summary (also written under `cfg.out`).

    Args:
        cfg: the run's settings.
        progress: show a progress bar.
        verbose: print the final figures.
        resume: `train.checkpoint.read_checkpoint(cfg.out)`'s output, to continue that run.
        overwrite: replace the run files already in `cfg.out`.

    Raises:
        ValueError: bad settings, or `cfg.out` unusable (see `check_out`); the
            folder is made only once everything is validated.
        TrainingStoppedError: SIGTERM or Ctrl-C stopped the run (a checkpoint is saved).
    """
    import torch
    from stable_baselines3.common.utils import set_random_seed

    t0 = time.time()
    cfg.out = cfg.out or cfg.default_out()
    check_out(cfg.out, resume is not None, overwrite)
    set_random_seed(cfg.seed)
    torch.set_num_threads(1)
    game = envs.make_game(cfg.game, **cfg.options)
    from train.run import git_commit

    run = Run(cfg, game, envs.make_encoder(cfg.game, game), RunSeeds.from_seed(cfg.seed, cfg.n_envs), hooks(cfg.game),
              commit=git_commit())
    opponents = build_opponents(run)
    start = int(resume[0]["step"]) if resume is not None else 0
    model = build_learner(run, build_envs(run, opponents, start))
    if opponents.pool is not None:
        live_seq = child(run.seeds.agents, len(opponents.pool.baselines))  # after the baselines
        opponents.pool.live = TorchPolicyAgent(model.policy, run.encoder, np.random.default_rng(live_seq), name="live")
        if opponents.vector is not None:
            opponents.vector.attach_live(model.policy)
    curve = Curve(run, model, opponents)
    sched = schedule(cfg)
    if resume is not None:
        restore(run, model, opponents, curve, sched, *resume)
        if opponents.vector is not None:
            opponents.vector.sync()
    make_out(cfg.out, overwrite)
    with StopSignals() as stop:
        model.learn(total_timesteps=max(0, cfg.timesteps - model.num_timesteps), reset_num_timesteps=resume is None,
                    callback=curve_callback(run, model, opponents, curve, progress, sched, stop))
        if curve.rows[-1]["timesteps"] < model.num_timesteps:
            curve.measure(model.num_timesteps)
        # The final files take a while (the final tournaments): a stop during them resumes from here.
        write_checkpoint(cfg.out, model.num_timesteps, *checkpoint_contents(run, model, opponents, curve, sched))
        if stop.signum is not None:
            raise TrainingStoppedError(cfg.out, model.num_timesteps, cfg.timesteps, stop.signum)
    summary = save(run, model, opponents, curve, t0, verbose)
    remove_checkpoint(cfg.out)
    return summary
