"""Primi Composti: one learner seat against the seed's greedy_rand player (version 1, 2 players), on the batched env
(greedy_rand has a compiled kernel); reward = change of the score difference, plus ±1 for the result. What this preset
reached: docs/primi_composti.md ("Training").

    python -m train primi_composti --option version=1 --opponents primi_composti/greedy_rand
    python -m train primi_composti --self-play --baselines primi_composti/greedy_rand
"""

from __future__ import annotations

PRESET = {
    "timesteps": 10_000_000,
    "opponents": ["primi_composti/greedy_rand"],
    "baselines": ["primi_composti/greedy_rand"],
    "options": {"version": 1, "observation_hints": True},
    # The batched compiled env (agents.vector_env; greedy_rand is a compiled kernel): 128 tables x 128 steps,
    # minibatches of 1,024 and 4 epochs (0.004 gradient steps a sample, L.A.M.A.'s retuned preset's ratio).
    "n_envs": 128,
    "n_steps": 128,
    "batch_size": 1024,
    "net_arch": [256, 256],
    "ent_coef": 0.0,
    "gamma": 1.0,
    "eval_every": 1_000_000,
    "eval_games": 1000,
}

#: `python -m train primi_composti --method distill` (train/distill.py): DAgger from the exact teacher,
#: an action scorer over per-card minimax gains (agents/primi_composti/features.py); see docs/primi_composti.md,
#: "Learned policies", for the measured rows and the version-2 command.
DISTILL = {
    "teacher": "primi_composti/teacher",
    "options": {"version": 1},
    "rounds": 2,
    "games_per_round": 120,
    "workers": 2,
    "eval_opponents": ["primi_composti/minimax?depth=6"],
    "eval_games": 60,
}
