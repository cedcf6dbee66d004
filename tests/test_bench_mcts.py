"""benchmarks/bench_mcts.py's two-thread table: alternated rounds (``--pairs``) and bad options."""

from __future__ import annotations

import re

from conftest import run_benchmark


def test_alternated_rounds_print_the_median_ratio_and_its_range() -> None:
    done = run_benchmark("bench_mcts.py", "--threads", "--plies", "0", "40", "--simulations", "3000", "--pairs", "3")
    assert done.returncode == 0, done.stderr
    rows = re.findall(
        r"^(start|40 plies), (tree|root) +([\d,]+) +([\d,]+) +([\d.]+)x +([\d.]+)x-([\d.]+)x +([\d.]+)x$",
        done.stdout,
        re.MULTILINE,
    )
    assert [(name, how) for name, how, *_ in rows] == [
        ("start", "tree"),
        ("start", "root"),
        ("40 plies", "tree"),
        ("40 plies", "root"),
    ]
    for *_, one, two, median, low, high, nodes in rows:
        assert int(one.replace(",", "")) > 0 and int(two.replace(",", "")) > 0
        assert float(low) <= float(median) <= float(high)
        assert float(nodes) > 0
    assert "filled the tree" not in done.stderr


def test_a_search_that_fills_its_pool_is_said() -> None:
    done = run_benchmark(
        "bench_mcts.py", "--threads", "--plies", "0", "--simulations", "3000", "--pairs", "1", "--max-nodes", "2000"
    )
    assert done.returncode == 0, done.stderr
    assert "one thread filled the tree's 2,000 nodes" in done.stderr
    assert "2 threads filled the tree's 2,000 nodes" in done.stderr


def test_a_bad_number_of_rounds_is_one_line() -> None:
    done = run_benchmark("bench_mcts.py", "--threads", "--pairs", "-1")
    assert done.returncode == 2
    assert "--pairs -1: give a number of rounds" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_pool_too_small_for_two_threads_is_one_line() -> None:
    done = run_benchmark("bench_mcts.py", "--threads", "--max-nodes", "100")
    assert done.returncode == 2
    assert "--max-nodes 100: give 130 or more" in done.stderr
    assert "Traceback" not in done.stderr
