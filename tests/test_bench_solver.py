"""benchmarks/bench_solver.py's timed comparisons (``--timed``, ``--jumps``, ``--wld``, ``--players``),
bad options and a bad ``--zebra``."""

from __future__ import annotations

import re
import subprocess

import pytest
from conftest import run_benchmark


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


def test_a_player_that_cannot_join_a_position_is_one_line() -> None:
    # A GTP engine needs the game's moves, which a position of the benchmark does not have (the real gtp-rhino).
    done = run_bench("--games", "1", "--empties", "14", "--players", "gtp:/usr/games/gtp-rhino -l 1 -b 0 -r 0")
    assert done.returncode == 1
    assert "--players: " in done.stderr and "cannot join the game" in done.stderr
    assert "Traceback" not in done.stderr


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
    ],
)
def test_a_bad_option_is_one_line(option: list[str], message: str) -> None:
    done = run_bench("--games", "1", "--timed", "1", *option)
    assert done.returncode == 2
    assert message in done.stderr and "Traceback" not in done.stderr
