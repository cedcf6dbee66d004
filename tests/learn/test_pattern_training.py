"""Training the pattern evaluation: labels, the fit, reproducibility from a seed
on a tiny budget (in this process, local processes and a real local Ray), and the CLI."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import interrupt_command, run_cli

from agents.learn.fit import fit
from agents.learn.pattern_selfplay import Positions, SelfPlayConfig, generate
from agents.learn.pattern_training import TrainConfig, data_record, load_data, play_round, save_data, train
from agents.play.processes import descendants
from agents.search.alphabeta import new_stats, search_root
from agents.search.endgame import solve_position
from agents.search.evaluation import DISC, Evaluation
from agents.search.patterns import (
    N_PHASES,
    N_WEIGHTS,
    child_values,
    evaluate,
    expand_weights,
    load_weights,
    read_weights,
    save_weights,
    search_evaluate,
)
from agents.search.tt import new_table
from agents.ui.cli import main
from reversi_env.bitboard import flips, legal_moves
from reversi_env.state import GameState

REPO = Path(__file__).resolve().parents[2]
TINY = TrainConfig(games=12, seed=7, rounds=2, iterations=5)


def test_endgame_labels_are_exact_and_earlier_ones_are_disc_differences() -> None:
    config = SelfPlayConfig(exact_empties=10)
    data = generate(6, None, 3, config)
    empties = np.array([64 - (int(p) | int(o)).bit_count() for p, o in zip(data.p, data.o, strict=True)])
    assert len(data) > 6 * 40 and (empties <= 10).sum() > 30
    for i in np.flatnonzero(empties <= 10)[:40]:
        solution = solve_position(GameState.from_kernel(int(data.p[i]), int(data.o[i]), 0))
        assert solution is not None and data.label[i] == solution.score
    assert np.all(np.abs(data.label) <= 64) and np.all(data.label == np.round(data.label))  # lam = 1 in round 0


def _empties(data: Positions) -> np.ndarray:
    return np.array([64 - (int(p) | int(o)).bit_count() for p, o in zip(data.p, data.o, strict=True)])


def test_search_labels_are_the_alpha_beta_value_of_the_position_under_the_weights() -> None:
    weights = load_weights()
    data = generate(3, weights, 4, SelfPlayConfig(search_depth=3, lam=0.0))
    evaluation = Evaluation("patterns", search_evaluate, expand_weights(weights).ravel())
    empties = _empties(data)
    checked = 0
    for i in np.flatnonzero(empties > 12)[::4]:
        p, o = data.p[i], data.o[i]
        moves = [sq for sq in range(64) if (int(legal_moves(p, o)) >> sq) & 1]
        root = search_root(p, o, 3, moves, new_table(1 << 12), new_stats(DISC), evaluation)
        assert data.label[i] == np.float32(max(root.scores.values()) / DISC)
        checked += 1
    assert checked > 10
    td = generate(3, weights, 4, SelfPlayConfig(lam=0.0))  # the same games, labelled by the next evaluation
    assert np.array_equal(td.p, data.p) and not np.array_equal(td.label, data.label)


def test_both_parities_labels_are_the_mean_of_an_even_and_an_odd_depth_search() -> None:
    weights = load_weights()
    even = generate(3, weights, 4, SelfPlayConfig(search_depth=4, lam=0.0))
    odd = generate(3, weights, 4, SelfPlayConfig(search_depth=3, lam=0.0))
    both = generate(3, weights, 4, SelfPlayConfig(search_depth=4, lam=0.0, both_parities=True))
    assert np.array_equal(both.p, even.p) and np.array_equal(both.p, odd.p)  # the labels do not change the games
    searched = _empties(both) > 12
    assert searched.sum() > 20
    mean = (even.label.astype(np.float64) + odd.label) / 2
    assert np.allclose(both.label[searched], mean[searched], atol=1e-5)
    assert np.abs(even.label[searched] - odd.label[searched]).max() > 1  # the two depths differ
    assert np.array_equal(both.label[~searched], even.label[~searched])  # exact labels stay exact


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"both_parities": True, "search_depth": 0}, "both_parities with search_depth=0 (a search of 2 plies or more)"),
        ({"both_parities": True, "search_depth": 1}, "both_parities with search_depth=1"),
        ({"record": 0.0}, "record=0.0 (above 0, at most 1)"),
        ({"lam": 1.5}, "lam=1.5 (0 to 1)"),
        ({"search_depth": 99}, "search_depth=99 (0 to "),
        ({"solve_empties": -1}, "solve_empties=-1 (0 to 20)"),
    ],
)
def test_a_self_play_config_out_of_range_is_refused_when_made(settings: dict[str, object], message: str) -> None:
    """From Python as from the command: a flag the games would ignore, or a share that keeps nothing."""
    with pytest.raises(ValueError, match="out of range") as caught:
        SelfPlayConfig(**settings)  # type: ignore[arg-type]
    assert message in str(caught.value)


def test_solve_empties_labels_kept_positions_exactly_without_changing_the_games() -> None:
    weights = load_weights()
    plain = generate(4, weights, 9, SelfPlayConfig(exact_empties=8))
    solved = generate(4, weights, 9, SelfPlayConfig(exact_empties=8, solve_empties=12))
    assert np.array_equal(plain.p, solved.p) and np.array_equal(plain.o, solved.o)
    empties = _empties(solved)
    middle = np.flatnonzero((empties > 8) & (empties <= 12))
    assert len(middle) > 10 and not np.array_equal(plain.label[middle], solved.label[middle])
    for i in middle[::3]:
        solution = solve_position(GameState.from_kernel(int(solved.p[i]), int(solved.o[i]), 0))
        assert solution is not None and solved.label[i] == solution.score


def _played_move(before_p: np.uint64, before_o: np.uint64, after_p: np.uint64, after_o: np.uint64) -> int | None:
    """The move that leads from one recorded position to the next (None if another game, a pass, ...)."""
    for sq in range(64):
        if (int(legal_moves(before_p, before_o)) >> sq) & 1:
            f = flips(before_p, before_o, sq)
            if (before_o ^ f, before_p | f | np.uint64(1 << sq)) == (after_p, after_o):
                return sq
    return None


def test_cut_exploration_labels_a_random_move_position_by_its_greedy_value() -> None:
    weights = load_weights()
    plain = generate(6, weights, 13, SelfPlayConfig(epsilon=0.3))
    cut = generate(6, weights, 13, SelfPlayConfig(epsilon=0.3, cut_exploration=True))
    assert np.array_equal(plain.p, cut.p) and np.array_equal(plain.o, cut.o)  # the same games
    empties = _empties(cut)
    values = np.zeros(64)
    random_moves = 0
    for j in range(1, len(cut)):  # a game's positions are written last first: j - 1 follows j
        if empties[j] <= 12:
            continue
        played = _played_move(cut.p[j], cut.o[j], cut.p[j - 1], cut.o[j - 1])
        if played is None:
            continue
        child_values(cut.p[j], cut.o[j], weights, values)
        moves = [sq for sq in range(64) if (int(legal_moves(cut.p[j], cut.o[j])) >> sq) & 1]
        best = max(values[sq] for sq in moves)
        if values[played] < best:  # not the greedy move: a random one
            random_moves += 1
            assert cut.label[j] == np.float32(best)
            assert plain.label[j] != cut.label[j]
    assert random_moves > 10


def test_play_depth_plays_the_move_a_search_that_deep_values_best() -> None:
    weights = load_weights()
    searched = generate(6, weights, 21, SelfPlayConfig(epsilon=0.0, play_depth=3))
    evaluation = Evaluation("patterns", search_evaluate, expand_weights(weights).ravel())
    empties = _empties(searched)
    values = np.zeros(64)
    checked = not_greedy = 0
    for j in range(1, len(searched)):  # a game's positions are written last first: j - 1 follows j
        if empties[j] <= 12:
            continue
        p, o = searched.p[j], searched.o[j]
        played = _played_move(p, o, searched.p[j - 1], searched.o[j - 1])
        if played is None:
            continue
        moves = [sq for sq in range(64) if (int(legal_moves(p, o)) >> sq) & 1]
        root = search_root(p, o, 3, moves, new_table(1 << 12), new_stats(DISC), evaluation)
        assert root.scores[played] == max(root.scores.values())
        child_values(p, o, weights, values)
        not_greedy += values[played] < max(values[sq] for sq in moves)
        checked += 1
    assert checked > 100 and not_greedy > 10  # the search, not the one-ply evaluation, chose them
    one_ply = generate(6, weights, 21, SelfPlayConfig(epsilon=0.0))
    assert not (len(one_ply) == len(searched) and np.array_equal(one_ply.p, searched.p))


def test_record_keeps_a_random_share_of_the_positions() -> None:
    everything = generate(40, None, 2, SelfPlayConfig())
    quarter = generate(40, None, 2, SelfPlayConfig(record=0.25))
    assert 0.15 * len(everything) < len(quarter) < 0.35 * len(everything)
    assert set(zip(quarter.p, quarter.o, strict=True)) <= set(zip(everything.p, everything.o, strict=True))


def test_same_seed_same_games_other_seed_other_games() -> None:
    config = SelfPlayConfig()
    a, b, c = generate(4, None, 1, config), generate(4, None, 1, config), generate(4, None, 2, config)
    assert np.array_equal(a.p, b.p) and np.array_equal(a.label, b.label)
    assert not (len(a) == len(c) and np.array_equal(a.p, c.p))


def test_the_fit_lowers_the_loss_and_predicts_held_out_positions() -> None:
    train_data = generate(150, None, 11, SelfPlayConfig())
    result = fit(train_data, iterations=15)
    assert result.mse_after < 0.5 * result.mse_before
    held_out = generate(30, None, 12, SelfPlayConfig())
    predicted = np.array([evaluate(p, o, result.weights) for p, o in zip(held_out.p, held_out.o, strict=True)])
    assert np.corrcoef(predicted, held_out.label)[0, 1] > 0.5
    more = fit(train_data, iterations=30)
    assert more.mse_after <= result.mse_after + 1e-6


def test_blend_decides_which_neighbouring_phases_a_position_trains() -> None:
    data = generate(20, None, 5, SelfPlayConfig())
    pick = np.flatnonzero((_empties(data) >= 20) & (_empties(data) <= 24))  # all of phase 4
    sub = Positions(data.p[pick], data.o[pick], data.label[pick])
    trained = {b: set(np.flatnonzero(np.any(fit(sub, blend=b, iterations=3).weights != 0, axis=1))) for b in (0, 2, 5)}
    assert trained == {0: {4}, 2: {3, 4, 5}, 5: {3, 4, 5}}


def test_fit_refuses_no_data() -> None:
    empty = Positions.concatenate([])
    with pytest.raises(ValueError, match="no positions"):
        fit(empty)


def test_training_is_reproducible_from_a_seed() -> None:
    w1, reports = train(TINY, progress=False)
    w2, _ = train(TINY, progress=False)
    w3, _ = train(TrainConfig(games=12, seed=8, rounds=2, iterations=5), progress=False)
    assert w1.shape == (N_PHASES, N_WEIGHTS)
    assert np.array_equal(w1, w2)
    assert not np.array_equal(w1, w3)
    assert [r.games for r in reports] == [6, 6] and reports[1].positions > reports[0].positions
    assert all(r.mse_after < r.mse_before for r in reports)


def test_local_processes_give_the_same_positions_as_one_process() -> None:
    weights, _ = train(TrainConfig(games=4, seed=1, rounds=1, iterations=3), progress=False)
    one = play_round(120, weights, 5, 1, SelfPlayConfig(), workers=1)
    two = play_round(120, weights, 5, 1, SelfPlayConfig(), workers=2)
    assert len(one) > 120 * 40
    assert np.array_equal(one.p, two.p) and np.array_equal(one.label, two.label)


def _pool_workers() -> list[int]:
    """This process's worker processes (not multiprocessing's resource tracker)."""
    found = []
    for pid in descendants(os.getpid()):
        with contextlib.suppress(OSError):
            if b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(pid)
    return found


def test_ctrl_c_stops_the_workers_without_their_tracebacks(capfd: pytest.CaptureFixture[str]) -> None:
    # A terminal's Ctrl-C goes to the whole process group: here to both workers and this process, once
    # the first chunk is in (the workers are at work). Each worker used to print its KeyboardInterrupt.
    def ctrl_c(_games: int) -> None:
        time.sleep(0.5)
        for pid in _pool_workers():
            os.kill(pid, signal.SIGINT)
        os.kill(os.getpid(), signal.SIGINT)

    with pytest.raises(KeyboardInterrupt):
        play_round(200, None, 0, 0, SelfPlayConfig(exact_empties=6), workers=2, advance=ctrl_c)
    deadline = time.monotonic() + 10
    while _pool_workers() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _pool_workers() == []  # the pool ended its workers, not left them the queued chunks
    assert "Traceback" not in capfd.readouterr().err


def test_ray_gives_the_same_positions_as_one_process() -> None:
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    try:
        on_ray = play_round(60, None, 5, 0, SelfPlayConfig(), backend="ray")
    finally:
        ray.shutdown()
    local = play_round(60, None, 5, 0, SelfPlayConfig())
    assert len(local) > 60 * 40
    assert np.array_equal(on_ray.o, local.o) and np.array_equal(on_ray.label, local.label)


def test_cli_writes_weights_with_their_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "w.npz"
    argv = ["train-eval", "--games", "6", "--seed", "3", "--rounds", "2", "--iterations", "4", "--out", str(out)]
    assert main([*argv, "--no-progress", "--checkpoints", str(tmp_path / "ck")]) == 0
    saved = read_weights(out)
    assert saved.metadata["command"].startswith("reversi train-eval --games 6 --seed 3 ")
    assert saved.metadata["games"] == 6 and len(saved.metadata["rounds"]) == 2
    assert (tmp_path / "ck" / "round_0.npz").exists() and (tmp_path / "ck" / "round_1.npz").exists()
    assert "round 2: 3 games" in capsys.readouterr().out
    cut = tmp_path / "cut.npz"
    assert main([*argv[:-1], str(cut), "--no-progress", "--cut-exploration"]) == 0
    assert " --cut-exploration " in read_weights(cut).metadata["command"]
    assert "--cut-exploration" not in saved.metadata["command"]
    assert not np.array_equal(read_weights(cut).weights, saved.weights)
    again = tmp_path / "again.npz"
    assert main([*argv[:-1], str(again), "--no-progress"]) == 0
    assert np.array_equal(read_weights(again).weights, saved.weights)


def test_saved_data_refits_without_games(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out, data = tmp_path / "w.npz", tmp_path / "data.npz"
    argv = ["train-eval", "--games", "6", "--seed", "3", "--rounds", "2", "--iterations", "4", "--no-progress"]
    assert main([*argv, "--out", str(out), "--save-data", str(data)]) == 0
    rounds = load_data(data)
    reported = [r["positions"] for r in read_weights(out).metadata["rounds"]]
    assert [len(r) for r in rounds] == [reported[0], reported[1] - reported[0]] and reported[0] > 0
    assert main([*argv, "--out", str(tmp_path / "same.npz")]) == 0  # saving the data changes nothing
    assert np.array_equal(read_weights(tmp_path / "same.npz").weights, read_weights(out).weights)
    capsys.readouterr()
    refit = tmp_path / "refit.npz"
    assert main(["fit-eval", str(data), "--out", str(refit), "--ridge", "20", "--iterations", "6"]) == 0
    direct = fit(Positions.concatenate(rounds), ridge=20, iterations=6)
    saved = read_weights(refit)
    assert np.array_equal(saved.weights, direct.weights.astype(np.float16).astype(np.float32))
    assert saved.metadata["positions"] == reported[1] and "--ridge 20" in saved.metadata["command"]
    digest = hashlib.sha256(data.read_bytes()).hexdigest()
    made_by = {"command": read_weights(out).metadata["command"], "init": None}  # the run that saved the data
    assert data_record(data) == made_by
    assert saved.metadata["data"] == [{"path": str(data), "sha256": digest, "positions": reported[1], **made_by}]
    shown = capsys.readouterr()
    assert f"{reported[1]} positions" in shown.out
    assert f"fitting {reported[1]} positions" in shown.err and "6/6" in shown.err  # the fit's progress bar
    later = tmp_path / "later.npz"
    assert main(["fit-eval", str(data), "--out", str(later), "--first-round", "2", "--init", str(out)]) == 0
    assert read_weights(later).metadata["positions"] == len(rounds[1])
    started = read_weights(later).metadata["init"]  # the start, as train-eval records it
    assert started["sha256"] == hashlib.sha256(out.read_bytes()).hexdigest()
    assert started["command"] == read_weights(out).metadata["command"] and started["path"] == str(out)
    assert read_weights(refit).metadata["init"] is None
    assert main(["fit-eval", str(data), "--out", str(later), "--first-round", "3"]) == 2
    other = tmp_path / "other.npz"  # a second run's positions: one fit on both runs' round 2
    assert main([*argv[:4], "4", *argv[5:], "--out", str(tmp_path / "w4.npz"), "--save-data", str(other)]) == 0
    both = tmp_path / "both.npz"
    assert main(["fit-eval", str(data), str(other), "--out", str(both), "--first-round", "2", "--iterations", "6"]) == 0
    second = load_data(other)[1]
    joined = Positions.concatenate([rounds[1], second])
    assert np.array_equal(
        read_weights(both).weights, fit(joined, ridge=5, iterations=6).weights.astype(np.float16).astype(np.float32)
    )
    recorded = read_weights(both).metadata
    assert [d["positions"] for d in recorded["data"]] == [len(rounds[1]), len(second)]
    assert " --seed 4 " in recorded["data"][1]["command"] and " --seed 3 " in recorded["data"][0]["command"]
    assert recorded["command"].startswith(f"reversi fit-eval {data} {other} --out ")
    assert main(["fit-eval", str(data), str(other), str(out), "--out", str(later)]) == 1  # one bad file: no fit
    assert main(["fit-eval", str(tmp_path / "none.npz"), "--out", str(later)]) == 1
    assert main(["fit-eval", str(out), "--out", str(later)]) == 1  # a weights file is not data


def test_init_goes_on_from_trained_weights(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    start = tmp_path / "start.npz"
    argv = ["train-eval", "--games", "6", "--seed", "3", "--rounds", "1", "--iterations", "4", "--no-progress"]
    assert main([*argv, "--out", str(start)]) == 0
    config = TrainConfig(games=6, seed=4, rounds=1, iterations=4, selfplay=SelfPlayConfig(search_depth=2, lam=0.0))
    initial = read_weights(start).weights
    direct, _ = train(config, progress=False, initial=initial)
    # The initial weights play and label the round (search labels need weights) and start the fit.
    games = play_round(6, initial, 4, 0, config.selfplay)
    assert np.array_equal(direct, fit(games, initial, ridge=5.0, iterations=4).weights)
    assert not np.array_equal(direct, train(config, progress=False)[0])
    out = tmp_path / "next.npz"
    extra = ["--seed", "4", "--search-depth", "2", "--lam", "0", "--init", str(start)]
    assert main([*argv[:3], *argv[5:], "--out", str(out), *extra]) == 0
    saved = read_weights(out)
    assert np.array_equal(saved.weights, direct.astype(np.float16).astype(np.float32))
    lineage = saved.metadata["init"]
    assert lineage["path"] == str(start) and lineage["command"] == read_weights(start).metadata["command"]
    assert lineage["sha256"] == hashlib.sha256(start.read_bytes()).hexdigest()
    assert saved.metadata["command"].endswith(f" --init {start}")
    assert read_weights(start).metadata["init"] is None and "--init" not in read_weights(start).metadata["command"]
    chained = tmp_path / "chained.npz"
    assert main([*argv, "--out", str(chained), "--init", str(out)]) == 0
    assert read_weights(chained).metadata["init"]["init"] == lineage  # the whole chain, back to the first run
    capsys.readouterr()
    status, err = run_cli([*argv, "--out", str(tmp_path / "w.npz"), "--init", str(tmp_path / "none.npz")], capsys)
    assert status == 1 and "none.npz" in err and "Traceback" not in err
    (tmp_path / "bad.npz").write_bytes(b"not a zip")
    status, err = run_cli([*argv, "--out", str(tmp_path / "w.npz"), "--init", str(tmp_path / "bad.npz")], capsys)
    assert status == 1 and "not a pattern-weights file" in err and "Traceback" not in err
    assert not (tmp_path / "w.npz").exists()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--games", "0"], "must be >= 1"),
        (["--games", "2", "--rounds", "3"], "must be >= --rounds"),
        (["--games", "4", "--epsilon", "2"], "between 0 and 1"),
        (["--games", "4", "--record", "0"], "must be above 0"),
        (["--games", "4", "--search-depth", "21"], "--search-depth"),
        (["--games", "4", "--play-depth", "21"], "--play-depth"),
        (["--games", "4", "--solve-empties", "-1"], "--solve-empties"),
        (["--games", "4", "--blend", "11"], "--blend"),
        (["--games", "4", "--cut-exploration=yes"], "--cut-exploration"),
        (["--games", "4", "--both-parities"], "--both-parities needs --search-depth 2 or more"),
        (["--games", "4", "--both-parities", "--search-depth", "1"], "--both-parities needs --search-depth 2"),
        (["--games", "4", "--out", "no/such/dir/w.npz"], "no directory"),
        (["--games", "4", "--save-data", "no/such/dir/d.npz"], "no directory"),
        (["--games", "4", "--out", "/"], "--out '/': is a directory"),
        (["--games", "4", "--save-data", "/proc/version"], "--save-data '/proc/version': cannot create a file in"),
        (["--games", "4", "--checkpoints", "/proc/version"], "--checkpoints '/proc/version': not a directory"),
        (["--games", "4", "--opening-plies", "1000000"], "--opening-plies: must be from 1 to 59"),
        (["--games", "4", "--exact-empties", "21"], "--exact-empties: must be from 0 to 20"),
        (["--games", "4", "--solve-empties", "21"], "--solve-empties: must be from 0 to 20"),
        (["--rounds", "2"], "--games is needed to start a run"),
    ],
)
def test_cli_bad_input_is_one_clear_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    status, err = run_cli(["train-eval", "--out", str(tmp_path / "w.npz"), "--no-progress", *argv], capsys)
    assert status == 2
    assert message in err.splitlines()[-1] and "Traceback" not in err
    assert not (tmp_path / "w.npz").exists()


def test_the_solver_limits_are_in_the_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["train-eval", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert "solve exactly from here, at most 20" in shown and "exact solve, at most 20" in shown


def test_games_that_keep_no_positions_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "w.npz"
    argv = ["train-eval", "--games", "1", "--rounds", "1", "--record", "0.001", "--out", str(out), "--no-progress"]
    status, err = run_cli(argv, capsys)
    assert status == 1 and "kept no positions" in err and err.count("\n") == 1 and "Traceback" not in err
    assert not out.exists()


START = tuple(int(b) for b in GameState.initial().kernel_boards())


@pytest.mark.parametrize(
    ("kind", "message"),
    [
        ("no positions", "no positions to fit in"),
        ("overlapping discs", "holds impossible boards"),
        ("label 1e30", "holds labels that are not disc margins"),
        ("label 65", "holds labels that are not disc margins"),
        ("label nan", "holds labels that are not disc margins"),
        ("text", "is not a positions file: not an .npz archive"),
        ("weights file", "is not a positions file: it has no 'p' array"),
        ("metadata a list", "is not a positions file: its metadata is not a JSON object"),
        ("metadata not JSON", "is not a positions file"),
        ("metadata numbers", "is not a positions file: holds metadata of shape (3,)"),
    ],
)
def test_fit_eval_refuses_a_bad_positions_file_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str, message: str
) -> None:
    data, out = tmp_path / "data.npz", tmp_path / "w.npz"
    p, o, label = [START[0], START[0]], [START[1], START[1]], [3.0, -2.0]
    if kind == "overlapping discs":
        o[1] |= p[1]
    elif kind.startswith("label"):
        label[1] = float(kind.split()[1])
    if kind == "text":
        data.write_text("garbage")  # numpy takes it for a pickle and advises loading it unsafely
    elif kind == "weights file":
        pattern_weights = np.zeros((N_PHASES, N_WEIGHTS), np.float32)
        save_weights(data, pattern_weights, {})
    else:
        n = 0 if kind == "no positions" else 2
        arrays = (np.array(p[:n], np.uint64), np.array(o[:n], np.uint64), np.array(label[:n], np.float32))
        save_data(data, [Positions(*arrays)])
    if kind.startswith("metadata"):  # the positions are good; the record of what made them is not
        saved = dict(np.load(data))
        bad = {"metadata a list": np.array("[1, 2]"), "metadata not JSON": np.array("{'a': 1")}
        saved["metadata"] = bad.get(kind, np.arange(3))
        np.savez(data, **saved)
    status, err = run_cli(["fit-eval", str(data), "--out", str(out)], capsys)
    assert status == 1 and message in err and str(data) in err, err
    assert err.count("\n") == 1 and "Traceback" not in err and "allow_pickle" not in err
    assert not out.exists()


def test_a_positions_file_without_a_record_still_fits(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data, out = tmp_path / "data.npz", tmp_path / "w.npz"
    label = np.array([3.0], np.float32)
    np.savez(data, p=np.array(START[:1], np.uint64), o=np.array(START[1:], np.uint64), label=label, round_sizes=[1])
    assert data_record(data) == {}  # a file saved before positions files recorded their run
    assert main(["fit-eval", str(data), "--out", str(out), "--iterations", "2"]) == 0
    assert read_weights(out).metadata["data"][0]["command"] is None


@pytest.mark.parametrize(("target", "message"), [("dir", "is a directory"), ("/proc/version", "cannot create a file")])
def test_fit_eval_checks_its_output_before_fitting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], target: str, message: str
) -> None:
    data = tmp_path / "data.npz"
    save_data(
        data, [Positions(np.array(START[:1], np.uint64), np.array(START[1:], np.uint64), np.zeros(1, np.float32))]
    )
    out = tmp_path if target == "dir" else Path(target)
    status, err = run_cli(["fit-eval", str(data), "--out", str(out)], capsys)
    assert status == 2 and f"--out {str(out)!r}: {message}" in err and err.count("\n") == 1, err
    (tmp_path / "junk.npz").write_text("garbage")
    status, err = run_cli(
        ["fit-eval", str(data), "--out", str(tmp_path / "w.npz"), "--init", str(tmp_path / "junk.npz")], capsys
    )
    assert status == 1 and "junk.npz' is not a pattern-weights file: not an .npz archive" in err
    assert err.count("\n") == 1 and "allow_pickle" not in err


def _ctrl_c_after_round_1(argv: list[str]) -> tuple[str, str, str, int]:
    """Run ``reversi`` ``argv`` in a real process, send it a real SIGINT once round 1's line is
    out; that line, the rest of stdout, stderr and the status (130 only if the run was still going)."""
    status, out, err = interrupt_command([sys.executable, "-m", "agents", *argv], cwd=REPO, ready=bool, settle=0)
    first, _, rest = out.partition("\n")
    return first + "\n", rest, err, status


def test_each_round_line_is_printed_as_the_round_ends_in_a_real_process(tmp_path: Path) -> None:
    # A run of many tiny rounds: round 1's line must reach the pipe while the run goes on, and
    # a real Ctrl-C then leaves it on the output. The lines used to come only at the end.
    argv = ["train-eval", "--games", "2000", "--rounds", "1000", "--exact-empties", "0", "--iterations", "1"]
    # One round here first compiles and caches its kernels: the Ctrl-C below then lands in a round,
    # not in a first compile, which a loaded machine can stretch past the minute this test waits.
    warm = ["train-eval", "--games", "1", "--rounds", "1", "--exact-empties", "0", "--iterations", "1", "--no-progress"]
    assert main([*warm, "--out", str(tmp_path / "warm.npz")]) == 0
    first, _, err, status = _ctrl_c_after_round_1([*argv, "--out", str(tmp_path / "w.npz"), "--no-progress"])
    assert first.startswith("round 1: 2 games, ")
    assert status == 130 and err.strip().endswith("interrupted") and "Traceback" not in err
    assert not (tmp_path / "w.npz").exists()


RESUMABLE = ["train-eval", "--exact-empties", "0", "--iterations", "2", "--no-progress"]
"""The cheapest train-eval: no endgame solving, two fit steps (rounds of milliseconds)."""


def test_a_resumed_run_ends_with_the_weights_and_data_of_a_run_never_stopped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ck, straight = tmp_path / "ck", tmp_path / "straight.npz"
    two = [*RESUMABLE, "--games", "2", "--rounds", "2"]
    assert main([*two, "--out", str(straight), "--save-data", str(tmp_path / "straight_data.npz")]) == 0
    # One round, then the same run trained further to two: round 2 plays and refits as it would have.
    assert (
        main(
            [*RESUMABLE, "--games", "1", "--rounds", "1", "--out", str(tmp_path / "one.npz"), "--checkpoints", str(ck)]
        )
        == 0
    )
    capsys.readouterr()
    resumed = tmp_path / "resumed.npz"
    assert main([*two, "--out", str(resumed), "--checkpoints", str(ck), "--save-data", str(tmp_path / "data.npz")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"resuming {ck} after round 1 (0 s so far)" and out[1].startswith("round 2: 1 games, ")
    assert np.array_equal(read_weights(resumed).weights, read_weights(straight).weights)
    for mine, theirs in zip(load_data(tmp_path / "data.npz"), load_data(tmp_path / "straight_data.npz"), strict=True):
        assert np.array_equal(mine.p, theirs.p) and np.array_equal(mine.label, theirs.label)
    assert [r["games"] for r in read_weights(resumed).metadata["rounds"]] == [1, 1]
    # A kill between round 2's weights file and its state: the command again plays round 2 only.
    (ck / "state_1.npz").unlink()
    again = tmp_path / "again.npz"
    assert main([*two, "--out", str(again), "--checkpoints", str(ck)]) == 0
    assert capsys.readouterr().out.startswith(f"resuming {ck} after round 1")
    assert np.array_equal(read_weights(again).weights, read_weights(straight).weights)
    # Left-out settings are the run's, and a finished run says so in one line.
    assert main(["train-eval", "--out", str(again), "--checkpoints", str(ck)]) == 0
    assert capsys.readouterr().out == f"{ck}: the run there is finished (2 rounds); weights: {again}\n"
    assert read_weights(again).metadata["command"] == read_weights(resumed).metadata["command"].replace(
        str(resumed), str(again)
    )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (["--seed", "4"], "made with seed=0, the command asks for seed=4;"),
        (["--lam", "0.5", "--blend", "3"], "made with blend=2, lam=0.7, the command asks for blend=3, lam=0.5;"),
        (["--games", "3", "--rounds", "2"], "made with games=2, rounds=2, the command asks for games=3, rounds=2;"),
        (["--games", "4", "--rounds", "2"], "made with games=2, rounds=2, the command asks for games=4, rounds=2;"),
        (["--init", "START"], "made with no init, the command asks for init="),
    ],
)
def test_a_resume_that_changes_the_run_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: list[str], message: str
) -> None:
    ck = tmp_path / "ck"
    argv = [*RESUMABLE, "--games", "2", "--rounds", "2", "--checkpoints", str(ck), "--out"]
    assert main([*argv, str(tmp_path / "start.npz")]) == 0
    (ck / "state_1.npz").unlink()
    before = {p.name: p.read_bytes() for p in ck.iterdir()}
    change = [str(tmp_path / "start.npz") if word == "START" else word for word in change]
    status, err = run_cli([*argv, str(tmp_path / "w.npz"), *change], capsys)
    assert status == 1 and err.count("\n") == 1 and message in err and "Traceback" not in err
    assert f"{ck}: the run there was made with" in err and "out to continue it, or give a new --checkpoints" in err
    assert not (tmp_path / "w.npz").exists() and {p.name: p.read_bytes() for p in ck.iterdir()} == before


def _with_metadata(path: Path, text: str) -> None:
    """Rewrite a round's state file with other metadata (its arrays kept)."""
    with np.load(path) as archive:
        arrays = dict(archive)
    np.savez(path, **{**arrays, "metadata": np.array(text)})


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda path: path.write_bytes(b"not a zip"), "is not a train-eval round's state: not an .npz archive"),
        (lambda path: path.write_bytes(path.read_bytes()[:300]), "is not a train-eval round's state"),
        (lambda path: save_weights(path, np.zeros((N_PHASES, N_WEIGHTS)), {}), "it has no 'p' array"),
        (lambda path: _with_metadata(path, '{"config": {"games": "all"}}'), "its settings are not a run's"),
        (lambda path: _with_metadata(path, "[" * 100000), "JSON nested too deeply"),
    ],
    ids=("not a zip", "truncated", "a weights file", "bad settings", "deep JSON"),
)
def test_a_corrupt_saved_round_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], damage: Any, message: str
) -> None:
    ck = tmp_path / "ck"
    argv = [*RESUMABLE, "--games", "2", "--rounds", "2", "--checkpoints", str(ck), "--out", str(tmp_path / "w.npz")]
    assert main(argv) == 0
    (tmp_path / "w.npz").unlink()
    damage(ck / "state_0.npz")
    status, err = run_cli(argv, capsys)
    assert status == 1 and err.count("\n") == 1 and message in err and "state_0.npz" in err
    assert "Traceback" not in err and not (tmp_path / "w.npz").exists()


def _with_value(path: Path, part: str, key: str, value: object) -> None:
    """Rewrite one value of a round's state file's metadata (``part``: config, selfplay or report)."""
    with np.load(path) as archive:
        meta = json.loads(str(archive["metadata"]))
    (meta["config"] if part == "selfplay" else meta)[part][key] = value
    _with_metadata(path, json.dumps(meta))


def test_a_saved_round_from_before_both_parities_resumes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ck, out = tmp_path / "ck", tmp_path / "w.npz"
    argv = [*RESUMABLE, "--games", "2", "--rounds", "2", "--checkpoints", str(ck), "--out", str(out)]
    assert main(argv) == 0
    straight = read_weights(out).weights
    out.unlink()
    for state in sorted(ck.glob("state_*.npz")):
        with np.load(state) as archive:
            meta = json.loads(str(archive["metadata"]))
        del meta["config"]["selfplay"]["both_parities"]  # as a run saved it before the setting existed
        _with_metadata(state, json.dumps(meta))
    assert main(argv) == 0
    assert np.array_equal(read_weights(out).weights, straight)


def _with_weights(path: Path, weights: np.ndarray) -> None:
    with np.load(path) as archive:
        arrays = dict(archive)
    np.savez(path, **{**arrays, "weights": weights})


def test_a_saved_round_out_of_range_is_refused_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Only the types of a state file's values were checked: a resume trained on an epsilon of 5, hung
    solving whole games from exact_empties=99, and took a report of -4 positions or -1 games."""
    ck, out = tmp_path / "ck", tmp_path / "w.npz"
    argv = [*RESUMABLE, "--games", "2", "--rounds", "2", "--checkpoints", str(ck), "--out", str(out)]
    assert main(argv) == 0
    out.unlink()
    state = ck / "state_0.npz"
    saved = state.read_bytes()
    nan = np.zeros((N_PHASES, N_WEIGHTS), np.float32)
    nan[0, 0] = np.nan
    cases = [
        (lambda: _with_value(state, "selfplay", "epsilon", 5.0), "out of range: epsilon=5.0 (0 to 1)"),
        (lambda: _with_value(state, "selfplay", "exact_empties", 99), "out of range: exact_empties=99 (0 to 20)"),
        (lambda: _with_value(state, "selfplay", "opening_plies", 60), "out of range: opening_plies=60 (1 to 59)"),
        (lambda: _with_value(state, "config", "rounds", 0), "it holds games=2 for rounds=0"),
        (lambda: _with_value(state, "config", "ridge", -5.0), "it holds ridge=-5.0 (above 0)"),
        (
            lambda: _with_value(state, "selfplay", "both_parities", True),
            "out of range: both_parities with search_depth=0 (a search of 2 plies or more)",
        ),
        (lambda: _with_value(state, "report", "games", -1), "it holds a round of -1 games"),
        (lambda: _with_value(state, "report", "positions", -4), "it holds a report of -4 positions"),
        (lambda: _with_value(state, "report", "round", -1), "round -1 in the file of round 0"),
        (lambda: _with_weights(state, nan), f"weights of type float32, shape ({N_PHASES}, "),
        (lambda: _with_weights(state, np.zeros((2, 3), np.float32)), "weights of type float32, shape (2, 3)"),
    ]
    for damage, message in cases:
        state.write_bytes(saved)
        damage()
        status, err = run_cli(argv, capsys)
        assert status == 1 and err.count("\n") == 1 and message in err and "state_0.npz" in err, err
        assert "Traceback" not in err and not out.exists()


def test_a_run_stopped_by_a_real_sigint_resumes_to_the_weights_of_a_run_never_stopped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ck, out, data = tmp_path / "ck", tmp_path / "w.npz", tmp_path / "d.npz"
    argv = [*RESUMABLE, "--games", "8", "--rounds", "8", "--out", str(out), "--save-data", str(data)]
    first, rest, err, status = _ctrl_c_after_round_1([*argv, "--checkpoints", str(ck)])
    assert first.startswith("round 1: ") and status == 130
    assert err.splitlines()[-1] == f"stopped; run the same command to resume from {ck}" and "Traceback" not in err
    done = len([first, *rest.splitlines()])
    assert 1 <= done < 8 and not out.exists() and not data.exists()
    assert main([*argv, "--checkpoints", str(ck)]) == 0
    assert capsys.readouterr().out.startswith(f"resuming {ck} after round {done} ")
    straight = tmp_path / "straight.npz"
    assert main([*argv[:-4], "--out", str(straight)]) == 0
    assert np.array_equal(read_weights(out).weights, read_weights(straight).weights)
    rounds = load_data(data)  # every round's positions, the ones played before the stop too
    assert len(rounds) == 8 and sum(len(r) for r in rounds) == read_weights(out).metadata["positions"]
