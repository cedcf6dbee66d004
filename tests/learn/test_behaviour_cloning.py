"""examples/behaviour_cloning.py: self-play into a WTHOR file, arrays, a policy trained, the ladder played."""

from __future__ import annotations

from pathlib import Path

from conftest import run_example


def test_the_example_clones_the_players_and_plays_the_ladder(tmp_path: Path) -> None:
    out = run_example(
        "behaviour_cloning.py", "--games", "6", "--epochs", "1", "--eval-games", "2", cwd=tmp_path, timeout=600
    ).stdout
    assert "6 games, " in out and "epoch 1: loss " in out and "held-out accuracy (the move played): " in out
