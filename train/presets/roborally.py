"""RoboRally: the study's decision problem (`rules="seed"`: programs only, no power down, flags repair), 2 robots on
`race_easy`, register mode (one card per decision).

`DISTILL` (the shipped `roborally/learned`): DAgger from the flag seeker's per-register values
(`roborally/greedy-teacher`) into an ActionScorer over per-card features (`agents/roborally/features.py`).

    python -m train roborally --method distill --seed 1
    python -m evaluate roborally --agents roborally/learned,roborally/greedy --games 400 --option rules=seed --seed 2026

`PRESET`: one PPO robot against the `roborally/greedy` flag seeker, shaped reward (`reward="progress"`:
potential-based on flags and the BFS distance to the next flag, so the best policy is the win-maximising one), races
cut at 40 turns.

    python -m train roborally --timesteps 150000
    python -m train roborally --opponents roborally/random          # the easier opponent

The greedy robot finishes `race_easy` in about 5 turns, so the learner must race from the first turn. PPO over
the flat 5,276-float observation has not won a race against greedy at the budgets run; what learns is an action
scorer over per-card features (`--features roborally`): the shipped `roborally/ppo` (from the environment alone,
18.9M steps) wins 0.535 against greedy on race_easy and race_medium, and `roborally/learned` (the distilled robot
fine-tuned with PPO) 0.590 on race_easy (docs/roborally.md, "Training"; docs/training.md, "Action scorers";
`python -m train reproduce roborally/ppo` runs its chain again).

A program scorer (one decision a turn: which of the hand's reduced programs to run, scored from each program's
solo outcome; `envs/roborally/choice.py`, `agents/roborally/program.py`): the feature set `roborally_program`
builds its own vector env (`ProgramChoiceEnv`, 32 candidates a decision) and needs program mode, which the saved
policy then plays (`learned:RUN/policy` on the rules engine):

    python -m train roborally --features roborally_program --option action_mode=program --option max_turns=60 \\
        --also board=race_medium --also board=race_hard --also board=random:101 --also board=random:102 \\
        --n-envs 32 --n-steps 32 --batch-size 1024 --n-epochs 4 --hidden 128,128 --learning-rate 0.0005

(docs/roborally.md, "The program scorer"). `--features roborally_program_joint` adds to each candidate the columns of
its joint turn, the other robots playing the flag seeker's programs for hands dealt from the unseen cards
(`agents/roborally/joint.py`): the shipped `roborally/ppo-program-joint`, ahead of greedy on race_easy too
(docs/roborally.md, "The joint turn as features").

The same program scorer distilled from `roborally/mc` (DAgger: mc's playout means of the candidates the scorer
offers, `MonteCarloProgram.action_values`), then fine-tuned by that PPO command with `--init-from RUN
--critic-warmup 150000`, is the shipped `roborally/learned-program-joint`; `python -m train reproduce
roborally/learned-program-joint` runs both stages:

    python -m train distill roborally --teacher roborally/mc --features roborally_program_joint \
        --option action_mode=program --option max_turns=60 --hidden 128,128 --rounds 1 --games-per-round 1300 \
        --eval-games 100 --opponents roborally/greedy --seed 41 --out RUN
"""

PRESET = {
    "timesteps": 150_000,
    "opponents": ["roborally/greedy"],
    "control": "one_seat",
    "options": {"board": "race_easy", "num_robots": 2, "rules": "seed", "action_mode": "register",
                "reward": "progress", "max_turns": 40},
    # The batched compiled env (the opponents have kernels): 64 tables x 32 steps, the same 2,048 samples an update
    # as the 4 x 512 OpponentEnvs before it. PPO's update on the 5,276-float observation is the cost here: 1,040
    # learner steps/s, 0.96 of a cost-free env's (716 with 4 x 512), measured on the loaded 2-core machine.
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
