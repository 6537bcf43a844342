"""L.A.M.A.: one learner seat among three of the seed's strategy-1 players (published rules, 4 players), with the
dense reward (−points at each round end): with the win reward a fresh policy sees no signal (docs/lama.md, "Measured
figures"). Evaluation still counts wins (`LamaGame.winners`).

    python -m train lama --opponents lama/first,lama/first,lama/first
    python -m train lama --opponents random --timesteps 30000     # a quick check
"""

PRESET = {
    "timesteps": 40_000_000,
    "opponents": ["lama/first", "lama/first", "lama/first"],
    "options": {"num_players": 4, "rules": "official", "reward": "dense"},
    # The batched compiled env (agents.vector_env): gradient steps per sample mattered more than the batch
    # (docs/lama.md, "The first runs").
    "n_envs": 128,
    "n_steps": 128,
    "batch_size": 1024,
    "net_arch": [128, 128],
    "gamma": 0.995,
    "eval_every": 2_500_000,
    "eval_games": 1000,
}

#: `python -m train distill lama` (train/distill.py): the PIMC teacher's values are win shares, so the temperature
#: is in win share; the student is fitted to the teacher's ungated means (`label_values="search"`, soft targets
#: only) of 2,500 games with every seat labelled (docs/lama.md, "Learned policies", has the measurements).
#: `--teacher lama/pimc-retuned --option rules=seed2022` for the seed's rules.
DISTILL = {
    "teacher": "lama/pimc",
    "options": {"num_players": 4, "rules": "official"},
    "kind": "masked_policy",
    "label_values": "search",
    "temperature": 0.02,
    "hard_weight": 0.0,
    "epochs": 8,
    "batch_size": 512,
    "rounds": 2,
    "games_per_round": 2500,
    "eval_opponents": ["lama/first"],
    "eval_games": 1000,
    "final_eval_games": 1000,
}
