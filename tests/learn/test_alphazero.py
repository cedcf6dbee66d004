"""The AlphaZero loop: self-play samples are consistent, checkpoints resume
after a stop, the Ray backend runs the same loop, and the command line works."""

from __future__ import annotations

import json
import re
import shutil
import signal
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import torch
from conftest import interrupt_example, run_cli, run_example

from agents.learn.alphazero import AZConfig, Run, play_games, train
from agents.learn.network import NetConfig, PolicyValueNet, load_network
from agents.ui.cli import main
from reversi_env import GameState

# One torch thread: on a busy shared machine two threads fighting over a core are many times slower.
torch.set_num_threads(1)

TINY = {
    "games": 2,
    "simulations": 8,
    "parallel_games": 2,
    "train_steps": 3,
    "minibatch": 32,
    "channels": 8,
    "blocks": 1,
    "warm_start": 200,
    "warm_depth": 2,
    "warm_steps": 2,
}


def test_self_play_samples_are_legal_positions_with_outcomes() -> None:
    torch.manual_seed(0)
    net = PolicyValueNet(NetConfig(8, 1))
    samples = play_games(net.state_dict(), {"channels": 8, "blocks": 1}, {**TINY, "gumbel": True}, 2, seed=0)
    assert len(samples) >= 2 * 30  # two whole games, at least 30 decisions each
    assert set(np.unique(samples.value)) <= {-1.0, 0.0, 1.0}
    for p, o, policy in zip(samples.mover[:40], samples.opponent[:40], samples.policy[:40], strict=True):
        state = GameState.from_kernel(p, o, 0)
        assert policy.sum() == pytest.approx(1.0, abs=1e-5)
        assert set(np.flatnonzero(policy)) <= set(state.legal_actions())
    # The first position of a game is the start, black to move.
    assert samples.mover[0] == GameState.initial().kernel_boards()[0]


def test_checkpoints_resume_where_the_run_stopped(tmp_path: Path) -> None:
    logs: list[str] = []
    run = train(tmp_path, AZConfig(iterations=1, **TINY), log=logs.append)
    assert run.iteration == 1 and (tmp_path / "iter_0000.pt").exists() and (tmp_path / "iter_0001.pt").exists()
    seen, seconds = run.samples_seen, run.seconds
    weights = {k: v.clone() for k, v in run.net.state_dict().items()}

    # A new process would find the same files: the resumed run continues from them.
    again = train(tmp_path, AZConfig(iterations=2, learning_rate=4e-4, **TINY), log=logs.append)
    assert any("resuming" in line for line in logs)
    assert again.optimizer.param_groups[0]["lr"] == 4e-4  # the resumed command's rate, not the saved one
    assert [h["iteration"] for h in again.history] == [0, 1, 2]
    assert again.samples_seen > seen and again.seconds > seconds
    assert len(again.buffer) == again.samples_seen  # the buffer came back from replay_0001.npz
    saved, info = load_network(tmp_path / "iter_0001.pt")
    for k, v in saved.state_dict().items():
        torch.testing.assert_close(v, weights[k])
    assert info["iteration"] == 1
    progress = json.loads((tmp_path / "progress.json").read_text())
    assert progress["iteration"] == 2 and progress["best"].startswith("iter_")

    # Asking for a different network in the same directory is refused with a clear message.
    with pytest.raises(ValueError, match="made with channels=8, the command asks for channels=16"):
        train(tmp_path, AZConfig(iterations=3, **{**TINY, "channels": 16}), log=logs.append)


def test_a_kill_before_progress_json_is_written_resumes_as_if_it_had_not_started(tmp_path: Path) -> None:
    # Killed in the middle of iteration 2's save: its network, optimizer state and replay buffer
    # on disk, progress.json still at iteration 1. The resumed run must redo iteration 2 from
    # iteration 1's state, not from iteration 2's buffer (its samples twice) and optimizer.
    tiny = {"games": 1, "simulations": 2, "train_steps": 2, "minibatch": 16, "channels": 8, "blocks": 1}
    whole, killed = tmp_path / "whole", tmp_path / "killed"
    train(whole, AZConfig(iterations=1, **tiny), log=lambda _: None)
    shutil.copytree(whole, killed)
    train(whole, AZConfig(iterations=2, **tiny), log=lambda _: None)
    for path in whole.iterdir():
        if path.name != "progress.json":
            shutil.copy(path, killed / path.name)
    run = train(killed, AZConfig(iterations=2, **tiny), log=lambda _: None)
    assert len(run.buffer) == run.samples_seen
    expected, resumed = load_network(whole / "iter_0002.pt")[0], load_network(killed / "iter_0002.pt")[0]
    for name, value in expected.state_dict().items():
        torch.testing.assert_close(resumed.state_dict()[name], value)
    assert sorted(p.name for p in killed.iterdir()) == sorted(p.name for p in whole.iterdir())


def test_a_run_of_the_unnumbered_state_files_resumes_with_them(tmp_path: Path) -> None:
    shape = {"channels": 8, "blocks": 1}
    config = AZConfig(iterations=0, warm_start=20, warm_depth=1, warm_steps=1, minibatch=8, **shape)
    saved = len(train(tmp_path, config, log=lambda _: None).buffer)
    (tmp_path / "optimizer_0000.pt").rename(tmp_path / "optimizer.pt")
    (tmp_path / "replay_0000.npz").rename(tmp_path / "replay.npz")
    progress = json.loads((tmp_path / "progress.json").read_text())
    del progress["configs"]  # older versions saved one config, the settings of the whole run
    (tmp_path / "progress.json").write_text(json.dumps(progress))
    run = Run(tmp_path, config)
    assert len(run.buffer) == saved > 0 and run.optimizer.state_dict()["state"]
    assert run.configs == [{"from_iteration": 0, "config": progress["config"]}]


SMALL_RUN = ["--games", "1", "--simulations", "2", "--train-steps", "1", "--channels", "8", "--blocks", "1"]
SMALL_RUN += ["--warm-start", "20", "--warm-depth", "1", "--warm-steps", "1", "--seed", "3"]


def test_a_resume_takes_the_saved_settings_it_leaves_out_and_records_each_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The resume names none of the run's settings: they were the defaults (channels 32, seed 0...),
    # refused as "the saved network is ...", or used silently where they do not show.
    start = ["train-az", "--out", str(tmp_path), "--eval-games", "0", "--no-progress"]
    assert run_cli([*start, "--iterations", "0", *SMALL_RUN], capsys)[0] == 0
    assert run_cli([*start, "--iterations", "1", "--learning-rate", "5e-4"], capsys) == (0, "")
    progress = json.loads((tmp_path / "progress.json").read_text())
    assert [h["iteration"] for h in progress["history"]] == [0, 1]
    first, second = progress["configs"]  # the learning rate changed at iteration 1, and the record says so
    assert first["from_iteration"] == 0 and first["config"]["learning_rate"] == 1e-3
    assert first["config"]["iterations"] == 0
    assert second["from_iteration"] == 1 and second["config"]["learning_rate"] == 5e-4
    assert second["config"]["iterations"] == 1
    for config in (first["config"], second["config"]):
        assert (config["seed"], config["games"], config["channels"], config["warm_start"]) == (3, 1, 8, 20)
    assert progress["config"] == second["config"]


def test_a_resume_that_changes_what_the_run_is_is_refused_naming_each_setting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # It used to run with the new settings and overwrite the saved config, so the record
    # no longer said what the earlier iterations were made with.
    start = ["train-az", "--out", str(tmp_path), "--eval-games", "0", "--no-progress"]
    assert run_cli([*start, "--iterations", "0", *SMALL_RUN], capsys)[0] == 0
    before = (tmp_path / "progress.json").read_bytes()
    again = [*start, "--iterations", "1", *SMALL_RUN, "--games", "2", "--seed", "4", "--workers", "2"]
    status, err = run_cli(again, capsys)
    assert status == 1 and err.count("\n") == 1, err
    assert "the run there was made with games=1, seed=3, the command asks for games=2, seed=4" in err
    assert "leave these options out to continue it, or give a new --out" in err
    assert (tmp_path / "progress.json").read_bytes() == before and not (tmp_path / "iter_0001.pt").exists()


def test_a_resume_never_starts_a_saved_opponent_that_runs_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    start = ["train-az", "--out", str(tmp_path), "--eval-games", "0", "--no-progress"]
    assert run_cli([*start, "--iterations", "0", *SMALL_RUN], capsys)[0] == 0
    path = tmp_path / "progress.json"
    progress = json.loads(path.read_text())
    for entry in [progress, *progress["configs"]]:
        entry["config"].update(eval_games=2, eval_against=["greedy", "gtp:/bin/touch started"])
    path.write_text(json.dumps(progress))
    status, err = run_cli(["train-az", "--out", str(tmp_path), "--iterations", "1"], capsys)
    assert status == 1 and err.count("\n") == 1, err
    assert "start programs or import code (gtp:/bin/touch started)" in err and "--eval-against" in err
    assert not (tmp_path / "iter_0001.pt").exists()


def test_a_kill_during_the_evaluation_is_evaluated_on_resume(tmp_path: Path) -> None:
    # A real Ctrl-C while iteration 1 is being rated: it is saved without scores. The resumed run
    # used to go on to iteration 2 (or stop), leaving it unrated and never promoted.
    config = AZConfig(iterations=1, **{**TINY, "warm_start": 20, "warm_depth": 1, "games": 1, "simulations": 2})
    calls: list[tuple[str, str | None, int]] = []

    def interrupted(checkpoint: Path, best: Path | None, iteration: int) -> dict[str, list[float]]:
        if iteration == 1:
            signal.raise_signal(signal.SIGINT)
        return {"greedy": [0.5, 0.3, 0.7]}

    def rated(checkpoint: Path, best: Path | None, iteration: int) -> dict[str, list[float]]:
        calls.append((checkpoint.name, best.name if best else None, iteration))
        return {"best": [0.9, 0.7, 0.97], "greedy": [0.8, 0.6, 0.9]}

    with pytest.raises(KeyboardInterrupt):
        train(tmp_path, config, interrupted, log=lambda _: None, progress=False)
    assert json.loads((tmp_path / "progress.json").read_text())["history"][-1]["scores"] == {}
    logs: list[str] = []
    run = train(tmp_path, config, rated, log=logs.append, progress=False)
    assert calls == [("iter_0001.pt", "iter_0000.pt", 1)]
    progress = json.loads((tmp_path / "progress.json").read_text())
    assert progress["history"][-1]["scores"]["best"] == [0.9, 0.7, 0.97]
    assert progress["best"] == run.best == "iter_0001.pt"  # 0.9 against the best before it: promoted
    assert "iteration 1 evaluated; best 0.90 [0.70, 0.97], greedy 0.80 [0.60, 0.90]; best iter_0001.pt" in logs
    assert len(run.buffer) == run.samples_seen  # the iteration was not trained again
    train(tmp_path, config, rated, log=logs.append, progress=False)
    assert len(calls) == 1  # a rated iteration is not rated again


def test_ray_backend_runs_the_loop_on_a_real_local_ray(tmp_path: Path) -> None:
    import ray

    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    try:
        run = train(tmp_path, AZConfig(iterations=1, backend="ray", **{**TINY, "warm_start": 0}), log=lambda _: None)
    finally:
        ray.shutdown()
    assert run.iteration == 1 and run.samples_seen >= 60


def test_train_az_command_evaluates_each_checkpoint(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    args = ["train-az", "--out", str(out), "--games", "2", "--simulations", "8"]
    args += ["--train-steps", "2", "--channels", "8", "--blocks", "1", "--warm-start", "100", "--warm-depth", "2"]
    args += ["--warm-steps", "2", "--eval-games", "2", "--eval-against", "random"]
    assert main([*args, "--iterations", "0"]) == 0
    # The resume leaves the --eval options out: it rates as the run did. They were not saved, and
    # such a resume rated against greedy with 20 games, the defaults.
    assert main(["train-az", "--out", str(out), "--iterations", "1"]) == 0
    progress = json.loads((out / "progress.json").read_text())
    assert (progress["config"]["eval_games"], progress["config"]["eval_against"]) == (2, ["random"])
    assert len((out / "eval_0001_random.jsonl").read_text().splitlines()) == 1 + 2  # the tournament, 2 games
    history = progress["history"]
    score, low, high = history[-1]["scores"]["random"]
    assert 0 <= low <= score <= high <= 1
    assert "best" in history[-1]["scores"]
    assert set(history[0]["scores"]) == {"random"}  # the warm start is rated too, with no best before it
    assert (out / "strength.png").stat().st_size > 0
    assert "iteration 1" in capsys.readouterr().out
    assert main(["train-az", "--out", str(out), "--eval-games", "3"]) == 2
    assert "--eval-games" in capsys.readouterr().err


def test_train_az_no_progress_writes_no_bars(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tiny = ["--games", "1", "--simulations", "2", "--train-steps", "1", "--channels", "8", "--blocks", "1"]
    warm = ["--warm-start", "20", "--warm-depth", "1", "--warm-steps", "1", "--eval-games", "0"]
    assert main(["train-az", "--out", str(tmp_path), "--iterations", "1", *tiny, *warm, "--no-progress"]) == 0
    out, err = capsys.readouterr()
    assert err == "" and "iteration 1:" in out  # a log keeps the lines, not bars redrawn with \r


def test_the_example_runs_its_loop(tmp_path: Path) -> None:
    args = ("--iterations", "2", "--games", "2", "--simulations", "8", "--steps", "3")
    out = run_example("alphazero.py", *args, cwd=tmp_path).stdout
    assert "iteration 2:" in out and "raw policy vs greedy" in out
    assert load_network(tmp_path / "alphazero_example.pt")[0].config == NetConfig()


def test_ctrl_c_stops_the_example_and_says_what_is_saved(tmp_path: Path) -> None:
    # A real SIGINT once iteration 1 is printed (as it comes, not at the exit); it was a traceback.
    args = ["--iterations", "1000", "--games", "2", "--simulations", "8", "--steps", "3"]
    status, _, err = interrupt_example(
        "alphazero.py", *args, cwd=tmp_path, ready=lambda line: line.startswith("iteration 1:")
    )
    assert status == 130 and "Traceback" not in err, err
    kept = re.fullmatch(r"\ninterrupted: alphazero_example.pt holds the network of iteration (\d+)\n", err)
    assert kept is not None and int(kept[1]) >= 1, err
    assert load_network(tmp_path / "alphazero_example.pt")[0].config == NetConfig()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--games", "0"], "--games: must be >= 1"),
        (["--simulations", "-1"], "--simulations: must be >= 1"),
        (["--out", "no/such/dir/net.pt"], "--out 'no/such/dir/net.pt': no directory"),
    ],
)
def test_the_example_refuses_bad_options_before_any_work(
    usage_error: Callable[[str, list[str]], str], args: list[str], message: str
) -> None:
    # They were a traceback: AZConfig's ValueError, or the save after the first iteration's work.
    assert message in usage_error("alphazero.py", args)


def test_train_az_refuses_a_bad_device_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["train-az", "--out", str(tmp_path / "run"), "--device", "tpu9", "--iterations", "0"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "tpu9" in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--seed", "-1"], "--seed: must be from 0 to"),
        (["--eval-sims", "-1"], "--eval-sims: must be from 0 to"),
        (["--warm-steps", "-1"], "--warm-steps: must be from 0 to"),
        (["--iterations", "-1"], "--iterations: must be from 0 to"),
    ],
)
def test_train_az_bad_numbers_are_usage_errors_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    # A negative --eval-sims used to be found only by the first evaluation, after an iteration's
    # self-play and training; a negative --seed deep in self-play, as numpy's "expected non-negative integer".
    out = tmp_path / "run"
    tiny = ["--games", "1", "--simulations", "2", "--train-steps", "1", "--channels", "8", "--blocks", "1"]
    status, err = run_cli(["train-az", "--out", str(out), "--iterations", "1", *tiny, *argv], capsys)
    assert status == 2 and message in err.splitlines()[-1] and "Traceback" not in err
    assert not out.exists()


def _corrupt(path: Path, kind: str) -> None:
    """Spoil ``path`` as a crash, a full disk or a stray file would."""
    if kind == "empty":
        path.write_bytes(b"")
    elif kind == "truncated":
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    elif kind == "text":
        path.write_text("garbage")
    elif kind == "config":  # a hand-edited setting: it would be a TypeError in AZConfig
        progress = json.loads(path.read_text())
        progress.setdefault("configs", [{"from_iteration": 0, "config": {}}])[-1]["config"]["games"] = "many"
        path.write_text(json.dumps(progress))
    elif kind == "history":  # valid JSON, but a record the strength plot cannot read (was a TypeError after the work)
        progress = json.loads(path.read_text())
        path.write_text(json.dumps({**progress, "history": [1]}))
    else:  # a real torch file of something else
        torch.save({"weights": torch.zeros(3)}, path)


@pytest.mark.parametrize(
    ("name", "kind", "message"),
    [
        ("replay_0000.npz", "empty", "replay_0000.npz' is not a replay buffer: not an .npz archive"),
        ("replay_0000.npz", "truncated", "replay_0000.npz' is not a replay buffer: not an .npz archive"),
        ("iter_0000.pt", "empty", "iter_0000.pt' is not a saved policy-value network of this project"),
        ("iter_0000.pt", "text", "iter_0000.pt' is not a saved policy-value network of this project"),
        ("iter_0000.pt", "other", "iter_0000.pt' is not a saved policy-value network of this project"),
        ("optimizer_0000.pt", "truncated", "optimizer_0000.pt' is not this run's optimizer state"),
        ("progress.json", "truncated", "progress.json' is not a train-az progress file"),
        ("progress.json", "history", "progress.json' is not a train-az progress file: a history entry"),
        ("progress.json", "config", "progress.json' is not a train-az progress file: the saved setting games=many"),
    ],
)
def test_resuming_with_a_corrupt_file_is_one_line_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, kind: str, message: str
) -> None:
    shape = {"channels": 8, "blocks": 1, "games": 1, "simulations": 2, "train_steps": 1}
    train(tmp_path, AZConfig(iterations=0, warm_start=20, warm_depth=1, warm_steps=1, minibatch=8, **shape))
    _corrupt(tmp_path / name, kind)
    capsys.readouterr()
    argv = ["train-az", "--out", str(tmp_path), "--iterations", "1", "--eval-games", "0"]
    status, err = run_cli([*argv, "--channels", "8", "--blocks", "1"], capsys)
    assert status == 1 and message in err, err
    assert err.count("\n") == 1 and "Traceback" not in err and "weights_only" not in err
    assert not (tmp_path / "iter_0001.pt").exists()


def test_a_corrupt_network_file_is_one_line_under_play(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    net = tmp_path / "net.pt"
    net.write_text("garbage")
    status, err = run_cli(["play", "--black", f"alphazero:net={net},sims=2", "--white", "random"], capsys)
    assert status != 0 and "net.pt' is not a saved policy-value network of this project" in err, err
    assert err.count("\n") == 1 and "weights_only" not in err
