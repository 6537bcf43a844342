"""L.A.M.A.: one learner seat among three of the seed's strategy-1 players
(published rules, 4 players), with the dense reward (−points at each round end).

Why dense: with the win reward a fresh policy never beats three strategy-1
players, so it sees no signal (measured: 60k steps, win rate 0.000); with −points
it reaches 0.161 (0.140, 0.182) in 60k steps and keeps improving. Evaluation
still counts wins (`LamaGame.winners`).

    python -m train lama --opponents lama/first,lama/first,lama/first
    python -m train lama --opponents random --timesteps 30000     # a quick check
"""

PRESET = {
    "timesteps": 20_000_000,
    "opponents": ["lama/first", "lama/first", "lama/first"],
    "control": "one_seat",
    "options": {"num_players": 4, "rules": "official", "reward": "dense"},
    # The batched compiled env (agents.vector_env): many tables, short rollouts, large minibatches, few epochs.
    "n_envs": 1024,
    "n_steps": 64,
    "batch_size": 8192,
    "n_epochs": 2,
    "learning_rate": 3e-4,
    "net_arch": [128, 128],
    "ent_coef": 0.01,
    "gamma": 0.995,
    "eval_every": 1_000_000,
    "eval_games": 400,
    "final_eval_games": 2000,
}

#: `python -m train lama --method distill` (train/distill.py): the PIMC teacher's values are win shares, which
#: differ by a few hundredths between actions, so the temperature is in win share. The student is fitted to the
#: teacher's ungated mean win shares (`label_values="search"`, soft targets only): the gate leaves the blueprint's
#: action standing on about 95% of decisions, while a student fitted to the means averages their noise over
#: hundreds of thousands of decisions. Quantity is what matters (seed2022, measured paired against
#: `lama/third-retuned` on 2,000 selection games): 500 teacher games labelled in the seat gave +0.005..+0.017,
#: 1,500 gave +0.040..+0.047, 9,000 gave +0.061; 2,500 games with every seat labelled (312k decisions, the
#: recipe here) gave +0.057..+0.059. 4 players, official rules, the student evaluated in one seat against three
#: strategy-1 players; `--teacher lama/pimc-retuned --option rules=seed2022` for the seed's rules.
DISTILL = {
    "teacher": "lama/pimc",
    "options": {"num_players": 4, "rules": "official"},
    "kind": "masked_policy",
    "hidden": [64, 64],
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
