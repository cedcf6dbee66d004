"""benchmarks/move_errors.py: recorded games' moves and players' moves scored by a
deeper search (our own here; Zebra is a benchmark anchor, never installed in CI),
the reference's cache, and bad options and files as one line."""

from __future__ import annotations

import importlib
import json
import re
import subprocess
from pathlib import Path

import pytest
from conftest import REPO_ROOT, run_benchmark, two_recorded_games

ROW = re.compile(r"^(.+?)\s+(\d+)-(\d+)\s+(\d+)\s+(-?\d+\.\d\d)\s+(\d+)%", re.MULTILINE)


def run_bench(*args: str) -> subprocess.CompletedProcess[str]:
    """move_errors.py as a user runs it."""
    return run_benchmark("move_errors.py", *args)


def rows(stdout: str) -> dict[str, list[tuple[int, float, int]]]:
    """The table: each player's (moves, discs a move, best %) by phase."""
    found: dict[str, list[tuple[int, float, int]]] = {}
    for name, _, _, moves, discs, best in ROW.findall(stdout):
        found.setdefault(name.strip(), []).append((int(moves), float(discs), int(best)))
    return found


@pytest.fixture
def games(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """A results file of two real games, alphabeta:2 against random, colours swapped."""
    return two_recorded_games(tmp_path / "games.jsonl", "alphabeta:2", "random", 5, capsys)


def test_the_references_own_search_gives_nothing_away_and_random_does(games: Path, tmp_path: Path) -> None:
    cache = tmp_path / "ref.jsonl"
    same = "alphabeta:3,eval=patterns"  # the reference's search: every move it plays is a best one
    args = (str(games), "--depth", "3", "--empties", "30", "56", "--players", same, "random", "--cache", str(cache))
    done = run_bench(*args)
    assert done.returncode == 0, done.stderr
    positions = int(re.search(r"^(\d+) positions with 30-56 empties", done.stdout, re.MULTILINE)[1])  # type: ignore[index]
    table = rows(done.stdout)
    assert set(table) == {"alphabeta:2 (as played)", "random (as played)", same, "random"}
    assert (
        sum(moves for name in ("alphabeta:2 (as played)", "random (as played)") for moves, _, _ in table[name])
        == positions
    )
    assert sum(moves for moves, _, _ in table[same]) == positions
    assert all(discs == 0.0 and best == 100 for _, discs, best in table[same])
    assert all(discs >= 0.0 for name in table for _, discs, _ in table[name])
    assert sum(moves * discs for moves, discs, _ in table["random"]) > 0
    assert len(cache.read_text().splitlines()) == positions  # every position scored once, kept

    again = run_bench(*args)  # from the cache: the same table (but for the players' seconds)
    assert again.returncode == 0, again.stderr
    assert rows(again.stdout) == table
    assert len(cache.read_text().splitlines()) == positions

    first = json.loads(cache.read_text().splitlines()[0])
    first["scores"].popitem()  # a move left out
    cache.write_text(cache.read_text() + json.dumps(first) + "\n")  # the last line of a position counts
    wrong = run_bench(*args)
    assert wrong.returncode == 1
    assert f"the scores of {first['position']!r} are not those of its moves" in wrong.stderr
    assert len(wrong.stderr.strip().splitlines()) == 1 and "Traceback" not in wrong.stderr

    cache.write_text(cache.read_text() + "print('no')\n")
    broken = run_bench(*args)
    assert broken.returncode == 1
    assert f"--cache {cache}:{positions + 2}: not a line this benchmark wrote" in broken.stderr
    assert len(broken.stderr.strip().splitlines()) == 1 and "Traceback" not in broken.stderr


def test_games_without_a_position_in_range_are_one_line(games: Path) -> None:
    done = run_bench(str(games), "--empties", "1", "1")
    assert done.returncode == 1
    assert "no position with 1-1 empties" in done.stderr and "Traceback" not in done.stderr


def test_zebra_refuses_a_game_its_opening_does_not_reach_in_one_line(games: Path, tmp_path: Path) -> None:
    # Zebra takes a game's moves from the standard start; a record whose opening does not lead to its
    # start position has none. The refusal comes before Zebra would run, so an empty file stands in for it.
    lines = games.read_text().splitlines()
    game = json.loads(next(line for line in lines if '"type":"game"' in line))
    game["opening"] = "start"
    games.write_text(json.dumps(game) + "\n")
    zebra = tmp_path / "zebra" / "zebra"
    zebra.parent.mkdir()
    zebra.touch()
    (zebra.parent / "coeffs2.bin").touch()
    done = run_bench(str(games), "--zebra", str(zebra))
    assert done.returncode == 1
    assert "a game from a set position" in done.stderr and "Zebra needs its moves from the start" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


def test_a_player_that_cannot_join_a_position_is_one_line(games: Path) -> None:
    # A GTP engine needs the game's moves, which a position on its own does not have (the real gtp-rhino).
    done = run_bench(str(games), "--depth", "1", "--players", "gtp:/usr/games/gtp-rhino -l 1 -b 0 -r 0")
    assert done.returncode == 1
    assert "--players: " in done.stderr and "cannot join the game" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_book_s_moves_are_scored_against_the_players_own(tmp_path: Path) -> None:
    same = "alphabeta:3,eval=patterns"  # the reference's search gives nothing away
    done = run_bench("--book", "--every", "30", "--depth", "3", "--players", same, "random")
    assert done.returncode == 0, done.stderr
    positions = int(re.search(r"^(\d+) positions with 25-60 empties", done.stdout, re.MULTILINE)[1])  # type: ignore[index]
    table = rows(done.stdout)
    assert set(table) == {"book (as played)", same, "random"}
    for name in table:  # every book position is scored once for each of them
        assert sum(moves for moves, _, _ in table[name]) == positions > 10
    assert all(discs == 0.0 for _, discs, _ in table[same])
    assert sum(moves * discs for moves, discs, _ in table["random"]) > 0

    hostile = tmp_path / "book.npz"
    hostile.write_bytes(b"PK\x03\x04 not a zip at all")
    broken = run_bench("--book", str(hostile), "--depth", "1")
    assert broken.returncode == 1
    assert str(hostile) in broken.stderr
    assert len(broken.stderr.strip().splitlines()) == 1 and "Traceback" not in broken.stderr


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--book"], "give results files or --book, not both"),
        (["--empties", "50", "30"], "expected 1 <= MIN <= MAX <= 60"),
        (["--every", "0"], "--every 0: give 1 or more"),
        (["--zebra", "/bin/true"], "not a file with coeffs2.bin beside it"),
        (["--zebra", "/bin/true", "--zebra-levels", "18", "24", "26"], "WLD 26 above EXACT 24 gives outcomes"),
        (["--players", "nobody:1"], "--players: "),
    ],
)
def test_a_bad_option_is_one_line(
    option: list[str], message: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.syspath_prepend(str(REPO_ROOT / "benchmarks"))
    move_errors = importlib.import_module("move_errors")
    with pytest.raises(SystemExit) as exit:
        move_errors.main(["games.jsonl", *option])  # refused before any file is read
    assert exit.value.code == 2
    assert message in capsys.readouterr().err
