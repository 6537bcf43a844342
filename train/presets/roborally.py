"""RoboRally: one MaskablePPO robot against `roborally/random` opponents (uniform over reduced
programs), 2 robots on `race_easy`, register mode (one card per decision), shaped reward
(`reward="progress"`: potential-based on flags and the BFS distance to the next flag, so the
best policy is the win-maximising one), races cut at 40 turns.

    python -m train roborally --timesteps 20000
    python -m train roborally --option board=random:7 --option num_robots=4

No learned result is claimed yet: this preset is the starting point of the training push.
"""

PRESET = {
    "timesteps": 200_000,
    "opponents": ["roborally/random"],
    "control": "one_seat",
    "options": {"board": "race_easy", "num_robots": 2, "action_mode": "register", "reward": "progress",
                "max_turns": 40},
    "n_envs": 4,
    "n_steps": 512,
    "batch_size": 512,
    "n_epochs": 4,
    "learning_rate": 3e-4,
    "net_arch": [256, 256],
    "ent_coef": 0.01,
    "gamma": 0.99,
    "eval_every": 10_000,
    "eval_games": 40,
    "final_eval_games": 200,
}
