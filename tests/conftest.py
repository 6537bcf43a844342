"""Shared test settings: hypothesis profiles (`ci` is derandomised and modest); a fixture for commands that Ctrl-C
stops."""

import os
import signal
import subprocess

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("ci", max_examples=40, deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=200, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_collection_modifyitems(config, items):
    """Tests of `pettingzoo.make` are skipped where PettingZoo has no registry (before 1.27); the envs
    themselves are supported and tested there (pyproject's `pettingzoo` requirement)."""
    import envs

    if envs.PETTINGZOO_REGISTRY:
        return
    import pettingzoo

    skip = pytest.mark.skip(reason=f"PettingZoo {pettingzoo.__version__} has no registry (pettingzoo.make: 1.27+)")
    for item in items:
        if "pettingzoo_registry" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def interruptible():
    """`start(args)` runs a command in its own process group with SIGINT at its default, so Ctrl-C (SIGINT) reaches it.

    A test run started in the background (`bash .ci/run &`) hands its children SIGINT ignored, and a Python started
    that way installs no KeyboardInterrupt handler: a Ctrl-C test would then wait on a process that never stops.
    Whatever is still running at teardown is killed with its group (a Ray instance's processes included)."""
    procs: list[subprocess.Popen] = []

    def start(args: list[str]) -> subprocess.Popen:
        # A handled signal is reset to its default in an exec'd child (an ignored one stays ignored), so handling
        # SIGINT here for the moment of the start hands the child SIGINT at its default (no preexec_fn, which is
        # unsafe where threads run, as Ray's do).
        before = signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                    start_new_session=True)
        finally:
            signal.signal(signal.SIGINT, before)
        procs.append(proc)
        return proc

    yield start
    for proc in procs:
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.communicate()
