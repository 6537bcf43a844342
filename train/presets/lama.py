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
    "timesteps": 40_000_000,
    "opponents": ["lama/first", "lama/first", "lama/first"],
    "options": {"num_players": 4, "rules": "official", "reward": "dense"},
    # The batched compiled env (agents.vector_env). Gradient steps per sample matter more than batch size
    # here: 1,024 tables x 64 steps with minibatches of 8,192 and 2 epochs (0.00024 gradient steps a sample)
    # plateaued at 0.22-0.24 against three strategy-1 players from 10M to 30M steps; 128 x 128 with
    # minibatches of 1,024 and 4 epochs (0.0039 a sample) reached 0.26 at 2.5M and 0.29 at 12.5M
    # (1,000 evaluation games a point; docs/lama.md).
    "n_envs": 128,
    "n_steps": 128,
    "batch_size": 1024,
    "net_arch": [128, 128],
    "gamma": 0.995,
    "eval_every": 2_500_000,
    "eval_games": 1000,
}

#: `python -m train distill lama` (train/distill.py): the PIMC teacher's values are win shares, which
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
