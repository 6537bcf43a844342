"""Arrays kept on disk between processes (`envs.core.cache`): read back equal, keyed by inputs and code, a bad file
computed again, `off` writes nothing, a folder that cannot be written only warns; RoboRally's turns tables use it."""

from __future__ import annotations

import os

import numpy as np
import pytest

from envs.core import cache


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.setenv(cache.ENV_VAR, str(tmp_path / "c"))
    return tmp_path / "c"


def _counting(value):
    calls = []

    def compute():
        calls.append(1)
        return np.asarray(value, np.float64)

    return compute, calls


def test_an_array_is_computed_once_and_read_back_equal(folder, tmp_path):
    src = tmp_path / "code.py"
    src.write_text("x = 1\n")
    compute, calls = _counting([[1.5, 2.0], [3.0, 4.25]])
    a = cache.cached_array("t", [np.arange(3), "board", 6], compute, sources=[str(src)], shape=(2, 2))
    b = cache.cached_array("t", [np.arange(3), "board", 6], compute, sources=[str(src)], shape=(2, 2))
    np.testing.assert_array_equal(a, b)
    assert len(calls) == 1 and len(os.listdir(folder)) == 1
    # another input, another array dtype of the same bytes, or changed code: a new file
    cache.cached_array("t", [np.arange(3), "board", 7], compute, sources=[str(src)])
    cache.cached_array("t", [np.arange(3, dtype=np.int32), "board", 6], compute, sources=[str(src)])
    src.write_text("x = 2\n")
    cache.cached_array("t", [np.arange(3), "board", 6], compute, sources=[str(src)])
    assert len(calls) == 4 and len(os.listdir(folder)) == 4


def test_a_bad_file_is_computed_again_and_replaced(folder):
    compute, calls = _counting([1.0, 2.0])
    cache.cached_array("t", [1], compute, shape=(2,))
    (path,) = folder.iterdir()
    for bad in (b"not an npy file", None):
        if bad is None:  # a readable array of the wrong shape
            np.save(path, np.zeros(3))
        else:
            path.write_bytes(bad)
        got = cache.cached_array("t", [1], compute, shape=(2,))
        np.testing.assert_array_equal(got, [1.0, 2.0])
        np.testing.assert_array_equal(np.load(path, allow_pickle=False), [1.0, 2.0])
    assert len(calls) == 3


def test_off_writes_nothing_and_an_unwritable_folder_warns(tmp_path, monkeypatch):
    compute, calls = _counting([1.0])
    monkeypatch.setenv(cache.ENV_VAR, "off")
    assert cache.cache_dir() is None
    cache.cached_array("t", [1], compute)
    cache.cached_array("t", [1], compute)
    assert len(calls) == 2
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv(cache.ENV_VAR, str(blocker / "under-a-file"))
    with pytest.warns(UserWarning, match="cannot keep computed tables"):
        np.testing.assert_array_equal(cache.cached_array("t", [1], compute), [1.0])


def test_default_folder_follows_xdg(monkeypatch, tmp_path):
    monkeypatch.delenv(cache.ENV_VAR, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache.cache_dir() == os.path.join(str(tmp_path), "tabletop-rl")


def test_roborally_turns_tables_come_back_from_disk_equal(folder, monkeypatch):
    import envs
    from agents.roborally import mc
    from agents.roborally.solo import SoloSimulator

    game = envs.make_game("roborally", board="random:3", rules="seed")
    monkeypatch.setattr(mc, "_TABLES", {})
    first = mc.turns_table(SoloSimulator(game), sweeps=1)
    monkeypatch.setattr(mc, "_TABLES", {})  # a new process: only the disk remembers

    def no_sweeps(*args):
        raise AssertionError("computed again")

    monkeypatch.setattr(mc, "_turns_sweeps", no_sweeps)
    again = mc.turns_table(SoloSimulator(game), sweeps=1)
    np.testing.assert_array_equal(again, first)
    assert first.shape[0] == len(SoloSimulator(game).flags) + 1
