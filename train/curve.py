"""The learning curve: periodic measurements of the learner and the files they go to."""

from __future__ import annotations

import csv
import os
from typing import Any

import numpy as np

from envs.core.play import play_game
from train.checkpoint import atomic_path

#: Moves after which an evaluation game is cut with no winner. A policy can make a game endless: under L.A.M.A.'s
#: seed2022 reshuffle rule a weak student that keeps drawing (40 cards in hand) while strategy-1 players lay llamas
#: on llamas never ends its round (measured on a student fitted to 500 games). Real games are far shorter (a few
#: hundred moves).
EVAL_MAX_TURNS = 100_000


def evaluate_policy_agent(game: Any, learner: Any, opponents: list[Any], games: int, rng: np.random.Generator) -> dict[str, float]:
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


def write_curve(rows: list[dict[str, float]], out: str, title: str) -> None:
    """Write the learning curve as CSV and PNG (each file atomically)."""
    keys = sorted({k for r in rows for k in r if k != "timesteps"})
    with atomic_path(os.path.join(out, "curve.csv")) as tmp, open(tmp, "w", newline="", encoding="utf-8") as f:
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
    with atomic_path(os.path.join(out, "curve.png")) as tmp:
        fig.savefig(tmp, dpi=110)
    plt.close(fig)
