"""Simple poker: self-play MaskablePPO; the curve tracks exact exploitability."""

PRESET = {
    "timesteps": 200_000,
    "self_play": True,
    "baselines": [],
    "n_envs": 8,
    "n_steps": 256,
    "batch_size": 512,
    "n_epochs": 4,
    "learning_rate": 3e-4,
    "net_arch": [32, 32],
    "ent_coef": 0.0,
    "gamma": 1.0,
    "eval_every": 5_000,
    "eval_games": 0,
    "snapshot_every": 5_000,
    "pool_size": 100,
    "meta_solver": "nash",
    "final_eval_games": 2000,
}
