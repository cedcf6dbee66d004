"""benchmarks/bench_solver.py's timed comparisons (``--timed``, ``--jumps``, ``--wld``, ``--players``),
the positions of recorded games (``--from-games``), bad options and a bad ``--zebra``."""

from __future__ import annotations

import importlib
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType

import pytest
from conftest import REPO_ROOT, interrupt_command, run_benchmark, two_recorded_games

from agents.arena.tournament import read_results
from agents.play.match import GameResult
from agents.search.endgame import Solver
from reversi_env import BLACK


def run_bench(*args: str) -> subprocess.CompletedProcess[str]:
    """bench_solver.py as a user runs it."""
    return run_benchmark("bench_solver.py", *args)


def test_the_timed_engine_is_compared_with_and_without_its_outcome_search() -> None:
    done = run_bench("--games", "3", "--empties", "14", "--timed", "0.05", "--jumps", "7", "--wld", "14", "off")
    assert done.returncode == 0, done.stderr
    lines = re.findall(r"exact_jump=(\d+), wld_empties=(\w+): (\d+) of (\d+) moves not an exact best, "
                       r"(\d+) outcomes given away, (-?\d+) discs given away", done.stdout)  # fmt: skip
    assert [(jump, wld) for jump, wld, *_ in lines] == [("7", "14"), ("7", "None")]
    for *_, missed, positions, outcomes, discs in lines:
        assert int(positions) == 3 and int(outcomes) <= int(missed) <= 3
        assert (int(discs) > 0) == (int(missed) > 0)  # a move that is not a best one gives discs away


def test_players_are_compared_by_their_specs() -> None:
    players = ["mcts:time=0.1", "mcts:time=0.1,proof=0"]
    done = run_bench("--games", "3", "--empties", "17", "--players", *players)
    assert done.returncode == 0, done.stderr
    lines = re.findall(r"^(.+): (\d+) of (\d+) moves not an exact best, (\d+) outcomes given away, "
                       r"(-?\d+) discs given away$", done.stdout, re.MULTILINE)  # fmt: skip
    assert [spec for spec, *_ in lines] == players
    for _, missed, positions, outcomes, discs in lines:
        assert int(positions) == 3 and int(outcomes) <= int(missed) <= 3
        assert (int(discs) > 0) == (int(missed) > 0)


@pytest.fixture
def recorded_games(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """A results file of two real games, alphabeta:7 (exact from 13 empties) against random, colours swapped."""
    return two_recorded_games(tmp_path / "games.jsonl", "alphabeta:7", "random", 3, capsys)


def test_players_are_checked_on_the_positions_of_recorded_games(recorded_games: Path) -> None:
    expected = set()  # every position with 12-13 empties and a choice, replayed here on its own
    for game in read_results(recorded_games).games:
        result = GameResult.from_dict(game["result"])
        state = result.start_state()
        for move in result.moves:
            if 12 <= state.num_empty() <= 13 and len(state.legal_actions()) > 1:
                expected.add(state)
            state = state.apply(move)
    assert expected
    done = run_bench("--from-games", str(recorded_games), str(recorded_games), "--empties", "12",
                     "--empties-max", "13", "--players", "alphabeta:1", "alphabeta:7")  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = re.findall(r"^(.+): (\d+) of (\d+) moves not an exact best", done.stdout, re.MULTILINE)
    # The same file twice gives each position once; alphabeta:7 solves 13 empties and fewer exactly.
    assert [(spec, int(n)) for spec, _, n in lines] == [("alphabeta:1", len(expected)), ("alphabeta:7", len(expected))]
    assert lines[1][1] == "0"


def test_the_errors_of_a_recorded_game_add_up_to_its_result(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    games = two_recorded_games(tmp_path / "games.jsonl", "greedy", "random", 3, capsys)
    solver = Solver()
    for number, line in enumerate(line for line in games.read_text().splitlines() if '"type":"game"' in line):
        one = tmp_path / f"game{number}.jsonl"
        one.write_text(line + "\n")
        done = run_bench("--from-games", str(one), "--empties", "1", "--empties-max", "14", "--errors")
        assert done.returncode == 0, done.stderr
        rows = re.findall(r"^(\S+) +(\d+)-(\d+) +(\d+) +(-?\d+) +\S+ +(\d+)$", done.stdout, re.MULTILINE)
        given = {name: sum(int(row[4]) for row in rows if row[0] == name) for name in ("greedy", "random")}
        assert {row[1] for row in rows} <= {"1", "5", "9", "13"} and given["greedy"] + given["random"] > 0
        # What black gave away less what white did is black's exact value at 14 empties less its result.
        game = read_results(one).games[0]
        result = GameResult.from_dict(game["result"])
        state = result.start_state()
        for move in result.moves:
            if state.num_empty() <= 14:
                break
            state = state.apply(move)
        entry = solver.solve(state, all_best=False)
        assert entry is not None
        black_value = entry.score if state.player == BLACK else -entry.score
        assert given[game["black"]] - given[game["white"]] == black_value - (result.black - result.white)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (None, "No such file"),
        ('{"type": "game", "game_id": "g", "black": "a"}\n', "bad results line"),
        (
            '{"type": "game", "game_id": "g", "black": "a", "white": "b", "black_score": 1, '
            '"disc_difference": 64, "result": {"winner": "black", "black": 64, "white": 0, '
            '"moves": ["A1"], "times": [0.1]}}\n',
            "game 'g': illegal move A1",
        ),
        ("", "no position with 20-22 empties"),
    ],
)
def test_recorded_games_that_give_no_position_are_one_line(tmp_path: Path, text: str | None, message: str) -> None:
    games = tmp_path / "games.jsonl"
    if text is not None:
        games.write_text(text)
    done = run_bench("--from-games", str(games), "--empties", "20", "--empties-max", "22", "--players", "alphabeta:1")
    assert done.returncode == 1
    assert message in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_a_player_that_cannot_join_a_position_is_one_line() -> None:
    # A GTP engine needs the game's moves, which a position of the benchmark does not have (the real gtp-rhino).
    done = run_bench("--games", "1", "--empties", "14", "--players", "gtp:/usr/games/gtp-rhino -l 1 -b 0 -r 0")
    assert done.returncode == 1
    assert "--players: " in done.stderr and "cannot join the game" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_ffo_positions_are_solved_through_reversi_solve() -> None:
    # #21 and #22 (15 and 17 empties) through the command's default (one best move) and --all.
    done = run_bench("--command", "--first", "21", "--last", "22")
    assert done.returncode == 0, done.stderr
    assert "our solves: reversi solve" in done.stdout and "0 wrong" in done.stdout
    rows = re.findall(r"^ *(\d+) +\d+ +([+-]\d+) +([+-]\d+) \| +(\S+) .+\| +(\S+) ", done.stdout, re.MULTILINE)
    assert rows == [("21", "+0", "+0", "G5", "G5"), ("22", "+2", "+2", "G8", "G8")]


def test_the_second_ffo_file_is_read() -> None:
    # FFO #40 (20 empties): A2 wins by 38 (the Edax problem file's score).
    done = run_bench("--first", "40", "--last", "40", "--one-best-only")
    assert done.returncode == 0, done.stderr
    assert re.search(r"^ *40 +20 +\+38 +\+38 \| +A2 ", done.stdout, re.MULTILINE) and "0 wrong" in done.stdout


def test_an_egaroucid_that_gives_no_solve_is_one_line() -> None:
    # /bin/true, a real program, prints no table of results, as a console build that fails to start.
    done = run_bench("--one-best-only", "--first", "21", "--last", "21", "--egaroucid", "/bin/true",
                     "--egaroucid-eval", "/bin/true")  # fmt: skip
    assert done.returncode == 1
    assert "egaroucid gave 0 solves of 1 position" in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_a_zebra_that_writes_no_answer_is_one_line() -> None:
    # Zebra's interactive build ignores -script and writes nothing; /bin/true, a real program, does the same.
    done = run_bench("--one-best-only", "--zebra", "/bin/true")
    assert done.returncode == 1
    assert "wrote no script output" in done.stderr and "scrzebra" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--wld", "x"], "'x' is not a number of empty squares"),
        (["--jumps", "-1"], "a jump is 0 or more plies"),
        (["--players", "mcts:proof=-1"], "--players: "),
        (["--errors"], "--errors needs --from-games"),
    ],
)
def test_a_bad_option_is_one_line(option: list[str], message: str) -> None:
    done = run_bench("--games", "1", "--timed", "1", *option)
    assert done.returncode == 2
    assert message in done.stderr and "Traceback" not in done.stderr


@pytest.fixture
def bench_solver(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """benchmarks/bench_solver.py, imported as the benchmarks import each other."""
    monkeypatch.syspath_prepend(str(REPO_ROOT / "benchmarks"))
    return importlib.import_module("bench_solver")


def test_an_anchor_is_stopped_after_its_cpu_seconds(bench_solver: ModuleType, tmp_path: Path) -> None:
    # A real process that spins: the kernel ends it at the cap, and its own CPU time is what is counted.
    status, _, seconds = bench_solver.run_anchor([sys.executable, "-c", "while True: pass"], tmp_path, "", 1.0)
    assert status == -signal.SIGXCPU
    assert 0.9 <= seconds < 3


def test_an_anchor_reads_its_input_and_its_output_is_bounded(bench_solver: ModuleType, tmp_path: Path) -> None:
    script = "import sys; text = sys.stdin.read(); print(text.upper() * 10**6); sys.exit(3)"
    status, out, seconds = bench_solver.run_anchor([sys.executable, "-c", script], tmp_path, "quit\n", 30.0)
    assert status == 3 and out.startswith("QUIT\nQUIT\n") and len(out) == bench_solver.OUTPUT_LIMIT
    assert 0 < seconds < 30


def test_an_egaroucid_that_does_not_end_a_position_gives_bounds(tmp_path: Path) -> None:
    # A real program in the console build's place: it starts at once (its start-up run has an
    # empty problem file) and spins on a position. Its solve is stopped after its cap of CPU
    # seconds; the row says so and its total is a lower bound, the ratio an upper one.
    console = tmp_path / "console"
    console.write_text('#!/bin/sh\nfor last; do :; done\nif [ -s "$last" ]; then while :; do :; done; fi\n')
    console.chmod(0o755)
    done = run_bench("--one-best-only", "--first", "21", "--last", "21", "--egaroucid", str(console),
                     "--egaroucid-eval", str(console), "--egaroucid-cap", "1")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert re.search(r"^ *21 .*\| +not solved in 1 s$", done.stdout, re.MULTILINE), done.stdout
    total = re.search(
        r"^egaroucid: over ([\d.]+) s \(1 of 1 not ended within the cap\), time under ([\d.]+)x",
        done.stdout,
        re.MULTILINE,
    )
    assert total is not None, done.stdout
    assert 1 <= float(total.group(1)) < 4


def test_a_ctrl_c_while_egaroucid_solves_ends_it_in_one_line(tmp_path: Path) -> None:
    console = tmp_path / "console"
    console.write_text('#!/bin/sh\nfor last; do :; done\nif [ -s "$last" ]; then while :; do :; done; fi\n')
    console.chmod(0o755)
    args = ["--one-best-only", "--first", "21", "--last", "21", "--egaroucid", str(console), "--egaroucid-eval",
            str(console), "--egaroucid-cap", "600"]  # fmt: skip
    spinning = ["pgrep", "-f", f"^/bin/sh {console}"]

    def solving(line: str) -> bool:
        """After the table's header, once the console build spins on the position."""
        deadline = time.monotonic() + 60
        while "egaroucid s" in line and time.monotonic() < deadline:
            if subprocess.run(spinning, capture_output=True).stdout:
                return True
            time.sleep(0.1)
        return False

    command = [sys.executable, "benchmarks/bench_solver.py", *args]
    status, out, err = interrupt_command(command, cwd=REPO_ROOT, ready=solving)
    assert status == 130 and err.strip() == "bench_solver.py: interrupted", (status, out, err)
    assert not subprocess.run(spinning, capture_output=True).stdout  # its solve did not outlive the benchmark
