"""The Stable-Baselines3 examples end to end: tiny training runs in subprocesses,
then the saved models played through ``agents.adapt`` in full games."""

from __future__ import annotations

import argparse
import base64
import io
import json
import os
import pickle
import signal
import subprocess
import sys
import time
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import pytest
import torch
from conftest import EXAMPLES, assert_plays_full_legal_games, interrupt_example, run_example
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


def test_training_logs_the_benchmark_scores_for_tensorboard(trained: tuple[Path, str]) -> None:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    out, _ = trained
    runs = list((out / "models" / "tensorboard").glob("MaskablePPO_*"))
    assert len(runs) == 1
    events = EventAccumulator(str(runs[0]))
    events.Reload()
    tags = events.Tags()["scalars"]
    for name in ("random", "greedy"):
        scores = [e.value for e in events.Scalars(f"eval/score_vs_{name}")]
        assert len(scores) >= 2 and all(0.0 <= v <= 1.0 for v in scores)  # every 128 of 256 steps
    assert "train/loss" in tags  # SB3's own curves beside them


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


def test_ctrl_c_at_your_move_ends_the_game_in_one_line(trained: tuple[Path, str]) -> None:
    # A real SIGINT while the example waits for your move; it was a MatchInterrupted traceback.
    out, _ = trained
    status, _, err = interrupt_example(
        "train_maskable_ppo.py", "--play", "--save", "m.zip", cwd=out, ready=lambda line: "to move; legal moves" in line
    )
    assert status == 130 and err == "\ninterrupted\n", err


def test_play_in_the_window_without_a_screen_is_one_line(
    trained: tuple[Path, str],
    examples_importable: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # As over SSH: it opened an invisible window (SDL's offscreen driver) and waited there for ever.
    from train_maskable_ppo import main

    out, _ = trained
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER"):
        monkeypatch.delenv(name, raising=False)
    assert main(["--play", "--gui", "--save", str(out / "m.zip")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no display to open a window on" in err, err


def test_gui_without_play_is_a_usage_error(usage_error: Callable[[str, list[str]], str], tmp_path: Path) -> None:
    # It was ignored: a training run started, and no window came.
    args = ["--gui", *TINY, "--save", str(tmp_path / "m.zip")]
    assert "--gui goes with --play" in usage_error("train_maskable_ppo.py", args)


def test_play_without_a_model_says_so(tmp_path: Path) -> None:
    # Status 1 before: a missing or bad file is status 2 everywhere else (`reversi play` with a bad weights file).
    proc = run_example("train_maskable_ppo.py", "--play", "--save", "none.zip", cwd=tmp_path, returncode=2)
    assert proc.stderr == "no model at none.zip: train one first (or pass --save PATH)\n", proc.stderr


def _with_pickled_entry(model: Path, out: Path, marker: Path) -> None:
    """``model`` with one more entry pickled in its data, as SB3 stores some: unpickling it creates ``marker``."""

    class Payload:
        def __reduce__(self) -> tuple[object, tuple[Path]]:
            return Path.touch, (marker,)

    with zipfile.ZipFile(model) as archive:
        items = {name: archive.read(name) for name in archive.namelist()}
    data = json.loads(items["data"])
    payload = base64.b64encode(pickle.dumps(Payload())).decode()
    data["lr_schedule"] = {":type:": "<class 'function'>", ":serialized:": payload}
    items["data"] = json.dumps(data).encode()
    with zipfile.ZipFile(out, "w") as archive:
        for name, content in items.items():
            archive.writestr(name, content)


def test_loading_a_model_unpickles_nothing_from_the_file(
    trained: tuple[Path, str], tmp_path: Path, examples_importable: Path
) -> None:
    from train_maskable_ppo import load_model

    out, _ = trained
    marker, foreign = tmp_path / "code_ran", tmp_path / "foreign.zip"
    _with_pickled_entry(out / "m.zip", foreign, marker)
    load_model(str(foreign))
    assert not marker.exists()  # MaskablePPO.load(foreign) creates it
    model = load_model(str(out / "m.zip"))
    with zipfile.ZipFile(out / "m.zip") as archive, archive.open("policy.pth") as weights:
        saved = torch.load(io.BytesIO(weights.read()), weights_only=True)
    for name, value in model.policy.state_dict().items():
        torch.testing.assert_close(value, saved[name])
    assert_plays_full_legal_games(adapt(model), games=1)


def test_playing_a_file_that_is_not_a_model_is_one_line(
    tmp_path: Path, examples_importable: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from train_maskable_ppo import main

    (tmp_path / "m.zip").write_text("not a model")
    assert main(["--play", "--save", str(tmp_path / "m.zip")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is not a MaskablePPO model of this example" in err, err


def test_a_seeded_run_meets_the_same_opponent_games(examples_importable: Path) -> None:
    # --opponent greedy was unseeded (its random tie-breaks): one --seed gave other weights each run.
    from train_maskable_ppo import make_env_factory

    def boards(make: Callable[[], gymnasium.Env]) -> list[bytes]:
        env, seen = make(), []
        observation, _ = env.reset(seed=0)
        done = False
        while not done:  # the learner always takes its first legal move; the opponent answers
            action = int(np.flatnonzero(observation["action_mask"])[0])
            observation, _, done, _, _ = env.step(action)
            seen.append(observation["observation"].tobytes())
        return seen

    first, second = make_env_factory("greedy", "win", seed=3), make_env_factory("greedy", "win", seed=3)
    assert [boards(first) for _ in range(3)] == [boards(second) for _ in range(3)]


def _learn(args: argparse.Namespace, evaluator: Any, ctrl_c_at: int | None) -> bool:
    """The example's ``learn`` on a tiny fresh model (2 envs, rollouts of 32), with a real SIGINT
    when ``ctrl_c_at`` steps are done (None: none); its answer. Ctrl-C escaping it fails the test."""
    from stable_baselines3.common.env_util import make_vec_env
    from train_maskable_ppo import EveryCallback, learn, make_env_factory, new_model

    model = new_model(make_vec_env(make_env_factory("random", "win"), n_envs=2, seed=0), 32, 0)
    ctrl_c = [] if ctrl_c_at is None else [EveryCallback(ctrl_c_at, lambda *_: os.kill(os.getpid(), signal.SIGINT))]
    try:
        return learn(model, evaluator, args, *ctrl_c)
    except KeyboardInterrupt:  # would end the whole test session
        pytest.fail("Ctrl-C escaped learn()")


def test_ctrl_c_in_training_saves_what_was_learnt(
    tmp_path: Path, examples_importable: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A real SIGINT 128 steps into a run of a million: it was a traceback, and the model was lost.
    from evaluation import Evaluator
    from train_maskable_ppo import load_model

    save, plot = tmp_path / "m.zip", tmp_path / "curve.png"
    args = argparse.Namespace(timesteps=1_000_000, eval_every=64, no_progress=True, save=str(save), plot=str(plot))
    args.title = "interrupted"
    assert _learn(args, Evaluator(2, ("random",)), ctrl_c_at=128)
    out, err = capsys.readouterr()
    assert err.strip() == "interrupted after 128 of 1000000 timesteps"
    assert f"saved {save}" in out and f"plot: {plot}" in out
    steps = [point["timesteps"] for point in json.loads(save.with_suffix(".history.json").read_text())]
    assert steps == [0, 64]  # Ctrl-C came before the evaluation due at 128
    assert plot.read_bytes().startswith(b"\x89PNG")
    assert_plays_full_legal_games(adapt(load_model(str(save))), games=1)


@pytest.mark.parametrize("stopped_before", [True, False])
def test_a_ctrl_c_while_saving_waits_for_the_save(
    tmp_path: Path, examples_importable: Path, capsys: pytest.CaptureFixture[str], stopped_before: bool
) -> None:
    # A real SIGINT as the history is written, after a first one that stopped the training (a
    # user's second Ctrl-C) or at the end of a run: it was a traceback, the history and plot unwritten.
    from evaluation import Evaluator

    class CtrlCWhileWriting(Evaluator):
        def write(self, *args: Any, **kwargs: Any) -> None:
            os.kill(os.getpid(), signal.SIGINT)
            super().write(*args, **kwargs)

    save, plot = tmp_path / "m.zip", tmp_path / "curve.png"
    timesteps = 1_000_000 if stopped_before else 128
    args = argparse.Namespace(timesteps=timesteps, eval_every=64, no_progress=True, save=str(save), plot=str(plot))
    args.title = "interrupted twice"
    assert _learn(args, CtrlCWhileWriting(2, ("random",)), ctrl_c_at=128 if stopped_before else None)
    out, err = capsys.readouterr()
    if stopped_before:
        assert err.strip() == "interrupted after 128 of 1000000 timesteps"
    else:
        assert err.strip() == "interrupted while saving: saved all the same"
    assert f"saved {save}" in out and f"plot: {plot}" in out
    steps = [point["timesteps"] for point in json.loads(save.with_suffix(".history.json").read_text())]
    assert steps == ([0, 64] if stopped_before else [0, 64, 128])
    assert plot.read_bytes().startswith(b"\x89PNG")
    assert zipfile.ZipFile(save).testzip() is None


def test_ctrl_c_closes_the_progress_bar_before_the_saved_lines(
    tmp_path: Path, examples_importable: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # SB3 closes its bar only at a normal end: after a Ctrl-C it was drawn again below the "saved" line.
    from evaluation import Evaluator

    save = tmp_path / "m.zip"
    args = argparse.Namespace(timesteps=1_000_000, eval_every=10**6, no_progress=False, save=str(save), plot=None)
    args.title = "interrupted"
    assert _learn(args, Evaluator(2, ("random",)), ctrl_c_at=64)
    out = capsys.readouterr().out
    assert "/1,000,000" in out and out.index("/1,000,000") < out.index(f"saved {save}"), out


def test_the_progress_bar_leaves_stderr_clean_when_sb3_was_imported_quietly(tmp_path: Path) -> None:
    """SB3 silences tqdm.rich's TqdmExperimentalWarning by a filter set at its import, which is gone when the
    example was imported in ``warnings.catch_warnings()`` (as pytest's collection does): a real tiny run
    imported so wrote the warning and the line of SB3 under it to stderr."""
    driver = (
        f"import sys, warnings; sys.path.insert(0, {str(EXAMPLES)!r})\n"
        "with warnings.catch_warnings():\n    import train_maskable_ppo\n"
        "sys.exit(train_maskable_ppo.main(sys.argv[1:]))"
    )
    args = [a for a in TINY if a != "--no-progress"] + ["--timesteps", "128", "--benchmarks", "random"]
    proc = subprocess.run(
        [sys.executable, "-c", driver, *args, "--save", "m.zip"], cwd=tmp_path, capture_output=True, text=True
    )
    assert proc.returncode == 0 and "128/128" in proc.stdout, proc.stderr
    assert proc.stderr == "", proc.stderr


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
        # Checked before training, not by the save after it.
        ("train_maskable_ppo.py", ["--save", "/proc/version/m.zip"], "--save '/proc/version/m.zip': no directory"),
        ("train_maskable_ppo.py", ["--plot", "/proc/curve.png"], "--plot '/proc/curve.png': cannot create a file in"),
        ("selfplay_ppo.py", ["--save", "/"], "--save '/': is a directory"),
        # An empty name was checked by nothing, and failed at the save after training (here a short one).
        ("train_maskable_ppo.py", ["--save", "", *TINY], "--save '': no file name"),
        # Seeds numpy's global generator cannot take were gymnasium's or numpy's traceback.
        ("train_maskable_ppo.py", ["--seed", "-1"], "--seed: must be from 0 to 4294967295, got '-1'"),
        ("selfplay_ppo.py", ["--seed", "4294967296"], "--seed: must be from 0 to 4294967295"),
    ],
)
def test_bad_command_lines_are_usage_errors(
    usage_error: Callable[[str, list[str]], str], script: str, args: list[str], message: str
) -> None:
    assert message in usage_error(script, args)


def test_a_refused_run_leaves_no_directory_behind(
    usage_error: Callable[[str, list[str]], str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The default --save's directory was made by the check and left there when --plot was refused.
    monkeypatch.chdir(tmp_path)
    assert "--plot '/proc/curve.png'" in usage_error("train_maskable_ppo.py", ["--plot", "/proc/curve.png"])
    assert list(tmp_path.iterdir()) == []
