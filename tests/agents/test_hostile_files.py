"""Files a user hands us that are not what they claim: refused in one line, in seconds, without blocking or
allocating what they ask for (envs.core.files and every policy loader that reads through it)."""

from __future__ import annotations

import json
import os
import signal
import struct
import subprocess
import sys
import time
import zipfile
import zlib
from contextlib import contextmanager

import numpy as np
import pytest

import agents
import envs
from agents.learned import FEATURES, MAX_PARAMETERS, MAX_WIDTH, Student, load_student, save_student
from envs.core import files
from envs.core.game import legal_mask

torch = pytest.importorskip("torch")
FEATURES["hostile_toy"] = lambda view, mask: (np.ones(1), np.stack([np.arange(len(mask)), mask], axis=1))


@contextmanager
def within(seconds: float):
    """Fail (rather than hang the suite) if the block takes longer than `seconds`."""
    def stop(*_):
        raise TimeoutError(f"still running after {seconds} s")

    old = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    start = time.monotonic()
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert time.monotonic() - start < seconds


def refused(call, *match: str, seconds: float = 10) -> str:
    """The one-line InputFileError/ValueError message of `call()`, which must contain every string of `match`."""
    with within(seconds), pytest.raises(ValueError) as err:
        call()
    message = str(err.value)
    assert "\n" not in message and all(m in message for m in match), message
    return message


def deflate_bomb(path, member: str, expanded: int) -> None:
    """A zip whose `member` inflates to `expanded` zero bytes (a few hundred KB on disk): one deflate block of
    16 MiB of zeros, flushed so that it stands alone, repeated, then the final block; CRC and sizes are true."""
    chunk = 16 * 2**20
    assert expanded % chunk == 0
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = c.compress(bytes(chunk)) + c.flush(zlib.Z_FULL_FLUSH)
    raw = block * (expanded // chunk) + c.flush()
    crc = 0
    zeros = bytes(chunk)
    for _ in range(expanded // chunk):
        crc = zlib.crc32(zeros, crc)
    name = member.encode()
    local = struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, 0, 8, 0, 0, crc, len(raw), expanded, len(name), 0) + name
    central = struct.pack("<4s6H3L5H2L", b"PK\x01\x02", 20, 20, 0, 8, 0, 0, crc, len(raw), expanded, len(name),
                          0, 0, 0, 0, 0, 0) + name
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 1, 1, len(central), len(local) + len(raw), 0)
    with open(path, "wb") as f:
        f.write(local + raw + central + end)


def test_the_bomb_is_a_true_zip_of_what_it_claims(tmp_path):
    """The crafted bomb is what it says: a valid archive whose member inflates to the declared size (checked on a
    small one, read in full)."""
    path = tmp_path / "small.zip"
    deflate_bomb(path, "policy.pth", 32 * 2**20)
    with zipfile.ZipFile(path) as zf:
        assert zf.testzip() is None
        assert zf.getinfo("policy.pth").file_size == 32 * 2**20 and zf.read("policy.pth") == bytes(32 * 2**20)
    assert path.stat().st_size < 100_000


# ------------------------------------------------------------------------------------------------ the helper


def test_special_files_are_refused_without_blocking(tmp_path):
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    (tmp_path / "zero.json").symlink_to("/dev/zero")
    (tmp_path / "dir.json").mkdir()
    refused(lambda: files.read_json(fifo), "pipe.json", "FIFO")
    refused(lambda: files.read_json(tmp_path / "zero.json"), "a link to '/dev/zero'", "character device")
    refused(lambda: files.read_bytes(tmp_path / "dir.json", 10), "directory")
    refused(lambda: files.read_bytes(tmp_path / "missing", 10), "not found")


def test_caps_and_strict_json(tmp_path):
    big = tmp_path / "big.json"
    with open(big, "wb") as f:
        f.truncate(files.MAX_JSON_BYTES + 1)  # sparse: nothing is written, the size alone is refused
    refused(lambda: files.read_json(big), "big.json", "more than the 64 MiB allowed")
    for text, what in (('{"context_dim": Infinity}', "Infinity"), ('{"x": NaN}', "NaN"), ("{nope", "line 1, column 2"),
                       ("[" * 200_000, "too deeply")):
        (tmp_path / "f.json").write_text(text)
        refused(lambda: files.read_json(tmp_path / "f.json"), "f.json", what)
    (tmp_path / "bin.txt").write_bytes(b"\xff\xfe\x00binary")
    refused(lambda: files.read_text(tmp_path / "bin.txt"), "bin.txt", "not UTF-8 text")
    (tmp_path / "nul.txt").write_bytes(b"name: x\x00")
    refused(lambda: files.read_text(tmp_path / "nul.txt"), "not text (a NUL byte at offset 7)")
    (tmp_path / "ok.json").write_text('{"a": [1, 2.5]}')
    assert files.read_json_object(tmp_path / "ok.json") == {"a": [1, 2.5]}


def test_a_deflate_bomb_is_refused_before_decompressing(tmp_path):
    bomb = tmp_path / "bomb.zip"
    deflate_bomb(bomb, "policy.pth", files.MAX_TENSOR_BYTES + 16 * 2**20)
    data = files.read_bytes(bomb, files.MAX_TENSOR_BYTES)
    refused(lambda: files.open_zip(data, str(bomb)), "bomb.zip", "would expand to 1,090,519,040 bytes",
            "before decompressing", seconds=5)


def test_a_zip_member_that_lies_about_its_size_is_not_read_past_it(tmp_path):
    path = tmp_path / "liar.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("policy.pth", bytes(1 << 20))
    raw = bytearray(path.read_bytes())
    for sig, offset in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):  # declare 1,000 bytes instead of 1 MiB
        at = raw.index(sig) + offset
        raw[at:at + 4] = struct.pack("<L", 1000)
    path.write_bytes(bytes(raw))
    zf = files.open_zip(bytes(raw), str(path))
    refused(lambda: files.read_member(zf, "policy.pth", str(path)), "liar.zip", "policy.pth")


# ------------------------------------------------------------------------------------------ learned: folders


@pytest.fixture
def student_folder(tmp_path):
    torch.manual_seed(0)
    return save_student(Student("simple_poker", {}, "masked_policy", [16]), str(tmp_path / "s"))


def _replace(path: str, how: str) -> None:
    os.remove(path)
    if how == "fifo":
        os.mkfifo(path)
    elif how == "zero":
        os.symlink("/dev/zero", path)
    elif how == "dir":
        os.mkdir(path)


@pytest.mark.parametrize("name", ["policy.json", "weights.pt"])
@pytest.mark.parametrize("how,says", [("fifo", "FIFO"), ("zero", "character device"), ("dir", "directory")])
def test_a_student_folder_of_special_files_is_refused(student_folder, name, how, says):
    _replace(os.path.join(student_folder, name), how)
    refused(lambda: load_student(student_folder), name, says)


def test_weights_in_torch_legacy_format_are_refused(student_folder):
    """torch's pre-zip format declares storage sizes it allocates before reading: refused, not read."""
    state = torch.load(os.path.join(student_folder, "weights.pt"), weights_only=True)
    torch.save(state, os.path.join(student_folder, "weights.pt"), _use_new_zipfile_serialization=False)
    refused(lambda: load_student(student_folder), "weights.pt", "not a plain tensor file in torch's zip format")


def _edit_architecture(folder: str, **changes) -> None:
    path = os.path.join(folder, "policy.json")
    meta = json.loads(open(path).read())
    meta["architecture"].update(changes)
    with open(path, "w") as f:
        f.write(json.dumps(meta).replace('"INF"', "Infinity"))


@pytest.mark.parametrize("changes,says", [
    ({"hidden": [1e9]}, "hidden must be a list of 1..32 integers in 1..65536, got [1000000000.0]"),
    ({"hidden": [10**9]}, "hidden must be a list of 1..32 integers in 1..65536"),
    ({"hidden": [16] * 1000}, "hidden must be a list of 1..32 integers"),
    ({"hidden": [MAX_WIDTH] * 3}, f"more than the {MAX_PARAMETERS:,} allowed"),
    ({"action_table": 10**12}, "action_table must be an integer in"),
])
def test_huge_shapes_are_refused_before_allocation(student_folder, changes, says):
    _edit_architecture(student_folder, **changes)
    refused(lambda: load_student(student_folder), repr(student_folder), says, seconds=5)


@pytest.mark.parametrize("dims,says", [
    ({"context_dim": "INF"}, "Infinity"),
    ({"context_dim": 10**9}, "context_dim must be an integer in 1..65536"),
    ({"feature_dim": 2.5}, "feature_dim must be an integer in 1..65536"),
    ({"context_dim": 60000, "feature_dim": 60000, "hidden": [4096]}, "parameters, more than the"),
])
def test_an_action_scorer_with_huge_dims_is_refused(tmp_path, dims, says):
    s = Student("primi_composti", {"cards_per_player": 4}, "action_scorer", [8, 8], features="hostile_toy")
    state = s.game.initial_state(np.random.default_rng(0))
    s.inputs(s.game.view(state, s.game.current_player(state)), legal_mask(s.game, state))
    folder = save_student(s, str(tmp_path / "sc"))
    _edit_architecture(folder, **dims)
    refused(lambda: load_student(folder), "sc", says, seconds=5)


# ------------------------------------------------------------------------------------------ ppo: SB3 runs


@pytest.fixture
def run_folder(tmp_path):
    from sb3_contrib import MaskablePPO

    from envs.core.single_agent import OpponentEnv

    game = envs.make_game("simple_poker", n=3)
    env = OpponentEnv(
        game, envs.make_encoder("simple_poker", game), [agents.make("random", game, np.random.default_rng(0))]
    )
    folder = tmp_path / "run"
    folder.mkdir()
    MaskablePPO("MlpPolicy", env, seed=0, device="cpu", n_steps=64, policy_kwargs={"net_arch": [8]}).save(
        folder / "model.zip"
    )
    (folder / "config.json").write_text(json.dumps({"game": "simple_poker", "options": {"n": 3}, "net_arch": [8]}))
    return folder, game


def _make(spec: str, game) -> None:
    agents.make(spec, game, np.random.default_rng(0))


@pytest.mark.parametrize("name", ["config.json", "model.zip"])
@pytest.mark.parametrize("how,says", [("fifo", "FIFO"), ("zero", "character device")])
def test_a_run_of_special_files_is_refused(run_folder, name, how, says):
    folder, game = run_folder
    _replace(str(folder / name), how)
    refused(lambda: _make(f"ppo:{folder}/model.zip", game), name, says)


def test_a_model_zip_bomb_is_refused(run_folder):
    folder, game = run_folder
    deflate_bomb(folder / "model.zip", "policy.pth", files.MAX_TENSOR_BYTES + 16 * 2**20)
    refused(lambda: _make(f"ppo:{folder}", game), "model.zip", "would expand to 1,090,519,040 bytes", seconds=5)


@pytest.mark.parametrize("net_arch,says", [
    ([10**9], "net_arch must be a list of 1..32 integers in 1..65536"),
    ({"pi": [64], "vf": [MAX_WIDTH, MAX_WIDTH, MAX_WIDTH]}, "parameters, more than the"),
    ({"pi": [64], "qf": [64]}, "may only have the keys pi and vf"),
])
def test_a_run_config_with_huge_shapes_is_refused(run_folder, net_arch, says):
    folder, game = run_folder
    cfg = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**cfg, "net_arch": net_arch}))
    refused(lambda: _make(f"ppo:{folder}", game), "config.json's net_arch", says, seconds=5)


def test_unreadable_agent_files_leave_the_option_lookup_alone(tmp_path):
    """`required_options` reads a policy.json before the agent is built: a FIFO there must not block it."""
    folder = tmp_path / "s"
    folder.mkdir()
    os.mkfifo(folder / "policy.json")
    with within(5):
        assert agents.required_options(f"learned:{folder}") == {}


# ------------------------------------------------------------------------------------------ the command line


def test_the_cli_says_one_line_and_exits_2(tmp_path, student_folder):
    _replace(os.path.join(student_folder, "weights.pt"), "fifo")
    out = tmp_path / "r.json"
    proc = subprocess.run([sys.executable, "-m", "evaluate", "simple_poker",
                           "--agents", f"learned:{student_folder},random",
                           "--games", "10", "--no-progress", "--json", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "weights.pt" in proc.stderr and "FIFO" in proc.stderr and "Traceback" not in proc.stderr
    assert not out.exists()
