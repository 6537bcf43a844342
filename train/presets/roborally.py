"""RoboRally: the study's decision problem (`rules="seed"`: programs only, no power down, flags repair), 2 robots on
`race_easy`, register mode (one card per decision).

`DISTILL` (the shipped `roborally/learned`): DAgger from the flag seeker's per-register values
(`roborally/greedy-teacher`) into an ActionScorer over per-card features (`agents/roborally/features.py`).

    python -m train roborally --method distill --seed 1

`PRESET`: one PPO robot against the `roborally/greedy` flag seeker, shaped reward (`reward="progress"`:
potential-based on flags and the BFS distance to the next flag), races cut at 40 turns.

    python -m train roborally --timesteps 150000

What learns, and the shipped action and program scorers' commands and figures: docs/roborally.md ("Training",
"The program scorer", "The joint turn as features", "Distilled from `mc`, then fine-tuned"); `python -m train
reproduce RUN` runs a shipped student's chain again.
"""

PRESET = {
    "timesteps": 150_000,
    "opponents": ["roborally/greedy"],
    "control": "one_seat",
    "options": {"board": "race_easy", "num_robots": 2, "rules": "seed", "action_mode": "register",
                "reward": "progress", "max_turns": 40},
    # The batched compiled env (the opponents have kernels), 2,048 samples an update: PPO's update on the
    # 5,276-float observation is the cost here (docs/training.md, "Fast training: batched compiled environments").
    "n_envs": 64,
    "n_steps": 32,
    "batch_size": 512,
    "n_epochs": 4,
    "learning_rate": 3e-4,
    "net_arch": [256, 256],
    "ent_coef": 0.01,
    "gamma": 0.99,
    "eval_every": 25_000,
    "eval_games": 40,
    "final_eval_games": 200,
}

#: `python -m train roborally --method distill` (train/distill.py): the student places one card per register
#: sub-step from per-action features (`agents/roborally/features.py`: the card's kind, where that card alone takes
#: the robot, the board's distance field from there), labelled by the flag seeker's completion values
#: (`roborally/greedy-teacher`, agents/roborally/teacher.py: in BFS steps, so the temperature is in steps).
#: The rounds are picked by mean result against random and greedy on selection races of their own stream.
DISTILL = {
    "teacher": "roborally/greedy-teacher",
    "options": {"rules": "seed"},
    "features": "roborally",
    "hidden": [128, 128],
    "temperature": 1.0,
    "hard_weight": 1.0,
    "rounds": 6,
    "games_per_round": 150,
    "eval_opponents": ["roborally/random", "roborally/greedy"],
    "eval_games": 100,
    "final_eval_games": 0,
}
