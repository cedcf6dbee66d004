"""The arena: openings, schedules, the results file, resume after SIGKILL, the
local and Ray backends, and the arena / ratings subcommands."""

from __future__ import annotations

import argparse
import contextlib
import http.server
import json
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli

from agents import cluster
from agents.arena import tournament as tournament_module
from agents.arena.tournament import (
    Opening,
    ResultsData,
    Tournament,
    derive_seed,
    load_openings,
    random_openings,
    ratings_from_records,
    read_results,
    run_tournament,
)
from agents.clocks import TimeControl
from agents.play.match import GameResult
from agents.ui.arena_args import register
from agents.ui.arena_cli import compact_table
from agents.ui.cli import main as cli_main
from reversi_env import GameState, IllegalMoveError, InvalidMoveError

REPO = Path(__file__).resolve().parents[2]
CHEAP = ["random", "alphabeta:1", "positional", "mcts:sims=50"]


def game_lines(path: Path) -> list[dict[str, Any]]:
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [r for r in records if r["type"] == "game"]


def played(path: Path) -> dict[str, tuple[str, str]]:
    """game id -> (transcript, winner), the identity of what was played."""
    return {g["game_id"]: (g["result"]["transcript"], g["result"]["winner"]) for g in game_lines(path)}


# -- openings and schedules ---------------------------------------------------------


def test_opening_parse_and_name_round_trip() -> None:
    o = Opening.parse("F5 d6, C3")
    assert o.moves == ("F5", "D6", "C3")
    assert o.name == "f5d6c3"
    assert Opening.parse(o.name) == o
    assert o.state() == GameState.initial().apply("F5").apply("D6").apply("C3")
    assert Opening.parse("start") == Opening() and Opening().name == "start"
    with pytest.raises(IllegalMoveError):
        Opening.parse("a1")
    with pytest.raises(InvalidMoveError):
        Opening.parse("z9")
    with pytest.raises(ValueError, match="two characters"):
        Opening.parse("f5d")


def test_random_openings_are_distinct_and_reproducible() -> None:
    a = random_openings(30, 4, seed=1)
    assert a == random_openings(30, 4, seed=1)
    assert a != random_openings(30, 4, seed=2)
    assert len({o.state() for o in a}) == 30
    assert all(len(o.moves) == 4 for o in a)
    # perft(2) = 12: there are only twelve 2-ply positions.
    assert len(random_openings(12, 2)) == 12
    with pytest.raises(ValueError, match="only 12 distinct 2-ply"):
        random_openings(13, 2)


def test_random_openings_kept_to_positions_a_test_accepts() -> None:
    # Accepted: the positions of lines that start with F5, up to three plies. Every ply of
    # every opening is kept to them; a test nothing passes gives no opening.
    allowed, frontier = set(), [GameState.initial().apply("F5")]
    for _ in range(3):
        allowed.update(frontier)
        frontier = [state.apply(a) for state in frontier for a in state.legal_actions()]
    kept = random_openings(10, 3, seed=1, keep=lambda state: state in allowed)
    assert {o.moves[0] for o in kept} == {"F5"} and len({o.state() for o in kept}) == 10
    assert {o.moves[0] for o in random_openings(10, 3, seed=1)} != {"F5"}
    with pytest.raises(ValueError, match="found only 0 distinct 3-ply"):
        random_openings(1, 3, keep=lambda state: False)


def test_load_openings_names_bad_lines(tmp_path: Path) -> None:
    f = tmp_path / "openings.txt"
    f.write_text("# my book\nf5d6\n\nf5f6  # perpendicular\n")
    assert [o.name for o in load_openings(f)] == ["f5d6", "f5f6"]
    f.write_text("f5d6\nf5a1\n")
    with pytest.raises(ValueError) as info:
        load_openings(f)
    assert str(info.value) == f"{f}:2: move 2: illegal move A1 (0) for O: it flips nothing or the square is taken"
    f.write_bytes(b"\xff\xfef5d6\n")
    with pytest.raises(ValueError, match=r"openings.txt: not a text file of openings \(invalid start byte at byte 0"):
        load_openings(f)
    f.write_text("f5d6\nF5 D6\n")
    with pytest.raises(ValueError, match="repeats the position of line 1"):
        load_openings(f)


def test_round_robin_schedule_plays_each_opening_twice_with_colours_swapped() -> None:
    t = Tournament.create(["a", "b", "c"], games=6, seed=3)
    games = t.schedule()
    assert len(games) == 3 * 6
    assert len({g.game_id for g in games}) == len(games)
    assert len(t.openings) == 3
    per_pair = Counter(frozenset((g.black, g.white)) for g in games)
    assert set(per_pair.values()) == {6}
    colours = Counter((g.black, g.white, g.opening) for g in games)
    for (black, white, opening), n in colours.items():
        assert n == 1 and colours[(white, black, opening)] == 1
    # Seeds depend on the tournament seed and the game, nothing else.
    assert [g.seed for g in games] == [g.seed for g in Tournament.create(["a", "b", "c"], games=6, seed=3).schedule()]
    assert len({g.seed for g in games}) == len(games)


def test_gauntlet_schedule() -> None:
    t = Tournament.create(["hero", "x", "y", "z"], mode="gauntlet", games=4)
    games = t.schedule()
    assert len(games) == 3 * 4
    assert all("hero" in (g.black, g.white) for g in games)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"agents": ["a"]}, "at least two"),
        ({"agents": ["a", "a"]}, "repeated: a"),
        (
            {"agents": ["alphabeta:2", "random", "alphabeta:2,eval=hand"]},
            "'alphabeta:2,eval=hand' is 'alphabeta:2' again",
        ),
        ({"agents": ["mcts:sims=5,c=1", "mcts:c=1.0,iters=5"]}, "is 'mcts:sims=5,c=1' again"),
        ({"agents": ["alphazero", "alphazero:sims=200"]}, "'alphazero:sims=200' is 'alphazero' again"),
        ({"agents": ["a", "b"], "games": 3}, "even"),
        ({"agents": ["a", "b"], "games": 0}, "even"),
        ({"agents": ["a", "b"], "mode": "swiss"}, "mode"),
    ],
)
def test_tournament_bad_input(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Tournament.create(**kwargs)


def test_tournament_round_trips_through_json() -> None:
    t = Tournament.create(["a", "b"], games=4, seed=9, time_limit=5.0)
    assert Tournament.from_dict(json.loads(json.dumps(t.to_dict()))) == t


def test_a_tournament_s_game_clock_is_one_time_control_in_its_file_and_its_games(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plain = Tournament.create(["random", "greedy"], games=2, seed=2, time_limit=5.0)
    assert "clock" not in plain.to_dict() and plain.time_control == TimeControl(move=5.0)  # the file as before
    clocked = Tournament.create(
        ["random", "greedy"], games=2, seed=2, time_limit=5.0, clock=TimeControl.parse_clock("40/30+1")
    )
    assert clocked.to_dict()["clock"] == "40/30+1"
    assert Tournament.from_dict(json.loads(json.dumps(clocked.to_dict()))) == clocked
    assert clocked.time_control == TimeControl(move=5.0, clock=30.0, increment=1.0, moves_to_go=40)
    with pytest.raises(ValueError, match="malformed tournament record"):
        Tournament.from_dict({**clocked.to_dict(), "clock": "soon"})
    out = tmp_path / "r.jsonl"
    run_tournament(plain, out, jobs=1)
    with pytest.raises(ValueError, match="different tournament"):  # another clock is another tournament
        run_tournament(clocked, out, jobs=1, resume=True)
    args = ["arena", "random", "greedy", "--games", "2", "--clock", "30+1", "--out", str(tmp_path / "c.jsonl")]
    status, err = run_cli(args, capsys)
    assert status == 0, err
    written = read_results(tmp_path / "c.jsonl").tournament
    assert written is not None and written.clock == TimeControl.parse_clock("30+1")


# -- playing and the results file ------------------------------------------------


def test_run_writes_every_game_once_and_reading_back_reproduces_the_table(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    t = Tournament.create(CHEAP, games=4, seed=1)
    seen: list[int] = []
    table = run_tournament(t, out, jobs=1, progress=lambda done, total, r: seen.append(done))
    assert seen == list(range(1, len(t.schedule()) + 1)) and len(seen) == 6 * 4
    lines = out.read_text().splitlines()
    assert json.loads(lines[0])["type"] == "tournament"
    games = game_lines(out)
    assert sorted(g["game_id"] for g in games) == sorted(g.game_id for g in t.schedule())
    for g in games:
        r = g["result"]
        assert r["reason"] == "end", r["details"]
        assert g["disc_difference"] == r["black"] - r["white"]
        assert g["black_score"] == {"black": 1.0, "white": 0.0, "draw": 0.5}[r["winner"]]
        game = GameResult.from_dict(r)
        assert game.start_state() == Opening.parse(g["opening"]).state()
        assert g["transcript"] == g["opening"] + game.transcript
        assert Opening.parse(g["transcript"][:-2]).state().apply(game.moves[-1]) == game.final_state()
        assert len(r["times"]) == len(r["moves"])
    again = ratings_from_records(read_results(out))
    assert again.to_dict() == table.to_dict()
    assert table.anchor == "random"
    assert sum(a.games for a in table.agents) == 2 * len(games)


def test_existing_results_are_never_overwritten(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    t = Tournament.create(["random", "alphabeta:1"], games=2)
    run_tournament(t, out, jobs=1)
    before = out.read_bytes()
    with pytest.raises(ValueError, match="--resume"):
        run_tournament(t, out, jobs=1)
    other = Tournament.create(["random", "alphabeta:2"], games=2)
    with pytest.raises(ValueError, match="different tournament"):
        run_tournament(other, out, jobs=1, resume=True)
    assert out.read_bytes() == before
    # Resuming a finished tournament plays nothing.
    run_tournament(t, out, jobs=1, resume=True)
    assert out.read_bytes() == before


def test_a_tournament_started_by_a_worker_importing_its_script_says_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A spawned worker imports the script that runs the tournament (multiprocessing marks
    # that import): without `if __name__ == "__main__":` it used to start the tournament
    # again and die on "already holds results: pass --resume", which misled.
    import multiprocessing

    monkeypatch.setattr(multiprocessing.current_process(), "_inheriting", True, raising=False)
    t = Tournament.create(["random", "alphabeta:1"], games=2)
    with pytest.raises(RuntimeError, match='if __name__ == "__main__":'):
        run_tournament(t, tmp_path / "r.jsonl", jobs=2)
    assert not (tmp_path / "r.jsonl").exists()


def test_resume_can_extend_a_tournament_with_agents_and_games(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    small = Tournament.create(["random", "alphabeta:1"], games=2, seed=4)
    run_tournament(small, out, jobs=1)
    first = played(out)
    # A new agent joins: only its pairings are played.
    more_agents = Tournament.create(["random", "alphabeta:1", "positional"], games=2, seed=4)
    run_tournament(more_agents, out, jobs=1, resume=True)
    # More games per pairing: the first openings are the same ones.
    more_games = Tournament.create(["random", "alphabeta:1", "positional"], games=4, seed=4)
    assert more_games.openings[:1] == small.openings
    table = run_tournament(more_games, out, jobs=1, resume=True)
    now = played(out)
    assert all(now[k] == v for k, v in first.items())
    assert sorted(now) == sorted(g.game_id for g in more_games.schedule())
    data = read_results(out)
    assert data.tournament == more_games
    assert [a.games for a in table.agents] == [8, 8, 8]
    # Not an extension: another seed, or games dropped.
    for other in (
        Tournament.create(["random", "alphabeta:1", "positional"], games=4, seed=5),
        Tournament.create(["random", "alphabeta:1"], games=4, seed=4),
    ):
        with pytest.raises(ValueError, match="different tournament"):
            run_tournament(other, out, jobs=1, resume=True)


def test_truncated_last_line_is_ignored_and_cut_on_resume(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    t = Tournament.create(["random", "alphabeta:1"], games=4)
    run_tournament(t, out, jobs=1)
    full = played(out)
    lines = out.read_text().splitlines(keepends=True)
    # Lose the last two games: one entirely, one half-written.
    out.write_text("".join(lines[:-2]) + lines[-2][: len(lines[-2]) // 2])
    data = read_results(out)
    assert data.truncated and len(data.games) == 2
    run_tournament(t, out, jobs=1, resume=True)
    assert played(out) == full
    assert all(line.endswith("}") for line in out.read_text().splitlines())


def test_a_whole_last_record_without_its_newline_is_kept(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # An editor that drops the final newline made the last game look half-written: it was
    # ignored by `reversi ratings` and cut off and played again by --resume.
    out = tmp_path / "r.jsonl"
    t = Tournament.create(["random", "alphabeta:1"], games=2, time_limit=None)
    run_tournament(t, out, jobs=1)
    full = out.read_bytes()
    out.write_bytes(full.rstrip(b"\n"))
    data = read_results(out)
    assert not data.truncated and len(data.games) == 2
    assert cli_main(["ratings", str(out)]) == 0
    assert capsys.readouterr().err == ""
    run_tournament(t, out, jobs=1, resume=True)  # nothing to play; the newline is back
    assert out.read_bytes() == full


def test_resume_of_a_file_cut_in_its_first_line_starts_afresh(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    t = Tournament.create(["random", "alphabeta:1"], games=2)
    out.write_text('{"type":"tournament","vers')
    run_tournament(t, out, jobs=1, resume=True)
    data = read_results(out)
    assert data.tournament == t and len(data.games) == 2 and not data.truncated


def test_an_out_that_is_not_a_results_file_is_named_for_what_it_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    t = Tournament.create(["random", "alphabeta:1"], games=2)
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    with pytest.raises(ValueError, match=r"notes.txt holds something other than arena results"):
        run_tournament(t, notes, jobs=1)
    with pytest.raises(ValueError, match=r"is a directory: --out names a results file"):
        run_tournament(t, tmp_path, jobs=1)
    assert notes.read_text() == "my notes\n"
    run_tournament(t, tmp_path / "r.jsonl", jobs=1)
    with pytest.raises(ValueError, match=r"r.jsonl already holds results: pass --resume"):
        run_tournament(t, tmp_path / "r.jsonl", jobs=1)
    assert cli_main(["ratings", str(notes)]) == 2
    assert capsys.readouterr().err == f"reversi ratings: error: {notes}: not a results file of reversi arena\n"


def test_a_wrong_record_at_the_end_is_reported_not_cut(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    t = Tournament.create(["random", "alphabeta:1"], games=2)
    run_tournament(t, out, jobs=1)
    with open(out, "a") as f:
        f.write('{"type": "comment"}\n')
    before = out.read_bytes()
    with pytest.raises(ValueError, match=r"r.jsonl:4: bad results line: unknown record type 'comment'"):
        run_tournament(t, out, jobs=1, resume=True)
    assert out.read_bytes() == before


def test_bad_line_in_the_middle_is_an_error_and_duplicates_count_once(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    run_tournament(Tournament.create(["random", "alphabeta:1"], games=2), out, jobs=1)
    lines = out.read_text().splitlines(keepends=True)
    out.write_text("".join([lines[0], lines[1], lines[1], lines[2]]))
    data = read_results(out)
    assert data.duplicates == 1 and len(data.games) == 2
    out.write_text("".join([lines[0], "{not json\n", lines[1], lines[2]]))
    with pytest.raises(ValueError, match=r"r.jsonl:2: bad results line"):
        read_results(out)


def arena_command(out: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "agents", "arena", *extra, "--out", str(out), "--no-progress"]


def test_mcts_at_the_arenas_default_time_is_the_same_player(tmp_path: Path) -> None:
    """In the arena ``mcts`` thinks 1 s a move (``MCTS_TIME``), so ``mcts:time=1`` is the same player: the
    one-line error, no game played. They were two players, their games against each other rating nothing."""
    out = tmp_path / "r.jsonl"
    done = subprocess.run(
        arena_command(out, "mcts", "mcts:time=1", "--games", "2", "--jobs", "1"),
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "'mcts:time=1' is 'mcts' again" in done.stderr, done.stderr
    assert not out.exists()


def test_resume_after_sigkill_plays_exactly_the_scheduled_games(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    agents = ["random", "alphabeta:2", "alphabeta:3"]
    args = [*agents, "--games", "8", "--jobs", "1", "--seed", "5"]
    total = 3 * 8
    proc = subprocess.Popen(arena_command(out, *args), cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if out.exists() and len(out.read_text().splitlines()) >= 1 + 3:
            break
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    killed_at = len(game_lines(out))
    assert 3 <= killed_at < total, "the run must be killed mid-way"
    # A kill can land mid-write; simulate the worst case too.
    with open(out, "a") as f:
        f.write('{"type":"game","game_id":"rand')
    done = subprocess.run(arena_command(out, *args, "--resume"), cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    ids = [g["game_id"] for g in game_lines(out)]
    expected = [g.game_id for g in Tournament.create(agents, games=8, seed=5).schedule()]
    assert sorted(ids) == sorted(expected)
    assert len(ids) == len(set(ids)) == total
    assert "alphabeta:3" in done.stdout and "anchor" in done.stdout
    # A bare --resume of a finished file takes the tournament from the file.
    bare = subprocess.run(arena_command(out, "--resume"), cwd=REPO, capture_output=True, text=True)
    assert bare.returncode == 0, bare.stderr
    assert len(game_lines(out)) == total


# -- backends ---------------------------------------------------------------------


# A GTP engine (an isolated player can no longer signal its worker: see
# test_isolation.py) that answers everything, and its first move by killing
# the worker above it.
PARENT_KILLER = """
import os, sys

for line in sys.stdin:
    if line.startswith("genmove") and not os.path.exists({marker!r}):
        open({marker!r}, "w").close()
        os.kill(os.getppid(), 9)
    print("= \\n", flush=True)
"""

KILLER = """
import os

MARKER = {marker!r}


class Killer:
    name = "killer"

    def act(self, observation):
        try:  # created atomically: of two workers that reach this at once, one dies
            os.close(os.open(MARKER, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            return int(observation["action_mask"].nonzero()[0][0])
        os._exit(9)  # the worker process dies mid-game, once


def make():
    return Killer()
"""


@pytest.fixture(scope="module")
def local_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Tournament, Path]:
    out = tmp_path_factory.mktemp("local") / "local.jsonl"
    t = Tournament.create(CHEAP, games=4, seed=11)
    run_tournament(t, out, jobs=2)
    return t, out


def test_local_pool_plays_the_same_games_as_one_process(local_run: tuple[Tournament, Path], tmp_path: Path) -> None:
    t, out = local_run
    single = tmp_path / "single.jsonl"
    run_tournament(t, single, jobs=1)
    assert played(out) == played(single)
    assert len(played(out)) == len(t.schedule())


def test_a_player_process_that_dies_costs_only_its_own_game(tmp_path: Path) -> None:
    killer = tmp_path / "killer.py"
    killer.write_text(KILLER.format(marker=str(tmp_path / "died")))
    spec = f"python:{killer}:make"
    out = tmp_path / "r.jsonl"
    t = Tournament.create(["random", spec], games=4)
    run_tournament(t, out, jobs=2)
    assert (tmp_path / "died").exists()
    games = game_lines(out)
    assert sorted(g["game_id"] for g in games) == sorted(g.game_id for g in t.schedule())
    lost = [g for g in games if g["reason"] == "error"]
    assert len(lost) == 1 and "process ended" in lost[0]["result"]["details"]


def test_ctrl_c_given_to_another_thread_stops_the_pool_at_once(tmp_path: Path) -> None:
    # The kernel may give a Ctrl-C to any thread; Python acts on it in the main one, which waits for
    # the workers in slices (``waits``) and so sees it at once, not when a game ends (minutes here).
    import threading

    release = threading.Event()

    def ctrl_c() -> None:
        time.sleep(4.0)  # the pool is waiting for its first game by now
        signal.pthread_kill(threading.get_ident(), signal.SIGINT)
        release.wait(60)

    t = Tournament.create(["mcts:time=30", "mcts:time=30,seed=1"], games=2)
    threading.Thread(target=ctrl_c, daemon=True).start()
    start = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            run_tournament(t, tmp_path / "r.jsonl", jobs=1)
    finally:
        release.set()
    assert time.monotonic() - start < 15  # a game's first move alone takes 30 s
    assert not game_lines(tmp_path / "r.jsonl")


def test_ctrl_c_in_the_arena_prints_a_resume_command_that_runs_as_it_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The command named a results file with a space in two words: pasted, it failed.
    import shlex
    import threading

    out = tmp_path / "my results.jsonl"
    main = threading.get_ident()

    def ctrl_c() -> None:
        deadline = time.monotonic() + 60
        while not out.exists() and time.monotonic() < deadline:  # the tournament has begun
            time.sleep(0.01)
        time.sleep(0.5)
        signal.pthread_kill(main, signal.SIGINT)

    threading.Thread(target=ctrl_c, daemon=True).start()
    argv = ["arena", "random", "mcts:time=30", "--games", "2", "--jobs", "1", "--out", str(out), "--no-progress"]
    status, err = run_cli(argv, capsys)
    assert status == 130
    said, command = err.splitlines()[-1].split("; continue with: ")
    assert said == f"interrupted: 0 of 2 games are saved in {out}"
    assert shlex.split(command) == ["reversi", "arena", "--resume", "--out", str(out)]


def test_a_killed_worker_has_its_game_played_again(tmp_path: Path) -> None:
    import os

    def workers() -> list[int]:
        found = []
        for pid in os.listdir("/proc"):
            if pid.isdigit():
                try:
                    stat = Path(f"/proc/{pid}/stat").read_text()
                    cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
                except OSError:
                    continue
                if int(stat.rsplit(")", 1)[1].split()[1]) == os.getpid() and b"spawn_main" in cmdline:
                    found.append(int(pid))
        return found

    killed: list[int] = []

    def progress(done: int, total: int, ratings: object) -> None:
        if not killed:  # after the first game: kill a worker, mid-game or idle
            killed.extend(workers()[:1])
            os.kill(killed[0], signal.SIGKILL)

    out = tmp_path / "r.jsonl"
    t = Tournament.create(["alphabeta:2", "mcts:sims=1000"], games=6, seed=2)
    run_tournament(t, out, jobs=2, progress=progress)
    assert killed
    ids = [g["game_id"] for g in game_lines(out)]
    assert sorted(ids) == sorted(g.game_id for g in t.schedule())


def test_ray_backend_plays_the_same_games_as_the_local_pool(
    local_run: tuple[Tournament, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import ray

    t, local = local_run
    if ray.is_initialized():  # left over by another test module
        ray.shutdown()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        cluster.check_reachable(ray.get_runtime_context().gcs_address)  # a real Ray answers the HTTP/2 greeting
        out = tmp_path / "ray.jsonl"
        table = run_tournament(t, out, backend="ray", jobs=2)
        assert played(out) == played(local)
        assert table.to_dict() == ratings_from_records(read_results(local)).to_dict()
        # A Ray worker that dies has its task played again.
        killer = tmp_path / "killer.py"
        killer.write_text(KILLER.format(marker=str(tmp_path / "died")))
        kt = Tournament.create(["random", f"python:{killer}:make"], games=2)
        run_tournament(kt, tmp_path / "k.jsonl", backend="ray")
        assert (tmp_path / "died").exists()
        assert sorted(played(tmp_path / "k.jsonl")) == sorted(g.game_id for g in kt.schedule())
        # A game whose worker dies on every try ends the run in one line, as in the pool:
        # Ray's own error and traceback used to reach the user. MAX_ATTEMPTS counts every try,
        # as the pool counts them: with one, a worker that would live on a retry is not retried.
        parent_killer = tmp_path / "parent_killer.py"
        parent_killer.write_text(f"#!{sys.executable}\n" + PARENT_KILLER.format(marker=str(tmp_path / "killed")))
        parent_killer.chmod(0o755)
        monkeypatch.setattr(tournament_module, "MAX_ATTEMPTS", 1)
        pt = Tournament.create([f"gtp:{parent_killer}", "random"], games=2, seed=1)
        with pytest.raises(RuntimeError, match=r"^game '.+' failed on Ray: The worker died unexpectedly"):
            run_tournament(pt, tmp_path / "p.jsonl", backend="ray")
    finally:
        ray.shutdown()


def _closed_port() -> int:
    """A local TCP port nothing listens on (it was just free)."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.parametrize(
    ("command", "status"),
    [
        (["arena", "random", "greedy", "--games", "2", "--out", "{tmp}/games.jsonl"], 2),
        (
            ["train-az", "--out", "{tmp}/r", "--iterations", "1", "--games", "1", "--channels", "8", "--blocks", "1"],
            1,
        ),
    ],
)
def test_a_ray_address_where_nothing_listens_is_one_line_at_once(
    tmp_path: Path, command: list[str], status: int
) -> None:
    # ray.init retried there for many minutes (more than five in a manual run), a warning every few seconds.
    address = f"127.0.0.1:{_closed_port()}"
    command = [word.format(tmp=tmp_path) for word in command]
    argv = [sys.executable, "-m", "agents", *command, "--backend", "ray", "--address", address, "--no-progress"]
    start = time.monotonic()
    # From the checkout, whose numba cache the tests' own imports filled: an installed copy's first
    # import compiles for a minute or more, which is not what this test times.
    proc = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, timeout=60)
    assert proc.returncode == status and time.monotonic() - start < 30, proc.stderr
    lines = proc.stderr.splitlines()  # the arena's heading, then the error; no warnings from Ray's retries
    assert f"no Ray cluster answers at '{address}': Connection refused" in lines[-1], proc.stderr
    assert not [line for line in lines[:-1] if "Ray" in line or "GCS" in line or "Traceback" in line], proc.stderr


def test_a_ray_address_that_never_answers_is_one_line_after_the_reach_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A host that drops the connection (down, or behind a firewall: 10.255.255.1 on most networks)
    neither accepts nor refuses; here a listener whose queue is full does the same, so the wait is
    REACH_TIMEOUT, lowered for the test."""
    monkeypatch.setattr(cluster, "REACH_TIMEOUT", 0.5)
    with socket.socket() as server, contextlib.ExitStack() as fillers:
        server.bind(("127.0.0.1", 0))
        server.listen(0)
        address = f"127.0.0.1:{server.getsockname()[1]}"
        for _ in range(3):  # connections never accepted: the queue is full
            filler = fillers.enter_context(socket.socket())
            filler.setblocking(False)
            filler.connect_ex(server.getsockname())
        with pytest.raises(TimeoutError):  # else ray.init would be tried, for minutes
            socket.create_connection(server.getsockname(), timeout=0.2).close()
        out = tmp_path / "games.jsonl"
        argv = ["arena", "random", "greedy", "--games", "2", "--out", str(out), "--no-progress"]
        start = time.monotonic()
        status = cli_main([*argv, "--backend", "ray", "--address", address])
        elapsed = time.monotonic() - start
    err = capsys.readouterr().err.splitlines()
    assert status == 2 and elapsed < 3.0, (elapsed, err)
    assert err[-1] == f"reversi arena: error: no Ray cluster answers at '{address}': timed out", err
    assert not [line for line in err[:-1] if "Ray" in line or "Traceback" in line], err
    assert not out.exists()


def test_a_ray_address_where_another_server_listens_is_refused_at_once() -> None:
    # A web server there (Ray's dashboard port, 8265, is an easy slip): the TCP connection
    # opened, and ray.init retried for minutes (over 200 s in a manual run), a warning every few seconds.
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    address = f"127.0.0.1:{server.server_address[1]}"
    try:
        start = time.monotonic()
        with pytest.raises(ValueError) as refused:
            cluster.check_reachable(address)
        assert time.monotonic() - start < 1.0
    finally:
        server.shutdown()
        server.server_close()
    said = f"no Ray cluster answers at '{address}': the server there does not speak Ray's protocol (gRPC)"
    assert str(refused.value) == said


def test_bad_backend_and_jobs(tmp_path: Path) -> None:
    t = Tournament.create(["random", "greedy"], games=2)
    with pytest.raises(ValueError, match="backend"):
        run_tournament(t, tmp_path / "r.jsonl", backend="dask")
    with pytest.raises(ValueError, match="jobs"):
        run_tournament(t, tmp_path / "r.jsonl", jobs=0)
    # An address without the ray backend was ignored: the games ran here, not on the cluster.
    with pytest.raises(ValueError, match=r"address 'auto' names a Ray cluster: it needs the ray backend"):
        run_tournament(t, tmp_path / "r.jsonl", jobs=1, address="auto")
    assert not (tmp_path / "r.jsonl").exists()
    with pytest.raises(ValueError, match="nosuchagent"):
        run_tournament(Tournament.create(["random", "nosuchagent"], games=2), tmp_path / "r.jsonl", jobs=1)


def test_the_anchor_may_play_its_first_game_late_but_must_be_an_agent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The standings after each game were fitted on the anchor from the first game on: an
    # anchor that had not played yet stopped the tournament after one game, and an anchor
    # that is no agent at all was only refused then.
    t = Tournament.create(["random", "greedy", "alphabeta:1"], games=2, time_limit=None)
    seen: list[int] = []
    table = run_tournament(
        t, tmp_path / "r.jsonl", jobs=1, anchor="alphabeta:1", progress=lambda done, total, r: seen.append(done)
    )
    assert seen == [1, 2, 3, 4, 5, 6]
    assert table.anchor == "alphabeta:1" and table.by_name("alphabeta:1").elo == 0.0
    out = tmp_path / "other.jsonl"
    argv = ["arena", "random", "greedy", "--anchor", "nobody", "--out", str(out), "--no-progress"]
    status, err = run_cli(argv, capsys)
    assert status == 2
    assert err.splitlines()[-1] == "reversi arena: error: anchor 'nobody' is not one of the agents: random, greedy"
    assert not out.exists()


# -- the subcommands --------------------------------------------------------------


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="reversi")
    register(p.add_subparsers(dest="command", required=True))
    return p


def test_register_adds_arena_and_ratings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r.jsonl"
    args = parser().parse_args(["arena", "random", "alphabeta:1", "--games", "2", "--jobs", "1", "--out", str(out)])
    assert args.func(args) == 0
    text = capsys.readouterr().out
    assert "alphabeta:1" in text and "random" in text
    png, summary = tmp_path / "r.png", tmp_path / "r.json"
    args = parser().parse_args(
        ["ratings", str(out), "--plot", str(png), "--json", str(summary), "--anchor", "alphabeta:1"]
    )
    assert args.func(args) == 0
    assert capsys.readouterr().out.splitlines()[0].split()[:2] == ["#", "agent"]
    data = json.loads(summary.read_text())
    assert data["anchor"] == "alphabeta:1"
    assert sum(a["games"] for a in data["agents"]) == 4
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_ratings_of_several_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    run_tournament(Tournament.create(["random", "alphabeta:1"], games=2, seed=1), a, jobs=1)
    run_tournament(Tournament.create(["random", "alphabeta:1"], games=2, seed=2), b, jobs=1)
    # Two tournaments add up; a file given twice counts once.
    assert cli_main(["ratings", str(a), str(b), str(a), "--json", "-"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [row["games"] for row in data["agents"]] == [4, 4]


def test_two_spellings_of_one_player_are_one_row(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``alphabeta:1,eval=hand`` is ``alphabeta:1`` (eval=hand is its default at a fixed depth): the
    tables gave them a row each, its games split between them, and the anchor had to be spelled as run."""
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    first = Tournament.create(["random", "alphabeta:1"], games=2, time_limit=None)
    assert run_tournament(first, a, jobs=1, anchor="alphabeta:depth=1").anchor == "alphabeta:1"
    run_tournament(Tournament.create(["random", "alphabeta:1,eval=hand"], games=2, seed=1, time_limit=None), b, jobs=1)
    assert cli_main(["ratings", str(a), str(b), "--json", "-", "--anchor", "alphabeta:1,eval=hand"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [(row["name"], row["games"]) for row in data["agents"]] == [("alphabeta:1", 4), ("random", 4)]
    assert data["anchor"] == "alphabeta:1" and sorted(data["pairwise"]) == ["alphabeta:1", "random"]
    # The file keeps the spec as the user gave it, so the tournament is resumed and replayed as it was.
    assert read_results(b).tournament.agents == ["random", "alphabeta:1,eval=hand"]  # type: ignore[union-attr]


def test_an_older_file_with_one_player_spelled_two_ways_loads_merged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file an older version wrote, whose tournament had ``alphabeta:1`` and ``alphabeta:1,eval=hand``
    (their games against each other included), reads as one player and resumes with nothing to play."""
    spellings = ["alphabeta:1", "alphabeta:1,eval=hand"]
    t = Tournament.create(["random", "greedy"], games=2)
    lines = [{"type": "tournament", "version": 1, "tournament": {**t.to_dict(), "agents": [*spellings, "random"]}}]
    pairs = [(*spellings,), *((s, "random") for s in spellings)]
    for black, white in [*pairs, *((w, b) for b, w in pairs)]:
        game_id = f"{black} vs {white} @ {t.openings[0]}"
        game = tournament_module.ScheduledGame(game_id, black, white, t.openings[0], derive_seed(t.seed, game_id))
        lines.append(tournament_module.play_scheduled(game, t.time_limit))
    old = tmp_path / "old.jsonl"
    old.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert cli_main(["ratings", str(old), "--json", "-"]) == 0
    out, err = capsys.readouterr()
    assert [(row["name"], row["games"]) for row in json.loads(out)["agents"]] == [("alphabeta:1", 4), ("random", 4)]
    assert "left out 2 game(s) of one player against itself" in err
    assert cli_main(["arena", "--resume", "--out", str(old), "--no-progress", "--jobs", "1"]) == 0
    assert len(game_lines(old)) == 6 and "alphabeta:1,eval=hand" not in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["arena", "random"], "at least two agents"),
        (["arena"], "name at least two agents"),
        (["arena", "random", "greedy", "--games", "3"], "even"),
        (["arena", "random", "nosuch"], "nosuch"),
        (["arena", "--resume", "--out", "/nonexistent/r.jsonl"], "does not exist"),
        (["ratings", "/nonexistent/r.jsonl"], "No such file"),
    ],
)
def test_cli_bad_input_is_a_clear_error(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main([*argv, "--no-progress"] if argv[0] == "arena" else argv) == 2
    assert message in capsys.readouterr().err


def test_compact_standings_line() -> None:
    games = [
        {"game_id": str(i), "black": "a", "white": "b", "black_score": 1.0, "disc_difference": 10} for i in range(3)
    ] + [{"game_id": "x", "black": "b", "white": "a", "black_score": 1.0, "disc_difference": 2}]
    table = ratings_from_records(ResultsData(None, games), anchor="b")
    # 3 of 4 for a: Elo 400 log10(3) = +191.
    assert compact_table(table) == "a +191 (75%) | b +0 (25%)"
    assert compact_table(table, width=1) == "a +191 (75%) | +1 more"


def test_a_game_played_again_with_other_moves_counts_again_across_files() -> None:
    # Two runs of one command have the same game ids and seeds; with time limits they play
    # other games, and the second run's games were dropped as copies of the first's.
    game = {"game_id": "a vs b @ f5d6", "seed": 7, "black": "a", "white": "b", "black_score": 1.0}
    first = {**game, "disc_difference": 10, "transcript": "f5d6c3"}
    again = {**game, "black_score": 0.0, "disc_difference": -4, "transcript": "f5d6c5"}
    files = [ResultsData(None, [first]), ResultsData(None, [again]), ResultsData(None, [first])]
    table = ratings_from_records(files, anchor="a")  # the first game's copy counts once
    assert (table.by_name("a").games, table.by_name("a").wins, table.by_name("a").losses) == (2, 1, 1)


def test_results_data_outcomes_feed_the_ratings() -> None:
    game = {"game_id": "x", "black": "a", "white": "b", "black_score": 0.5, "disc_difference": 0}
    table = ratings_from_records(ResultsData(None, [game]), anchor="a")
    assert table.by_name("b").draws == 1


def test_progress_into_a_file_has_no_cursor_moves(tmp_path: Path) -> None:
    # stderr a pipe, as when it goes to a log: the bar is there, the standings line
    # that moves the cursor between two lines is not.
    out = tmp_path / "r.jsonl"
    args = [sys.executable, "-m", "agents", "arena", "random", "greedy", "--games", "2", "--out", str(out)]
    done = subprocess.run(args, capture_output=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert b"2/2" in done.stderr and b"\x1b[" not in done.stderr
