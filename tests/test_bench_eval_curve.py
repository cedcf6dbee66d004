"""benchmarks/eval_curve.py: the learning curve of a chain of training runs,
played from real checkpoints of a tiny two-stage training (the second ``--init`` from the first)."""

from __future__ import annotations

from pathlib import Path

from conftest import run_benchmark

from agents.search.patterns import read_weights, save_weights
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
