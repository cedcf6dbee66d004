"""The Tianshou example end to end: short DQN runs in subprocesses (against
Tianshou's random player, and against an agent spec through AgentAlgorithm),
then the saved network played through ``agents.adapt`` in full games."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import assert_plays_full_legal_games, interrupt_example, run_example

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


def test_a_file_that_is_not_its_network_is_one_value_error(tmp_path: Path, examples_importable: Path) -> None:
    # torch's errors were a page long; a file that is not plain tensors came with the advice to load
    # it with weights_only=False, which runs the code it holds.
    import torch
    from tianshou_dqn import load_policy

    (tmp_path / "junk.pt").write_bytes(b"PK\x03\x04 not a zip")
    torch.save({"x": torch.zeros(3)}, tmp_path / "other.pt")
    torch.save(Path("."), tmp_path / "object.pt")
    for name in ("junk.pt", "other.pt", "object.pt"):
        with pytest.raises(ValueError) as error:
            load_policy(tmp_path / name)
        assert str(error.value) == f"{str(tmp_path / name)!r} is not a Q-network saved by this example"
    with pytest.raises(FileNotFoundError):
        load_policy(tmp_path / "none.pt")


INTERRUPTING = """
import os
import signal

from agents.search.ladder import RandomAgent


class Interrupting(RandomAgent):
    \"\"\"A random opponent whose 150th move sends this process a real SIGINT (a Ctrl-C).\"\"\"

    moves = 0

    def act(self, observation):
        self.moves += 1
        if self.moves == 150:
            os.kill(os.getpid(), signal.SIGINT)
        return super().act(observation)
"""


def test_ctrl_c_in_training_saves_what_was_learnt_and_a_second_one_waits_for_the_save(
    tmp_path: Path, examples_importable: Path
) -> None:
    # The opponent's Ctrl-C about 230 env steps into 100 epochs stops the training (it was a traceback,
    # and the network was lost); a second one, sent once "saved" is out (the history and the plot still
    # to write), was a traceback too, and they were never written.
    (tmp_path / "interrupting.py").write_text(INTERRUPTING)
    opponent = f"python:{tmp_path / 'interrupting.py'}:Interrupting"
    args = [*TINY, "--epochs", "100", "--opponent", opponent, "--save", "q.pt", "--plot", "curve.png"]
    status, out, err = interrupt_example(
        "tianshou_dqn.py", *args, cwd=tmp_path, ready=lambda line: line.startswith("saved"), settle=0
    )
    assert status == 130 and err.startswith("\ninterrupted after") and err.count("\n") == 2, err
    assert "plot: curve.png" in out
    assert (tmp_path / "curve.png").read_bytes().startswith(b"\x89PNG")
    steps = [point["timesteps"] for point in json.loads((tmp_path / "q.history.json").read_text())]
    assert steps[:2] == [0, 150]

    from tianshou_dqn import load_policy

    assert_plays_full_legal_games(adapt(load_policy(tmp_path / "q.pt")), games=1)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--epochs", "0"], "--epochs must be >= 1"),
        (["--opponent", "grandmaster"], "--opponent"),
        (["--play-as", "red"], "invalid choice"),
        (["--save", "/proc/version/q.pt"], "--save '/proc/version/q.pt': no directory '/proc/version'"),
        (["--save", "", *TINY], "--save '': no file name"),  # it failed at the save, after the training
        (["--seed", "-1"], "--seed: must be from 0 to 4294967295, got '-1'"),  # numpy's traceback
    ],
)
def test_bad_command_lines_are_usage_errors(
    usage_error: Callable[[str, list[str]], str], args: list[str], message: str
) -> None:
    assert message in usage_error("tianshou_dqn.py", args)
