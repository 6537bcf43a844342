"""Primi Composti: one learner seat against the seed's greedy_rand player (version 1,
2 players); reward = change of the score difference, plus ±1 for the result.

    python -m train primi_composti --option version=1 --opponents primi_composti/greedy_rand
    python -m train primi_composti --self-play --baselines primi_composti/greedy_rand

Measured with this preset (300,000 steps, 5 min on 2 busy cores; 1,000 games each,
both seats): 20.4% [18.0, 22.8] wins vs greedy_rand and 80.0% [77.7, 82.3] vs rand
(200,000 steps: 14.7% and 76.1%) — still improving, and far below greedy_rand itself
(98.8% vs rand).
"""

PRESET = {
    "timesteps": 300_000,
    "opponents": ["primi_composti/greedy_rand"],
    "baselines": ["primi_composti/greedy_rand"],
    "control": "one_seat",
    "options": {"version": 1, "observation_hints": True},
    "n_envs": 4,
    "n_steps": 256,
    "batch_size": 256,
    "n_epochs": 8,
    "learning_rate": 1e-3,
    "net_arch": [256, 256],
    "ent_coef": 0.0,
    "gamma": 1.0,
    "eval_every": 20_000,
    "eval_games": 400,
    "final_eval_games": 2000,
}

#: `python -m train primi_composti --method distill` (train/distill.py): DAgger from the exact teacher,
#: an action scorer over per-card minimax gains (agents/primi_composti/features.py); see docs/primi_composti.md,
#: "Learned policies", for the measured rows and the version-2 command.
DISTILL = {
    "teacher": "primi_composti/teacher",
    "options": {"version": 1},
    "rounds": 2,
    "games_per_round": 120,
    "hidden": [64, 64],
    "temperature": 1.0,
    "beta": 1.0,
    "beta_decay": 0.0,
    "epochs": 10,
    "workers": 2,
    "eval_opponents": ["primi_composti/minimax?depth=6"],
    "eval_games": 60,
    "final_eval_games": 200,
}
