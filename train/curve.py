"""The learning curve: periodic measurements of the learner and the files they go to."""

from __future__ import annotations

import collections
import csv
import os
import textwrap
from collections.abc import Sequence
from typing import Any

import numpy as np

from envs.core.play import play_game
from train.checkpoint import atomic_path

#: Moves after which an evaluation game is cut with no winner. A policy can make a game endless: under L.A.M.A.'s
#: seed2022 reshuffle rule a weak student that keeps drawing (40 cards in hand) while strategy-1 players lay llamas
#: on llamas never ends its round (measured on a student fitted to 500 games). Real games are far shorter (a few
#: hundred moves).
EVAL_MAX_TURNS = 100_000


def evaluate_policy_agent(game: Any, learner: Any, opponents: list[Any], games: int,
                          rng: np.random.Generator) -> dict[str, float]:
    """Win rate and mean score of `learner` over `games` games at random seats (a game cut at `EVAL_MAX_TURNS`
    moves has no winner)."""
    n = game.num_players
    wins, score = 0.0, 0.0
    for _ in range(games):
        seat = int(rng.integers(n))
        others = [opponents[int(rng.integers(len(opponents)))] for _ in range(n - 1)]
        seated = others[:seat] + [learner] + others[seat:]
        state = game.initial_state(rng)
        ret, won, _ = play_game(game, seated, state, max_turns=EVAL_MAX_TURNS)
        wins += seat in won
        score += ret[seat]
    return {"eval_win_rate": wins / games, "eval_mean_score": score / games}


def evaluate_team(game: Any, learner: Any, games: int, rng: np.random.Generator) -> dict[str, float]:
    """`learner` in every seat (cooperative games): seat 0's mean score and the share of games won."""
    team = [learner] * game.num_players
    res = [play_game(game, team, game.initial_state(rng), max_turns=EVAL_MAX_TURNS) for _ in range(games)]
    return {"eval_mean_score": float(np.mean([r[0][0] for r in res])),
            "eval_win_rate": float(np.mean([len(r[1]) > 0 for r in res]))}


#: What each curve column measures, with its unit (the y-axis labels).
LABELS = {
    "mean_return": "training return\n(mean per episode)",
    "eval_win_rate": "win rate\n(share of eval games)",
    "eval_mean_score": "score\n(mean per eval game)",
    "exploitability": "exploitability\n(antes per game)",
    "agreement": "agreement with\nthe teacher (share)",
}
#: The column of a curve point's wall-clock seconds since the run began (a second x axis, not a panel).
WALL = "wall_s"
#: Columns measured on noisy samples: drawn smoothed, with a band.
NOISY = ("mean_return",)


def _smooth(y: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray]:
    """Running mean and standard deviation over the last `width` points (NaN points skipped)."""
    mean, sd = np.full(len(y), np.nan), np.full(len(y), np.nan)
    for i in range(len(y)):
        w = y[max(0, i - width + 1): i + 1]
        w = w[np.isfinite(w)]
        if len(w):
            mean[i], sd[i] = w.mean(), w.std()
    return mean, sd


def _through(xp: np.ndarray, fp: np.ndarray) -> Any:
    """The piecewise linear function through the points (xp increasing), continued beyond either end at the
    whole run's mean slope: held flat there, as `np.interp` holds it, the plot's margins would put several ticks
    of a second axis onto its last point."""
    slope = (fp[-1] - fp[0]) / (xp[-1] - xp[0])

    def f(v: Any) -> np.ndarray:
        v = np.asarray(v, dtype=float)
        before, after = fp[0] + (v - xp[0]) * slope, fp[-1] + (v - xp[-1]) * slope
        return np.where(v < xp[0], before, np.where(v > xp[-1], after, np.interp(v, xp, fp)))

    return f


def _short_count(v: float, _pos: object = None) -> str:
    """A tick label that stays narrow: 800, 25k, 2.5M."""
    for scale, unit in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(v) >= scale:
            return f"{v / scale:g}{unit}"
    return f"{v:g}"


def write_curve(rows: list[dict[str, float]], out: str, title: str, references: dict[str, Any] | None = None,
                xlabel: str = "learner steps") -> None:
    """Write the learning curve as `curve.csv` and `curve.png` in `out` (each atomically): a panel per column of
    `rows` against "timesteps" (counted in `xlabel`), "wall_s" as a second x axis in minutes, `references`
    (column -> (level, label) or a list of such) as labelled horizontal lines."""
    columns = sorted({k for r in rows for k in r if k != "timesteps"})
    keys = [k for k in columns if k != WALL]
    with atomic_path(os.path.join(out, "curve.csv")) as tmp, open(tmp, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["timesteps"] + columns)
        for r in rows:
            w.writerow([int(r["timesteps"])] + [r.get(k, "") for k in columns])
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    references = references or {}
    fig, axes = plt.subplots(len(keys), 1, figsize=(7.5, 2.4 * len(keys) + 0.6), sharex=True, squeeze=False)
    x = np.array([r["timesteps"] for r in rows], dtype=float)
    for ax, k in zip(axes[:, 0], keys):
        y = np.array([r.get(k, float("nan")) for r in rows], dtype=float)
        if k in NOISY and len(y) >= 4:
            width = max(2, len(y) // 8)
            mean, sd = _smooth(y, width)
            ax.plot(x, y, color="0.75", lw=0.8, label="each point")
            ax.plot(x, mean, color="C0", lw=1.8, label=f"running mean of {width} points")
            ax.fill_between(x, mean - sd, mean + sd, color="C0", alpha=0.2, label="± 1 s.d.")
        else:  # measured at some points only (evaluations among every update's training return): those points
            ok = np.isfinite(y)
            ax.plot(x[ok], y[ok], marker="o", ms=3, color="C0", label="measured")
        lines = references.get(k, [])
        lines = [lines] if isinstance(lines, tuple) else list(lines)
        shares = [line for line in lines if line[1].startswith("equal share")]
        for j, (level, label) in enumerate(shares + [line for line in lines if line not in shares]):
            # an equal share in grey whatever else is drawn, so a baseline keeps its colour in every panel
            color = "0.45" if j < len(shares) else f"C{3 + j - len(shares)}"
            ax.axhline(level, color=color, ls="--", lw=1.2, label=label)
        ax.set_ylabel(LABELS.get(k, k.replace("_", " ")), fontsize=8)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="best")
    axes[-1, 0].set_xlabel(xlabel)
    axes[-1, 0].xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(_short_count))
    wall = np.array([r.get(WALL, float("nan")) for r in rows], dtype=float)
    if (len(x) >= 2 and np.isfinite(wall).all() and (np.diff(x) > 0).all() and (np.diff(wall) >= 0).all()
            and wall[-1] > wall[0]):
        # Wall-clock over the same points: a second x axis on top (piecewise linear between measured points).
        minutes = wall / 60.0
        top = axes[0, 0].secondary_xaxis("top", functions=(_through(x, minutes), _through(minutes, x)))
        top.set_xlabel("wall-clock (minutes)", fontsize=8)
        top.tick_params(labelsize=7)
    # placed above the wall-clock axis by matplotlib; a long title (a game's options) wraps within the figure
    axes[0, 0].set_title("\n".join(textwrap.wrap(title, 80)) or title, fontsize=10)
    fig.tight_layout()
    with atomic_path(os.path.join(out, "curve.png")) as tmp:
        fig.savefig(tmp, dpi=110)
    plt.close(fig)


def lineup_label(ids: list[str]) -> str:
    """Agent ids as a curve title names them: repeats counted (`lama/first*3`), first-seen order."""
    return ", ".join(f"{i}*{c}" if c > 1 else i for i, c in collections.Counter(ids).items())


def references_for(game: Any, spec: Any, control: str, levels: dict[str, dict[str, float]] | None = None
                   ) -> dict[str, list[tuple[float, str]]]:
    """The reference lines of a run's curve: exploitability's equilibrium (0), the win rate of a player
    no better than its opponents (an equal share, 1/n) where the learner holds one seat of a competitive game,
    and each baseline's measured level (`Evaluator.levels`) in its win rate and score panels."""
    refs: dict[str, list[tuple[float, str]]] = {"exploitability": [(0.0, "equilibrium (0)")]}
    n = game.num_players
    if control == "one_seat" and not spec.cooperative and n > 1:
        refs["eval_win_rate"] = [(1.0 / n, f"equal share (1/{n}): as strong as the opponents")]
    if spec.zero_sum:
        refs["eval_mean_score"] = [(0.0, "break even (0)")]
    for name, level in (levels or {}).items():
        for k, v in level.items():
            refs.setdefault(k, []).append((v, f"{name} in the seat ({v:.3f})"))
    return refs


def eval_rngs(seq: np.random.SeedSequence, opponents: int) -> tuple[np.random.Generator, np.random.Generator,
                                                                     list[np.random.Generator]]:
    """Fresh generators of one set of evaluation games, the same at every call: the games' (deals and seats),
    the measured agent's and each opponent's (children 0, 1, 2, ... of `seq`)."""
    from train.seeds import child

    kids = [np.random.default_rng(child(seq, k)) for k in range(opponents + 2)]
    return kids[0], kids[1], kids[2:]


#: The spawn keys of the evaluation games' streams of a run's seed (not the vector env's tables').
EVAL_STREAM, TEAM_STREAM = 0xE7A1, 0xE7A2


class Evaluator:
    """The curve's evaluation games (`--eval-every`): an agent in one random seat against the run's `opponents`
    (ids), on the same `games` deals, seats and opponents' generators at every point (one stream of the run's
    `seed`), so two figures differ by the agent alone; `baselines` (ids) are measured once, as reference lines."""

    def __init__(self, game: str, options: dict[str, Any], opponents: Sequence[str], games: int, seed: int,
                 baselines: Sequence[str] = ()):
        import envs

        self.game_name, self.options, self.games = game, dict(options), int(games)
        self.game = envs.make_game(game, **self.options)
        self.opponent_ids = list(dict.fromkeys(opponents))
        self.seq = np.random.SeedSequence(int(seed), spawn_key=(EVAL_STREAM,))
        self.levels = {b: self.measure_agent(b) for b in baselines}

    def measure_agent(self, agent: Any) -> dict[str, float]:
        """Win rate and mean score of `agent` (an agent, or an id built with its generator) on the games."""
        import agents

        game_rng, agent_rng, opponent_rngs = eval_rngs(self.seq, len(self.opponent_ids))
        if isinstance(agent, str):
            agent = agents.make(agent, self.game, rng=agent_rng, game_name=self.game_name)
        opps = [agents.make(i, self.game, rng=r, game_name=self.game_name)
                for i, r in zip(self.opponent_ids, opponent_rngs)]
        return evaluate_policy_agent(self.game, agent, opps, self.games, game_rng)

    def as_agent(self, student: Any) -> Any:
        """The saved student as the evaluation games play it (its own way: argmax, or a sample)."""
        from agents.learned import LearnedAgent

        rng = eval_rngs(self.seq, len(self.opponent_ids))[1]
        return LearnedAgent(student, rng, sample=student.play == "sample", name="learner")

    def measure(self, student: Any) -> dict[str, float]:
        """The policy's win rate and mean score on the evaluation games (`student`: as it is saved)."""
        return self.measure_agent(self.as_agent(student))

    def references(self) -> dict[str, list[tuple[float, str]]] | None:
        """The curve's lines: an equal share where the learner holds one seat of n, and each baseline's level."""
        from envs.core.spec import spec

        refs = references_for(self.game, spec(self.game_name), "one_seat", self.levels)
        return {k: v for k, v in refs.items() if k in EVAL_KEYS}


class TeamEvaluator(Evaluator):
    """The curve's evaluation games of a policy in every seat (`control="all_seats"`, a one-player game): the share
    of games won and seat 0's mean score (`evaluate_team`), the same deals at every point."""

    def __init__(self, game: str, options: dict[str, Any], games: int, seed: int):
        super().__init__(game, options, [], games, seed)
        self.seq = np.random.SeedSequence(int(seed), spawn_key=(TEAM_STREAM,))

    def measure_agent(self, agent: Any) -> dict[str, float]:
        """The team's win rate and mean score of `agent` in every seat, on the evaluation games."""
        return evaluate_team(self.game, agent, self.games, eval_rngs(self.seq, 0)[0])

    def references(self) -> None:
        """No reference lines."""


def summary_line(game_name: str, options: dict[str, Any], row: dict[str, float], eval_games: int,
                 team: bool = False) -> str:
    """The run's last curve point in plain words, for the console."""
    from envs.core.spec import Variant

    parts = [f"{Variant(game_name, options).label()} after {int(row['timesteps']):,} steps:"]
    if "exploitability" in row:
        parts.append(f"exploitability {row['exploitability']:.4f} antes a game (0 is the equilibrium);")
    if "eval_win_rate" in row and eval_games:
        who = "the team won" if team else "the policy won"
        parts.append(f"{who} {100 * row['eval_win_rate']:.1f}% of {eval_games:,} evaluation games")
        if "eval_mean_score" in row:
            parts.append(f"(mean score {row['eval_mean_score']:.2f});")
    if np.isfinite(row.get("mean_return", float("nan"))):
        parts.append(f"its recent training games returned {row['mean_return']:.3f} on average")
    return " ".join(parts).rstrip(";")


#: The history's columns of an evaluation point (`train.curve.evaluate_policy_agent`'s).
EVAL_KEYS = ("eval_win_rate", "eval_mean_score")


def write_history(history: list[dict[str, Any]], path: str) -> None:
    """The history as CSV, one row per update."""
    if not history:
        return
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(dict.fromkeys(k for h in history for k in h)))
        w.writeheader()
        w.writerows(history)


def write_run_curve(history: list[dict[str, Any]], out: str, title: str, points: int = 400,
                    references: dict[str, Any] | None = None, before: tuple[int, float] = (0, 0.0),
                    metrics: Sequence[str] = ()) -> None:
    """A training run's `write_curve` of its `history`: at most `points` updates (the last and every evaluated one
    kept), the evaluation columns and `metrics` where measured, steps and wall seconds counted after `before`
    (the stages this run continued)."""
    if not history:
        return
    step = max(1, -(-len(history) // points))
    measured = (*EVAL_KEYS, *metrics)
    keep = [h for i, h in enumerate(history)
            if i % step == 0 or i == len(history) - 1 or any(k in h for k in measured)]
    steps0, wall0 = before
    write_curve([{"timesteps": float(steps0 + h["steps"]), "mean_return": float(h["mean_return"]),
                  WALL: float(wall0 + h["wall_s"]),
                  **{k: float(h[k]) for k in measured if k in h}} for h in keep], out, title, references=references)
