"""Files as data: written whole or not at all, read strictly.

Writing: the text goes to a temporary file in the same directory, is flushed
to disk, and then takes the file's name in one ``os.replace`` (atomic on POSIX
and Windows alike), so a reader sees the old file or the new one, never half
of one, whatever happens mid-write (a crash, Ctrl-C, a full disk).

Reading: JSON from a file is data and nothing more: ``NaN`` / ``Infinity`` and
numbers that overflow to infinity (``1e400``) are refused, and so is nesting
too deep to parse, each with a ValueError instead of a RecursionError or an
infinite time limit leaking into a tournament.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import tempfile
from pathlib import Path
from typing import Any


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_text_atomic(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (UTF-8); OSError if it cannot be written."""
    target = Path(path).expanduser()
    fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        os.chmod(temp, 0o666 & ~_umask())  # the mode a plain open() would give, not mkstemp's 0600
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


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
