"""The run frame every training method shares: `RunConfig` (the fields every run has; `setting` fields are flags),
the run folder (`check_out` before any work, `make_out`), stop signals (`StopSignals`, `TrainingStoppedError`) and
provenance (the command, commit and versions a saved policy records, chained over the runs it continued).
"""

from __future__ import annotations

import dataclasses
import os
import platform
import signal
import threading
import time
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from envs.core.files import read_json
from train.checkpoint import clear_run, run_files

#: The fields that say which run this is: never set by a preset.
IDENTITY = ("game", "seed", "out")


def setting(default: Any = dataclasses.MISSING, *, help: str, low: int | None = None, high: int | None = None,
            choices: tuple[str, ...] | None = None, metavar: str | None = None) -> Any:
    """A config field that is also a flag `--<name>` of `python -m train`, generated from its type, `help`, range
    `low`..`high` or `choices`; fields without it are set by presets (and `--resume`) only."""
    return field(default=default, metadata={"help": help, "low": low, "high": high, "choices": choices,
                                            "metavar": metavar})


@dataclass(kw_only=True)
class RunConfig:
    """What every training run has (saved in its `config.json`): the game and its options, the root seed, the
    evaluation sizes and the run folder `out` ("": `default_out`)."""

    method: ClassVar[str] = ""
    game: str
    options: dict[str, Any] = field(default_factory=dict)
    seed: int = setting(0, help="root seed (default 0)", low=0)
    eval_games: int = setting(200, help="games per learning-curve point", low=0, high=10**7)
    final_eval_games: int = setting(2000, help="games in the final evaluation tournament (0: none)", low=0, high=10**8)
    out: str = ""

    def __post_init__(self) -> None:
        self.check_counts({"seed": 0, "eval_games": 0, "final_eval_games": 0})
        self.check_settings()

    def check_settings(self) -> None:
        """Raise `ValueError` naming the field unless every `setting` field holds a value its flag would take (type,
        range, choices): a config read back from a file is held to what the command line allows."""
        for f in dataclasses.fields(self):
            meta, v = f.metadata, getattr(self, f.name)
            if "help" not in meta or v is None:
                continue
            kind = str(f.type)
            if meta.get("choices") and v not in meta["choices"]:
                raise ValueError(f"{f.name} must be one of {list(meta['choices'])}, got {v!r}")
            if kind == "bool" and not isinstance(v, bool):
                raise ValueError(f"{f.name} must be true or false, got {v!r}")
            if kind.startswith(("int", "float")):
                number = isinstance(v, int) if kind.startswith("int") else isinstance(v, (int, float))
                if isinstance(v, bool) or not number or not np.isfinite(v):
                    raise ValueError(f"{f.name} must be {'an integer' if kind.startswith('int') else 'a number'}, "
                                     f"got {v!r}")
                if v == f.default:  # a default outside the flag's range means "unset" (checkpoint_every 0)
                    continue
                # the flag's range: an integer flag without `low` takes >= 1, a number flag >= 0 (`python -m train`)
                low = meta.get("low") if meta.get("low") is not None else (1 if kind.startswith("int") else 0)
                high = meta.get("high")
                if v < low:
                    what = "an integer" if kind.startswith("int") else "a number"
                    raise ValueError(f"{f.name} must be {what} >= {low}, got {v!r}")
                if high is not None and v > high:
                    raise ValueError(f"{f.name} must be <= {high:,}, got {v!r}")

    def check_counts(self, lows: dict[str, int]) -> None:
        """Raise `ValueError` unless each field named in `lows` is an integer at least its low."""
        for name, low in lows.items():
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < low:
                raise ValueError(f"{name} must be an integer >= {low}, got {v!r}")

    @classmethod
    def preset_keys(cls) -> tuple[str, ...]:
        """What a preset section may set: every field but the run's identity."""
        return tuple(f.name for f in dataclasses.fields(cls) if f.name not in IDENTITY)

    @classmethod
    def defaults(cls) -> dict[str, Any]:
        """Every field's default, by name (the fields without one, the run's game, left out)."""
        return {f.name: f.default if f.default is not dataclasses.MISSING else f.default_factory()  # type: ignore[misc]
                for f in dataclasses.fields(cls)
                if f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING}

    @classmethod
    def from_checkpoint(cls, config: Any, out: str, **missing: Any) -> RunConfig:
        """The config a checkpoint's `config` records, for the run in folder `out` (`missing`: values of keys that
        older checkpoints lack).

        Raises:
            ValueError: settings that make no config of this class."""
        import envs

        values = {**missing, **config} if isinstance(config, dict) else dict(missing)
        identity = {k: values.pop(k, None) for k in IDENTITY}
        if identity["game"] not in envs.available_games() or not isinstance(identity["seed"], int):
            raise ValueError(f"the checkpoint in {out!r} names no available game and seed")
        cls.check_keys(values, f"the checkpoint in {out!r}")
        return cls(game=identity["game"], seed=identity["seed"], out=out, **values)

    def write_config(self, extra: dict[str, Any]) -> dict[str, Any]:
        """Write the run's `config.json` (its settings and `extra`: what it ships, versions, time); returns it."""
        from evaluate.jsonio import write_json

        config = dataclasses.asdict(self) | extra
        write_json(os.path.join(self.out, "config.json"), config)
        return config

    @classmethod
    def check_keys(cls, values: dict[str, Any], where: str) -> None:
        """Raise `ValueError` naming the allowed keys if `values` holds any other."""
        unknown = sorted(set(values) - set(cls.preset_keys()))
        if unknown:
            raise ValueError(f"{where}: unknown key(s) {', '.join(unknown)}; allowed: {', '.join(cls.preset_keys())}")

    @property
    def variant(self) -> Any:
        """The run's game and options as an `envs.core.spec.Variant` (JSON round-trip, label, engine)."""
        from envs.core.spec import Variant

        return Variant(self.game, self.options)

    def default_out(self) -> str:
        """A new run folder's name: `runs/<game>[-<method>]-<time>` (PPO, the default method, names none)."""
        method = f"-{self.method}" if self.method and self.method != "ppo" else ""
        return os.path.join("runs", f"{self.game}{method}-{time.strftime('%Y%m%d-%H%M%S')}")


def check_out(out: str, resuming: bool, overwrite: bool) -> None:
    """Refuse a run folder that is not a writable folder, or holds another run (unless resuming it or `overwrite`).

    Raises:
        ValueError: one line naming the folder and what to do.
    """
    if os.path.exists(out) and not os.path.isdir(out):
        raise ValueError(f"--out {out!r} exists and is not a folder")
    if os.path.isdir(out) and run_files(out) and not (resuming or overwrite):
        raise ValueError(f"run folder {out!r} already holds a run; continue it with --resume {out}, "
                         f"or replace it with --overwrite")
    parent = out
    while not os.path.exists(parent):
        parent = os.path.dirname(parent) or "."
    if not os.path.isdir(parent) or not os.access(parent, os.W_OK | os.X_OK):
        raise ValueError(f"cannot write the run folder {out!r}: {parent!r} is not a writable folder")


def make_out(out: str, overwrite: bool) -> None:
    """Create the run folder `out` (checked by `check_out`), first removing its run files if `overwrite`.

    Raises:
        ValueError: the folder cannot be made.
    """
    if overwrite and os.path.isdir(out):
        clear_run(out)
    try:
        os.makedirs(out, exist_ok=True)
    except OSError as e:
        raise ValueError(f"cannot make the run folder {out!r} ({e.strerror})") from None


class TrainingStoppedError(Exception):
    """A stop signal (SIGTERM, Ctrl-C) ended training after a checkpoint was saved."""

    def __init__(self, out: str, step: int, planned: int, signum: int, unit: str = "step"):
        super().__init__(f"stopped by {signal.Signals(signum).name} at {unit} {step} of {planned}; checkpoint saved: "
                         f"continue with `python -m train --resume {out}`")
        self.signum = signum


class StopSignals:
    """While active (main thread only), SIGTERM and SIGINT only ask training to stop (`signum` is set) at its next
    safe point, after a checkpoint; a second signal stops at once (`KeyboardInterrupt`)."""

    def __init__(self) -> None:
        self.signum: int | None = None
        self.previous: dict[int, Any] = {}

    def _handle(self, signum: int, frame: Any) -> None:
        if self.signum is not None:
            raise KeyboardInterrupt
        self.signum = signum

    def __enter__(self) -> StopSignals:
        if threading.current_thread() is threading.main_thread():
            self.previous = {s: signal.signal(s, self._handle) for s in (signal.SIGINT, signal.SIGTERM)}
        return self

    def __exit__(self, *exc: Any) -> None:
        for s, handler in self.previous.items():
            signal.signal(s, handler)


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
    """The command that started this process, as a user would type it (`python -m train ...`), each word quoted
    where the shell needs it (`--also 'board=race_easy num_robots=4'`), so `shlex.split` gives the words back."""
    import shlex
    import sys

    if sys.argv and sys.argv[0].endswith(os.path.join("train", "__main__.py")):
        return " ".join(["python -m train", *map(shlex.quote, sys.argv[1:])])
    return shlex.join(["python", *sys.argv])


def provenance(method: str, command: str = "", commit: str | None = None) -> dict[str, Any]:
    """What a saved policy records of the run that made it: method, command, commit and library versions."""
    return {"method": method, "command": command or command_line(), "git_commit": commit or git_commit(),
            "versions": library_versions()}


def seat_line_up(ids: list[str], n: int, control: str = "one_seat") -> list[str]:
    """The opponent ids for the n - 1 other seats (one id, repeated, or one per seat; `NAME*K` repeats); none in a
    one-player game or under `control="all_seats"` (the policy plays every seat).

    Raises:
        ValueError: neither 1 nor n - 1 ids."""
    from agents import expand_agent_ids

    if n == 1 or control == "all_seats":
        return []
    ids = expand_agent_ids(ids)
    if len(ids) == 1 and n - 1 > 1:
        ids = ids * (n - 1)
    if len(ids) != n - 1:
        raise ValueError(f"this game seats {n} players: give 1 or {n - 1} opponent ids, got {len(ids)}: {ids}")
    return ids


def student_folder(spec: str) -> str:
    """The folder of a distilled student: a folder path (a distillation run's: its `student/`), or a shipped id
    (`lama/learned-seed2022`).

    Raises:
        ValueError: naming the shipped ids when `spec` is neither.
    """
    from agents.pretrained import checkpoints

    if os.path.isdir(spec):
        inside = os.path.join(spec, "student")
        return inside if not os.path.isfile(os.path.join(spec, "policy.json")) and os.path.isdir(inside) else spec
    shipped = checkpoints()
    if spec in shipped:
        return shipped[spec]
    raise ValueError(f"--init-from {spec!r} is no student folder and no shipped student; shipped: "
                     + ", ".join(sorted(shipped)))


def trained_env_options(folder: str) -> dict[str, Any] | None:
    """The env options a saved run of this learner trained with (`run.json`, else the policy's provenance), or None
    where the folder does not say (a student distilled elsewhere)."""
    for name in ("run.json", "policy.json"):
        path = os.path.join(folder, name)
        if not os.path.exists(path):
            continue
        d = read_json(path)
        prov = d.get("provenance", d) if name == "policy.json" else d
        if isinstance(prov, dict) and isinstance(prov.get("env_options"), dict):
            return prov["env_options"]
    return None


#: Keys of a provenance that describe a chain of runs rather than one run.
_CHAIN_KEYS = ("stages", "steps_in_all", "wall_s_in_all")


def earlier_stages(folder: str) -> list[dict[str, Any]]:
    """The runs a policy folder's weights came from, oldest first: its provenance's `stages` (what it says beyond
    them goes with the last), else its provenance as one stage; [] where it records none."""
    from agents.learned import read_meta

    prov = read_meta(folder).get("provenance") if os.path.exists(os.path.join(folder, "policy.json")) else None
    if not isinstance(prov, dict) or not prov:
        return []
    stages = prov.get("stages")
    if isinstance(stages, list) and stages and all(isinstance(s, dict) for s in stages):
        return [*(dict(s) for s in stages[:-1]), {**_one_run(prov), **stages[-1]}]
    return [_one_run(prov)]


def _one_run(prov: dict[str, Any]) -> dict[str, Any]:
    """A provenance without the keys that describe a chain of runs."""
    return {k: v for k, v in prov.items() if k not in _CHAIN_KEYS}


def chained(own: dict[str, Any], earlier: list[dict[str, Any]]) -> dict[str, Any]:
    """A run's provenance with the runs it continued: `stages` (theirs, then this run's own), and `steps_in_all` /
    `wall_s_in_all` summed over them. Without earlier stages, `own` as it is."""
    if not earlier:
        return own
    stages = [*earlier, _one_run(own)]
    return {**own, "steps_in_all": sum(int(s.get("steps") or 0) for s in stages),
            "wall_s_in_all": round(sum(float(s.get("wall_s") or 0.0) for s in stages), 1), "stages": stages}
