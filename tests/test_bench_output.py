"""The benchmark scripts' output: each figure beside its anchor or target and the
ratio of the two, in the same run, and a progress bar on stderr over long work
(stdout keeps only the figures). Each script runs in this process with tiny budgets."""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from conftest import REPO_ROOT

from agents.arena.tournament import Tournament
from agents.search.patterns import child_values, evaluate, load_weights, shipped_weights_path
from reversi_env import GameState

WEIGHTS = str(shipped_weights_path())


@pytest.fixture
def bench(monkeypatch: pytest.MonkeyPatch) -> Callable[..., ModuleType]:
    """A function importing ``benchmarks/<script>.py`` with ``sys.argv`` set to its arguments."""
    monkeypatch.syspath_prepend(str(REPO_ROOT / "benchmarks"))

    def load(script: str, *args: str) -> ModuleType:
        monkeypatch.setattr(sys, "argv", [f"{script}.py", *args])
        return importlib.import_module(script)

    return load


def percent(text: str) -> float:
    return float(text.rstrip("%")) / 100


def test_bench_eval_prints_each_score_beside_its_target_and_the_ratio(
    bench: Callable[..., ModuleType], capsys: pytest.CaptureFixture[str]
) -> None:
    bench_eval = bench("bench_eval")
    bench_eval.play(load_weights(), 2, 0, 2)
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert lines[1].split()[-2:] == ["target", "ratio"]
    for spec, target in bench_eval.TARGETS.items():
        row = next(line for line in lines if line.startswith(f"{spec}  "))
        score, ratio = re.search(r"(\d+\.\d)%.*>= \d+%\s+(\d+\.\d\d)x", row).groups()  # type: ignore[union-attr]
        assert float(ratio) == pytest.approx(float(score) / 100 / target, abs=0.006)
        assert f"vs {spec}" in err  # its games' bar
    assert "vs positional" not in out


def test_bench_alphazero_prints_the_ratio_to_every_target(
    bench: Callable[..., ModuleType], capsys: pytest.CaptureFixture[str]
) -> None:
    bench("bench_alphazero", "--skip-strength", "--simulations", "8", "--batch", "4").main()
    out, _ = capsys.readouterr()
    lines = out.splitlines()
    assert lines[1].split() == ["search", "sims/s", "target", "ratio", "own", "share", "target", "ratio"]
    for row in lines[2:6]:
        rate, target, ratio, share, share_target, share_ratio = row.split()[-6:]
        assert float(ratio) == pytest.approx(float(rate.replace(",", "")) / float(target.replace(",", "")), abs=0.006)
        assert float(share_ratio) == pytest.approx(percent(share) / percent(share_target), abs=0.006)


def test_bench_alphazero_match_draws_its_bar_on_stderr(
    bench: Callable[..., ModuleType], capsys: pytest.CaptureFixture[str]
) -> None:
    bench_alphazero = bench("bench_alphazero")
    score, low, high = bench_alphazero.strength("alphazero:sims=0", "greedy", 2, 2, 0)
    assert low <= score <= high
    out, err = capsys.readouterr()
    assert out == ""
    assert "alphazero:sims=0 vs greedy" in err


def test_bench_alphazero_match_row_prints_the_ratio_of_its_score_to_the_target(
    bench: Callable[..., ModuleType], capsys: pytest.CaptureFixture[str]
) -> None:
    # The row main prints for each match, from two real games of the cheaper match.
    bench_alphazero = bench("bench_alphazero")
    row = bench_alphazero.match_row("alphazero:sims=0", "greedy", 2, 2, 0)
    found = re.fullmatch(
        r"alphazero:sims=0 vs greedy +(\d\.\d\d) +\[(\d\.\d\d), (\d\.\d\d)\] +(\d\.\d\d) +(\d+\.\d\d)  \(\d+ s\)", row
    )
    assert found is not None, row
    score, low, high, target, ratio = (float(x) for x in found.groups())
    assert low <= score <= high and target == bench_alphazero.TARGETS["greedy"]
    # Both figures are rounded to 0.01: the ratio of the printed figures is off by 0.006 at most, plus its own rounding.
    assert ratio == pytest.approx(score / target, abs=0.011)
    assert capsys.readouterr().out == ""  # main prints the row


def test_strength_prints_the_opponent_as_the_anchor_and_the_ratio(
    bench: Callable[..., ModuleType], capsys: pytest.CaptureFixture[str]
) -> None:
    args = ("--games", "2", "--time", "0.02", "--against", "alphabeta4")
    bench("strength", *args).main()
    out, _ = capsys.readouterr()
    header = next(line for line in out.splitlines() if line.startswith("| opponent"))
    assert [c.strip() for c in header.split("|")][3:7] == ["score", "95 % interval", "anchor", "ratio"]
    row = next(line for line in out.splitlines() if line.startswith("| alphabeta-4"))
    score, _, anchor, ratio = (c.strip() for c in row.split("|")[3:7])
    assert percent(score) + percent(anchor) == pytest.approx(1.0)
    if percent(anchor) == 0:
        assert ratio == "inf"
    else:
        assert float(ratio.rstrip("x")) == pytest.approx(percent(score) / percent(anchor), abs=0.006)


def test_strength_against_openspiel_alone_without_it_is_one_line_before_any_game(
    bench: Callable[..., ModuleType], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # not installed, whatever this machine has
    with pytest.raises(SystemExit) as exit_info:
        bench("strength", "--games", "1", "--time", "0.02", "--against", "openspiel").main()
    assert exit_info.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.strip().splitlines()[-1] == (
        "strength.py: error: --against openspiel: pyspiel is not installed (pip install '.[bench]')"
    )


def test_strength_keeps_stdout_for_the_table(
    bench: Callable[..., ModuleType], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # It printed a line a game, and the note on a missing OpenSpiel, on stdout above the table.
    monkeypatch.setitem(sys.modules, "pyspiel", None)
    bench("strength", "--games", "2", "--time", "0.01", "--against", "random", "openspiel").main()
    out, err = capsys.readouterr()
    assert out.splitlines()[0] == "" and out.splitlines()[1].startswith("MCTSAgent(time_limit=0.01) strength")
    assert "skipping openspiel: pyspiel is not installed" in err
    assert "random" in err and "game" in err  # the games' bar


def test_bench_arena_draws_a_bar_for_each_timed_line(
    bench: Callable[..., ModuleType], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bench_arena = bench("bench_arena")
    tournament = Tournament.create(["random", "greedy"], games=2, seed=1, time_limit=None)
    seconds = bench_arena.timed("arena --jobs 1", 2, bench_arena.arena(tournament, tmp_path / "g.jsonl", jobs=1))
    assert seconds > 0
    out, err = capsys.readouterr()
    assert out == ""
    assert "arena --jobs 1" in err
    assert len((tmp_path / "g.jsonl").read_text().splitlines()) >= 2


def test_eval_versus_draws_its_games_bar_on_stderr(
    bench: Callable[..., ModuleType], capsys: pytest.CaptureFixture[str]
) -> None:
    bench("eval_versus", WEIGHTS, WEIGHTS, "--games", "2", "--depth", "1").main()
    out, err = capsys.readouterr()
    assert out.startswith("alphabeta:1, ") and "/2, 4-ply openings, colours swapped)" in out
    assert "alphabeta:1" in err


def test_eval_errors_draws_its_bars_on_stderr(
    bench: Callable[..., ModuleType], capsys: pytest.CaptureFixture[str]
) -> None:
    bench("eval_errors", "--games", "1", WEIGHTS).main()
    out, err = capsys.readouterr()
    assert "held-out positions from 1 games" in out
    header = next(line for line in out.splitlines() if line.startswith("empties")).split()
    assert header[1:] == [f"{k * 5}-{k * 5 + 4}" for k in range(11)] + ["55-60"]  # each phase's empties, 60 in the last
    assert "held-out games" in err and WEIGHTS in err
    assert "it/s" not in out


def test_eval_errors_labels_each_file_by_its_whole_name(
    bench: Callable[..., ModuleType], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Labels were a name's last 12 characters: run_a/weights.npz and run_b/weights.npz both "/weights.npz".
    files = [tmp_path / run / "weights.npz" for run in ("run_a", "run_b")]
    for file in files:
        file.parent.mkdir()
        file.write_bytes(Path(WEIGHTS).read_bytes())
    bench("eval_errors", "--games", "1", *map(str, files)).main()
    rows = capsys.readouterr().out.splitlines()[-2:]
    assert [row.split()[0] for row in rows] == [str(file) for file in files]


def test_eval_errors_lean_prints_each_band_with_its_depths_and_swing(
    bench: Callable[..., ModuleType], capsys: pytest.CaptureFixture[str]
) -> None:
    bench("eval_errors", "--games", "4", "--lean", "3", "--lean-positions", "8", WEIGHTS).main()
    out = capsys.readouterr().out
    assert f"{WEIGHTS}: mean value (discs, for the mover) searched 0 to 3 plies deep" in out
    rows = [line.split() for line in out.splitlines() if line.startswith("  ") and "empties" in line]
    assert rows and sum(int(row[2]) for row in rows) == 8
    for row in rows:
        depths, swing = [float(v) for v in row[4:8]], float(row[-1])
        inner = [abs(depths[d] - (depths[d - 1] + depths[d + 1]) / 2) for d in (1, 2)]
        assert swing == pytest.approx(sum(inner) / 2, abs=0.01)


def test_eval_errors_search_values_start_from_the_evaluation_and_its_one_ply_search(
    bench: Callable[..., ModuleType],
) -> None:
    module = bench("eval_errors")
    weights = load_weights()
    state = GameState.initial()
    for action in (19, 18, 17, 9):  # a few plies in: the moves differ in value
        state = state.apply(state.legal_actions()[0] if action not in state.legal_actions() else action)
    p, o = state.kernel_boards()
    values = module.search_values(np.array([p]), np.array([o]), WEIGHTS, 2)
    scores = np.full(64, -np.inf)
    child_values(p, o, weights, scores)
    assert values[0, 0] == pytest.approx(evaluate(p, o, weights))
    assert values[0, 1] == pytest.approx(scores.max(), abs=1e-3)
    assert values.shape == (1, 3) and values[0, 2] != values[0, 1]


def test_bench_book_prints_the_booked_score_beside_the_bookless_one_and_the_distinct_games(
    bench: Callable[..., ModuleType], capsys: pytest.CaptureFixture[str]
) -> None:
    bench("bench_book", "--player", "alphabeta:1,eval=patterns", "--games", "4", "--seed", "3").main()
    out, err = capsys.readouterr()
    row = next(line for line in out.splitlines() if line.startswith("| alphabeta:1,eval=patterns,book=1 |"))
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    wins, draws, losses = map(int, cells[1].split("-"))
    assert wins + draws + losses == 4
    score, anchor = percent(cells[2]), percent(cells[4])
    assert score == pytest.approx((wins + draws / 2) / 4) and anchor == pytest.approx(1 - score)
    assert float(cells[6]) >= 2  # the booked side plays its first moves from the book, in every game
    assert 1 <= int(cells[8]) <= 4  # two fixed-depth players: few distinct games
    assert "game" in err  # the games' bar


def test_bench_book_plays_from_openings_through_the_book(
    bench: Callable[..., ModuleType], capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--player", "alphabeta:1,eval=patterns", "--games", "6", "--seed", "1", "--opening-plies", "4"]
    bench("bench_book", *args).main()
    out, _ = capsys.readouterr()
    assert "6 games from 4-ply openings through the book, colours swapped" in out
    row = next(line for line in out.splitlines() if line.startswith("| alphabeta:1,eval=patterns,book=1 |"))
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    assert sum(map(int, cells[1].split("-"))) == 6
    # Each opening ends in a position of the book, where the booked side plays on from it when it moves first.
    assert float(cells[6]) >= 0.5
    assert int(cells[8]) >= 3  # three openings, each leading to its own games
