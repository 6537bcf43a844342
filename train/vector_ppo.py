"""Method "ppo" with the default learner: `train.cleanrl_ppo.PPO` on the game's compiled vector env, inside the run
frame (`train.run`). `train(cfg)` builds the env, compiles its kernels (not counted in `max_minutes`), learns with a
progress bar and checkpoints (`--resume` ends as the run left alone would), and leaves `policy/`, `history.csv`,
`curve.csv`/`curve.png`, `config.json` and `eval.json` in the run folder (docs/training.md, "The command").
"""

from __future__ import annotations

import dataclasses
import os
import re
import sys
import time
from typing import Any

import numpy as np

import envs
from train.checkpoint import misfit, pack_arrays, remove_checkpoint, unpack_arrays, write_checkpoint
from train.cleanrl_ppo import PPO
from train.config import TrainConfig
from train.curve import Evaluator, TeamEvaluator, write_history, write_run_curve
from train.networks import load_policy, save_policy, to_student
from train.run import (
    StopSignals,
    TrainingStoppedError,
    chained,
    check_out,
    earlier_stages,
    make_out,
    provenance,
    seat_line_up,
    student_folder,
    trained_env_options,
)

#: The run's policy in the one saved-policy format.
POLICY_DIR = "policy"
#: Seconds between progress lines when no bar is shown (not a terminal, or --no-progress).
LINE_EVERY_S = 30.0


def variant_seed(seed: int, i: int) -> int:
    """The vector env seed of table group i: `seed` for the first, else child i of the run's seed."""
    from train.seeds import child

    if i == 0:
        return int(seed)
    return int(child(np.random.SeedSequence(int(seed)), i).generate_state(1, np.uint64)[0] >> np.uint64(1))


#: Environment options that are not rules: left out of the saved student's options (it plays any reward setting).
ENV_ONLY = ("reward",)


def rules_of(options: dict[str, Any]) -> dict[str, Any]:
    """The game options a saved policy records: `options` without the reward settings (`ENV_ONLY`)."""
    return {k: v for k, v in options.items() if k not in ENV_ONLY}


def build_venv(cfg: TrainConfig, n_envs: int | None = None) -> Any:
    """The run's compiled vector env (`variant_envs`)."""
    return variant_envs(cfg, n_envs)[0]


def variant_envs(cfg: TrainConfig, n_envs: int | None = None) -> tuple[Any, list[tuple[Any, dict[str, Any]]]]:
    """The run's compiled vector env and its table groups (env, options): `n_envs` (default `cfg.n_envs`) tables of
    the run's options and of each `also` change ("KEY=VALUE [KEY=VALUE]") on top of them, each seeded by
    `variant_seed` with its own line-up; with `features`, the feature set's inputs (or its own `make_vector_env`,
    if it has one); several groups stepped as one (`MultiVectorEnv`).

    Raises:
        ValueError: the run can have no compiled vector env (one line saying why), or variants' spaces differ.
    """
    import agents
    from agents.learned import feature_set
    from envs.core.options import parse_options

    config = envs.config_class(cfg.game)
    variants = [dict(cfg.options)] + [{**cfg.options, **parse_options(config, re.split(r"[;\s]+", a.strip()))}
                                      for a in cfg.also]
    venvs = []
    try:
        own = getattr(feature_set(cfg.features), "make_vector_env", None) if cfg.features else None
        for i, opts in enumerate(variants):
            line_up = seat_line_up(list(cfg.opponents), envs.make_game(cfg.game, **opts).num_players, cfg.control)
            kw = dict(opponents=line_up, seed=variant_seed(cfg.seed, i), control=cfg.control, copy=False, **opts)
            if own is not None:
                venvs.append(own(cfg.game, n_envs or cfg.n_envs, **kw))
                continue
            v = agents.vector_env(cfg.game, n_envs or cfg.n_envs, **kw)
            venvs.append(agents.feature_vector_env(v, cfg.features) if cfg.features else v)
    except ValueError as e:
        raise ValueError(f"the default learner runs on {cfg.game}'s compiled vector env, which this run cannot "
                         f"have: {e}") from None
    groups = list(zip(venvs, variants))
    return (groups[0][0] if len(groups) == 1 else agents.MultiVectorEnv(venvs)), groups


def warm_up(cfg: TrainConfig, say: Any) -> float:
    """Compile the run's kernels on a one-table env of the same build (numba caches them for the process and on
    disk): returns the seconds it took, said in a line before and after."""
    t = time.perf_counter()
    say(f"train {cfg.game}: preparing the {envs.spec(cfg.game).title} kernels (compiled on this machine's first run, "
        "minutes; read from numba's cache after)...")
    venv = build_venv(cfg, 1)
    venv.reset()
    for _ in range(3):
        venv.step(np.asarray(venv.action_masks()).argmax(axis=1))
    venv.close()
    took = time.perf_counter() - t
    say(f"train {cfg.game}: kernels ready in {took:.1f} s")
    return took


def start_policy(cfg: TrainConfig) -> tuple[Any, float | None]:
    """The `init_from` policy (`load_policy`) and its reward scale where its run played the same reward options
    (else None, with a warning); (None, None) without `init_from`."""
    if not cfg.init_from:
        return None, None
    import warnings

    folder = student_folder(cfg.init_from)
    policy, scale = load_policy(folder, cfg.game, rules_of(cfg.options))
    trained = trained_env_options(folder)
    changed = {k: (trained.get(k), cfg.options.get(k)) for k in ENV_ONLY
               if trained is not None and trained.get(k) != cfg.options.get(k)}
    if scale is not None and (trained is None or changed):
        why = ", ".join(f"{k}={a!r} then, {b!r} now" for k, (a, b) in changed.items()) or "not recorded"
        warnings.warn(f"{cfg.init_from}'s reward scale is not carried over (its reward options: {why}); this run "
                      "measures its own from the first rollout", stacklevel=2)
        scale = None
    return policy, scale


def lineage(cfg: TrainConfig) -> dict[str, Any]:
    """What this run records of itself and of the runs its start came from: `{"own": ..., "earlier": [...]}`."""
    earlier = earlier_stages(student_folder(cfg.init_from)) if cfg.init_from else []
    own = provenance("finetune" if cfg.init_from else "ppo") | {"learner": cfg.resolved_learner(),
                                                                "init_from": cfg.init_from,
                                                                "opponents": list(cfg.opponents),
                                                                "env_options": cfg.options}
    return {"own": own, "earlier": earlier}


def provenance_now(line: dict[str, Any], steps: int, wall_s: float) -> dict[str, Any]:
    """The saved policy's provenance at `steps` (this run's own record, chained to the runs it continued)."""
    return chained({**line["own"], "steps": int(steps), "wall_s": round(float(wall_s), 1)}, line["earlier"])


def implied_by_start(cfg: TrainConfig, init: Any) -> None:
    """Take the `init_from` policy's action table and feature set into `cfg`.

    Raises:
        ValueError: `features` that differ from the start's, or an action table with features or variants."""
    if init is not None and getattr(init, "table", None) is not None and not cfg.action_table:
        cfg.action_table = True  # a start with an action table keeps it (recorded in config.json)
        print(f"train {cfg.game}: --init-from {cfg.init_from} has an action table: --action-table", flush=True)
    if init is not None:
        theirs = getattr(init, "features", None)
        if cfg.features and cfg.features != theirs:
            raise ValueError(f"--features {cfg.features} differs from {cfg.init_from}'s {theirs or 'observation MLP'}")
        cfg.features = theirs
    if cfg.action_table and (cfg.features or cfg.also):
        raise ValueError("--action-table is for an MLP over the observation of one variant: drop --features and --also")


def learner_for(cfg: TrainConfig, venv: Any, start: tuple[Any, Any] | None = None) -> Any:
    """The `PPO` learner of the run's settings on `venv`, from `start` (`start_policy`'s, read again if None)."""
    if start is None:
        start = start_policy(cfg)
        implied_by_start(cfg, start[0])
    init, scale = start
    return PPO(venv, total_steps=cfg.timesteps, reward_scale=cfg.reward_scale or scale, n_steps=cfg.n_steps,
               minibatch=cfg.batch_size, epochs=cfg.n_epochs, lr=cfg.learning_rate, ent_coef=cfg.ent_coef,
               gamma=cfg.gamma, gae_lambda=cfg.gae_lambda, clip=cfg.clip_range, hidden=list(cfg.net_arch),
               seed=cfg.seed, vf_clip=cfg.vf_clip or None, device=cfg.device,
               max_seconds=60.0 * cfg.max_minutes if cfg.max_minutes else None, init=init,
               critic_warmup=cfg.critic_warmup, privileged_critic=cfg.privileged_critic,
               action_table=cfg.action_table, precision=cfg.precision)


class Watch:
    """What a person sees while a run learns: a tqdm bar in learner steps (steps/s, return, win rate, ETA) on a
    terminal, else a line at most every `LINE_EVERY_S` seconds (and at the end)."""

    def __init__(self, cfg: TrainConfig, initial: int, progress: bool):
        self.cfg, self.bar, self.last_line = cfg, None, 0.0
        if progress and sys.stderr.isatty():
            from tqdm import tqdm

            self.bar = tqdm(total=cfg.timesteps, initial=min(initial, cfg.timesteps), desc=f"train {cfg.game}",
                            unit="step", unit_scale=True, dynamic_ncols=True)

    def update(self, entry: dict[str, Any], done: bool) -> None:
        """Show `entry` (an update's history row)."""
        figures = {"return": f"{entry['mean_return']:.3g}"}
        if "eval_win_rate" in entry:
            figures["win"] = f"{entry['eval_win_rate']:.3f}"
        if self.bar is not None:
            self.bar.set_postfix(figures, refresh=False)
            self.bar.update(min(entry["steps"], self.cfg.timesteps) - self.bar.n)
            return
        now = time.perf_counter()
        if done or now - self.last_line >= LINE_EVERY_S or "eval_win_rate" in entry:
            self.last_line = now
            shown = "  ".join(f"{k} {v}" for k, v in figures.items())
            print(f"train {self.cfg.game}: {entry['steps']:,}/{self.cfg.timesteps:,} steps  "
                  f"{entry['steps_per_s']:,.0f} steps/s  {shown}", flush=True)

    def close(self) -> None:
        """Close the bar (if any)."""
        if self.bar is not None:
            self.bar.close()


def _due(before: int, after: int, every: int) -> bool:
    """Whether a multiple of `every` lies in (before, after]."""
    return every > 0 and after // every > before // every


def checkpoint(cfg: TrainConfig, ppo: Any, history: list[dict[str, Any]], stages: dict[str, Any],
               league: Any = None) -> None:
    """Write the run's checkpoint (`PPO.state`, the league's, the history) and its policy so far (`policy/`)."""
    state = ppo.state()
    layout, arrays = pack_arrays(state["arrays"])
    numbers = {"method": "ppo", "learner": cfg.resolved_learner(), "config": dataclasses.asdict(cfg),
               "numbers": state["numbers"], "history": history, "arrays": layout, "stages": stages}
    tensors = {**state["tensors"], "arrays": arrays}
    if league is not None:
        numbers["league"], tensors["league"] = league.state()
    write_checkpoint(cfg.out, ppo.steps, numbers, tensors)
    save(cfg, ppo, ppo.steps, stages)


def restore(cfg: TrainConfig, ppo: Any, resume: tuple[dict[str, Any], dict[str, Any]],
            league: Any = None) -> list[dict[str, Any]]:
    """Put a checkpoint into the freshly built `ppo` (and `league`); returns the history so far.

    Raises:
        ValueError: one line, if the checkpoint does not fit the run."""
    state, tensors = resume
    try:
        if league is not None:  # before the tables: their seats name the league's policies by slot
            league.restore(state["league"], tensors["league"], ppo.policy, rules_of(cfg.options))
        arrays = unpack_arrays(state["arrays"], tensors["arrays"])
        ppo.load_state({"numbers": state["numbers"], "tensors": tensors, "arrays": arrays})
        return [{k: float("nan") if v is None else v for k, v in row.items()} for row in state["history"]]
    except (KeyError, TypeError, AttributeError) as e:
        raise misfit(e, cfg.out) from None


def save(cfg: TrainConfig, ppo: Any, steps: int, stages: dict[str, Any], where: str = POLICY_DIR) -> str:
    """Write the policy (`policy/` or another folder of the run, with `critic.pt`) as it is now; returns its
    folder."""
    folder = os.path.join(cfg.out, where)
    os.makedirs(folder, exist_ok=True)
    prov = provenance_now(stages, steps, ppo.wall()) | {"seed": cfg.seed, "timesteps": int(steps)}
    own = getattr(ppo, "write_policy", None)  # a learner with a network of its own (`train.ppo.SB3Learner`)
    if own is not None:
        own(folder, prov)
    else:
        save_policy(ppo.policy, folder, cfg.game, rules_of(cfg.options), prov)
    return folder


def student_of(cfg: TrainConfig, ppo: Any) -> Any:
    """The learner's policy as it is saved (an `agents.learned` student): what the curve's evaluation plays."""
    own = getattr(ppo, "student", None)
    return own() if own is not None else to_student(ppo.policy, cfg.game, rules_of(cfg.options))


def league_for(cfg: TrainConfig, groups: list[tuple[Any, dict[str, Any]]]) -> Any:
    """The run's league of opponents (`train.pool.League`), or None without `--league-every`.

    Raises:
        ValueError: a league without opponent seats."""
    if not cfg.league_every:
        return None
    import functools

    import agents
    from train.pool import League

    if cfg.control != "one_seat" or envs.make_game(cfg.game, **cfg.options).num_players < 2:
        raise ValueError("--league-every needs opponent seats: a game of two or more players, control one_seat")
    line_up = functools.partial(seat_line_up, list(cfg.opponents), control=cfg.control)
    return League(cfg.game, list(groups), line_up, agents.expand_agent_ids(list(cfg.baselines)),
                  cfg.league_size)


def evaluator_for(cfg: TrainConfig) -> Any:
    """The curve's evaluation games (`Evaluator`, or `TeamEvaluator` for a policy in every seat); None without."""
    if cfg.eval_games <= 0:
        return None
    if cfg.control != "one_seat" or envs.make_game(cfg.game, **cfg.options).num_players < 2:
        return TeamEvaluator(cfg.game, cfg.options, cfg.eval_games, cfg.seed)
    return Evaluator(cfg.game, cfg.options, list(cfg.opponents), cfg.eval_games, cfg.seed, list(cfg.eval_baselines))


def learn(cfg: TrainConfig, ppo: Any, history: list[dict[str, Any]], progress: bool,
          stages: dict[str, Any], evaluator: Any = None, league: Any = None) -> list[dict[str, Any]]:
    """The learning loop: updates, curve points (`evaluator`'s, where given), checkpoints and the progress bar, until
    the planned steps, the learning budget or a stop signal (which checkpoints and raises `TrainingStoppedError`)."""
    every = cfg.checkpoint_every or max(1, cfg.timesteps // 10)
    rules = rules_of(cfg.options)
    watch = Watch(cfg, ppo.steps, progress)
    try:
        with StopSignals() as stop:
            while not ppo.done:
                before = ppo.steps
                entry = ppo.update()
                if evaluator is not None and (_due(before, ppo.steps, cfg.eval_every) or ppo.done):
                    entry.update(evaluator.measure(student_of(cfg, ppo)))
                history.append(entry)
                if league is not None and _due(before, ppo.steps, cfg.league_every) and not ppo.done:
                    league.add(ppo.policy, rules)
                if _due(before, ppo.steps, cfg.save_every):
                    save(cfg, ppo, ppo.steps, stages, os.path.join("snapshots", f"{ppo.steps:012d}"))
                out_of_time = ppo.max_seconds is not None and entry["wall_s"] >= ppo.max_seconds
                watch.update(entry, ppo.done or out_of_time)
                if stop.signum is not None or (_due(before, ppo.steps, every) and not ppo.done):
                    checkpoint(cfg, ppo, history, stages, league)
                if stop.signum is not None:
                    raise TrainingStoppedError(cfg.out, ppo.steps, cfg.timesteps, stop.signum)
                if out_of_time:
                    print(f"train {cfg.game}: the budget of {cfg.max_minutes:g} learning minutes is spent at "
                          f"{ppo.steps:,} steps", flush=True)
                    break
    finally:
        watch.close()
    if evaluator is not None and history and "eval_win_rate" not in history[-1]:
        history[-1].update(evaluator.measure(student_of(cfg, ppo)))
    return history


def final_evaluation(cfg: TrainConfig, folder: str) -> dict[str, Any]:
    """The saved policy on held-out deals (seed 1,000,000 + the run's seed): paired against each `eval_baselines`
    agent in its seat, or tournaments (every seat: the policy's and each baseline's team; self-play: the shipped
    policy against each baseline)."""
    from evaluate.paired import format_paired, run_paired
    from evaluate.tournament import format_table, run_tournament

    seed, n = 1_000_000 + cfg.seed, envs.make_game(cfg.game, **cfg.options).num_players
    me = f"learned:{folder}"
    if cfg.control == "all_seats" or n == 1 or cfg.self_play:
        out = []
        lineups = [[me] * n, *[[b] * n for b in cfg.eval_baselines]]
        if cfg.self_play:  # what the run ships (`ppo:`: the pool's mixture) against each baseline in the other seats
            lineups = [[f"ppo:{cfg.out}"] + [b] * (n - 1) for b in dict.fromkeys(cfg.baselines or ["random"])]
        for ids in lineups:
            result = run_tournament(cfg.game, ids, games=cfg.final_eval_games, seed=seed, options=cfg.options,
                                    progress=False)
            print(format_table(result), flush=True)
            out.append(result.to_dict())
        return {"tournaments": out, "seed": seed}
    against = seat_line_up(list(cfg.opponents), n, cfg.control)
    baselines = list(cfg.eval_baselines) or list(dict.fromkeys(against))
    paired = []
    for b in baselines:
        result = run_paired(cfg.game, me, b, against, games=cfg.final_eval_games, seed=seed, options=cfg.options)
        print(format_paired(result), flush=True)
        paired.append(result.to_dict())
    return {"paired": paired, "seed": seed}


def finish(cfg: TrainConfig, ppo: Any, history: list[dict[str, Any]], stages: dict[str, Any], t0: float,
           evaluator: Any = None, verbose: bool = True) -> dict:
    """Write what a finished run leaves (see the module docstring) and remove its checkpoint; returns a summary."""
    from evaluate.jsonio import write_json
    from train.curve import lineup_label

    folder = save(cfg, ppo, ppo.steps, stages)
    write_history(history, os.path.join(cfg.out, "history.csv"))
    players = envs.make_game(cfg.game, **cfg.options).num_players
    against = (" (one policy in every seat)" if cfg.control == "all_seats" else
               f" against {lineup_label(list(cfg.opponents))}" if players > 1 else "")
    against = " self-play" if cfg.self_play else against
    title = f"{envs.spec(cfg.game).title}, {cfg.variant.label()}: {getattr(ppo, 'title', 'PPO')}{against}"
    earlier = stages.get("earlier") or []
    before = (sum(int(s.get("steps") or 0) for s in earlier), sum(float(s.get("wall_s") or 0.0) for s in earlier))
    write_run_curve(history, cfg.out, title, references=evaluator.references() if evaluator is not None else None,
                    before=before, metrics=getattr(evaluator, "metrics", ()))
    if verbose and history:
        from train.curve import summary_line

        last = {"timesteps": ppo.steps, **history[-1]}
        print(summary_line(cfg.game, cfg.options, last, cfg.eval_games, team=cfg.control == "all_seats"), flush=True)
    levels = getattr(evaluator, "levels", None)
    extra = ppo.final_files(cfg.out) if hasattr(ppo, "final_files") else {}  # SB3: model.zip, a pool's mixture
    cfg.write_config({"provenance": provenance_now(stages, ppo.steps, ppo.wall()), "train_seconds": time.time() - t0,
                      "steps": ppo.steps, **({"eval_baseline_levels": levels} if levels else {}), **extra})
    summary: dict[str, Any] = {"out": cfg.out, "steps": ppo.steps, "final": history[-1] if history else {}}
    if cfg.final_eval_games > 0:
        summary["evaluation"] = final_evaluation(cfg, folder)
        write_json(os.path.join(cfg.out, "eval.json"), summary["evaluation"])
    remove_checkpoint(cfg.out)
    print(f"saved {cfg.out}/{POLICY_DIR} (learned:{cfg.out}/{POLICY_DIR} plays it), history.csv, curve.csv, curve.png, "
          f"config.json ({time.time() - t0:.0f} s)", flush=True)
    return summary


def train(cfg: TrainConfig, progress: bool = True, verbose: bool = True, resume: Any = None,
          overwrite: bool = False) -> dict[str, Any]:
    """Run one PPO job with the default learner; returns a summary (also written under `cfg.out`).

    `resume`: `train.checkpoint.read_checkpoint(cfg.out)`'s output; `overwrite`: replace the run in `cfg.out`.

    Raises:
        ValueError: bad settings, no compiled vector env, or `cfg.out` unusable (before the folder is made).
        TrainingStoppedError: SIGTERM or Ctrl-C stopped the run (a checkpoint is saved).
    """
    import torch

    t0 = time.time()
    cfg.out = cfg.out or cfg.default_out()
    check_out(cfg.out, resume is not None, overwrite)
    if cfg.self_play:
        raise ValueError("--self-play keeps a pool of snapshots, which the SB3 learner has: add --learner sb3 (the "
                         "default learner's self-play is --control all_seats: one policy in every seat)")
    torch.set_num_threads(cfg.threads)
    start = start_policy(cfg)
    implied_by_start(cfg, start[0])
    warm_up(cfg, lambda line: print(line, flush=True))
    venv, groups = variant_envs(cfg)
    if cfg.also:
        print(f"train {cfg.game}: {len(groups)} variants of {cfg.n_envs} tables each: "
              + "; ".join(envs.spec(cfg.game).title + " " + str(opts) for _, opts in groups), flush=True)
    print(f"train {cfg.game}: {venv.num_envs} compiled tables, {cfg.n_steps} steps each a rollout, minibatches of "
          f"{cfg.batch_size}, {cfg.n_epochs} epochs, {cfg.precision}"
          + (f", an action scorer over the {cfg.features} features" if cfg.features else ""), flush=True)
    ppo = learner_for(cfg, venv, start)
    return run_learner(cfg, ppo, resume, overwrite, t0, evaluator_for(cfg), progress, verbose, league_for(cfg, groups))


def run_learner(cfg: TrainConfig, learner: Any, resume: Any, overwrite: bool, t0: float, evaluator: Any,
                progress: bool = True, verbose: bool = True, league: Any = None) -> dict[str, Any]:
    """The frame around a built learner (`PPO`, or `train.ppo.SB3Learner`): a checkpoint's history and lineage put
    back, the run folder made, `learn`, a last checkpoint (a stop during the final files resumes there), `finish`."""
    stages = (resume[0].get("stages") if resume is not None else None) or lineage(cfg)
    if league is not None:
        stages["own"]["league"] = {"every": cfg.league_every, "baselines": league.baselines, "size": league.size}
    history = restore(cfg, learner, resume, league) if resume is not None else []
    make_out(cfg.out, overwrite)
    history = learn(cfg, learner, history, progress, stages, evaluator, league)
    checkpoint(cfg, learner, history, stages, league)
    return finish(cfg, learner, history, stages, t0, evaluator, verbose)
