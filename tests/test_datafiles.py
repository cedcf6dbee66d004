"""Files as data, read with bounds: headers checked before allocation, sizes and kinds of file
checked before a byte is read, so no file can take the machine's memory or hold a program up."""

from __future__ import annotations

import hashlib
import io
import os
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest
from conftest import REPO_ROOT, run_cli

from agents.datafiles import DataFileError, file_sha256, open_data, read_data, read_npz
from agents.limits import MAX_ARRAY_BYTES, MAX_TEXT_FILE
from agents.search.patterns import N_PHASES, N_WEIGHTS, CorruptWeightsError, read_weights


def _npz_declaring(path: Path, shape: tuple[int, ...], descr: str = "<f4") -> Path:
    """A tiny .npz whose arrays' headers declare ``shape`` of ``descr`` and hold no data."""
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": descr, "fortran_order": False, "shape": shape})
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("weights.npy", header.getvalue())
        archive.writestr("metadata.npy", header.getvalue())
    return path


def test_an_array_header_declaring_terabytes_is_refused_before_anything_is_allocated(tmp_path: Path) -> None:
    huge = _npz_declaring(tmp_path / "huge.npz", (12, 10**11))
    assert huge.stat().st_size < 1000
    with pytest.raises(ValueError, match=f"over the limit of {MAX_ARRAY_BYTES}"):
        read_npz(huge, ("weights",), "a test file")
    with pytest.raises(CorruptWeightsError, match=r"declares shape \(12, 100000000000\)"):
        read_weights(huge)


def test_weights_of_another_shape_or_kind_are_refused_from_the_header(tmp_path: Path) -> None:
    """Small enough to allocate, but not the evaluation's: its header says so, before the data is read."""
    wrong = _npz_declaring(tmp_path / "wrong.npz", (N_PHASES, N_WEIGHTS + 1))
    with pytest.raises(CorruptWeightsError, match=rf"holds weights of shape \({N_PHASES}, {N_WEIGHTS + 1}\), expected"):
        read_weights(wrong)
    text = _npz_declaring(tmp_path / "text.npz", (N_PHASES, N_WEIGHTS), "<U4")
    with pytest.raises(CorruptWeightsError, match="not the kind of numbers expected"):
        read_weights(text)


def test_the_huge_header_through_the_command_line_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    huge = _npz_declaring(tmp_path / "huge.npz", (12, 10**11))
    status, err = run_cli(["analyze", "--weights", str(huge)], capsys)
    assert status == 2 and len(err.strip().splitlines()) == 1, err
    assert "declares shape (12, 100000000000)" in err and "Traceback" not in err


def test_a_fifo_a_device_and_a_directory_are_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # no writer: a blocking open or read would wait forever
    for path in (fifo, Path("/dev/zero"), tmp_path):
        started = time.monotonic()
        with pytest.raises(DataFileError, match="not a regular file") as raised:
            read_data(path, MAX_TEXT_FILE, "a test file")
        assert time.monotonic() - started < 5
        assert str(raised.value).startswith(f"{str(path)!r} is not a test file: ")


def test_a_file_past_its_limit_is_refused_with_the_limit(tmp_path: Path) -> None:
    big = tmp_path / "big.txt"
    big.write_bytes(b"x" * 101)
    with pytest.raises(DataFileError, match="101 bytes, over the limit of 100"):
        read_data(big, 100, "a test file")
    assert read_data(big, 101, "a test file") == b"x" * 101
    assert read_data(os.devnull, 100, "a test file") == b""  # the null device reads as an empty file
    with open_data(big, 101, "a test file") as f:
        assert f.read(3) == b"xxx"
    with pytest.raises(DataFileError, match="101 bytes, over the limit of 100"):
        file_sha256(big, 100, "a test file")
    assert file_sha256(big, 101, "a test file") == hashlib.sha256(b"x" * 101).hexdigest()


def test_a_file_is_hashed_block_by_block_as_one_read_would(tmp_path: Path) -> None:
    data = bytes(range(256)) * 20_000  # 5 MB: several blocks and a partial last one
    path = tmp_path / "data.bin"
    path.write_bytes(data)
    assert file_sha256(path, len(data), "a test file") == hashlib.sha256(data).hexdigest()
    with pytest.raises(DataFileError, match="not a regular file"):
        file_sha256(tmp_path, MAX_TEXT_FILE, "a test file")


def _reversi(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """The ``reversi`` command in a fresh process, ended by the test's timeout if it hangs."""
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "agents", *args],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _error_line(done: subprocess.CompletedProcess[str]) -> str:
    """The last line of stderr (the engine's first-run notice may come before it)."""
    return done.stderr.strip().splitlines()[-1]


def test_ratings_and_openings_of_dev_zero_end_at_once_in_one_line(tmp_path: Path) -> None:
    """/dev/zero never ends: read whole, it took all memory and ignored SIGTERM."""
    ratings = _reversi(["ratings", "/dev/zero"], tmp_path)
    assert ratings.returncode == 2, ratings.stderr
    assert _error_line(ratings) == (
        "reversi ratings: error: '/dev/zero' is not a results file: "
        "not a regular file (a FIFO, a device or a directory)"
    )
    arena = _reversi(["arena", "random", "greedy", "--openings", "/dev/zero", "--out", "r.jsonl"], tmp_path)
    assert arena.returncode == 2, arena.stderr
    assert "'/dev/zero' is not an openings file: not a regular file" in _error_line(arena)


def test_a_fifo_as_weights_or_named_in_a_resumed_results_file_is_refused(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo.npz")
    played = _reversi(["play", "--black", "pattern:weights=fifo.npz", "--white", "random"], tmp_path)
    assert played.returncode == 2, played.stderr
    assert "fifo.npz' is not a pattern-weights file: not a regular file" in _error_line(played)
    header = (
        '{"type":"tournament","version":1,"tournament":{"agents":["random","pattern:weights=fifo.npz"],'
        '"mode":"round-robin","games":2,"openings":["e6d6c7f6"],"seed":0,"time_limit":60.0,"max_illegal":3}}\n'
    )
    (tmp_path / "r.jsonl").write_text(header)
    resumed = _reversi(["arena", "--resume", "--out", "r.jsonl", "--no-progress"], tmp_path)
    assert resumed.returncode == 2, resumed.stderr
    assert "fifo.npz' is not a pattern-weights file: not a regular file" in _error_line(resumed)
