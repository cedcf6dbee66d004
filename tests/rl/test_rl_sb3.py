"""The Stable-Baselines3 examples end to end: tiny training runs in subprocesses,
then the saved models played through ``agents.adapt`` in full games."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import EXAMPLES, assert_plays_full_legal_games, run_example
from sb3_contrib import MaskablePPO

from agents.play.adapters import adapt
from agents.play.specs import make_agent

TINY = ("--timesteps", "256", "--n-envs", "2", "--n-steps", "64", "--eval-every", "128", "--eval-games", "2")
TINY += ("--no-progress", "--seed", "1")


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """One tiny MaskablePPO run (model, history, plot) shared by this file's tests,
    with a temporary directory of its own (``TMPDIR``)."""
    out = tmp_path_factory.mktemp("sb3")
    (out / "tmp").mkdir()
    args = (*TINY, "--save", "m.zip", "--plot", "curve.png")
    proc = run_example("train_maskable_ppo.py", *args, cwd=out, env={"TMPDIR": str(out / "tmp")})
    return out, proc.stdout


def test_training_leaves_no_log_folder_in_the_temporary_directory(trained: tuple[Path, str]) -> None:
    out, _ = trained
    assert list((out / "tmp").glob("SB3-*")) == []  # SB3's default logger would leave an empty one a run


def test_training_saves_model_history_and_plot(trained: tuple[Path, str]) -> None:
    out, stdout = trained
    history = json.loads((out / "m.history.json").read_text())
    steps = [point["timesteps"] for point in history]
    assert steps[0] == 0 and steps[-1] >= 256 and steps == sorted(steps)
    assert len(steps) >= 3  # start, every 128 steps, end
    for point in history:
        assert set(point["win_rate"]) == {"random", "greedy"}
        assert all(0.0 <= rate <= 1.0 for rate in point["win_rate"].values())
    assert stdout.count("vs random") == len(history)  # each evaluation is printed
    assert (out / "curve.png").read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


def test_saved_model_is_a_legal_player_through_adapt(trained: tuple[Path, str]) -> None:
    out, _ = trained
    assert_plays_full_legal_games(adapt(MaskablePPO.load(out / "m.zip")))


def test_trained_agent_spec_loads_the_model_for_cli_and_gui(
    trained: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    out, _ = trained
    monkeypatch.setenv("REVERSI_SB3_MODEL", str(out / "m.zip"))
    assert_plays_full_legal_games(make_agent(f"python:{EXAMPLES / 'train_maskable_ppo.py'}:trained_agent"), games=2)


def test_the_window_plays_the_model(trained: tuple[Path, str], monkeypatch: pytest.MonkeyPatch) -> None:
    from agents.ui.gui import GuiApp

    out, _ = trained
    monkeypatch.setenv("REVERSI_SB3_MODEL", str(out / "m.zip"))
    app = GuiApp(ai=f"python:{EXAMPLES / 'train_maskable_ppo.py'}:trained_agent", human="white")
    deadline = time.monotonic() + 120
    while len(app.history) == 1 and not app.flow.over:  # the model (black) opens
        app.update()
        assert time.monotonic() < deadline
        time.sleep(0.01)
    assert not app.flow.over, app.message  # an AI that fails loses at once
    assert app.state.player == 1 and app.state.num_empty() == 59  # one legal black move was played


@pytest.mark.parametrize("you", ["black", "white"])
def test_play_against_the_model_at_the_terminal(trained: tuple[Path, str], you: str) -> None:
    out, _ = trained
    # Black opens with D3 (always legal at the start); white quits at its first turn.
    typed = "D3\nQ\n" if you == "black" else "Q\n"
    proc = run_example("train_maskable_ppo.py", "--play", "--save", "m.zip", "--you", you, cwd=out, stdin=typed)
    assert "Game over" in proc.stdout and "quit" in proc.stdout
    model = "white" if you == "black" else "black"
    assert f"({model}) played" in proc.stdout  # the model moved once before the quit


def test_play_without_a_model_says_so(tmp_path: Path) -> None:
    proc = run_example("train_maskable_ppo.py", "--play", "--save", "none.zip", cwd=tmp_path, returncode=1)
    assert "no model at none.zip" in proc.stderr


def test_selfplay_fills_the_pool_and_saves_a_legal_player(tmp_path: Path) -> None:
    args = (*TINY, "--benchmarks", "random", "--snapshot-every", "64", "--pool-size", "3", "--save", "s.zip")
    proc = run_example("selfplay_ppo.py", *args, cwd=tmp_path)
    # 256 steps in rollouts of 2 x 64: snapshots at 128 and 256 (the callback sees 2 steps at a time)
    # after the untrained one: every snapshot counted, the pool capped at 3.
    assert "policies entered the pool, 3 kept" in proc.stdout
    entered = int(proc.stdout.split(" policies entered the pool")[0].split()[-1])
    assert entered >= 4
    assert_plays_full_legal_games(adapt(MaskablePPO.load(tmp_path / "s.zip")), games=2)


@pytest.mark.parametrize(
    ("script", "args", "message"),
    [
        ("train_maskable_ppo.py", ["--timesteps", "0"], "--timesteps must be >= 1"),
        ("train_maskable_ppo.py", ["--opponent", "grandmaster"], "--opponent"),
        ("train_maskable_ppo.py", ["--benchmarks", "random,champion"], "choose among random, greedy"),
        ("train_maskable_ppo.py", ["--eval-games", "0"], "must be >= 1"),
        ("selfplay_ppo.py", ["--pool-size", "0"], "--pool-size must be >= 1"),
    ],
)
def test_bad_command_lines_are_usage_errors(
    usage_error: Callable[[str, list[str]], str], script: str, args: list[str], message: str
) -> None:
    assert message in usage_error(script, args)
