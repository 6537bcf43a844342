"""Where independent jobs run: in this process (`local`) or as Ray tasks (`ray`), one machine or a cluster.

    backend = get_backend("ray", address=None, num_cpus=2)    # or get_backend("local", None, None)
    results = backend.map(solve_one, items)                   # results[i] == solve_one(items[i])
    for r in backend.imap(solve_one, items): ...              # the same, each result as soon as it is in
    backend.close()

Results come in the order of `items` on every backend. An item that raises stops the map with `TaskError` (naming
the item); on Ray a task whose worker dies is run again up to `RAY_RETRIES` times, then `WorkerLostError`.
Without an address a private local Ray instance is started; a `HOST:PORT` address is first tried with a plain TCP
connection (`CONNECT_TIMEOUT_S`) so a closed port is one `ValueError` line.
"""

from __future__ import annotations

import argparse
import signal
import socket
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol

#: The backend names `get_backend` accepts.
BACKENDS = ("local", "ray")
#: Seconds to wait for a Ray cluster's address to accept a connection before giving up.
CONNECT_TIMEOUT_S = 10.0


def check_address(address: str, timeout: float = CONNECT_TIMEOUT_S) -> None:
    """Refuse a Ray `address` (`HOST:PORT`, `ray://HOST:PORT`; `auto` is left to Ray) that is malformed or where
    nothing accepts a TCP connection within `timeout` seconds.

    Raises:
        ValueError: one line naming the address and why.
    """
    if address == "auto":
        return
    host, sep, port = address.split("://", 1)[-1].rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"--address must be HOST:PORT (e.g. head-node:6379) or auto, got {address!r}")
    try:
        socket.create_connection((host, int(port)), timeout=timeout).close()
    except OSError as e:
        why = e.strerror or str(e) or type(e).__name__
        raise ValueError(f"no Ray cluster answers at --address {address} ({why}; waited up to {timeout:g} s): start "
                         "one with `ray start --head` or drop --address") from None

#: How many times Ray runs a task again whose worker died (not one whose job raised: that is the job's error).
RAY_RETRIES = 3


class TaskError(RuntimeError):
    """An item's job raised: names the item (index and value); `__cause__` is the job's exception."""

    def __init__(self, index: int, item: Any, cause: BaseException):
        self.index, self.item, self.cause = index, item, cause
        super().__init__(f"item {index} ({_short(item)}) failed: {type(cause).__name__}: {cause}")


class WorkerLostError(TaskError):
    """An item's worker died (or its node or its result was lost) on every one of its `RAY_RETRIES` + 1 runs;
    the message is one line."""

    def __init__(self, index: int, item: Any, cause: BaseException):
        self.index, self.item, self.cause = index, item, cause
        first = next((x.strip() for x in str(cause).splitlines() if x.strip()), "")[:300]
        RuntimeError.__init__(self, f"item {index} ({_short(item)}) lost its Ray worker {RAY_RETRIES + 1} times "
                                    f"({type(cause).__name__}: {first})")


def _short(item: Any, limit: int = 200) -> str:
    """The item's repr, cut to `limit` characters for messages."""
    r = repr(item)
    return r if len(r) <= limit else r[: limit - 3] + "..."


class Backend(Protocol):
    """Runs a function over items: `map(fn, items)` returns `[fn(x) for x in items]` in item order."""

    name: str
    parallelism: int
    remote: bool

    def map(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> list[Any]:
        """`fn` applied to every item, results in item order; `TaskError` names a failing item."""
        return list(self.imap(fn, items))

    def imap(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[Any]:
        """Like `map`, yielding each result (in item order) as soon as it is in."""
        ...

    def close(self) -> None:
        """Release what the backend started (a no-op for a backend that started nothing)."""
        ...

    def __enter__(self) -> Backend:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _call(fn: Callable[[Any], Any], item: Any) -> Any:
    """A Ray task's body: `fn(item)` (Ray's decorator takes plain functions only, not partials)."""
    return fn(item)


class LocalBackend(Backend):
    """Every item in this process, one after the other."""

    name = "local"
    parallelism = 1
    remote = False

    def imap(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[Any]:
        """`fn(x)` for each item in turn, yielded as it is computed."""
        for i, x in enumerate(items):
            try:
                r = fn(x)
            except Exception as e:
                raise TaskError(i, x, e) from e
            yield r

    def close(self) -> None:
        """Nothing to release."""


class RayBackend(Backend):
    """Each item a Ray task (one CPU each): `address=None` starts a private local instance with
    `num_cpus` CPUs (shut down by `close()`); with an address it connects to a running cluster (`close()`
    disconnects); a Ray already initialised in this process is used and left running."""

    name = "ray"
    remote = True

    def __init__(self, address: str | None = None, num_cpus: int | None = None):
        try:
            import ray
        except ImportError as e:
            raise ValueError("the ray backend needs Ray: pip install -e '.[ray]'") from e
        self._ray = ray
        self._owned = False
        #: The `WorkerLostError` that stopped the last map, if one did (a caller that kept the finished items says so).
        self.lost: WorkerLostError | None = None
        if not ray.is_initialized():
            if address is not None:
                check_address(address)
            kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": True}
            if address is None:
                kwargs["num_cpus"] = num_cpus
            elif num_cpus is not None:
                raise ValueError("num_cpus applies to a local Ray instance; a cluster's CPUs are set by `ray start`")
            main_thread = threading.current_thread() is threading.main_thread()
            before = signal.getsignal(signal.SIGTERM) if main_thread else None
            ray.init(address=address, **kwargs)
            if callable(before):  # ray.init sets its own (sys.exit): a handler of the caller's (a stop that keeps
                signal.signal(signal.SIGTERM, before)  # the finished deals) is put back
            self._owned = True

    @property
    def parallelism(self) -> int:
        """The CPUs of the Ray instance (or cluster): how many one-CPU tasks run at once."""
        return max(1, int(self._ray.cluster_resources().get("CPU", 1)))

    def imap(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[Any]:
        """Every item submitted as a task at once (one task per item); results yielded in item order as they come in,
        a failing task raising `TaskError` naming the item, with the task's own exception as the cause.
        Leaving early stops collecting; submitted tasks are left to finish (`ray.cancel` racing a finishing task aborts
        the driver)."""
        ray = self._ray
        items = list(items)
        self.lost = None
        remote = ray.remote(num_cpus=1, max_retries=RAY_RETRIES)(_call)  # a dead worker's item runs again
        fn_ref = ray.put(fn)  # shipped once (a `functools.partial` carrying a job's settings, say)
        refs: list[Any] = [remote.remote(fn_ref, x) for x in items]
        for i, x in enumerate(items):
            try:
                r = ray.get(refs[i])
            except ray.exceptions.RayTaskError as e:
                cause = e.cause if isinstance(getattr(e, "cause", None), BaseException) else e
                raise TaskError(i, x, cause) from cause
            except ray.exceptions.RayError as e:  # the worker, its node or the result is gone, retries spent
                self.lost = WorkerLostError(i, x, e)
                raise self.lost from e
            refs[i] = None
            yield r

    def close(self) -> None:
        """Shut down the local instance this backend started (or disconnect from the cluster)."""
        if self._owned and self._ray.is_initialized():
            self._ray.shutdown()
        self._owned = False


#: slot -> (key, value): what `per_process` built in this process.
_PER_PROCESS: dict[str, tuple[Any, Any]] = {}


def per_process(slot: str, key: Any, build: Callable[[], Any]) -> Any:
    """`build()`, made once per process for `key` and kept in `slot` until another key asks for that
    slot, so a job's expensive part is built once per worker process; `key` holds everything the value depends on."""
    held = _PER_PROCESS.get(slot)
    if held is None or held[0] != key:
        _PER_PROCESS.pop(slot, None)  # the old value goes before the new one is built
        _PER_PROCESS[slot] = (key, build())
    return _PER_PROCESS[slot][1]


def forget(slot: str) -> None:
    """Drop what `per_process` holds in `slot` (a run that is over frees its agents)."""
    _PER_PROCESS.pop(slot, None)


def blocks(count: int, backend: Backend, max_size: int = 1000) -> list[range]:
    """Item numbers 0..count-1 in blocks of consecutive numbers, one task each: one number per block in this
    process, else about four blocks per worker (at most `max_size` numbers each)."""
    size = 1 if not backend.remote else min(max_size, max(1, -(-count // (4 * backend.parallelism))))
    return [range(i, min(i + size, count)) for i in range(0, count, size)]


def get_backend(name: str, address: str | None = None, num_cpus: int | None = None) -> LocalBackend | RayBackend:
    """The backend called `name` (`"local"` or `"ray"`). `address` and `num_cpus` apply to Ray only."""
    if name == "local":
        if address is not None:
            raise ValueError("--address needs --backend ray")
        if num_cpus is not None:
            raise ValueError("--num-cpus needs --backend ray")
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
    parser.add_argument(
        "--backend",
        choices=BACKENDS,
        default="local",
        help="where independent jobs run: this process (local) or Ray tasks (ray)",
    )
    parser.add_argument(
        "--address",
        type=str,
        default=None,
        help="with --backend ray: a running Ray cluster (HOST:6379 or auto); default a local instance",
    )
    parser.add_argument(
        "--num-cpus",
        type=int,
        default=None,
        help="with --backend ray and no --address: CPUs of the local Ray instance (default all)",
    )


def from_args(args: argparse.Namespace) -> LocalBackend | RayBackend:
    """The backend named by `add_arguments`' flags (local when the parser has none)."""
    return get_backend(
        getattr(args, "backend", "local"), getattr(args, "address", None), getattr(args, "num_cpus", None)
    )
