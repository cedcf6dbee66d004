"""``--record``: a benchmark writes its own rows into the benchmarks page, each found by
its key, every other line of the page kept; and the page in the repository has the
table the recorder reads."""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from conftest import REPO_ROOT

PAGE_HEAD = "# Benchmarks\n\nSome prose above the table.\n\n"
PAGE_TAIL = "\nProse below the table.\n"


@pytest.fixture
def record(monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    monkeypatch.syspath_prepend(str(REPO_ROOT / "benchmarks"))
    yield importlib.import_module("record")


def page(tmp_path: Path, record: ModuleType, rows: list[str]) -> Path:
    path = tmp_path / "benchmarks.md"
    table = "\n".join([record.BEGIN, record.HEADER, *rows, record.END])
    path.write_text(PAGE_HEAD + table + PAGE_TAIL)
    return path


def rows_of(path: Path) -> list[str]:
    return [line for line in path.read_text().splitlines() if line.startswith("| ")][1:]


def test_a_row_is_replaced_by_its_key_and_the_others_are_untouched(tmp_path: Path, record: ModuleType) -> None:
    before = [
        "| core.a | first | 1 | C: 2 | 0.50x | python benchmarks/bench_core.py | old machine | 2026-01-01 |",
        "| core.b | second | 3 |  |  | python benchmarks/bench_core.py | old machine | 2026-01-01 |",
        "| env.c | third | 4 | x: 1 | 4.00x | python benchmarks/bench_env.py | old machine | 2026-01-01 |",
    ]
    path = page(tmp_path, record, before)
    figure = record.Figure("core.b", "second", "5 us", "OpenSpiel: 10 us", "2.0x as fast")
    record.record([figure], path, command="python benchmarks/bench_core.py --games 2", machine_text="m", date="d")
    after = rows_of(path)
    assert after[0] == before[0] and after[2] == before[2]
    command = "python benchmarks/bench_core.py --games 2"
    assert after[1] == f"| core.b | second | 5 us | OpenSpiel: 10 us | 2.0x as fast | {command} | m | d |"
    text = path.read_text()
    assert text.startswith(PAGE_HEAD) and text.endswith(PAGE_TAIL)


def test_a_new_key_adds_a_row_at_the_end_of_the_table(tmp_path: Path, record: ModuleType) -> None:
    path = page(tmp_path, record, ["| core.a | first | 1 |  |  | cmd | m | d |"])
    record.record([record.Figure("core.z", "new | piped", "9")], path, command="cmd", machine_text="m", date="d")
    assert rows_of(path) == [
        "| core.a | first | 1 |  |  | cmd | m | d |",
        "| core.z | new \\| piped | 9 |  |  | cmd | m | d |",
    ]
    lines = path.read_text().splitlines()
    assert lines[lines.index(record.END) - 1].startswith("| core.z ")


def test_a_page_without_the_table_is_refused_and_left_as_it_is(tmp_path: Path, record: ModuleType) -> None:
    path = tmp_path / "other.md"
    path.write_text("no table here\n")
    with pytest.raises(ValueError, match="no table between"):
        record.record([record.Figure("k", "m", "1")], path, command="c", machine_text="m", date="d")
    assert path.read_text() == "no table here\n"


def test_the_command_recorded_is_the_one_run_without_the_recording_options(record: ModuleType) -> None:
    argv = ["/x/benchmarks/bench_core.py", "--record", "--games", "2", "--record-file", "/tmp/b.md"]
    assert record.command_line(argv) == "python benchmarks/bench_core.py --games 2"
    argv = ["bench_engine.py", "--engine", "mcts:time=1,threads=2", "--record-file=/tmp/b.md", "--record"]
    assert record.command_line(argv) == "python benchmarks/bench_engine.py --engine mcts:time=1,threads=2"


def test_bench_core_records_its_rows_in_the_page_it_is_given(
    tmp_path: Path, record: ModuleType, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    kept = "| env.aec | AEC steps/s | 1 | c4: 1 | 1.00x | python benchmarks/bench_env.py | m | 2026-01-01 |"
    stale = (
        "| core.perft9 | `perft(9)` = 3,005,288 | 99.000 s |  |  | python benchmarks/bench_core.py | m | 2026-01-01 |"
    )
    path = page(tmp_path, record, [kept, stale])
    argv = ["bench_core.py", "--games", "2", "--record", "--record-file", str(path)]
    monkeypatch.setattr(sys, "argv", argv)
    importlib.import_module("bench_core").main()
    out, err = capsys.readouterr()
    rows = rows_of(path)
    assert rows[0] == kept
    perft = next(row for row in rows if row.startswith("| core.perft9 |"))
    assert perft != stale and "python benchmarks/bench_core.py --games 2 |" in perft
    printed = next(line for line in out.splitlines() if line.startswith("perft(9)"))
    assert f"| {float(printed.split()[3]):.3f} s |" in perft  # the row holds the figure printed
    keys = [row.split("|")[1].strip() for row in rows]
    assert {"core.playouts-c", "core.apply-openspiel", "core.cold-start"} <= set(keys)
    assert len(keys) == len(set(keys))
    assert f"recorded {len(rows) - 1} row(s) in {path}" in err


def test_the_benchmarks_page_has_one_row_a_key_and_every_column(record: ModuleType) -> None:
    rows = rows_of(record.PAGE)
    keys = [row.split("|")[1].strip() for row in rows]
    assert len(keys) == len(set(keys)) and len(keys) >= 20
    for row in rows:
        cells = [c.strip() for c in row.replace("\\|", "").split("|")[1:-1]]
        _, _, figure, _, _, command, machine, date = cells
        assert figure and command.startswith(("python ", "reversi ")) and machine, row
        assert len(date) == 10 and date[4] == date[7] == "-", row


def test_bench_solver_records_the_ffo_totals_with_the_command_it_was_given(
    tmp_path: Path, record: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    path = page(tmp_path, record, [])
    argv = ["--first", "20", "--last", "20", "--one-best-only", "--record", "--record-file", str(path)]
    assert importlib.import_module("bench_solver").main(argv) == 0
    out, _ = capsys.readouterr()
    total = next(line for line in out.splitlines() if line.startswith("total, one best move:"))
    (row,) = rows_of(path)
    cells = [c.strip() for c in row.split("|")[1:-1]]
    assert cells[0] == "solver.ffo-20-20"
    assert cells[2].startswith(total.split(": ")[1].split(",")[0])  # the seconds printed
    assert cells[5] == "python benchmarks/bench_solver.py --first 20 --last 20 --one-best-only"


def test_bench_eval_records_its_scores_and_speeds(
    tmp_path: Path, record: ModuleType, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = page(tmp_path, record, [])
    argv = ["bench_eval.py", "--games", "2", "--search", "1", "--seconds", "0.1", "--depth", "2"]
    monkeypatch.setattr(sys, "argv", [*argv, "--record", "--record-file", str(path)])
    importlib.import_module("bench_eval").main()
    out, _ = capsys.readouterr()
    rows = {row.split("|")[1].strip(): row for row in rows_of(path)}
    assert set(rows) == {
        "eval.pattern-vs-positional",
        "eval.pattern-vs-alphabeta-2",
        "eval.pattern-vs-alphabeta-2-no-solver",
        "eval.speed",
        "alphabeta.midgame",
    }
    printed = next(line for line in out.splitlines() if line.startswith("positional "))
    assert f"| {printed.split()[1]} [" in rows["eval.pattern-vs-positional"]  # the score printed
    assert "| python benchmarks/bench_eval.py --games 2 --search 1 --seconds 0.1 --depth 2 |" in rows["eval.speed"]


def recorded_rows(
    script: str, args: list[str], tmp_path: Path, record: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> list[str]:
    """The rows ``benchmarks/<script>.py args --record`` writes into an empty page."""
    path = page(tmp_path, record, [])
    monkeypatch.setattr(sys, "argv", [f"{script}.py", *args, "--record", "--record-file", str(path)])
    importlib.import_module(script).main()
    return rows_of(path)


@pytest.mark.parametrize(
    ("script", "args", "keys"),
    [
        ("bench_env", ["--steps", "8", "--vector-steps", "1", "--rounds", "1"], {"env.aec", "env.vector-1024"}),
        ("bench_mcts", ["--simulations", "99", "--openspiel-simulations", "9"], {"mcts.uct-start", "mcts.uct-midgame"}),
        ("bench_alphazero", ["--skip-strength", "--simulations", "8", "--batch", "4"], {"alphazero.sims-start-1"}),
        ("bench_arena", ["--games", "2", "--jobs", "1", "--no-ray", "--agents", "random", "greedy"], {"arena.pool"}),
        (
            "bench_engine",
            ["--engine", "random", "--levels", "--ladder", "--games", "2"],
            {"engine.random-vs-positional", "engine.random-vs-alphabeta-2"},
        ),
    ],
)
def test_each_script_records_its_rows(
    script: str,
    args: list[str],
    keys: set[str],
    tmp_path: Path,
    record: ModuleType,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rows = {row.split("|")[1].strip(): row for row in recorded_rows(script, args, tmp_path, record, monkeypatch)}
    assert keys <= set(rows), sorted(rows)
    for row in rows.values():
        assert f"| python benchmarks/{script}.py {' '.join(args)} |" in row


@pytest.mark.parametrize(
    ("player", "budget", "plies", "where"),
    [
        ("alphabeta:1,eval=patterns", "equal time a move", [], "from the start"),
        ("alphabeta:clock=2", "equal time a game", [], "from the start"),
        (
            "alphabeta:1,eval=patterns",
            "equal time a move",
            ["--opening-plies", "4"],
            "from 4-ply openings through the book",
        ),
    ],
)
def test_bench_book_records_its_whole_description(
    player: str,
    budget: str,
    plies: list[str],
    where: str,
    tmp_path: Path,
    record: ModuleType,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    (row,) = recorded_rows("bench_book", ["--player", player, "--games", "2", *plies], tmp_path, record, monkeypatch)
    key, description = (cell.strip() for cell in row.split("|")[1:3])
    assert key == f"book.gain-{player}" + (f"-openings-{plies[1]}" if plies else "")
    assert re.fullmatch(
        rf"{re.escape(player)} with the book against without, 2 games \([12] distinct\) {where}, {budget}",
        description,
    ), row
