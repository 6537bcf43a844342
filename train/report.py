"""What a finished run leaves behind: `config.json`, and the final tournaments in `eval.json`.

The only part of `train` that uses `evaluate`: the final evaluation is an
ordinary tournament (`evaluate.tournament`), and the run's JSON files go
through the project's one strict JSON writer (`evaluate.jsonio`).
"""

from __future__ import annotations

import dataclasses
import os
import platform
from typing import Any

import numpy as np

from evaluate.jsonio import write_json
from evaluate.tournament import format_table, run_tournament
from train.config import TrainConfig


def library_versions() -> dict[str, str]:
    """Versions of the libraries a run depends on (recorded in `config.json`)."""
    import gymnasium
    import pettingzoo
    import sb3_contrib
    import torch

    return {
        "python": platform.python_version(), "torch": torch.__version__, "sb3_contrib": sb3_contrib.__version__,
        "pettingzoo": pettingzoo.__version__, "gymnasium": gymnasium.__version__, "numpy": np.__version__,
    }


def git_commit() -> str:
    """The commit of the code that ran ("" outside a git checkout)."""
    import subprocess

    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10,
                              cwd=os.path.dirname(os.path.abspath(__file__))).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def command_line() -> str:
    """The command that started this process, as a user would type it (`python -m train ...`)."""
    import sys

    if sys.argv and sys.argv[0].endswith(os.path.join("train", "__main__.py")):
        return " ".join(["python -m train", *sys.argv[1:]])
    return " ".join(["python", *sys.argv])


def write_config(cfg: TrainConfig, extra: dict[str, Any]) -> dict[str, Any]:
    """Write `config.json`: the run's `TrainConfig` plus `extra` (what it ships, versions, time)."""
    config = dataclasses.asdict(cfg) | extra
    write_json(os.path.join(cfg.out, "config.json"), config)
    return config


def final_tournaments(cfg: TrainConfig, lineups: list[list[str]], verbose: bool) -> list[dict[str, Any]]:
    """One tournament per line-up on fresh deals (seed + 1), written to `eval.json`."""
    results = []
    for ids in lineups:
        result = run_tournament(cfg.game, ids, games=cfg.final_eval_games, seed=cfg.seed + 1, options=cfg.options,
                                progress=False)
        results.append(result.to_dict())
        if verbose:
            print(format_table(result))
    write_json(os.path.join(cfg.out, "eval.json"), {"tournaments": results})
    return results
