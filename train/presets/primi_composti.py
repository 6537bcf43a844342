"""Primi Composti: one learner seat against the seed's greedy_rand player (version 1,
2 players); reward = change of the score difference, plus ±1 for the result.

    python -m train primi_composti --option version=1 --opponents primi_composti/greedy_rand
    python -m train primi_composti --self-play --baselines primi_composti/greedy_rand,random
"""

PRESET = {
    "timesteps": 200_000,
    "opponents": ["primi_composti/greedy_rand"],
    "baselines": ["primi_composti/greedy_rand", "primi_composti/rand"],
    "control": "one_seat",
    "options": {"version": 1, "observation_hints": True},
    "n_envs": 4,
    "n_steps": 512,
    "batch_size": 512,
    "n_epochs": 4,
    "learning_rate": 3e-4,
    "net_arch": [128, 128],
    "ent_coef": 0.01,
    "gamma": 1.0,
    "eval_every": 20_000,
    "eval_games": 400,
    "final_eval_games": 2000,
}
