"""Files as data: written whole or not at all, read strictly.

Writing: the text goes to a temporary file in the same directory, is flushed
to disk, and then takes the file's name in one ``os.replace`` (atomic on POSIX
and Windows alike), so a reader sees the old file or the new one, never half
of one, whatever happens mid-write (a crash, Ctrl-C, a full disk). A writer
killed before its rename (SIGKILL, a power cut) leaves its temporary file; the
next write of the same file removes it (an older version's, without the writer's
process id in its name, once it is a day old).

Reading: an ``.npz`` file gives plain arrays only (``read_npz``: no pickles),
and JSON from a file is data and nothing more: ``NaN`` / ``Infinity`` and
numbers that overflow to infinity (``1e400``) are refused, and so is nesting
too deep to parse, each with a ValueError instead of a RecursionError or an
infinite time limit leaking into a tournament.
"""

from __future__ import annotations

import contextlib
import errno
import glob
import hashlib
import json
import math
import os
import re
import stat
import tempfile
import time
import zipfile
import zlib
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from agents.limits import MAX_ARRAY_BYTES, MAX_DATA_FILE


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_text_atomic(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (UTF-8); OSError if it cannot be written."""
    write_bytes_atomic(path, text.encode("utf-8"))


_TEMPORARY_TAIL = re.compile(r"(\d+)\.[a-z0-9_]{8}\.tmp")
"""What follows ``.<target name>.`` in a temporary file's name: the writer's process id, mkstemp's letters."""
_UNNAMED_TAIL = re.compile(r"[a-z0-9_]{8}\.tmp")
"""The same in older versions' names, without the writer's process id."""
UNNAMED_TEMPORARY_AGE = 24 * 3600.0
"""Seconds since its last change after which an older version's temporary file is taken
for a killed writer's (no write takes that long) and removed."""


def _temporary(target: Path) -> tuple[int, str]:
    """A new file beside ``target`` (its descriptor and name, which holds this process's
    id), for an atomic write; the ones of earlier writers that died first are removed."""
    _remove_stale(target)
    return tempfile.mkstemp(prefix=f".{target.name}.{os.getpid()}.", suffix=".tmp", dir=target.parent)


def _remove_stale(target: Path) -> None:
    """Remove the temporary files of ``target`` whose writer is no longer running: a
    SIGKILL or a power cut between the write and the rename leaves one, which a run
    resumed again and again would pile up (a replay buffer's is tens of MB). An older
    version's name holds no process id: its file goes once a day old."""
    if os.name != "posix":  # os.kill(pid, 0) checks a process only on POSIX
        return
    for temp in target.parent.glob(f".{glob.escape(target.name)}.*.tmp"):
        tail = temp.name[len(target.name) + 2 :]
        named = _TEMPORARY_TAIL.fullmatch(tail)  # not another target's
        if named is None:
            if _UNNAMED_TAIL.fullmatch(tail):
                with contextlib.suppress(OSError):
                    if time.time() - temp.stat().st_mtime > UNNAMED_TEMPORARY_AGE:
                        temp.unlink()
            continue
        try:
            os.kill(int(named[1]), 0)
        except ProcessLookupError:
            with contextlib.suppress(OSError):
                temp.unlink()
        except (PermissionError, OverflowError):
            pass  # another user's live process, or no process id at all: left alone


def write_bytes_atomic(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically; OSError naming ``path`` (not the
    temporary file) if it cannot be written."""
    target = Path(path).expanduser()
    try:
        if target.is_dir():
            raise IsADirectoryError(errno.EISDIR, "is a directory")
        fd, temp = _temporary(target)
    except OSError as e:
        raise OSError(e.errno, e.strerror, str(path)) from None
    try:
        os.chmod(temp, 0o666 & ~_umask())  # the mode a plain open() would give, not mkstemp's 0600
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temp, target)
    except BaseException as e:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        if isinstance(e, OSError):
            raise OSError(e.errno, e.strerror, str(path)) from None
        raise


def check_writable(path: str | Path) -> None:
    """OSError naming ``path`` unless ``write_bytes_atomic`` could write it: not a
    directory or a device, in a directory that takes a new file. Cheap, so a long
    run checks its output before its work, not after."""
    target = Path(path).expanduser()
    if not str(path).strip():
        raise OSError(errno.ENOENT, "no file name", str(path))
    if target.is_dir():
        raise IsADirectoryError(errno.EISDIR, "is a directory", str(path))
    if not target.parent.is_dir():
        raise FileNotFoundError(errno.ENOENT, f"no directory {str(target.parent)!r}", str(path))
    if target.exists() and not target.is_file():
        raise OSError(errno.EINVAL, "not a regular file", str(path))
    try:
        fd, temp = _temporary(target)
    except OSError as e:
        raise OSError(e.errno, f"cannot create a file in {str(target.parent)!r} ({e.strerror})", str(path)) from None
    os.close(fd)
    os.unlink(temp)


class DataFileError(OSError):
    """A file that cannot be read as data: not a regular file, or over its size limit.
    Its message names the file, what it should have been and why it is not."""

    def __init__(self, code: int, reason: str, path: str | Path, what: str) -> None:
        super().__init__(code, reason, str(path))
        self.what = what

    def __str__(self) -> str:
        return f"{self.filename!r} is not {self.what}: {self.strerror}"


def _is_devnull(status: os.stat_result) -> bool:
    """Whether ``status`` is the null device's (read as an empty file, as Unix programs do)."""
    try:
        return os.path.samestat(status, os.stat(os.devnull))
    except OSError:
        return False


def open_data(path: str | Path, limit: int, what: str) -> BinaryIO:
    """``path`` opened for reading as a data file of at most ``limit`` bytes.

    Args:
        path: the file.
        limit: the most bytes it may have (one of ``agents.limits``' ``MAX_*_FILE``).
        what: what the file should be, for the error ("an openings file").

    Returns:
        The open binary file, positioned at its start.

    Raises:
        FileNotFoundError: there is no such file (and the other OSErrors of ``open``).
        DataFileError: (an OSError) ``path`` is not a regular file (a FIFO, a device such as /dev/zero,
            a directory; the null device reads as an empty file) or is larger than ``limit``;
            its message says which, and the limit.

    The file is opened without blocking and checked before a byte is read, so a FIFO
    with no writer never holds the program up and a device never feeds it forever.
    """
    fd = os.open(Path(path).expanduser(), os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        status = os.fstat(fd)
        if not (stat.S_ISREG(status.st_mode) or _is_devnull(status)):
            raise DataFileError(errno.EINVAL, "not a regular file (a FIFO, a device or a directory)", path, what)
        if status.st_size > limit:
            raise DataFileError(errno.EFBIG, f"{status.st_size} bytes, over the limit of {limit}", path, what)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_data(path: str | Path, limit: int, what: str) -> bytes:
    """The bytes of the data file ``path``, at most ``limit`` of them (``open_data``'s
    checks; an OSError too if the file grows past ``limit`` while it is read)."""
    with open_data(path, limit, what) as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise DataFileError(errno.EFBIG, f"over the limit of {limit} bytes", path, what)
    return data


def file_sha256(path: str | Path, limit: int, what: str) -> str:
    """The SHA-256 (hex) of the data file ``path``, read a block at a time under ``open_data``'s
    checks (an OSError too if the file grows past ``limit`` while it is read): a positions file
    of gigabytes is named without a second copy of it in memory."""
    digest, size = hashlib.sha256(), 0
    with open_data(path, limit, what) as f:
        while block := f.read(1 << 20):
            size += len(block)
            if size > limit:
                raise DataFileError(errno.EFBIG, f"over the limit of {limit} bytes", path, what)
            digest.update(block)
    return digest.hexdigest()


ArraySpec = tuple[tuple[int | None, ...], str]
"""What an array of an ``.npz`` file must be: its shape (None: any length on that
axis) and the dtype kinds it may have (numpy's one-letter ``dtype.kind``: ``"f"``
floats, ``"u"`` unsigned and ``"i"`` signed integers, ``"b"`` booleans, ``"U"`` text)."""


def _check_header(archive: zipfile.ZipFile, name: str, spec: ArraySpec | None, limit: int) -> str | None:
    """Why the array ``name`` of ``archive`` is not what ``spec`` asks, read from its
    ``.npy`` header alone (nothing allocated); None if it is, or if there is no such array."""
    try:
        member = archive.open(f"{name}.npy")
    except KeyError:
        return None
    with member:
        version = np.lib.format.read_magic(member)
        if version == (1, 0):
            shape, _, dtype = np.lib.format.read_array_header_1_0(member)
        elif version == (2, 0):
            shape, _, dtype = np.lib.format.read_array_header_2_0(member)
        else:
            return f"its {name!r} array has a header of version {version}, not 1.0 or 2.0"
    if dtype.hasobject or dtype.fields is not None:
        return f"its {name!r} array is not plain data (objects or records)"
    size = dtype.itemsize * math.prod(shape)
    if size > limit:
        return f"its {name!r} array declares shape {shape} of {dtype}, {size} bytes, over the limit of {limit}"
    if spec is None:
        return None
    want, kinds = spec
    if len(shape) != len(want) or any(w is not None and w != n for w, n in zip(want, shape, strict=False)):
        shown = tuple("any" if w is None else w for w in want)
        return f"holds {name} of shape {shape}, expected {shown}"
    if dtype.kind not in kinds:
        return f"its {name!r} array holds {dtype}, not the kind of numbers expected ({kinds})"
    return None


def read_npz(
    path: str | Path,
    names: tuple[str, ...],
    what: str,
    shapes: dict[str, ArraySpec] | None = None,
    limit: int = MAX_DATA_FILE,
    optional: tuple[str, ...] = (),
) -> dict[str, np.ndarray]:
    """The arrays ``names`` of the ``.npz`` file ``path``, plain data only (no pickles).

    Args:
        path: the file.
        names: the arrays to read.
        what: what the file should be, for the errors ("a pattern-weights file").
        shapes: for some of ``names``, the shape and dtype kinds the array must have.
        limit: the most bytes the file may have.
        optional: those of ``names`` a file may lack (files written before they were added).

    Returns:
        The arrays by name (an optional one only if the file has it).

    Raises:
        FileNotFoundError: there is no file.
        ValueError: anything else wrong, in one line saying ``path`` is not ``what`` and
            why (never numpy's advice to load it unsafely).

    Every array's header is checked before the array is read: an array that declares more
    than ``MAX_ARRAY_BYTES`` bytes, or a shape or dtype other than ``shapes`` says, is
    refused before numpy allocates it (a 500-byte file can declare terabytes).
    """
    try:
        file = open_data(path, limit, what)
    except FileNotFoundError:
        raise
    except OSError as e:
        raise ValueError(f"{str(path)!r} is not {what}: {e.strerror or e}") from None
    with file:
        problem = None
        try:
            with zipfile.ZipFile(file) as headers:
                for name in names:
                    problem = problem or _check_header(headers, name, (shapes or {}).get(name), MAX_ARRAY_BYTES)
            file.seek(0)
            archive = np.load(file, allow_pickle=False)
        except (OSError, EOFError, ValueError, zipfile.BadZipFile, zlib.error) as e:
            reason = e.strerror if isinstance(e, OSError) and e.strerror else "not an .npz archive"
            file.seek(0)
            if file.read(6) == b"\x93NUMPY":
                reason = "one .npy array, not an .npz archive"
            raise ValueError(f"{str(path)!r} is not {what}: {reason}") from None
        if problem is not None:
            raise ValueError(f"{str(path)!r} is not {what}: {problem}")
        arrays = {}
        with archive:
            for name in names:
                try:
                    arrays[name] = archive[name]
                except KeyError:
                    if name in optional:
                        continue
                    raise ValueError(f"{str(path)!r} is not {what}: it has no {name!r} array") from None
                except (OSError, EOFError, ValueError, zipfile.BadZipFile, zlib.error):
                    raise ValueError(
                        f"{str(path)!r} is not {what}: its {name!r} array is not plain data "
                        "(truncated, corrupt or objects)"
                    ) from None
    return arrays


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number out of range: {text[:40]}")
    return value


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number a data file may hold")


def load_json(text: str | bytes) -> Any:
    """``json.loads`` for files: ValueError (naming the problem) for malformed
    JSON, non-finite numbers or nesting too deep."""
    try:
        return json.loads(text, parse_float=_finite, parse_constant=_no_constant)
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None
