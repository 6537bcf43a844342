"""Where independent jobs run: in this process (`local`) or as Ray tasks (`ray`), one machine or a cluster.

    backend = get_backend("ray", address=None, num_cpus=2)    # or get_backend("local", None, None)
    results = backend.map(solve_one, items)                   # results[i] == solve_one(items[i])
    backend.close()

`map` returns the results in the order of `items`, whatever order the workers finish
in, so a job whose items carry their own seeds gives the same results on every
backend. An item that raises stops the map with `TaskError`, which names the item's
index and value and chains the original exception.

On a cluster (`ray start --head` on one machine, `ray start --address HEAD:6379` on the
others), pass `address="HEAD:6379"` (or `"auto"` on a cluster node); every node needs the
project installed. Without an address a private local Ray instance is started with
`num_cpus` workers (default: every core) and shut down by `close()`.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable
from typing import Any, Protocol

#: The backend names `get_backend` accepts.
BACKENDS = ("local", "ray")

class TaskError(RuntimeError):
    """An item's job raised: names the item (index and value); `__cause__` is the job's exception."""

    def __init__(self, index: int, item: Any, cause: BaseException):
        self.index, self.item, self.cause = index, item, cause
        super().__init__(f"item {index} ({_short(item)}) failed: {type(cause).__name__}: {cause}")


def _short(item: Any, limit: int = 200) -> str:
    """The item's repr, cut to `limit` characters for messages."""
    r = repr(item)
    return r if len(r) <= limit else r[: limit - 3] + "..."


class Backend(Protocol):
    """Runs a function over items: `map(fn, items)` returns `[fn(x) for x in items]` in item order."""

    name: str

    def map(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> list[Any]:
        """`fn` applied to every item, results in item order; `TaskError` names a failing item."""
        ...

    def close(self) -> None:
        """Release what the backend started (a no-op for a backend that started nothing)."""
        ...


class LocalBackend:
    """Every item in this process, one after the other."""

    name = "local"

    def map(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> list[Any]:
        """`[fn(x) for x in items]`; an exception becomes `TaskError` naming the item."""
        out = []
        for i, x in enumerate(items):
            try:
                out.append(fn(x))
            except Exception as e:
                raise TaskError(i, x, e) from e
        return out

    def close(self) -> None:
        """Nothing to release."""

    def __enter__(self) -> LocalBackend:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class RayBackend:
    """Each item a Ray task (one CPU each), on a local Ray instance or a cluster.

    `address=None` starts a private local instance with `num_cpus` CPUs (default all)
    and no dashboard; `close()` shuts it down. With an address (`"HOST:6379"`, `"auto"`)
    it connects to a running cluster and `close()` only disconnects. If Ray is already
    initialised in this process (a caller's own `ray.init`), that instance is used and
    left running."""

    name = "ray"

    def __init__(self, address: str | None = None, num_cpus: int | None = None):
        try:
            import ray
        except ImportError as e:
            raise ValueError("the ray backend needs Ray: pip install -e '.[ray]'") from e
        self._ray = ray
        self._owned = False
        if not ray.is_initialized():
            kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": True}
            if address is None:
                kwargs["num_cpus"] = num_cpus
            elif num_cpus is not None:
                raise ValueError("num_cpus applies to a local Ray instance; a cluster's CPUs are set by `ray start`")
            ray.init(address=address, **kwargs)
            self._owned = True

    def map(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> list[Any]:
        """One task per item; results gathered in item order. A failing task raises `TaskError`
        naming the item, with the task's own exception as the cause."""
        ray = self._ray
        items = list(items)
        remote = ray.remote(num_cpus=1, max_retries=0)(fn)
        refs = [remote.remote(x) for x in items]
        out = []
        for i, (x, ref) in enumerate(zip(items, refs)):
            try:
                out.append(ray.get(ref))
            except ray.exceptions.RayTaskError as e:
                for r in refs[i + 1:]:
                    ray.cancel(r)
                cause = e.cause if isinstance(getattr(e, "cause", None), BaseException) else e
                raise TaskError(i, x, cause) from cause
        return out

    def close(self) -> None:
        """Shut down the local instance this backend started (or disconnect from the cluster)."""
        if self._owned and self._ray.is_initialized():
            self._ray.shutdown()
        self._owned = False

    def __enter__(self) -> RayBackend:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def get_backend(name: str, address: str | None = None, num_cpus: int | None = None) -> LocalBackend | RayBackend:
    """The backend called `name` (`"local"` or `"ray"`). `address` and `num_cpus` apply to Ray only."""
    if name == "local":
        if address is not None:
            raise ValueError("--address needs --backend ray")
        return LocalBackend()
    if name == "ray":
        if num_cpus is not None and num_cpus < 1:
            raise ValueError(f"num_cpus must be >= 1, got {num_cpus}")
        return RayBackend(address, num_cpus)
    raise ValueError(f"unknown backend {name!r}; choose from {', '.join(BACKENDS)}")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """`--backend {local,ray}`, `--address`, `--num-cpus` (added once: a parser that has them is left as is)."""
    if parser.get_default("backend") is not None:
        return
    parser.add_argument("--backend", choices=BACKENDS, default="local", help="where independent jobs run: this process (local) or Ray tasks (ray)")
    parser.add_argument("--address", type=str, default=None, help="with --backend ray: a running Ray cluster (HOST:6379 or auto); default a local instance")
    parser.add_argument("--num-cpus", type=int, default=None, help="with --backend ray and no --address: CPUs of the local Ray instance (default all)")


def from_args(args: argparse.Namespace) -> LocalBackend | RayBackend:
    """The backend named by `add_arguments`' flags (local when the parser has none)."""
    return get_backend(getattr(args, "backend", "local"), getattr(args, "address", None), getattr(args, "num_cpus", None))
