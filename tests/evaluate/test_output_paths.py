"""Where results go: every output path checked before any game, results written atomically into regular files
only (a device, FIFO or socket is refused, never replaced by a rename), links and permissions kept."""

from __future__ import annotations

import json
import os
import signal
import socket
import stat

import pytest

from evaluate.__main__ import main as evaluate_main
from evaluate.jsonio import OutputPathError, atomic_path, write_json

QUICK = ["simple_poker", "--agents", "simple_poker/nash,random", "--games", "4", "--no-progress"]


def run(argv, capsys) -> tuple[int, list[str], str]:
    """(exit status, stderr lines, stdout) of `python -m evaluate argv`, run in this process, within 60 s."""
    old = signal.signal(signal.SIGALRM, lambda *_: (_ for _ in ()).throw(TimeoutError("blocked")))
    signal.alarm(60)
    try:
        status = evaluate_main([str(a) for a in argv])
    except SystemExit as e:
        status = e.code
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    out = capsys.readouterr()
    return status, [x for x in out.err.splitlines() if x.strip()], out.out


@pytest.fixture
def specials(tmp_path):
    """A FIFO, a Unix socket and (where this user may make one) a character device equal to /dev/null, in tmp."""
    made = {"fifo": tmp_path / "pipe"}
    os.mkfifo(made["fifo"])
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(tmp_path / "sock"))
    made["socket"] = tmp_path / "sock"
    try:
        os.mknod(tmp_path / "null", stat.S_IFCHR | 0o666, os.makedev(1, 3))
        made["device"] = tmp_path / "null"
    except (PermissionError, OSError):
        pass
    yield made
    sock.close()


KIND = {"fifo": stat.S_ISFIFO, "socket": stat.S_ISSOCK, "device": stat.S_ISCHR}


def test_write_json_refuses_special_files_and_leaves_them_as_they_were(specials, tmp_path):
    for name, path in specials.items():
        with pytest.raises(OutputPathError, match="not a regular file"):
            write_json(str(path), {"a": 1})
        assert KIND[name](os.lstat(path).st_mode), name  # still what it was: not replaced by a file
    with pytest.raises(OutputPathError, match="a folder"):
        write_json(str(tmp_path), {"a": 1})
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in specials.values())  # no temp left


def test_a_link_is_written_through_and_permissions_are_kept(tmp_path):
    target = tmp_path / "real.json"
    target.write_text("{}")
    os.chmod(target, 0o600)
    (tmp_path / "link.json").symlink_to(target)
    write_json(str(tmp_path / "link.json"), {"a": 1})
    assert os.path.islink(tmp_path / "link.json") and json.loads(target.read_text()) == {"a": 1}
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o600
    fresh = tmp_path / "new" / "deep" / "r.json"
    write_json(str(fresh), [1])
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(os.stat(fresh).st_mode) == 0o666 & ~umask


def test_a_failed_write_leaves_the_old_file_whole(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text("old\n")
    with pytest.raises(RuntimeError), atomic_path(str(path)) as tmp:
        with open(tmp, "w") as f:
            f.write("half")
        raise RuntimeError("stopped while writing")
    assert path.read_text() == "old\n" and os.listdir(tmp_path) == ["r.csv"]


@pytest.mark.parametrize("flag", ["--json", "--csv"])
def test_the_cli_refuses_a_special_file_before_any_game(flag, specials, capsys):
    for name, path in specials.items():
        status, lines, out = run([*QUICK, flag, path], capsys)
        assert status == 2 and len(lines) == 1 and f"{flag} '{path}' cannot be written" in lines[0], lines
        assert "results go to regular files only" in lines[0] and out == ""
        assert KIND[name](os.lstat(path).st_mode), name


def test_empty_and_shared_paths_are_refused(tmp_path, capsys):
    status, lines, out = run([*QUICK, "--json="], capsys)
    assert status == 2 and len(lines) == 1 and "--json '' cannot be written: an empty path" in lines[0] and out == ""
    path = tmp_path / "r.json"
    (tmp_path / "alias.json").symlink_to(path)
    for other in (path, tmp_path / "alias.json", tmp_path / "." / "r.json"):
        status, lines, out = run([*QUICK, "--json", path, "--csv", other], capsys)
        assert status == 2 and len(lines) == 1 and f"is the file --json '{path}' writes" in lines[0], lines
    assert not path.exists()


def test_a_csv_into_a_missing_folder_is_written(tmp_path, capsys):
    csv_path, json_path = tmp_path / "a" / "b" / "r.csv", tmp_path / "c" / "r.json"
    status, lines, out = run([*QUICK, "--csv", csv_path, "--json", json_path], capsys)
    assert status == 0 and lines == [] and f"wrote {csv_path}" in out
    assert csv_path.read_text().startswith("game,label,agent") and json.loads(json_path.read_text())["games"] == 4
    assert sorted(os.listdir(csv_path.parent)) == ["r.csv"]  # no temporary file left beside it
