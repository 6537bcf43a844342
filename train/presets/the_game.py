"""The Game: cooperative, so one policy (the default learner's one-file PPO on the compiled vector env) acts for
whichever seat is to move (`control="all_seats"`) and every seat shares the team reward (+1 per card placed,
+10 when all 98 are placed). Official rules, 1 player by default.

    python -m train the_game                                   # 1 player
    python -m train the_game --option num_players=3            # 3 seats, one shared policy
    python -m train the_game --option num_players=2 --option communication=pile_flags

With `--learner sb3` the curve also reports `mean_cards_left` (lower is better) via `team_metrics`; compare
with the baselines in docs/the_game.md (e.g. the_game/bestplays leaves ~17 cards solo).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.core.play import play_out
from envs.the_game.rules import TheGame
from train.presets import GameHooks

PRESET = {
    "timesteps": 300_000,
    "control": "all_seats",
    "options": {"num_players": 1, "rules": "official"},
    # The batched compiled env, 2,048 samples an update (docs/training.md, "Presets", gives its speed).
    "n_envs": 64,
    "n_steps": 32,
    "batch_size": 512,
    "net_arch": [256, 256],
    "eval_every": 25_000,
    "eval_games": 50,
    "final_eval_games": 300,
}


def team_metrics(game: TheGame, learner: Any, games: int = 50, seed: int = 0) -> dict[str, float]:
    """The learner in every seat (cooperative): mean cards left, share under 10 left, win rate."""
    rng = np.random.default_rng(seed)
    team = [learner] * game.num_players
    finals = [play_out(game, team, game.initial_state(rng))[0] for _ in range(games)]
    return {
        "mean_cards_left": float(np.mean([s.cards_left for s in finals])),
        "excellent_rate": float(np.mean([s.cards_left < 10 for s in finals])),
        "win_rate": float(np.mean([s.won for s in finals])),
    }


HOOKS = GameHooks(metrics=team_metrics)

#: `python -m train the_game --method distill` (train/distill.py): the rollout teacher's values are minus the mean
#: cards left, so the temperature is in cards; the student plays every seat (evaluated as a team, no opponents) and
#: is fitted to the teacher's ungated rollout means (`label_values="search"`, soft targets only) of one round of 400
#: games, a (256, 256) scorer: the shipped `the_game/learned` (docs/the_game.md, "Learned policies", says why).
DISTILL = {
    "teacher": "the_game/rollout",
    "options": {"num_players": 1, "rules": "official"},
    "features": "the_game",
    "hidden": [256, 256],
    "label_values": "search",
    "temperature": 0.25,
    "hard_weight": 0.0,
    "rounds": 1,
    "games_per_round": 400,
    "batch_size": 512,
    "eval_opponents": [],
    "final_eval_games": 0,
}
