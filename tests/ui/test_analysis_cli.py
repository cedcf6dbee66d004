"""``reversi solve`` and ``reversi analyze``: against the FFO data and the solver,
in a real process and in-process, and their answers to bad input."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest
from conftest import TEST_DATA, random_game

from agents.search.alphabeta import iterative_deepening
from agents.search.endgame import solve_position
from agents.search.evaluation import DISC
from agents.search.patterns import pattern_evaluation
from agents.search.tt import new_table
from agents.ui.analysis_cli import ANALYZE_TABLE_ENTRIES
from agents.ui.cli import main
from reversi_env import GameState, parse_square, square_name
from reversi_env.notation import PASS


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agents", *args], capture_output=True, text=True, timeout=300, env=dict(os.environ)
    )


def ffo(number: int) -> tuple[str, dict[str, int]]:
    """FFO problem ``number`` (20-39): the position text and the known score of each listed move."""
    line = (TEST_DATA / "fforum-20-39.obf").read_text().splitlines()[number - 20]
    fields = [f.strip() for f in line.split(";") if f.strip()]
    return fields[0], {m.split(":")[0]: int(m.split(":")[1]) for m in fields[1:]}


def test_solve_an_ffo_position_in_a_real_process() -> None:
    position, moves = ffo(21)
    proc = run("solve", position, "--scoring", "wof", "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    top = max(moves.values())
    assert out["score"] == top
    assert set(out["best"]) <= {m for m, v in moves.items() if v == top} and out["best"]
    assert out["nodes"] > 0 and out["seconds"] >= 0


def test_solve_text_and_scoring(capsys: pytest.CaptureFixture[str]) -> None:
    # X holds A1 and rows 2-8, O only B1: C1 wipes O out with D1-H1 empty, 59-0 on the
    # board, 64-0 when the empties go to the winner.
    board = "XO" + "-" * 6 + "X" * 56
    assert main(["solve", board, "X"]) == 0
    out = capsys.readouterr().out
    assert "X to move: +59" in out and "best: C1" in out
    assert main(["solve", board + " X", "--scoring", "wof", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["score"] == 64


def test_analyze_scores_every_move_exactly_near_the_end(capsys: pytest.CaptureFixture[str]) -> None:
    state = next(s for s in random_game(4) if s.num_empty() == 9 and len(s.legal_actions()) > 1)
    assert main(["analyze", state.compact().replace(".", "-"), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["moves"]
    assert {r["move"] for r in rows} == {square_name(a) for a in state.legal_actions()}
    for row in rows:
        assert row["exact"]
        child = solve_position(state.apply(parse_square(row["move"])))
        assert child is not None and row["score"] == -child.score
    assert [r["score"] for r in rows] == sorted((r["score"] for r in rows), reverse=True)


def test_analyze_scores_a_forced_pass_by_the_reply(capsys: pytest.CaptureFixture[str]) -> None:
    # X must pass at A1; O takes it: O's 4 discs and the corner against X's 59 and a flipped row.
    board = "-" + "X" * 59 + "O" * 4
    assert main(["analyze", "--time", "0.05", "--json", "--", board, "X"]) == 0
    (row,) = json.loads(capsys.readouterr().out)["moves"]
    solution = solve_position(GameState.from_string(board + " X"))
    assert solution is not None and solution.best_actions == (PASS,)
    assert row == {"move": "PASS", "score": solution.score, "depth": 1, "exact": True}
    assert row["score"] > 0


def test_analyze_a_transcript(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", "--moves", "f5d6", "--time", "0.3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    after = GameState.initial().apply(parse_square("F5")).apply(parse_square("D6"))
    assert out["position"] == after.compact()
    assert {r["move"] for r in out["moves"]} == {square_name(a) for a in after.legal_actions()}
    assert all(r["depth"] >= 2 and not r["exact"] for r in out["moves"])
    assert main(["analyze", "--moves", "f5", "--time", "0.2"]) == 0
    assert "depth" in capsys.readouterr().out


def test_analyze_scores_the_midgame_with_the_engines_learned_evaluation(capsys: pytest.CaptureFixture[str]) -> None:
    moves = "f5d6c3d3c4f4f6f3e6e7"
    assert main(["analyze", "--moves", moves, "--time", "0.3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    state = GameState.from_string(out["position"])
    depth = out["moves"][0]["depth"]
    p, o = state.kernel_boards()
    table = new_table(ANALYZE_TABLE_ENTRIES)  # the same depth again, on its own, with alphabeta:time=S's evaluation
    root, _ = iterative_deepening(
        p, o, state.legal_actions(), table, pattern_evaluation(), max_depth=depth, exact_all=True
    )
    assert {r["move"]: r["score"] for r in out["moves"]} == {square_name(a): v / DISC for a, v in root.scores.items()}


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["solve", "XXO", "X"], "64 cells"),
        (["solve", "-" * 27 + "OX" + "-" * 6 + "XO" + "-" * 27 + " X"], "too many"),  # quoted, as a shell passes it
        (["solve", "Z" * 64, "X"], "64 cells"),
        (["analyze", "--moves", "zz"], "zz"),
        (["analyze", "--moves", "f5", "XO" + "-" * 62, "X"], "not both"),
        (["analyze", "XO" + "O" * 62, "X"], "game is over"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args: list[str], needle: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(args) == 2
    err = capsys.readouterr().err
    assert needle in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


LONG_SOLVE = random_game(5, plies=24)[-1].compact()
"""36 empty squares: hours of solving."""


def test_a_time_limit_ends_a_long_solve_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert GameState.from_string(LONG_SOLVE).num_empty() == 36
    start = time.perf_counter()
    assert main(["solve", LONG_SOLVE, "--time-limit", "0.3"]) == 1
    assert time.perf_counter() - start < 5.0
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == "reversi solve: not solved in 0.3 s (a larger --time-limit may do)\n"


def test_ctrl_c_stops_a_long_solve_in_a_real_process() -> None:
    # The solve runs in numba, where no Python signal handler runs: the first stderr line
    # (the warning) comes before it, a real SIGINT a second later must end it with status 130.
    proc = subprocess.Popen(
        [sys.executable, "-m", "agents", "solve", LONG_SOLVE],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # not ignored, whoever started pytest
    )
    watchdog = threading.Timer(120, proc.kill)  # a solve that ignores Ctrl-C fails the test, not hangs it
    watchdog.start()
    try:
        assert "36 empty squares can take minutes to hours (Ctrl-C stops" in proc.stderr.readline()
        time.sleep(1.0)
        proc.send_signal(signal.SIGINT)
        sent = time.perf_counter()
        out, err = proc.communicate(timeout=60)
    finally:
        watchdog.cancel()
        proc.kill()
    assert time.perf_counter() - sent < 10.0
    assert proc.returncode == 130 and out == "" and err.strip() == "reversi solve: interrupted"


def test_bad_input_in_a_real_process() -> None:
    proc = run("solve", "not a board")
    assert proc.returncode == 2
    assert proc.stderr.startswith("reversi solve: error:") and "Traceback" not in proc.stderr
