"""What a finished run leaves behind: `config.json`, and the final tournaments in `eval.json`.

The only part of `train` that uses `evaluate`: the final evaluation is an
ordinary tournament (`evaluate.tournament`), and the run's JSON files go
through the project's one strict JSON writer (`evaluate.jsonio`).
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any

from evaluate.jsonio import write_json
from evaluate.tournament import format_table, run_tournament
from train.config import TrainConfig
from train.run import command_line, git_commit, library_versions  # noqa: F401  (provenance: their home is train.run)


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
