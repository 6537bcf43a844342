"""`python -m train GAME`: MaskablePPO for any game, with per-game presets.

Examples::

    python -m train simple_poker --option n=3 --self-play            # exploitability curve
    python -m train lama --opponents lama/first --timesteps 100000
    python -m train the_game --option num_players=3                  # one policy, all seats
    python -m train primi_composti --method distill --teacher primi_composti/teacher   # DAgger from a teacher

Every run saves `model.zip`, `config.json`, `curve.csv`/`curve.png` and
`eval.json` in `--out` (default `runs/<game>-<time>`); play the model with
`python -m evaluate GAME --agents ppo:<out>,...`.
"""

from __future__ import annotations

import argparse
import sys

import envs
from envs.core.options import parse_options
from train.config import TrainConfig, check_keys
from train.ppo import train
from train.presets import preset


def main(argv: list[str] | None = None) -> int:
    """Entry point."""
    p = argparse.ArgumentParser(prog="python -m train", description="Train a MaskablePPO agent on a tabletop-rl game.")
    p.add_argument("game", help=f"one of: {', '.join(envs.available_games())}")
    p.add_argument("--opponents", type=str, default=None, help="comma-separated opponent agent ids (one, repeated, or one per other seat; NAME*K repeats)")
    p.add_argument("--self-play", action="store_true", help="opponents drawn from snapshots of the learner, its live policy and --baselines")
    p.add_argument("--baselines", type=str, default=None, help="with --self-play: baseline agent ids added to the pool")
    p.add_argument("--timesteps", type=int, default=None, help="learner steps (default: the game's preset)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="env option, repeatable")
    p.add_argument("--n-envs", type=int, default=None, help="parallel episodes per update (default: preset)")
    p.add_argument("--eval-every", type=int, default=None, help="steps between learning-curve points")
    p.add_argument("--eval-games", type=int, default=None, help="games per learning-curve point")
    p.add_argument("--final-eval-games", type=int, default=None, help="games in the final evaluation tournament (0: none)")
    p.add_argument("--out", type=str, default="", help="run folder (default runs/<game>-<time>)")
    p.add_argument("--no-progress", action="store_true")
    p.add_argument("--method", choices=("ppo", "distill"), default="ppo", help="ppo (default) or distill (train/distill.py)")
    p.add_argument("--teacher", type=str, default=None, help="distill: the teacher's agent id")
    p.add_argument("--rounds", type=int, default=None, help="distill: DAgger rounds")
    p.add_argument("--games-per-round", type=int, default=None, help="distill: games rolled in and labelled per round")
    p.add_argument("--features", type=str, default=None, help="distill: the student's feature set (agents.learned.FEATURES)")
    p.add_argument("--workers", type=int, default=None, help="distill: labelling processes")
    args = p.parse_args(argv)
    if args.game not in envs.available_games():
        p.error(f"unknown or unavailable game {args.game!r}; available: {', '.join(envs.available_games())}")
    if args.method == "distill":
        from train.distill import distill_main

        return distill_main(p, args)
    try:
        values = preset(args.game)
        options = dict(values.get("options", {}))
        options.update(parse_options(envs.config_class(args.game), args.option))
        envs.make_game(args.game, **options)
    except ValueError as e:
        p.error(str(e))
    values["options"] = options
    if args.opponents:
        values["opponents"] = args.opponents.split(",")
    if args.baselines is not None:
        values["baselines"] = [b for b in args.baselines.split(",") if b]
    for key in ("timesteps", "n_envs", "eval_every", "eval_games", "final_eval_games"):
        v = getattr(args, key)
        if v is not None:
            values[key] = v
    # Naming opponents means training against them, unless --self-play is asked too.
    values["self_play"] = args.self_play or (values.get("self_play", False) and not args.opponents)
    try:
        check_keys(values, "training settings")
        cfg = TrainConfig(game=args.game, seed=args.seed, out=args.out, **values)
        train(cfg, progress=not args.no_progress)
    except ValueError as e:
        p.error(str(e))
    return 0


if __name__ == "__main__":
    sys.exit(main())
