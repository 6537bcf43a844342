"""Reading a file a user hands us, and writing every file the project writes, under one discipline.

Every loader (boards, saved policies, SB3 zips, run configs, policy tables) reads through these helpers: only a
regular file, at most a cap per kind (`MAX_JSON_BYTES`, ...), strict JSON; every refusal one `InputFileError` line
naming the file. Every writer goes through `atomic_path` (a temporary file, then one rename). docs/reliability.md
lists what each refusal covers.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import stat
import tempfile
import zipfile
from collections.abc import Iterator
from typing import Any

#: The most bytes read from a JSON file (policy.json, config.json, policy tables).
MAX_JSON_BYTES = 64 * 2**20
#: The most bytes of a tensor file (weights.pt, snapshots.pt) or of a model zip, and of a zip's members in all.
MAX_TENSOR_BYTES = 2**30
#: The most bytes of a text file such as a RoboRally board.
MAX_TEXT_BYTES = 2**20


class InputFileError(ValueError):
    """A file a user handed us cannot be used; the message is one line naming the file (and the field)."""


_KINDS = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def file_kind(mode: int, directory: str = "a directory") -> str:
    """What a non-regular file is, in words (a directory as `directory`)."""
    return next((name for test, name in ((stat.S_ISDIR, directory), *_KINDS) if test(mode)), "not a regular file")


def _size(n: int) -> str:
    """A byte count for messages ("64 MiB", "1,024 bytes")."""
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= scale and n % scale == 0:
            return f"{n // scale} {unit}"
    return f"{n:,} bytes"


def check_regular(path: str | os.PathLike, what: str = "file") -> os.stat_result:
    """The `os.stat` of `path` (links followed) if it is a regular file.

    Raises:
        InputFileError: it is missing, unreadable, or a directory, FIFO, socket or device; one line naming it.
    """
    name = os.fspath(path)
    try:
        st = os.stat(name)
    except FileNotFoundError:
        raise InputFileError(f"{what} {name!r} not found") from None
    except (OSError, ValueError) as e:  # ValueError: a NUL byte in the path
        raise InputFileError(f"{what} {name!r} cannot be read ({getattr(e, 'strerror', None) or e})") from None
    if not stat.S_ISREG(st.st_mode):
        real = os.path.realpath(name)
        via = f" (a link to {real!r})" if real != os.path.abspath(name) else ""
        raise InputFileError(f"{what} {name!r}{via} is {file_kind(st.st_mode)}, not a regular file; refused")
    return st


def read_bytes(path: str | os.PathLike, limit: int, what: str = "file") -> bytes:
    """The content of the regular file `path`, at most `limit` bytes (docs/reliability.md).

    Raises:
        InputFileError: not a regular file, larger than `limit`, or unreadable; one line naming it.
    """
    name = os.fspath(path)
    st = check_regular(name, what)
    if st.st_size > limit:
        raise InputFileError(f"{what} {name!r} is {st.st_size:,} bytes, more than the {_size(limit)} allowed; refused")
    try:
        fd = os.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as e:
        raise InputFileError(f"{what} {name!r} cannot be read ({e.strerror})") from None
    with os.fdopen(fd, "rb") as f:
        again = os.fstat(f.fileno())
        if not stat.S_ISREG(again.st_mode):  # replaced between the check and the open
            raise InputFileError(f"{what} {name!r} is {file_kind(again.st_mode)}, not a regular file; refused")
        try:
            # its size and one byte more (a read of the whole cap at once would allocate the cap); more than its
            # size came: it grows, or reports no size (as /proc's files do): read on, to one byte past the cap
            chunks = [f.read(min(again.st_size, limit) + 1)]
            total = len(chunks[0])
            while again.st_size < total <= limit:
                chunk = f.read(min(2**20, limit + 1 - total))
                if not chunk:
                    break
                chunks.append(chunk)
                total += len(chunk)
            data = b"".join(chunks)
        except OSError as e:
            raise InputFileError(f"{what} {name!r} cannot be read ({e.strerror})") from None
    if len(data) > limit:
        raise InputFileError(f"{what} {name!r} holds more than the {_size(limit)} allowed; refused")
    return data


def read_text(path: str | os.PathLike, limit: int = MAX_TEXT_BYTES, what: str = "file") -> str:
    """The UTF-8 text of the regular file `path` (at most `limit` bytes); a binary file is refused.

    Raises:
        InputFileError: as `read_bytes`, or the bytes are not UTF-8 text (a NUL byte counts as binary).
    """
    name = os.fspath(path)
    data = read_bytes(name, limit, what)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputFileError(
            f"{what} {name!r} is not UTF-8 text (byte 0x{data[e.start]:02x} at offset {e.start})"
        ) from None
    if "\x00" in text:
        raise InputFileError(f"{what} {name!r} is not text (a NUL byte at offset {text.index(chr(0))})")
    return text


def _no_constant(token: str) -> Any:
    raise ValueError(f"{token} is not a number JSON allows")


def parse_json(text: str | bytes, name: str, what: str = "file") -> Any:
    """Strict JSON of `text` (no NaN or Infinity); `name` is the file it came from, for the message.

    Raises:
        InputFileError: one line naming the file, the line and column where parsing stopped.
    """
    try:
        return json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as e:
        raise InputFileError(
            f"{what} {name!r} is not readable JSON (line {e.lineno}, column {e.colno}: {e.msg})"
        ) from None
    except UnicodeDecodeError as e:
        raise InputFileError(f"{what} {name!r} is not UTF-8 text (offset {e.start})") from None
    except RecursionError:
        raise InputFileError(f"{what} {name!r} nests its JSON too deeply to read; refused") from None
    except ValueError as e:  # from _no_constant
        raise InputFileError(f"{what} {name!r} is not strict JSON ({e})") from None


def read_json(path: str | os.PathLike, limit: int = MAX_JSON_BYTES, what: str = "file") -> Any:
    """The strict JSON value in the regular file `path` (at most `limit` bytes).

    Raises:
        InputFileError: as `read_bytes` and `parse_json`.
    """
    name = os.fspath(path)
    return parse_json(read_bytes(name, limit, what), name, what)


def read_json_object(path: str | os.PathLike, limit: int = MAX_JSON_BYTES, what: str = "file") -> dict[str, Any]:
    """`read_json` of a file that must hold a JSON object.

    Raises:
        InputFileError: as `read_json`, or the value is not an object.
    """
    value = read_json(path, limit, what)
    if not isinstance(value, dict):
        raise InputFileError(f"{what} {os.fspath(path)!r} is not a JSON object (it holds a {type(value).__name__})")
    return value


def open_zip(data: bytes, name: str, limit: int = MAX_TENSOR_BYTES, what: str = "file",
             label: str = "zip") -> zipfile.ZipFile:
    """The zip archive in `data` (read from `name`), once its members' declared uncompressed sizes are known to
    add up to at most `limit` bytes (nothing is decompressed here).

    Raises:
        InputFileError: not a readable zip, or its members would expand past `limit`.
    """
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
        infos = zf.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, ValueError) as e:
        raise InputFileError(f"{what} {name!r} is not a readable {label} (truncated or corrupt: {e})") from None
    total = sum(i.file_size for i in infos)
    if total > limit:
        raise InputFileError(f"{what} {name!r} would expand to {total:,} bytes, more than the {_size(limit)} allowed; "
                             "refused before decompressing")
    return zf


def read_member(
    zf: zipfile.ZipFile, member: str, name: str, limit: int = MAX_TENSOR_BYTES, what: str = "file"
) -> bytes:
    """The bytes of `member` of an archive from `open_zip` (`name`: the archive's file), never more than its
    declared size nor `limit`.

    Raises:
        InputFileError: no such member, too large, or corrupt (a size or checksum that does not match).
    """
    try:
        info = zf.getinfo(member)
    except KeyError:
        raise InputFileError(f"{what} {name!r} has no {member} entry") from None
    if info.file_size > limit:
        raise InputFileError(f"{what} {name!r} ({member}) would expand to {info.file_size:,} bytes, more than the "
                             f"{_size(limit)} allowed; refused before decompressing")
    try:
        with zf.open(info) as f:
            data = f.read(info.file_size + 1)
    except (zipfile.BadZipFile, EOFError, OSError, ValueError, NotImplementedError, RuntimeError) as e:
        raise InputFileError(f"{what} {name!r} ({member}) is not readable (truncated or corrupt: {e})") from None
    if len(data) != info.file_size:
        raise InputFileError(f"{what} {name!r} ({member}) does not hold the size its header declares; refused")
    return data


def check_tensor_archive(data: bytes, name: str, limit: int = MAX_TENSOR_BYTES, what: str = "file") -> None:
    """Refuse tensor bytes that are not in torch's zip format (what `torch.save` writes) or whose records would
    expand past `limit`. torch's older format declares each storage's size in the file and allocates it before
    reading, so a few bytes can ask for terabytes: it is refused rather than read.

    Raises:
        InputFileError: one line naming the file.
    """
    if not zipfile.is_zipfile(io.BytesIO(data)):
        raise InputFileError(f"{what} {name!r} is not a plain tensor file in torch's zip format (what torch.save "
                             "writes); refused to load it")
    open_zip(data, name, limit, what).close()


# --------------------------------------------------------------------------------------------------- writing
class OutputPathError(ValueError):
    """A result path that cannot be written as a regular file; the message is one line naming it."""


def regular_target(path: str) -> str:
    """The file that writing `path` replaces: `path` with its links resolved, if it is absent or a regular file.

    Raises:
        OutputPathError: it exists and is a folder, device, FIFO or socket (one line naming it).
    """
    if not isinstance(path, str) or not path.strip():
        raise OutputPathError(f"cannot write results to {path!r}: an empty path")
    target = os.path.realpath(path)
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        return target
    if not stat.S_ISREG(mode):
        what = file_kind(mode, "a folder")
        raise OutputPathError(f"cannot write results to {path!r}: it is {what}, not a regular file")
    return target


@contextlib.contextmanager
def atomic_path(path: str) -> Iterator[str]:
    """A temporary path to write the content of `path` to; when the block ends without an error the temporary
    file replaces the target (the folder is made if needed; docs/reliability.md), else it is removed.

    Raises:
        OutputPathError: `path` is not absent or a regular file, before the block and again before the rename.
    """
    target = regular_target(path)
    folder = os.path.dirname(target)
    os.makedirs(folder, exist_ok=True)
    # the target's extension kept last: writers that go by it (SB3's `save` adds ".zip" to a path without one)
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=f".tmp{os.path.splitext(target)[1]}",
                               dir=folder)
    os.close(fd)
    try:
        yield tmp
        try:
            mode = stat.S_IMODE(os.stat(target).st_mode)
        except FileNotFoundError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)
        with open(tmp, "rb") as f:
            os.fsync(f.fileno())
        regular_target(path)  # nothing else appeared there while the file was written
        os.replace(tmp, target)
    finally:
        if os.path.lexists(tmp):
            os.remove(tmp)
