"""``reversi solve`` and ``reversi analyze``: against the FFO data and the solver,
in a real process and in-process, and their answers to bad input."""

from __future__ import annotations

import itertools
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import TEST_DATA, random_game, run_cli

from agents.search.alphabeta import iterative_deepening
from agents.search.endgame import Solver, solve_position
from agents.search.evaluation import DISC
from agents.search.patterns import load_weights, pattern_evaluation, save_weights
from agents.search.tt import new_table
from agents.ui import analysis_cli
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


def test_solve_gives_one_best_move_by_default_and_every_one_with_all(capsys: pytest.CaptureFixture[str]) -> None:
    # FFO #25 (19 empties) has two best moves, G1 and A5, both worth 0.
    position, moves = ffo(25)
    top = max(moves.values())
    tied = sorted((m for m, v in moves.items() if v == top), key=parse_square)
    assert len(tied) == 2
    assert main(["solve", position, "--scoring", "wof"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"O to move: {top:+d} (wof scoring)"
    assert re.fullmatch(r"best: (\S+)", lines[1]) and lines[1].split()[1] in tied
    assert re.fullmatch(r"\d+ nodes in \d+\.\d\d s", lines[2])
    assert main(["solve", position, "--scoring", "wof", "--all"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"O to move: {top:+d} (wof scoring)" and lines[1] == f"every best move: {' '.join(tied)}"
    assert main(["solve", position, "--scoring", "wof", "--all", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["best"] == tied


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


@pytest.mark.parametrize("weights", [None, "negated.npz"])
def test_analyze_scores_the_midgame_with_the_engines_learned_evaluation(
    weights: str | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # --weights: your own pattern weights (here the shipped ones negated), by a path relative to the directory.
    monkeypatch.chdir(tmp_path)
    save_weights(tmp_path / "negated.npz", -load_weights(), {"note": "the shipped weights negated"})
    moves = "f5d6c3d3c4f4f6f3e6e7"
    option = [] if weights is None else ["--weights", weights]
    assert main(["analyze", "--moves", moves, "--time", "0.3", "--json", *option]) == 0
    out = json.loads(capsys.readouterr().out)
    state = GameState.from_string(out["position"])
    depth = out["moves"][0]["depth"]
    p, o = state.kernel_boards()
    table = new_table(ANALYZE_TABLE_ENTRIES)  # the same depth again, on its own, with alphabeta:time=S's evaluation
    evaluation = pattern_evaluation(weights)
    root, _ = iterative_deepening(p, o, state.legal_actions(), table, evaluation, max_depth=depth, exact_all=True)
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
        (["analyze", "--weights", "/nonexistent/my.npz"], "no such weights file: '/nonexistent/my.npz'"),
        (["analyze", "--weights", "/dev/null"], "is not a pattern-weights file"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args: list[str], needle: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(args) == 2
    err = capsys.readouterr().err
    assert needle in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_a_100_kb_position_is_quoted_by_a_short_prefix(capsys: pytest.CaptureFixture[str]) -> None:
    status, err = run_cli(["solve", "X" * 100_000], capsys)
    assert status == 2 and len(err.strip().splitlines()) == 1
    assert "(100000 characters)" in err and len(err) < 300


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


def test_an_obf_line_is_a_position(capsys: pytest.CaptureFixture[str]) -> None:
    # A line of an OBF file as Edax and the FFO suites write it: the position, ';', then each
    # move's score. The docstring promised the problem files' format; the ';' was refused.
    line = (TEST_DATA / "fforum-20-39.obf").read_text().splitlines()[1]
    position, moves = ffo(21)
    assert line.startswith(position + ";") and len(line) > len(position) + 1
    assert main(["solve", line, "--scoring", "wof", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["score"] == max(moves.values())
    assert main(["analyze", f"{position};  % a comment", "--scoring", "wof", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["moves"]
    assert {r["move"]: r["score"] for r in rows if r["move"] in moves} == moves
    assert main(["solve", position.replace(" O", " % O")]) == 2  # what counts ends at the comment
    assert "64 cells" in capsys.readouterr().err


def test_analyze_reads_a_transcript_with_its_forced_pass_left_out_or_written(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # A game where white must pass after move 55: transcripts leave such a pass out (what
    # `reversi play --save game.txt` writes) or write it '--', 'pa' or 'pass'; only '--' was read.
    states = next(g for g in map(random_game, range(100)) if _pass_ply(g) is not None)
    ply = _pass_ply(states)
    assert ply is not None
    moves = [_move(a, b) for a, b in itertools.pairwise(states)][: ply + 2]
    assert moves[ply] == "PASS"
    squares = [m.lower() for m in moves if m != "PASS"]
    before, after = "".join(squares[:ply]), "".join(squares[ply:])
    expected = states[ply + 2]
    for written in ("", "--", "pa", " pass ", "PA"):
        assert main(["analyze", "--moves", before + written + after, "--time", "0.1", "--json"]) == 0, written
        assert json.loads(capsys.readouterr().out)["position"] == expected.compact()


def _pass_ply(states: list[GameState]) -> int | None:
    """The first ply of a forced pass that the game goes on after (two moves at least), if any."""
    for ply, state in enumerate(states[:-3]):
        if state.legal_actions() == [PASS]:
            return ply
    return None


def _move(before: GameState, after: GameState) -> str:
    return next(square_name(a) if a != PASS else "PASS" for a in before.legal_actions() if before.apply(a) == after)


def test_analyze_scores_wof_when_the_search_reaches_the_end(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Above ANALYZE_EXACT_EMPTIES the deepening search reports "exact" once it reaches the
    # end, and it scored the discs as they stand even with --scoring wof (H4 +15 for +16 at 17
    # empties). The same path on a 10-empty position, where wof and count differ:
    monkeypatch.setattr(analysis_cli, "ANALYZE_EXACT_EMPTIES", 0)
    state = next(s for s in random_game(12) if s.num_empty() == 10)
    wof, count = Solver().score_all(state, scoring="wof"), Solver().score_all(state, scoring="count")
    assert wof != count
    for scoring, scores in (("wof", wof), ("count", count)):
        assert main(["analyze", state.compact().replace(".", "-"), "--scoring", scoring, "--time", "5", "--json"]) == 0
        rows = json.loads(capsys.readouterr().out)["moves"]
        assert all(r["exact"] and r["depth"] == 10 for r in rows)
        assert {r["move"]: r["score"] for r in rows} == {square_name(a): v for a, v in scores.items()}


def test_analyze_searches_one_ply_at_least(capsys: pytest.CaptureFixture[str]) -> None:
    # A --time too short for depth 1 printed every move "+0.00 depth 0".
    assert main(["analyze", "--moves", "f5d6c3", "--time", "0.000001", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["moves"]
    assert all(r["depth"] >= 1 for r in rows) and len({r["score"] for r in rows}) > 1


def test_analyze_prints_the_best_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", "--moves", "f5d6c3", "--time", "0.3", "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["line"][0] == answer["moves"][0]["move"] and len(answer["line"]) > 1
    state = GameState.initial().apply("F5").apply("D6").apply("C3")
    for move in answer["line"]:
        state = state.apply(move)  # a line of legal moves
    assert main(["analyze", "--moves", "f5d6c3", "--time", "0.3"]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert re.fullmatch(r"best line: [A-H][1-8]( ([A-H][1-8]|PASS))+", last)


def test_analyze_plots_the_evaluation_over_the_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import matplotlib.image

    picture = tmp_path / "curve.png"
    game = random_game(5)
    state, transcript = GameState.initial(), ""
    for after in game[1:]:
        move = _move(state, after)
        transcript += "--" if move == "PASS" else move.lower()
        state = after
    # A finished game: the picture is drawn, and there is no move to analyze after it.
    assert main(["analyze", "--moves", transcript, "--plot", str(picture)]) == 0
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == f"reversi analyze: the evaluation of {len(game)} positions drawn in {picture}\n"
    height, width, _ = matplotlib.image.imread(picture).shape
    assert width > height > 100
    # A game under way: the picture, then the moves of its last position.
    assert main(["analyze", "--moves", "f5d6c3", "--time", "0.2", "--plot", str(picture)]) == 0
    captured = capsys.readouterr()
    assert "the evaluation of 4 positions drawn" in captured.err and "best line:" in captured.out


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--plot", "x.png"], "--plot draws a game's evaluation: give the game with --moves"),
        (["--moves", "f5", "--plot", "/nonexistent/dir/x.png"], "--plot '/nonexistent/dir/x.png'"),
    ],
)
def test_a_bad_plot_is_one_line(args: list[str], needle: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", *args]) == 2
    err = capsys.readouterr().err
    assert needle in err and len(err.strip().splitlines()) == 1
