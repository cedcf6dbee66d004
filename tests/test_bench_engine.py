"""benchmarks/bench_engine.py's game file (``--out``, the arena's records), against the real gtp-rhino."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import run_benchmark

from agents.arena.tournament import Opening, read_results
from agents.play.match import GameResult
from reversi_env.notation import parse_action
from reversi_env.symmetry import canonical_game

ROOT = Path(__file__).resolve().parent.parent


def run_bench(*args: str) -> subprocess.CompletedProcess[str]:
    """bench_engine.py as a user runs it."""
    return run_benchmark("bench_engine.py", *args, timeout=300)


def play_saved(out: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], list[dict[str, Any]]]:
    """bench_engine.py ``args`` with ``--out out``, which must succeed: its output and the games it saved."""
    done = run_bench(*args, "--out", str(out))
    assert done.returncode == 0, done.stderr
    return done, [json.loads(line) for line in out.read_text().splitlines()]


def test_every_game_is_saved_and_replays_to_its_result(tmp_path: Path) -> None:
    out = tmp_path / "games.jsonl"
    done, records = play_saved(out, "--engine", "random", "--levels", "1", "--games", "4", "--seed", "3")
    assert len(records) == 4
    assert [r["black"] == "random" for r in records] == [True, False, True, False]
    assert len({r["opening"] for r in records}) == 2
    assert len({r["game_id"] for r in records}) == 4
    assert len(read_results(out).games) == 4  # the arena reads it as it reads its own
    for r in records:
        other = r["white"] if r["black"] == "random" else r["black"]
        assert "random" in (r["black"], r["white"]) and "gtp-rhino -l 1" in other
        result = GameResult.from_dict(r["result"])
        state = Opening.parse(r["opening"]).state()
        for move in result.moves:
            state = state.apply(move)
        assert state.is_terminal()
        assert state.score() == (result.black, result.white)
        assert r["transcript"] == r["opening"] + result.transcript
    # the table's line agrees with the file: our discs a game
    ours = [g["disc_difference"] * (1 if g["black"] == "random" else -1) for g in records]
    assert f"{sum(ours) / 4:+.1f}" in done.stdout


def test_an_unwritable_game_file_is_one_line(tmp_path: Path) -> None:
    done = run_bench("--engine", "random", "--levels", "1", "--games", "2", "--out", str(tmp_path / "no" / "x.jsonl"))
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1].endswith("No such file or directory")
    assert "Traceback" not in done.stderr


def test_an_engine_that_cannot_be_built_is_one_line_before_any_game() -> None:
    done = run_bench("--engine", "mcts:c=inf", "--levels", "1", "--games", "2")
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert (
        last
        == "bench_engine.py: error: --engine: cannot build player 'mcts:c=inf': c must be a positive number, got inf"
    )
    assert "games a pairing" not in done.stdout


def test_the_opponents_losses_on_time_are_counted(tmp_path: Path) -> None:
    # GRhino level 5 thinks for seconds once past its first few moves: at
    # half a second a move it loses every game on time, and the table says so.
    done, records = play_saved(
        tmp_path / "games.jsonl", "--engine", "random", "--levels", "5", "--games", "2", "--time-limit", "0.5"
    )
    assert [r["result"]["reason"] for r in records] == ["timeout", "timeout"]
    assert [r["result"]["loser"] for r in records] == ["white", "black"]  # GRhino, whichever colour it had
    row = next(line for line in done.stdout.splitlines() if line.startswith("random"))
    assert row.split()[-2] == "2"  # opp t/o
    assert "2-0-0" in row


def test_a_gtp_opponent_may_take_the_whole_time_limit() -> None:
    # Built as the match runner builds it: under --time-limit 600 GRhino's
    # replies may take 600 s, not GTPEngine's default minute (which made a
    # long GRhino move an error instead of a move).
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import bench_engine
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    opponent = bench_engine.make_opponent(f"gtp:{bench_engine.GRHINO} -l 1", 1, 0, None, 600.0)
    try:
        assert opponent.timeout == 600.0
    finally:
        opponent.close()


def test_games_are_counted_up_to_the_boards_symmetries(tmp_path: Path) -> None:
    # The twelve 2-ply openings are three up to symmetry: two deterministic players
    # replay one game from mirror-image openings unless a tie between moves is broken
    # by square order, and the table's "distinct" column counts the games up to
    # symmetry that were really played. The fixed-depth alpha-beta and the ladder
    # evaluate with the hand-written weights, so these pairings replay games whatever
    # the learned weights (a pairing with ``pattern`` stopped replaying any with new ones).
    done, records = play_saved(
        tmp_path / "games.jsonl", "--engine", "alphabeta:2", "--levels", "--ladder", "--games", "12", "--seed", "5"
    )
    rows = [line.split() for line in done.stdout.splitlines() if line.startswith("alphabeta:2 ")]
    assert len(rows) == 3 and len(records) == 3 * 12  # the ladder's three rungs
    counted = 0
    for row in rows:
        games = {
            canonical_game([parse_action(m) for m in (*Opening.parse(r["opening"]).moves, *r["result"]["moves"])])
            for r in records
            if {r["black"], r["white"]} == {"alphabeta:2", row[1]}
        }
        assert int(row[-1]) == len(games), row
        counted += len(games)
    assert counted < len(records)  # some game was replayed from a mirror image, and counted once


def test_longer_openings_on_request(tmp_path: Path) -> None:
    done, records = play_saved(
        tmp_path / "games.jsonl", "--engine", "random", "--levels", "1", "--games", "4", "--opening-plies", "4"
    )
    assert "from 4-ply random openings" in done.stdout
    assert [len(Opening.parse(r["opening"]).moves) for r in records] == [4] * 4
    bad = run_bench("--engine", "random", "--levels", "1", "--opening-plies", "0")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert bad.stderr.strip().splitlines()[-1].startswith("bench_engine.py: error: --opening-plies 0: found only 1")


def test_our_engine_plays_without_its_book_as_the_opponents_play_without_theirs(tmp_path: Path) -> None:
    out = tmp_path / "games.jsonl"
    _, records = play_saved(out, "--engine", "alphabeta:time=0.05", "--levels", "1", "--games", "2", "--seed", "3")
    ours = [r["black"] if "rhino" in r["white"] else r["white"] for r in records]
    assert ours == ["alphabeta:time=0.05,book=0"] * 2  # the spec that built the player, as the games record it


def recorded_row(page: Path, key: str) -> list[str]:
    """The cells of the row ``key`` of a benchmarks page."""
    rows = [line.split(" | ") for line in page.read_text().splitlines() if line.startswith(f"| {key} |")]
    assert len(rows) == 1, rows
    return rows[0]


MATCH = ["--engine", "alphabeta:2", "--levels", "1", "--games", "4", "--seed", "3"]
"""A match of four games that ``shards`` plays in two halves."""


@pytest.fixture(scope="module")
def shards(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """The games files of ``MATCH`` played as two shards."""
    files = [tmp_path_factory.mktemp("shards") / f"{k}.jsonl" for k in (0, 1)]
    for k, out in enumerate(files):
        assert run_bench(*MATCH, "--shard", f"{k}/2", "--out", str(out)).returncode == 0
    return files


def test_a_match_played_in_shards_is_tallied_and_recorded_as_one_run(tmp_path: Path, shards: list[Path]) -> None:
    whole_page, tally_page = tmp_path / "whole.md", tmp_path / "tally.md"
    for page in (whole_page, tally_page):
        page.write_text((ROOT / "docs" / "benchmarks.md").read_text())
    whole = run_bench(*MATCH, "--record", "--record-file", str(whole_page))
    tallied = run_bench(*MATCH, "--tally", *map(str, shards), "--record", "--record-file", str(tally_page))
    assert whole.returncode == 0 and tallied.returncode == 0, tallied.stderr
    line = [row for row in whole.stdout.splitlines() if row.startswith("alphabeta:2 ")]
    assert len(line) == 1
    # the same games: the same wins, discs and distinct games; the times are each run's own
    assert tallied.stdout.splitlines()[-1].split()[:12] == line[0].split()[:12]
    key = "engine.alphabeta-2-vs-gtp-rhino-l-1-b-0-r-0"
    assert recorded_row(tally_page, key)[1] == recorded_row(whole_page, key)[1]  # "score of ..., 4 games (W-D-L)"
    assert "--tally" in recorded_row(tally_page, key)[5]


def test_a_tally_counts_each_game_of_the_match_once_or_refuses_in_one_line(tmp_path: Path, shards: list[Path]) -> None:
    first, second = map(str, shards)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "game", "game_id": 1}\n')
    cases = [
        ([first], "2 of 4 games are in none of the files"),
        ([first, first], "is in an earlier file too"),
        ([str(tmp_path / "none.jsonl")], "No such file or directory"),
        ([str(bad)], "a game record needs a string 'game_id'"),
    ]
    for files, message in cases:
        done = run_bench(*MATCH, "--tally", *files)
        assert done.returncode == 2 and "Traceback" not in done.stderr
        assert message in done.stderr.strip().splitlines()[-1]
    for other in (["--games", "2"], ["--seed", "4"]):  # another match: its games are not these
        done = run_bench(*MATCH, *other, "--tally", first, second)
        assert done.returncode == 2 and "--tally: " in done.stderr.strip().splitlines()[-1]
    done = run_bench(*MATCH, "--shard", "1/2", "--tally", first, second)
    assert done.returncode == 2 and "not with --shard or --out" in done.stderr


def test_a_match_is_resumed_and_extended_from_its_file_playing_only_the_games_not_in_it(
    tmp_path: Path, shards: list[Path]
) -> None:
    out = tmp_path / "games.jsonl"
    first = run_bench(*MATCH, "--games", "2", "--out", str(out))
    assert first.returncode == 0, first.stderr
    before = out.read_text()
    with out.open("a") as f:
        f.write('{"type": "game", "game_id": "cut mid-wr')  # killed while writing a game
    extended = run_bench(*MATCH, "--out", str(out), "--resume")
    assert extended.returncode == 0, extended.stderr
    after = out.read_text()
    assert after.startswith(before)  # the finished games stay as they were, the cut line is gone
    records = [json.loads(line) for line in after.splitlines()]
    assert len(records) == 4 and len({r["game_id"] for r in records}) == 4
    # the resumed match counts the same games as the match played in two shards
    tallied = run_bench(*MATCH, "--tally", *map(str, shards))
    row = [line.split()[:12] for line in extended.stdout.splitlines() if line.startswith("alphabeta:2 ")]
    assert row == [tallied.stdout.splitlines()[-1].split()[:12]]
    again = run_bench(*MATCH, "--out", str(out), "--resume")  # nothing left to play: the same table
    assert again.returncode == 0 and out.read_text() == after
    assert [line.split()[:12] for line in again.stdout.splitlines() if line.startswith("alphabeta:2 ")] == row


def test_a_game_file_is_resumed_only_on_request_and_only_by_its_own_match(tmp_path: Path, shards: list[Path]) -> None:
    whole = tmp_path / "whole.jsonl"
    whole.write_text(shards[0].read_text() + shards[1].read_text())
    held = whole.read_text()
    cases = [
        ([*MATCH, "--out", str(whole)], f"--out {whole} already holds games: pass --resume"),
        ([*MATCH, "--resume"], "--resume continues the match saved in --out FILE: give --out"),
        ([*MATCH, "--games", "2", "--out", str(whole), "--resume"], "--resume: 2 game(s) in the files are not of this"),
        ([*MATCH, "--seed", "4", "--out", str(whole), "--resume"], "--resume: "),  # another match
    ]
    for args, message in cases:
        done = run_bench(*args)
        assert done.returncode == 2 and "Traceback" not in done.stderr
        assert message in done.stderr.strip().splitlines()[-1]
        assert "games a pairing" not in done.stdout
    assert whole.read_text() == held  # a refused run writes nothing


# What zebra -evalone prints (trimmed): an exact endgame, a midgame move, a win/loss/draw endgame.
ZEBRA_EXACT = """\
-->  12  -9.30         345383  a6 a5 f1 g3 b7     0.0 s  7542266 nps
[-13,-11]: a6<-12 g3 f1>-12
-->  24  -10 @ 98%   23520449  f1 g3 h6 h4 h7     1.0 s  24513133 nps
-->  24  -10         62442788  f1 g3 h6 h4 h7     3.0 s  20836885 nps
PV: f1 g3 h6 h4 h7 g8 g7 a2 b2 b1 a6 a5 a1 c1
"""
ZEBRA_MIDGAME = """\
[-inf,inf]:    c6=-1.00 d7=-0.80
-->  16  -1.82        3162267  c6 g6 g5 f7 e8     0.9 s  3459326 nps
PV: c6 g6 g5 f7 e8
"""
ZEBRA_OUTCOME = """\
-->  14  +1.24        1204157  c6 e1 d8 c1 a3     0.3 s  3938706 nps
-->  26  Win @ 95%   13375644  c6 e1 b2 a5 b3     1.3 s  10671906 nps
-->  26  Win          120398k  c6 e1 b2 a5 b3    11.9 s  10141599 nps
PV: c6 e1 b2 a5 b3 c1 a3 a4 b1 f8 f1 a2
"""


def test_zebras_score_is_that_of_its_deepest_search(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    from bench_engine import zebra_answer

    assert zebra_answer(ZEBRA_EXACT) == ("f1", -10.0)  # not the 12-ply estimate printed first
    assert zebra_answer(ZEBRA_MIDGAME) == ("c6", -1.82)
    assert zebra_answer(ZEBRA_OUTCOME) == ("c6", None)  # a win proved, its margin not searched
    assert zebra_answer(ZEBRA_EXACT.replace("PV:", "pv")) is None
    assert zebra_answer("PV: f1 g3\n") is None
