"""`python -m train distill GAME --teacher ID`: a student distilled from a teacher by DAgger (Ross, Gordon and
Bagnell, "A Reduction of Imitation Learning and Structured Prediction to No-Regret Online Learning", §3): each round
rolls in games (the teacher acts with probability beta, the student otherwise), labels every decision with the
teacher's action values, fits the student on all labels so far (soft targets at `temperature`, `hard_weight` x
the argmax, a value head where the values are scores) and keeps the best round's student, measured against
`eval_opponents` (docs/training.md, "Distillation from a teacher").
"""

from __future__ import annotations

import dataclasses
import functools
import os
import sys
import time
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from train.run import RunConfig, setting
from train.seeds import child, children

#: What the student is fitted to: "act", the values the teacher acts by; "search", a `SearchTeacher`'s estimates
#: before its decision rule (others fall back to "act").
LABEL_VALUES = ("act", "search")

#: Moves after which a roll-in game stops (its decisions so far are kept): a student can make a game endless (see
#: `train.curve.EVAL_MAX_TURNS`); no real game of the suite comes near it.
ROLL_IN_MAX_MOVES = 10_000

#: Which streams of `SeedSequence(seed)` a run uses (train rounds, selection games, final tournaments).
TRAIN_STREAM, SELECT_STREAM, FIT_STREAM = 0, 1, 2


@dataclass(kw_only=True)
class DistillConfig(RunConfig):
    """Everything that defines a distillation run (saved as `config.json`): `train.run.RunConfig` plus the
    DAgger loop's own fields."""

    method: ClassVar[str] = "distill"
    teacher: str = setting(help="the teacher's agent id")
    rounds: int = setting(4, help="DAgger rounds", high=1000)
    games_per_round: int = setting(50, help="games rolled in and labelled per round", high=10**7)
    kind: str = "auto"
    features: str | None = setting(None, help="the student's feature set (agents.learned.FEATURES)")
    hidden: list[int] = field(default_factory=lambda: [64, 64])
    label_values: str = "act"
    temperature: float = 1.0
    hard_weight: float = 0.5
    value_weight: float = 0.1
    beta: float = 1.0
    beta_decay: float = 0.0
    epochs: int = 10
    batch_size: int = 256
    learning_rate: float = 1e-3
    workers: int = setting(1, help="labelling processes", high=64)
    eval_opponents: list[str] = field(default_factory=lambda: ["random"])
    eval_games: int = 100
    final_eval_games: int = 200

    def __post_init__(self) -> None:
        super().__post_init__()
        self.check_counts({"rounds": 1, "games_per_round": 1, "epochs": 1, "batch_size": 1, "workers": 1})
        if not isinstance(self.teacher, str) or not self.teacher:
            raise ValueError(f"teacher must be an agent id, got {self.teacher!r}")
        if self.kind not in ("auto", "masked_policy", "action_scorer"):
            raise ValueError(f"kind must be 'auto', 'masked_policy' or 'action_scorer', got {self.kind!r}")
        if self.label_values not in LABEL_VALUES:
            raise ValueError(f"label_values must be one of {', '.join(LABEL_VALUES)}, got {self.label_values!r}")
        if not self.temperature > 0:
            raise ValueError(f"temperature must be > 0, got {self.temperature}")
        if not 0 <= self.beta <= 1 or not 0 <= self.beta_decay <= 1:
            raise ValueError(f"beta and beta_decay must lie in [0, 1], got {self.beta}, {self.beta_decay}")


def teacher_labels(teacher: Any, view: Any, mask: np.ndarray, rng: np.random.Generator,
                   label_values: str) -> tuple[np.ndarray, np.ndarray]:
    """(the values the teacher acts by, the values the student is fitted to) of one decision: a Teacher's values,
    else the log-probabilities of `action_probs`, else 0 for its `act` and -1 elsewhere."""
    from agents.search.teacher import check_values

    legal = np.asarray(mask) > 0
    if label_values == "search" and hasattr(teacher, "action_estimates"):
        v, est = teacher.action_estimates(view, mask, rng)
        return check_values(v, mask), check_values(est, mask)
    if hasattr(teacher, "action_values"):
        v = check_values(teacher.action_values(view, mask, rng), mask)
    elif hasattr(teacher, "action_probs"):
        p = np.asarray(teacher.action_probs(view, mask), dtype=np.float64)
        v = np.where(legal, np.log(np.maximum(p, 1e-12)), np.nan)
    else:
        a = int(teacher.act(view, mask))
        v = np.where(legal, np.where(np.arange(len(legal)) == a, 0.0, -1.0), np.nan)
    return v, v


def soft_targets(values: np.ndarray, temperature: float) -> np.ndarray:
    """softmax(values / temperature) over the legal (finite) actions, 0 elsewhere."""
    legal = np.isfinite(values)
    v = np.where(legal, values, -np.inf) / temperature
    e = np.exp(v - v[legal].max())
    return e / e.sum()


def resolve_kind(cfg: DistillConfig) -> tuple[str, str | None]:
    """(kind, feature set): `auto` takes the action scorer when a feature set for the game exists."""
    from agents.learned import feature_set

    features = cfg.features
    if cfg.kind == "masked_policy":
        return "masked_policy", None
    if features is None:
        try:
            feature_set(cfg.game)
            features = cfg.game
        except ValueError:
            if cfg.kind == "action_scorer":
                raise
            return "masked_policy", None
    feature_set(features)
    return "action_scorer", features


# --- labelling (in-process or in worker processes) -----------------------------------------

def _worker_setup(cfg: DistillConfig, kind: str, features: str | None) -> dict[str, Any]:
    """The game, teacher and student of this process (built once, reused across rounds)."""
    import agents
    import envs
    from agents.learned import Student
    from evaluate.backends import per_process

    def build() -> dict[str, Any]:
        game = envs.make_game(cfg.game, **cfg.options)
        teacher = agents.make(cfg.teacher, game, rng=np.random.default_rng(0), game_name=cfg.game)
        return {"game": game, "teacher": teacher,
                "student": Student(cfg.game, cfg.options, kind, cfg.hidden, features, game=game)}

    key = (cfg.game, tuple(sorted(cfg.options.items())), cfg.teacher, kind, features, tuple(cfg.hidden))
    return per_process("distill labelling", key, build)


def label_games(cfg: DistillConfig, kind: str, features: str | None, state: dict[str, Any] | None, beta: float,
                seeds: list[np.random.SeedSequence]) -> dict[str, Any]:
    """Roll in one game per seed and label every decision: {"inputs", "values" [n, A], "targets" [n, A], "chosen"
    [n], "seconds", "decisions", "dims"} (an action scorer's A: the most legal actions of a decision, `compact`)."""
    import torch

    from agents.search.teacher import best_action
    from envs.core.game import legal_mask
    from envs.core.play import reseed_agent

    w = _worker_setup(cfg, kind, features)
    game, teacher, student = w["game"], w["teacher"], w["student"]
    if state is not None:
        if student.net is None:
            student._build(int(state["dims"]["context_dim"]), int(state["dims"]["feature_dim"]))
        student.net.load_state_dict(state["weights"])
    inputs: list[tuple[np.ndarray, ...]] = []
    values, targets, chosen = [], [], []
    label_s = 0.0
    for seq in seeds:
        rng = np.random.default_rng(seq)
        teacher_rng, roll_rng = np.random.default_rng(child(seq, 0)), np.random.default_rng(child(seq, 1))
        # A teacher that acts from its own generator (no `action_values`) draws from the game's seed, so
        # a game's labels do not depend on which process labels it or what it labelled before.
        reseed_agent(teacher, np.random.default_rng(child(seq, 2)))
        s = game.initial_state(rng)
        moves = 0
        while not game.is_terminal(s) and moves < ROLL_IN_MAX_MOVES:
            moves += 1
            seat = game.current_player(s)
            view, mask = game.view(s, seat), legal_mask(game, s)
            t = time.perf_counter()
            v, target = teacher_labels(teacher, view, mask, teacher_rng, cfg.label_values)
            label_s += time.perf_counter() - t
            x = student.inputs(view, mask)
            if state is None or roll_rng.random() < beta:
                a = best_action(v, mask)
            else:
                with torch.no_grad():
                    logits, _ = student.net(*(torch.as_tensor(arr[None]) for arr in x))
                a = int(torch.argmax(logits[0]))
            chosen.append(v[a])
            if kind == "action_scorer":
                x, v, target = compact(x, v, target)
            inputs.append(x)
            values.append(v)
            targets.append(target)
            s = game.apply(s, a)
    return {"inputs": tuple(_stack([x[i] for x in inputs], 0.0) for i in range(len(inputs[0]))),
            "values": _stack(values, np.nan), "targets": _stack(targets, np.nan), "chosen": np.array(chosen),
            "seconds": label_s, "decisions": len(values), "dims": dict(student.dims)}


def compact(x: tuple[np.ndarray, ...], values: np.ndarray,
            targets: np.ndarray) -> tuple[tuple[np.ndarray, ...], np.ndarray, np.ndarray]:
    """An action scorer's decision restricted to its legal actions (context, their feature rows, a mask of ones):
    The Game's 405 actions shrink to a few dozen legal ones, so its label sets fit in memory."""
    ctx, per, mask = x
    legal = np.flatnonzero(mask > 0)
    return (ctx, per[legal], np.ones(len(legal), np.float32)), values[legal], targets[legal]


def _padded(a: np.ndarray, n: int, axis: int, fill: float) -> np.ndarray:
    """`a` padded with `fill` along `axis` to length n."""
    widths = [(0, 0)] * a.ndim
    widths[axis] = (0, n - a.shape[axis])
    return np.pad(a, widths, constant_values=fill)


def _stack(rows: list[np.ndarray], fill: float) -> np.ndarray:
    """Stack rows whose first axis may differ in length, padded with `fill` to the longest."""
    longest = max(r.shape[0] for r in rows) if rows[0].ndim else 0
    return np.stack([_padded(r, longest, 0, fill) if r.ndim else r for r in rows])


def _concat(parts: list[np.ndarray], fill: float) -> np.ndarray:
    """Concatenate batches along decisions, padding the action axis (axis 1) with `fill` to the widest batch."""
    if parts[0].ndim < 2:
        return np.concatenate(parts)
    return np.concatenate([_padded(p, max(q.shape[1] for q in parts), 1, fill) for p in parts])


def merge(batches: list[dict[str, Any]]) -> dict[str, Any]:
    """One labelled data set from several (rounds, or worker processes)."""
    first = batches[0]
    out: dict[str, Any] = {
        "inputs": tuple(_concat([b["inputs"][i] for b in batches], 0.0) for i in range(len(first["inputs"]))),
        "values": _concat([b["values"] for b in batches], np.nan),
        "targets": _concat([b["targets"] for b in batches], np.nan),
    }
    if all("chosen" in b for b in batches):
        out.update(chosen=np.concatenate([b["chosen"] for b in batches]), seconds=sum(b["seconds"] for b in batches),
                   decisions=sum(b["decisions"] for b in batches), dims=first["dims"])
    return out


def _ray_running() -> bool:
    ray = sys.modules.get("ray")
    return ray is not None and bool(ray.is_initialized())


def _label_round(cfg, kind, features, state, beta, seeds, pool, backend=None) -> dict[str, Any]:
    """The round's games labelled in this process, by `pool`'s workers, or as tasks of `backend` (e.g. Ray: in
    chunks of each worker's part, about four per CPU), joined in the local run's order: the same data."""
    parts = [seeds[i::cfg.workers] for i in range(cfg.workers)]
    if backend is not None:
        per_part = -(-4 * backend.parallelism // len(parts))
        sizes = [max(1, -(-len(part) // per_part)) for part in parts]
        chunks = [part[i:i + size] for part, size in zip(parts, sizes) for i in range(0, len(part), size)]
        return merge(backend.map(functools.partial(label_games, cfg, kind, features, state, beta), chunks))
    if pool is None:
        return label_games(cfg, kind, features, state, beta, seeds)
    return merge(pool.starmap(label_games, [(cfg, kind, features, state, beta, p) for p in parts if p]))


# --- fitting and measuring -------------------------------------------------------------------

def agreement(student: Any, data: dict[str, Any]) -> tuple[float, float]:
    """(share of decisions where the student's argmax has the teacher's best value,
    mean teacher value the student's argmax gives up) on labelled decisions."""
    import torch

    with torch.no_grad():
        logits, _ = student.net(*(torch.as_tensor(a) for a in data["inputs"]))
    pick = logits.argmax(dim=1).numpy()
    v = data["values"]
    best = np.nanmax(v, axis=1)
    got = v[np.arange(len(pick)), pick]
    got = np.where(np.isfinite(got), got, np.nanmin(v, axis=1))
    return float(np.mean(got >= best - 1e-9)), float(np.mean(best - got))


def fit(student: Any, data: dict[str, Any], cfg: DistillConfig, value_scale: float | None, rng: np.random.Generator,
        optimizer: Any) -> float:
    """`cfg.epochs` passes of minibatch Adam over `data` (fitted to its `targets`); returns the last epoch's mean
    loss."""
    import torch
    import torch.nn.functional as nnf

    v = data["targets"]
    soft = np.stack([soft_targets(row, cfg.temperature) for row in v]).astype(np.float32)
    hard = np.nanargmax(np.where(np.isfinite(v), v, -np.inf), axis=1)
    xs = [torch.as_tensor(a) for a in data["inputs"]]
    soft_t, hard_t = torch.as_tensor(soft), torch.as_tensor(hard)
    vt = torch.as_tensor((np.nanmax(v, axis=1) / value_scale).astype(np.float32)) if value_scale else None
    n = len(v)
    student.net.train()
    last = 0.0
    for _ in range(cfg.epochs):
        order = torch.as_tensor(rng.permutation(n))
        total = 0.0
        for i in range(0, n, cfg.batch_size):
            idx = order[i:i + cfg.batch_size]
            logits, value = student.net(*(x[idx] for x in xs))
            logp = nnf.log_softmax(logits, dim=1)
            loss = -(soft_t[idx] * logp).sum(1).mean() + cfg.hard_weight * nnf.nll_loss(logp, hard_t[idx])
            if vt is not None:
                loss = loss + cfg.value_weight * nnf.mse_loss(value, vt[idx])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * len(idx)
        last = total / n
    student.net.eval()
    return last


def evaluate_student(cfg: DistillConfig, student: Any, games: int, seq: np.random.SeedSequence) -> dict[str, float]:
    """Mean return of the student (argmax) against each evaluation opponent, the same games each call."""
    import agents
    from agents.learned import LearnedAgent
    from train.curve import evaluate_policy_agent, evaluate_team

    game = student.game
    out: dict[str, float] = {}
    learner = LearnedAgent(student, np.random.default_rng(0))
    if not cfg.eval_opponents:
        r = evaluate_team(game, learner, games, np.random.default_rng(seq))
        return {"eval_mean_score": r["eval_mean_score"]}
    scores = []
    for j, opp in enumerate(cfg.eval_opponents):
        o = agents.make(opp, game, rng=np.random.default_rng(child(seq, j)), game_name=cfg.game)
        r = evaluate_policy_agent(game, learner, [o], games, np.random.default_rng(seq))
        out[f"score_vs_{opp}"] = r["eval_mean_score"]
        scores.append(r["eval_mean_score"])
    out["eval_mean_score"] = float(np.mean(scores))
    return out


def _clone(state: dict[str, Any]) -> dict[str, Any]:
    return {k: v.detach().clone() for k, v in state.items()}


def checkpoint_contents(cfg: DistillConfig, done: int, student: Any, optimizer: Any, data: dict[str, Any],
                        rows: list[dict[str, float]], best: tuple[float, int, dict[str, Any]], beta: float,
                        fit_rng: np.random.Generator, seconds: float) -> tuple[dict[str, Any], dict[str, Any]]:
    """What a distillation checkpoint after `done` rounds holds: JSON-able state and tensors (`train.checkpoint`):
    the labelled decisions so far, the student and its optimizer, the best round's weights and every generator."""
    import torch

    from train.checkpoint import rng_state

    state = {"method": "distill", "config": dataclasses.asdict(cfg), "rounds_done": done, "curve": rows,
             "best": {"score": best[0], "round": best[1]}, "beta": beta, "fit_rng": rng_state(fit_rng),
             "seconds": seconds, "data": {"dims": data["dims"], "decisions": int(data["decisions"]),
                                          "seconds": float(data["seconds"])}}
    tensors = {"student": _clone(student.net.state_dict()), "optimizer": optimizer.state_dict(), "best": best[2],
               "torch_rng": torch.get_rng_state(),
               "data": {"inputs": [torch.from_numpy(np.ascontiguousarray(x)) for x in data["inputs"]],
                        **{k: torch.from_numpy(np.ascontiguousarray(data[k]))
                           for k in ("values", "targets", "chosen")}}}
    return state, tensors


def restore(cfg: DistillConfig, student: Any, state: dict[str, Any], tensors: dict[str, Any],
            fit_rng: np.random.Generator) -> dict[str, Any]:
    """Put a checkpoint back into a fresh student and generator; returns the loop's state (next round, data,
    optimizer state, rows, best, beta, seconds).

    Raises:
        ValueError: one line, if the checkpoint does not fit this run.
    """
    import torch

    from train.checkpoint import misfit, set_rng_state

    try:
        d = tensors["data"]
        data = {"inputs": tuple(x.numpy() for x in d["inputs"]),
                **{k: d[k].numpy() for k in ("values", "targets", "chosen")}, **state["data"]}
        if student.net is None:
            student._build(int(data["dims"]["context_dim"]), int(data["dims"]["feature_dim"]))
        student.net.load_state_dict(tensors["student"])
        torch.set_rng_state(tensors["torch_rng"])
        set_rng_state(fit_rng, state["fit_rng"])
        rows = [{k: float("nan") if v is None else float(v) for k, v in r.items()} for r in state["curve"]]
        best = (float(state["best"]["score"]), int(state["best"]["round"]), tensors["best"])
        return {"start": int(state["rounds_done"]), "data": data, "optimizer": tensors["optimizer"], "rows": rows,
                "best": best, "beta": float(state["beta"]), "seconds": float(state["seconds"])}
    except (KeyError, TypeError, ValueError, RuntimeError, IndexError, AttributeError) as e:
        raise misfit(e, cfg.out) from None


def distill(cfg: DistillConfig, verbose: bool = True, command: str = "", backend: Any = None, resume: Any = None,
            overwrite: bool = False) -> dict[str, Any]:
    """Run the DAgger loop of the module docstring; returns the run summary (also in config.json). `command`: the
    student's provenance; `backend`: `evaluate.backends` labelling (the same labels); `resume`:
    `read_checkpoint(cfg.out)`'s output (it ends as the run left alone); `overwrite`: replace the run in `cfg.out`.

    Raises:
        ValueError: bad settings or an unusable run folder, before any work.
        TrainingStoppedError: SIGTERM or Ctrl-C ended the run after a round and its checkpoint.
    """
    import multiprocessing

    import torch

    import envs
    from agents.learned import Student, save_student
    from train.checkpoint import write_checkpoint
    from train.run import StopSignals, TrainingStoppedError, check_out, make_out

    t0 = time.time()
    envs.spec(cfg.game)  # an unknown game: a ValueError naming the registered ones
    if cfg.workers > 1 and backend is None and _ray_running():
        raise ValueError(f"workers={cfg.workers} forks worker processes, and a fork beside Ray running in this "
                         "process can hang; label on Ray instead (backend=get_backend('ray', ...)), or workers=1")
    cfg.out = cfg.out or cfg.default_out()
    check_out(cfg.out, resume is not None, overwrite)
    kind, features = resolve_kind(cfg)
    torch.manual_seed(cfg.seed)
    torch.set_num_threads(1)  # as PPO: small fits on two threads ran 32x slower beside other jobs
    student = Student(cfg.game, cfg.options, kind, cfg.hidden, features)
    w = _worker_setup(cfg, kind, features)
    value_scale = getattr(w["teacher"], "value_scale", None)
    root = np.random.SeedSequence(cfg.seed)
    train_seq, select_seq = child(root, TRAIN_STREAM), child(root, SELECT_STREAM)
    fit_rng = np.random.default_rng(child(root, FIT_STREAM))
    data: dict[str, Any] | None = None
    optimizer = None
    rows: list[dict[str, float]] = []
    best: tuple[float, int, dict[str, Any]] | None = None
    beta, start, before = cfg.beta, 0, 0.0
    if resume is not None:
        loop = restore(cfg, student, *resume, fit_rng)
        start, data, rows, best, beta, before = (loop[k] for k in ("start", "data", "rows", "best", "beta", "seconds"))
        optimizer = torch.optim.Adam(student.net.parameters(), lr=cfg.learning_rate)
        optimizer.load_state_dict(loop["optimizer"])
    make_out(cfg.out, overwrite)
    ctx = multiprocessing.get_context("fork") if cfg.workers > 1 and backend is None else None
    pool = ctx.Pool(cfg.workers) if ctx is not None and start < cfg.rounds else None
    try:
        with StopSignals() as stop:
            for r in range(start, cfg.rounds):
                t = time.time()
                state = None if r == 0 or student.net is None else {
                    "weights": _clone(student.net.state_dict()), "dims": dict(student.dims)}
                seeds = children(child(train_seq, r), cfg.games_per_round)
                batch = _label_round(cfg, kind, features, state, beta, seeds, pool, backend)
                label_wall = time.time() - t
                if student.net is None:
                    student._build(int(batch["dims"]["context_dim"]), int(batch["dims"]["feature_dim"]))
                row: dict[str, float] = {"timesteps": r, "decisions": float(batch["decisions"]),
                                         "label_seconds_per_decision": batch["seconds"] / batch["decisions"],
                                         "label_wall_seconds": label_wall}
                if r > 0:
                    row["agreement"], row["value_lost"] = agreement(student, batch)
                data = batch if data is None else merge([data, batch])
                if optimizer is None:
                    optimizer = torch.optim.Adam(student.net.parameters(), lr=cfg.learning_rate)
                t = time.time()
                row["fit_loss"] = fit(student, data, cfg, value_scale, fit_rng, optimizer)
                row["fit_seconds"] = time.time() - t
                row["train_agreement"], row["train_value_lost"] = agreement(student, data)
                t = time.time()
                row.update(evaluate_student(cfg, student, cfg.eval_games, select_seq))
                row["eval_seconds"] = time.time() - t
                row["wall_s"] = before + time.time() - t0  # the run's seconds so far (a second x axis on the curve)
                rows.append(row)
                if best is None or row["eval_mean_score"] > best[0]:
                    best = (row["eval_mean_score"], r, _clone(student.net.state_dict()))
                    # The best student so far is on disk after every round, so that a cut-short run still ships one.
                    save_student(student, os.path.join(cfg.out, "student"), _provenance(cfg, r, data, command))
                if verbose:
                    print(f"round {r}: " + ", ".join(f"{k} {v:.4g}" for k, v in row.items() if k != "timesteps"),
                          flush=True)
                beta *= cfg.beta_decay
                write_checkpoint(cfg.out, r + 1, *checkpoint_contents(cfg, r + 1, student, optimizer, data, rows, best,
                                                                      beta, fit_rng, before + time.time() - t0))
                if stop.signum is not None and r + 1 < cfg.rounds:
                    raise TrainingStoppedError(cfg.out, r + 1, cfg.rounds, stop.signum, unit="round")
    finally:
        if pool is not None:
            pool.close()
            pool.join()
    assert best is not None
    return _finish(cfg, student, best, data, rows, (kind, features), command, before + time.time() - t0, verbose)


def _finish(cfg: DistillConfig, student: Any, best: tuple[float, int, dict[str, Any]], data: dict[str, Any] | None,
            rows: list[dict[str, float]], kind: tuple[str, str | None], command: str, seconds: float,
            verbose: bool) -> dict[str, Any]:
    """Write what a finished distillation leaves (the best round's student, the curve, the final tournaments,
    config.json), remove its checkpoint; returns the run summary."""
    import envs
    from agents.learned import save_student
    from evaluate.jsonio import write_json
    from evaluate.tournament import format_table, run_tournament
    from train.checkpoint import remove_checkpoint
    from train.curve import EVAL_MAX_TURNS, write_curve

    student.net.load_state_dict(best[2])
    folder = save_student(student, os.path.join(cfg.out, "student"),
                          provenance=_provenance(cfg, best[1], data, command))
    write_curve(rows, cfg.out, f"{envs.spec(cfg.game).title}, {cfg.variant.label()}: "
                f"student distilled from {cfg.teacher}", xlabel="DAgger round")
    results = []
    if cfg.final_eval_games > 0:
        for opp in cfg.eval_opponents:
            ids = [f"learned:{folder}", opp] + [opp] * (envs.make_game(cfg.game, **cfg.options).num_players - 2)
            res = run_tournament(cfg.game, ids, games=cfg.final_eval_games, seed=cfg.seed + 1, options=cfg.options,
                                 max_turns=EVAL_MAX_TURNS, progress=False)
            results.append(res.to_dict())
            if verbose:
                print(format_table(res))
    write_json(os.path.join(cfg.out, "eval.json"), {"tournaments": results})
    summary = cfg.write_config({"method": "distill", "kind": kind[0], "features": kind[1], "student": folder,
                                "selected_round": best[1], "seconds": seconds, "curve": rows})
    remove_checkpoint(cfg.out)
    return summary


def _provenance(cfg: DistillConfig, selected_round: int, data: dict[str, Any] | None, command: str) -> dict[str, Any]:
    from train.run import provenance

    return provenance("distill", command or f"python -m train distill {cfg.game} --teacher {cfg.teacher}") | {
        "seed": cfg.seed, "options": cfg.options, "rounds": cfg.rounds, "games_per_round": cfg.games_per_round,
        "selected_round": selected_round, "teacher": cfg.teacher, "decisions": int(len(data["values"])) if data else 0}


def distill_preset(game: str) -> dict[str, Any]:
    """The game's DISTILL preset section (empty without one).

    Raises:
        ValueError: a key that is not a `DistillConfig` field (the allowed ones are listed).
    """
    from train.presets import PRESETS

    mod = PRESETS.module(game)
    values = dict(getattr(mod, "DISTILL", {})) if mod is not None else {}
    DistillConfig.check_keys(values, f"DISTILL preset of {game}")
    return values


def distill_main(parser: Any, args: Any, settings: dict[str, Any]) -> int:
    """`python -m train GAME --method distill ...` (the parsed arguments of `train.__main__`; `settings`: the
    config fields its generated flags gave)."""
    import envs
    from envs.core.options import parse_options
    from train.run import command_line

    try:
        values = distill_preset(args.game)
        options = dict(values.get("options", {}))
        options.update(parse_options(envs.config_class(args.game), args.option))
        envs.make_game(args.game, **options)
    except ValueError as e:
        parser.error(str(e))
    values["options"] = options
    values.update(settings)
    if args.hidden is not None:
        values["hidden"] = args.hidden
    if args.opponents:
        values["eval_opponents"] = args.opponents.split(",")
    if not values.get("teacher"):
        import agents

        parser.error("--method distill needs --teacher ID (the game's preset names none); agents: "
                     + ", ".join(agents.known_ids(args.game)))
    try:
        cfg = DistillConfig(game=args.game, seed=args.seed, out=args.out, **values)
        return run_distill(parser, args, cfg, command_line())
    except ValueError as e:
        parser.error(str(e))
    return 0


def run_distill(parser: Any, args: Any, cfg: DistillConfig, command: str, resume: Any = None) -> int:
    """Run `cfg` (continuing the checkpoint `resume`, if given) with the backend of `args`; the exit status."""
    from evaluate import backends
    from evaluate.cli import fail
    from train.run import TrainingStoppedError

    try:
        with backends.from_args(args) as backend:
            distill(cfg, verbose=True, command=command, backend=backend if backend.name != "local" else None,
                    resume=resume, overwrite=args.overwrite)
    except TrainingStoppedError as e:
        return fail(str(e), parser.prog, 128 + e.signum)
    return 0
