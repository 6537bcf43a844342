"""Checkpoints of a training run: `checkpoint-<step>.pt` holds tensors only (numpy arrays as bytes, `pack_arrays`;
read with `weights_only=True`, so a checkpoint never runs code), `checkpoint.json` the rest and the `.pt` file's
name, written last: a kill leaves the previous checkpoint or the new one whole. The default learner's whole state is
`learner_state` / `load_learner_state`.
"""

from __future__ import annotations

import glob
import json
import os
from typing import Any

import numpy as np

from envs.core.files import atomic_path  # noqa: F401  (train's writers use it from here)

#: The checkpoint format this code writes and reads.
FORMAT = 1
STATE_FILE = "checkpoint.json"
#: Every file a run writes (what `--overwrite` clears), besides `checkpoint-*.pt`.
RUN_FILES = ("model.zip", "config.json", "curve.csv", "curve.png", "eval.json", "snapshots.pt", STATE_FILE,
             "history.csv", os.path.join("policy", "policy.json"), os.path.join("policy", "weights.pt"),
             os.path.join("policy", "critic.pt"))


def run_files(out: str) -> list[str]:
    """The run files present in folder `out`."""
    found = [os.path.join(out, f) for f in RUN_FILES if os.path.exists(os.path.join(out, f))]
    snapshots = [p for name in ("policy.json", "weights.pt", "critic.pt")
                 for p in glob.glob(os.path.join(out, "snapshots", "*", name))]
    return found + sorted(glob.glob(os.path.join(out, "checkpoint-*.pt"))) + sorted(snapshots)


def clear_run(out: str) -> None:
    """Remove a run's files from `out` (other files stay)."""
    for path in run_files(out):
        os.remove(path)


def remove_checkpoint(out: str) -> None:
    """Remove the checkpoint of the finished run in `out` (its other files stay)."""
    for path in run_files(out):
        if os.path.basename(path).startswith("checkpoint"):
            os.remove(path)


def misfit(e: Exception, out: str = "") -> ValueError:
    """The one-line error of a checkpoint (of run folder `out`) that does not fit its run (`e`: what failed)."""
    first = (str(e).strip().splitlines() or [type(e).__name__])[0][:200]
    where = f" in {out!r}" if out else ""
    return ValueError(f"the checkpoint{where} does not fit its run ({type(e).__name__}: {first})")


def rng_state(rng: Any) -> dict[str, Any] | None:
    """A `np.random.Generator`'s bit-generator state as JSON-able data (None for anything else)."""
    if not isinstance(rng, np.random.Generator):
        return None
    return _jsonable(rng.bit_generator.state)


def set_rng_state(rng: Any, state: dict[str, Any] | None) -> None:
    """Restore `rng_state`'s output into generator `rng`."""
    if state is not None and isinstance(rng, np.random.Generator):
        rng.bit_generator.state = state


def legacy_numpy_state() -> list[Any]:
    """NumPy's global generator state (SB3 shuffles minibatches with it) as JSON-able data."""
    name, keys, pos, has_gauss, gauss = np.random.get_state()
    return [name, keys.tolist(), int(pos), int(has_gauss), float(gauss)]


def set_legacy_numpy_state(state: list[Any]) -> None:
    """Restore `legacy_numpy_state`'s output."""
    name, keys, pos, has_gauss, gauss = state
    np.random.set_state((name, np.array(keys, dtype=np.uint32), pos, has_gauss, gauss))


def _jsonable(obj: Any) -> Any:
    """`obj` with numpy arrays and integers as JSON's lists and ints."""
    if isinstance(obj, dict):
        return {k: _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, np.integer):
        return int(obj)
    return obj


def pack_arrays(arrays: dict[str, np.ndarray]) -> tuple[dict[str, Any], dict[str, Any]]:
    """NumPy arrays of any numeric dtype as a checkpoint holds them: `(layout, tensors)`, each array's bytes as a
    uint8 tensor (torch's `weights_only` loader reads those whatever the dtype) and its dtype and shape as JSON."""
    import torch

    layout, tensors = {}, {}
    for name, a in arrays.items():
        a = np.ascontiguousarray(a)
        if a.dtype == object:
            raise ValueError(f"array {name!r} holds Python objects; a checkpoint keeps numbers only")
        layout[name] = {"dtype": a.dtype.str, "shape": list(a.shape)}
        tensors[name] = torch.from_numpy(a.reshape(-1).view(np.uint8).copy())
    return layout, tensors


def unpack_arrays(layout: dict[str, Any], tensors: dict[str, Any]) -> dict[str, np.ndarray]:
    """`pack_arrays`' output back as arrays.

    Raises:
        ValueError: a layout that does not fit its bytes (a damaged checkpoint)."""
    out = {}
    for name, spec in layout.items():
        try:
            dtype, shape = np.dtype(spec["dtype"]), tuple(int(k) for k in spec["shape"])
            raw = tensors[name].numpy()
            out[name] = raw.view(dtype).reshape(shape).copy()
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"checkpoint array {name!r} does not fit its layout ({e})") from None
    return out


def write_checkpoint(out: str, step: int, state: dict[str, Any], tensors: dict[str, Any]) -> str:
    """Write the checkpoint of step `step` (see the module doc); return the state file's path."""
    import torch

    from evaluate.jsonio import write_json

    name = f"checkpoint-{step}.pt"
    path = os.path.join(out, STATE_FILE)
    try:
        with atomic_path(os.path.join(out, name)) as tmp:
            torch.save(tensors, tmp)
        write_json(path, {"format": FORMAT, "step": step, "tensors": name} | state)
    except (OSError, RuntimeError) as e:  # a full disk: torch reports it as a RuntimeError
        first = (str(e).strip().splitlines() or [type(e).__name__])[0][:200]
        raise ValueError(f"cannot write the checkpoint of step {step} in {out!r} ({first}); the last checkpoint "
                         "written stays whole") from None
    for old in glob.glob(os.path.join(out, "checkpoint-*.pt")):
        if os.path.basename(old) != name:
            os.remove(old)
    return path


def read_checkpoint(out: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The state and tensors of the checkpoint in run folder `out`.

    Raises:
        ValueError: one line, if there is none or it is unreadable, of another
            format, or its tensor file is missing or not plain tensors.
    """
    import torch

    path = os.path.join(out, STATE_FILE)
    if not os.path.isdir(out):
        raise ValueError(f"no run folder {out!r} to resume")
    if not os.path.exists(path):
        # every method writes config.json when its run completes (the SB3 learner's older runs: model.zip)
        done = any(os.path.exists(os.path.join(out, f)) for f in ("config.json", "model.zip"))
        raise ValueError(f"{out!r} has no checkpoint to resume" + (" (the run is complete)" if done else ""))
    try:
        with open(path, encoding="utf-8") as f:
            state = json.load(f)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{path!r} is not readable JSON ({e})") from None
    if not isinstance(state, dict) or state.get("format") != FORMAT or not isinstance(state.get("tensors"), str):
        raise ValueError(f"{path!r} is not a checkpoint of format {FORMAT} written by `python -m train`")
    tensor_path = os.path.join(out, os.path.basename(state["tensors"]))
    try:
        tensors = torch.load(tensor_path, map_location="cpu", weights_only=True)
    except Exception as e:  # torch raises many types for a bad file; all mean the same here
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise ValueError(f"{tensor_path!r} is not a readable tensor checkpoint; refused to load it ({first})") from None
    if not isinstance(tensors, dict):
        raise ValueError(f"{tensor_path!r} holds no checkpoint tensors")
    return state, tensors


# --- the default learner's state (`train.cleanrl_ppo.PPO.state` / `load_state`) ------------------------------
def learner_state(ppo: Any) -> dict[str, Any]:
    """Everything PPO run `ppo` is after its last update: `{"numbers": JSON-able, "tensors": tensors,
    "arrays": numpy arrays}` (weights and optimiser; generators; every table's game, `envs.core.vector_state`)."""
    from envs.core.vector_state import vector_state
    from train.seats import masks

    buf = ppo.buf
    arrays = {f"venv/{k}": v for k, v in vector_state(ppo.venv).items()}
    arrays.update({"rollout/next_obs": np.array(buf.next_obs, np.float32),
                   "rollout/next_player": buf.next_player.copy(),
                   "rollout/mask": np.asarray(masks(ppo.venv, buf.info), np.bool_)})
    numbers = {"steps": ppo.steps, "update": ppo.update_index, "wall_s": ppo.wall(),
               "reward_scale": ppo.reward_scale, "rng": ppo.rng.bit_generator.state}
    tensors = {"policy": ppo.policy.state_dict(), "optimizer": ppo.optimizer.state_dict(),
               "generator": ppo.gen.get_state()}
    return {"numbers": numbers, "tensors": tensors, "arrays": arrays}


def load_learner_state(ppo: Any, state: dict[str, Any]) -> None:
    """Put `learner_state`'s output back into PPO run `ppo` (built with the same env, settings and seed).

    Raises:
        ValueError: one line, if it does not fit this run."""
    import time

    from envs.core.vector_state import load_vector_state

    numbers, tensors, arrays = state["numbers"], state["tensors"], state["arrays"]
    steps, update = numbers.get("steps"), numbers.get("update")
    if (not isinstance(update, int) or isinstance(update, bool) or not 0 <= update <= ppo.updates
            or steps != update * ppo.batch):
        raise ValueError(f"the checkpoint says {steps!r} steps in {update!r} updates; this run makes "
                         f"{ppo.batch:,} steps an update, {ppo.updates:,} updates in all")
    try:
        ppo.policy.load_state_dict(tensors["policy"])
        ppo.optimizer.load_state_dict(tensors["optimizer"])
        ppo.gen.set_state(tensors["generator"])
        ppo.rng.bit_generator.state = numbers["rng"]
        load_vector_state(ppo.venv, {k[5:]: v for k, v in arrays.items() if k.startswith("venv/")})
    except (KeyError, TypeError, RuntimeError) as e:
        raise misfit(e) from None
    buf = ppo.buf
    buf.next_obs = np.array(arrays["rollout/next_obs"], np.float32)
    buf.next_player[:] = arrays["rollout/next_player"]
    buf.info = {"action_mask": np.asarray(arrays["rollout/mask"])}
    if buf.next_priv is not None:
        buf.next_priv = ppo.venv.privileged_observations()
    ppo.steps, ppo.update_index = int(numbers["steps"]), int(numbers["update"])
    ppo.wall_before, ppo.start = float(numbers["wall_s"]), time.perf_counter()
    ppo.reward_scale = None if numbers["reward_scale"] is None else float(numbers["reward_scale"])
