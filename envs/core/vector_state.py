"""A compiled vector env's whole state as plain arrays, and back: what a training checkpoint keeps of its tables.

`vector_state(venv)` copies every table's game, the buffers the kernels fill, each table's deal key and the env's
generator of its batch policies as a flat `{name: numpy array}` (wrapped envs under `<i>/` or `env/`);
`load_vector_state(venv, state)` writes them back into a vector env built the same way, so that its next `step` gives
what the original's would have. The state is found from the env's attributes (numeric arrays, named tuples of
arrays, numbers, generators): a game needs no code of its own for it, and a checkpoint is data, never code.
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: Attributes that are configuration or caches, not the tables' state (rebuilt by the constructor).
_SKIP = frozenset({"_recordings", "_final_views", "metadata"})


def _generator_array(rng: np.random.Generator) -> np.ndarray:
    state = rng.bit_generator.state
    if state.get("bit_generator") != "PCG64":
        raise ValueError(f"vector_state keeps PCG64 generators only, got {state.get('bit_generator')!r}")
    s, inc = int(state["state"]["state"]), int(state["state"]["inc"])
    mask = (1 << 64) - 1
    return np.array([s >> 64, s & mask, inc >> 64, inc & mask, int(state["has_uint32"]), int(state["uinteger"])],
                    np.uint64)


def _set_generator(rng: np.random.Generator, a: np.ndarray) -> None:
    v = [int(x) for x in np.asarray(a, np.uint64)]
    rng.bit_generator.state = {
        "bit_generator": "PCG64",
        "state": {"state": (v[0] << 64) | v[1], "inc": (v[2] << 64) | v[3]},
        "has_uint32": v[4],
        "uinteger": v[5],
    }


def _own_state(env: Any, prefix: str, out: dict[str, np.ndarray]) -> None:
    for name, value in vars(env).items():
        if name in _SKIP:
            continue
        key = prefix + name
        if isinstance(value, np.ndarray):
            if value.dtype != object:
                out[key] = value.copy()
        elif isinstance(value, tuple) and hasattr(value, "_fields"):  # a named tuple of arrays
            for field in value._fields:
                part = getattr(value, field)
                if isinstance(part, np.ndarray) and part.dtype != object:
                    out[f"{key}.{field}"] = part.copy()
        elif isinstance(value, np.random.Generator):
            out[key + "#rng"] = _generator_array(value)
        elif isinstance(value, (bool, int, float, np.bool_, np.integer, np.floating)):
            out[key] = np.asarray(value)


def _compiled(venv: Any, prefix: str = "") -> list[tuple[Any, str]]:
    """The compiled envs under `venv` (wrappers followed: a `venvs` list, a `venv`), each with its keys' prefix."""
    attrs = vars(venv)
    if isinstance(attrs.get("venvs"), list):
        return [found for i, v in enumerate(attrs["venvs"]) for found in _compiled(v, f"{prefix}{i}/")]
    if "venv" in attrs:
        return _compiled(attrs["venv"], prefix + "env/")
    return [(venv, prefix)]


def vector_state(venv: Any, prefix: str = "") -> dict[str, np.ndarray]:
    """Every number that makes up `venv`'s tables now, as `{name: array}` (copies; see the module docstring)."""
    out: dict[str, np.ndarray] = {}
    for env, at in _compiled(venv, prefix):
        _own_state(env, at, out)
    return out


def _targets(venv: Any) -> dict[str, tuple[Any, str, str | None]]:
    """Where each key of `vector_state(venv)` goes back: (owner object, attribute, named-tuple field or None)."""
    out: dict[str, tuple[Any, str, str | None]] = {}
    for env, prefix in _compiled(venv):
        own: dict[str, np.ndarray] = {}
        _own_state(env, prefix, own)
        for key in own:
            attr, _, field = key[len(prefix):].partition(".")
            out[key] = (env, attr.removesuffix("#rng"), field or None)
    return out


def load_vector_state(venv: Any, state: dict[str, np.ndarray]) -> None:
    """Write `vector_state`'s output back into `venv`, a vector env built as the one it was taken from.

    Raises:
        ValueError: one line, if the state does not fit this env (other names, shapes or types: another game,
            other options or another number of tables).
    """
    targets = _targets(venv)
    missing, extra = sorted(set(targets) - set(state)), sorted(set(state) - set(targets))
    if missing or extra:
        raise ValueError(f"the saved tables do not fit this vector env ({type(venv).__name__}): "
                         f"missing {missing[:4]}, unknown {extra[:4]}")
    for key, (owner, attr, field) in targets.items():
        saved = np.asarray(state[key])
        current = getattr(owner, attr)
        if key.endswith("#rng"):
            _set_generator(current, saved)
            continue
        if field is not None:
            current = getattr(current, field)
        if isinstance(current, np.ndarray):
            if current.shape != saved.shape or current.dtype != saved.dtype:
                raise ValueError(
                    f"the saved tables do not fit this vector env: {key} is {saved.dtype}{list(saved.shape)}"
                    f", the env's {current.dtype}{list(current.shape)}"
                )
            current[...] = saved
        else:
            setattr(owner, attr, type(current)(saved.item()))


def batch_registry(venv: Any) -> list[tuple]:
    """The batch policies each compiled env under `venv` (wrappers followed, in `vector_state`'s order) has
    seated, slot by slot (None: a free slot): a table's seat code names its policy by slot, so a resumed run puts
    the same policies back in the same slots (`set_batch_registry`) before its tables' state."""
    return [tuple(getattr(env, "_batch", ())) for env, _ in _compiled(venv)]


def set_batch_registry(venv: Any, registries: list[tuple]) -> None:
    """Seat `batch_registry`'s output (policies rebuilt by the caller, slot by slot) back into `venv`'s envs.

    Raises:
        ValueError: another number of compiled envs."""
    envs_ = [env for env, _ in _compiled(venv)]
    if len(envs_) != len(registries):
        raise ValueError(f"{len(registries)} batch registries for {len(envs_)} compiled envs")
    for env, reg in zip(envs_, registries):
        env._batch = tuple(reg)
        if getattr(env, "_line_ups", None) is not None:
            env._line_ups = env._line_ups._replace(batch=tuple(reg))


__all__ = ["batch_registry", "load_vector_state", "set_batch_registry", "vector_state"]
