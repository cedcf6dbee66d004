"""benchmarks/eval_curve.py: the learning curve of a chain of training runs,
played from real checkpoints of a tiny two-stage training (the second ``--init`` from the first)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest
from conftest import REPO_ROOT, run_benchmark

from agents.search.patterns import load_weights, read_weights, save_weights
from agents.ui.cli import main


def test_the_curve_plays_every_stage_on_one_time_axis(tmp_path: Path) -> None:
    first, second, start = tmp_path / "first", tmp_path / "second", tmp_path / "a.npz"
    common = ["train-eval", "--seed", "3", "--iterations", "3", "--no-progress"]
    assert main([*common, "--games", "4", "--rounds", "2", "--out", str(start), "--checkpoints", str(first)]) == 0
    stage_two = ["--games", "2", "--rounds", "1", "--init", str(start), "--search-depth", "2", "--lam", "0"]
    assert main([*common, *stage_two, "--out", str(tmp_path / "b.npz"), "--checkpoints", str(second)]) == 0
    for path, seconds in ((first / "round_1.npz", 600.0), (second / "round_0.npz", 120.0)):
        saved = read_weights(path)  # times a real run takes, so the axis is checked to the minute
        saved.metadata["rounds"][-1]["seconds"] = seconds
        save_weights(path, saved.weights, saved.metadata)
    picture = tmp_path / "curve.png"
    done = run_benchmark("eval_curve.py", str(first), str(second), "--games", "2", "--out", str(picture))
    assert done.returncode == 0, done.stderr
    rows = [line.split() for line in done.stdout.splitlines() if line.split()[:1] in (["1"], ["2"])]
    assert [row[:2] for row in rows] == [["1", "1"], ["1", "2"], ["2", "1"]]
    # The second stage's minutes count on from the end of the first.
    assert [float(row[2]) for row in rows][1:] == [10.0, 12.0]
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_directory_without_checkpoints_is_a_usage_error(tmp_path: Path) -> None:
    done = run_benchmark("eval_curve.py", str(tmp_path), "--out", str(tmp_path / "c.png"))
    assert done.returncode == 2
    assert "no round_<k>.npz files" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "c.png").exists()


def curve_refusal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> str:
    """eval_curve.py on the checkpoints in ``tmp_path``, which must stop with one usage
    line (exit status 2) before any game or picture: returns that line."""
    picture = tmp_path / "c.png"
    monkeypatch.syspath_prepend(str(REPO_ROOT / "benchmarks"))
    monkeypatch.setattr(sys, "argv", ["eval_curve.py", str(tmp_path), "--games", "2", "--out", str(picture)])
    with pytest.raises(SystemExit) as exit_info:
        importlib.import_module("eval_curve").main()
    assert exit_info.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""  # not even the table's heading: no game was played
    assert not picture.exists()
    return err.strip().splitlines()[-1]


def checkpoint(path: Path, rounds: list[dict[str, float]]) -> None:
    """A weights file with ``rounds`` as its training record (train-eval's checkpoints have one)."""
    save_weights(path, load_weights(), {"rounds": rounds})


def test_a_corrupt_checkpoint_is_one_line_before_any_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    checkpoint(tmp_path / "round_0.npz", [{"round": 0, "seconds": 60.0, "positions": 1000}])
    (tmp_path / "round_1.npz").write_bytes(b"PK\x03\x04 cut short")  # a copy interrupted, say
    (tmp_path / "round_best.npz").write_bytes(b"not a checkpoint")  # not round_<k>: not read
    line = curve_refusal(tmp_path, monkeypatch, capsys)
    assert line == (
        f"eval_curve.py: error: checkpoint {tmp_path / 'round_1.npz'}: "
        f"'{tmp_path / 'round_1.npz'}' is not a pattern-weights file: not an .npz archive"
    )


def test_weights_without_a_round_record_are_one_line_before_any_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    checkpoint(tmp_path / "round_0.npz", [{"round": 0, "seconds": 60.0, "positions": 1000}])
    checkpoint(tmp_path / "round_1.npz", [])  # weights saved by something other than train-eval
    line = curve_refusal(tmp_path, monkeypatch, capsys)
    assert line == (
        f"eval_curve.py: error: checkpoint {tmp_path / 'round_1.npz'}: "
        "no round record (not written by train-eval --checkpoints)"
    )
