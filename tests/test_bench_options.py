"""Every benchmark script refuses a bad option, a missing input file or an
output it cannot write in one usage line (exit status 2), before any long
work: each script's ``main`` run in this process, as a user's command line."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest
from conftest import REPO_ROOT

MISSING = "/nonexistent/weights.npz"


@pytest.mark.parametrize(
    ("script", "args", "message"),
    [
        ("bench_course_board", ["--positions", "0"], "argument --positions: must be >= 1, got '0'"),
        ("bench_match", ["--rounds", "0"], "argument --rounds: must be >= 1, got '0'"),
        ("bench_env", ["--rounds", "0"], "argument --rounds: must be >= 1, got '0'"),
        ("bench_env", ["--steps", "1"], "argument --steps: must be from 4 to"),
        ("bench_env", ["--pgx-steps", "0"], "argument --pgx-steps: must be >= 1, got '0'"),
        ("bench_dataset", ["--games", "0"], "argument --games: must be >= 1, got '0'"),
        ("bench_core", ["--games", "0"], "argument --games: must be from 2 to"),
        ("bench_core", ["--record", "--record-file", MISSING], f"--record-file {MISSING}: No such file or directory"),
        ("bench_arena", ["--record", "--record-file", str(REPO_ROOT / "README.md")], "README.md: no table between"),
        ("bench_arena", ["--games", "3"], "argument --games: must be an even number >= 2, got '3'"),
        ("bench_arena", ["--agents", "nobody:1", "random"], "--agents: unknown player 'nobody:1'"),
        ("bench_alphazero", ["--net", MISSING], "--net: no such network file"),
        ("bench_alphazero", ["--simulations", "0"], "argument --simulations: must be >= 1"),
        ("bench_alphazero", ["--opening-plies", "0"], "--opening-plies 0: "),
        ("bench_eval", ["--games", "3"], "argument --games: must be an even number >= 0, got '3'"),
        ("bench_eval", ["--weights", MISSING], f"--weights {MISSING}: No such file or directory"),
        ("bench_eval", ["--games", "4", "--opening-plies", "0"], "--opening-plies 0: "),
        ("bench_eval", ["--search", "1", "--depth", "99"], "argument --depth: must be from 1 to 20, got '99'"),
        ("eval_versus", [MISSING, MISSING], f"NEW {MISSING}: No such file or directory"),
        ("eval_errors", ["--games", "1", MISSING], f"FILE {MISSING}: No such file or directory"),
        ("eval_errors", ["--epsilon", "5", MISSING], "argument --epsilon: must be between 0 and 1, got '5'"),
        ("eval_errors", ["--solve-empties", "64", MISSING], "argument --solve-empties: must be from 0 to 20"),
        ("probcut_fit", ["--seed", "-1"], "argument --seed: must be from 0 to"),
        ("strength", ["--seed", "-3"], "argument --seed: must be from 0 to"),
        ("bench_solver", ["--first", "50"], "--first 50 --last 39: expected 20 <= FIRST <= LAST <= 59"),
        ("bench_solver", ["--zebra", "/nonexistent/zebra"], "--zebra /nonexistent/zebra: no such file"),
        ("bench_solver", ["--egaroucid", "/nonexistent/ega"], "--egaroucid /nonexistent/ega: no such file"),
        ("bench_solver", ["--egaroucid", "/bin/true"], "--egaroucid-eval /bin/resources/SMOKE_TEST_eval_stable"),
        ("bench_solver", ["--games", "1", "--empties", "30", "--empties-max", "20"], "--empties-max 20: give"),
        ("bench_solver", ["--midgame", "1", "--to-depth", "99"], "argument --to-depth: must be from 1 to 20, got '99'"),
        ("move_errors", [MISSING, "--depth", "99"], "argument --depth: must be from 1 to 20, got '99'"),
        ("bench_mcts", ["--simulations", "0"], "argument --simulations: must be >= 1"),
        ("bench_engine", ["--levels", "7"], "argument --levels: must be from 1 to 5, got '7'"),
        ("bench_engine", ["--time-limit", "-1"], "argument --time-limit: must be a positive number"),
        ("bench_engine", ["--levels", "--ladder", "--games", "2", "--shard", "1/2"], "--shard 1/2: 1 opening(s)"),
        ("bench_engine", ["--levels"], "no opponent: give --levels, --ladder or --zebra"),
    ],
)
def test_a_bad_option_is_one_line_before_any_work(
    script: str,
    args: list[str],
    message: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.syspath_prepend(str(REPO_ROOT / "benchmarks"))
    monkeypatch.setattr(sys, "argv", [f"{script}.py", *args])
    module = importlib.import_module(script)
    with pytest.raises(SystemExit) as exit_info:
        module.main()
    assert exit_info.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""  # nothing measured, nothing printed
    assert message in err.strip().splitlines()[-1]


def test_eval_curve_refuses_an_unwritable_picture_before_its_games(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The checkpoint is not read before the refusal: an empty file stands in for one.
    (tmp_path / "round_0.npz").touch()
    out = tmp_path / "no" / "curve.png"
    monkeypatch.syspath_prepend(str(REPO_ROOT / "benchmarks"))
    monkeypatch.setattr(sys, "argv", ["eval_curve.py", str(tmp_path), "--games", "2", "--out", str(out)])
    eval_curve = importlib.import_module("eval_curve")
    with pytest.raises(SystemExit) as exit_info:
        eval_curve.main()
    assert exit_info.value.code == 2
    printed, err = capsys.readouterr()
    assert printed == ""
    assert err.strip().splitlines()[-1].startswith(f"eval_curve.py: error: --out {out}: no directory")
