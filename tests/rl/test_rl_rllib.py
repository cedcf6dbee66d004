"""The RLlib example end to end: one short PPO run in a subprocess (Ray starts
once), then the saved module played through ``agents.adapt`` in full games."""

from __future__ import annotations

import io
import json
import pickle
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
import torch
from conftest import assert_plays_full_legal_games, interrupt_example, run_example

from agents.play.adapters import adapt
from agents.search.ladder import GreedyAgent, RandomAgent


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """One short PPO run (module, history, plot) shared by this file's tests: its directory and output."""
    out = tmp_path_factory.mktemp("rllib")
    args = ("--iterations", "2", "--batch", "400", "--eval-every", "400", "--eval-games", "2", "--save", "module")
    proc = run_example("rllib_ppo.py", *args, "--plot", "curve.png", cwd=out)
    return out, proc.stdout


def test_rllib_ppo_trains_saves_and_plays_legal_games(trained: tuple[Path, str], examples_importable: Path) -> None:
    out, stdout = trained
    assert "iteration 2/2: 800 env steps" in stdout
    history = json.loads((out / "module.history.json").read_text())
    assert [p["timesteps"] for p in history] == [0, 400, 800]
    assert (out / "curve.png").read_bytes().startswith(b"\x89PNG\r\n\x1a\n")

    from rllib_ppo import load_policy

    opponents = [RandomAgent(0), GreedyAgent(0), RandomAgent(1), GreedyAgent(1)]
    assert_plays_full_legal_games(adapt(load_policy(out / "module")), opponents=opponents)


def test_ctrl_c_in_training_saves_what_was_learnt(tmp_path: Path, examples_importable: Path) -> None:
    # A real SIGINT once the first of 100 iterations is out: it was a traceback, and the module was lost.
    args = ("--iterations", "100", "--batch", "200", "--eval-every", "100000", "--eval-games", "2", "--save", "module")
    status, out, err = interrupt_example(
        "rllib_ppo.py", *args, cwd=tmp_path, ready=lambda line: "iteration 1/" in line, settle=0
    )
    assert status == 130 and err.endswith("\ninterrupted after 200 env steps\n") and "Traceback" not in err, err
    assert f"saved {tmp_path / 'module'}" in out

    from rllib_ppo import load_policy

    assert_plays_full_legal_games(adapt(load_policy(tmp_path / "module")), games=1)


class _Payload:
    """Unpickled, it creates the file ``marker``: what a foreign checkpoint's pickle could do."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[Path]]:
        return Path.touch, (self.marker,)


def test_loading_a_module_unpickles_nothing_from_its_directory(
    trained: tuple[Path, str], tmp_path: Path, examples_importable: Path
) -> None:
    from rllib_ppo import load_policy

    out, _ = trained
    marker, foreign = tmp_path / "code_ran", tmp_path / "foreign"
    shutil.copytree(out / "module", foreign)
    for name in ("class_and_ctor_args.pkl", "module_state.pkl"):  # RLlib's own files: pickles
        (foreign / name).write_bytes(pickle.dumps(_Payload(marker)))
    policy = load_policy(foreign)
    assert not marker.exists()  # RLModule.from_checkpoint(foreign) creates it
    saved = torch.load(out / "module" / "weights.pt", weights_only=True)
    for name, value in policy.module.state_dict().items():
        torch.testing.assert_close(value, saved[name])

    weights = io.BytesIO()
    torch.save({"encoder": _Payload(marker)}, weights)
    (foreign / "weights.pt").write_bytes(weights.getvalue())
    with pytest.raises(ValueError, match=r"weights\.pt is not plain tensors"):
        load_policy(foreign)
    assert not marker.exists()
    with pytest.raises(ValueError, match=r"holds no weights\.pt: not a module saved by this example"):
        load_policy(tmp_path)


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
