"""Result files handed back to `python -m evaluate` (`--merge-solves`): special files refused in one line, exit 2."""

from __future__ import annotations

import os
import signal

import pytest

from evaluate.__main__ import main as evaluate_main


@pytest.mark.parametrize(
    "make,says", [(os.mkfifo, "is a FIFO"), (lambda p: os.symlink("/dev/zero", p), "character device")]
)
def test_merge_solves_refuses_special_files(tmp_path, capsys, make, says):
    path = tmp_path / "part.json"
    make(path)
    old = signal.signal(signal.SIGALRM, lambda *_: (_ for _ in ()).throw(TimeoutError("blocked")))
    signal.alarm(30)
    try:
        with pytest.raises(SystemExit) as e:
            evaluate_main(["primi_composti", "--merge-solves", str(path)])
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    lines = [x for x in capsys.readouterr().err.splitlines() if x.strip()]
    assert e.value.code == 2 and len(lines) == 1 and "--merge-solves" in lines[0] and says in lines[0], lines
