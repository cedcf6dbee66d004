"""The RLlib example end to end: one short PPO run in a subprocess (Ray starts
once), then the saved module played through ``agents.adapt`` in full games."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import assert_plays_full_legal_games, run_example

from agents.play.adapters import adapt
from agents.search.ladder import GreedyAgent, RandomAgent


def test_rllib_ppo_trains_saves_and_plays_legal_games(tmp_path: Path, examples_importable: Path) -> None:
    args = ("--iterations", "2", "--batch", "400", "--eval-every", "400", "--eval-games", "2", "--save", "module")
    proc = run_example("rllib_ppo.py", *args, "--plot", "curve.png", cwd=tmp_path)
    assert "iteration 2/2: 800 env steps" in proc.stdout
    history = json.loads((tmp_path / "module.history.json").read_text())
    assert [p["timesteps"] for p in history] == [0, 400, 800]
    assert (tmp_path / "curve.png").read_bytes().startswith(b"\x89PNG\r\n\x1a\n")

    from rllib_ppo import load_policy

    opponents = [RandomAgent(0), GreedyAgent(0), RandomAgent(1), GreedyAgent(1)]
    assert_plays_full_legal_games(adapt(load_policy(tmp_path / "module")), opponents=opponents)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--iterations", "0"], "--iterations must be >= 1"),
        (["--batch", "-5"], "--batch must be >= 1"),
        (["--benchmarks", "nobody"], "choose among random, greedy"),
    ],
)
def test_bad_command_lines_are_usage_errors(
    usage_error: Callable[[str, list[str]], str], args: list[str], message: str
) -> None:
    assert message in usage_error("rllib_ppo.py", args)
