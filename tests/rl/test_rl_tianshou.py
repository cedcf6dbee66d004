"""The Tianshou example end to end: short DQN runs in subprocesses (against
Tianshou's random player, and against an agent spec through AgentAlgorithm),
then the saved network played through ``agents.adapt`` in full games."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import assert_plays_full_legal_games, run_example

from agents.play.adapters import adapt

TINY = ("--epochs", "1", "--epoch-steps", "300", "--n-envs", "1", "--eval-every", "150", "--eval-games", "2")
TINY += ("--no-progress", "--benchmarks", "random")


@pytest.mark.parametrize(("opponent", "seat"), [("random", "black"), ("greedy", "white")])
def test_dqn_trains_saves_and_plays_legal_games(
    tmp_path: Path, examples_importable: Path, opponent: str, seat: str
) -> None:
    args = (*TINY, "--opponent", opponent, "--play-as", seat, "--save", "q.pt")
    proc = run_example("tianshou_dqn.py", *args, cwd=tmp_path)
    assert f"as {seat})" in proc.stdout  # evaluated in its own seat
    history = json.loads((tmp_path / "q.history.json").read_text())
    steps = [p["timesteps"] for p in history]
    assert steps[0] == 0 and steps[-1] >= 300 and len(steps) >= 3

    from tianshou_dqn import load_policy

    assert_plays_full_legal_games(adapt(load_policy(tmp_path / "q.pt")))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--epochs", "0"], "--epochs must be >= 1"),
        (["--opponent", "grandmaster"], "--opponent"),
        (["--play-as", "red"], "invalid choice"),
        (["--save", "/proc/version/q.pt"], "--save '/proc/version/q.pt': no directory '/proc/version'"),
    ],
)
def test_bad_command_lines_are_usage_errors(
    usage_error: Callable[[str, list[str]], str], args: list[str], message: str
) -> None:
    assert message in usage_error("tianshou_dqn.py", args)
