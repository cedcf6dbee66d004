"""The arena when players misbehave and files lie: real workers, engines and signals."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import run_cli

from agents.arena import tournament as tournament_module
from agents.arena.tournament import FORMAT_VERSION, ScheduledGame, Tournament, play_scheduled, run_tournament
from agents.play.match import GameResult

REPO = Path(__file__).resolve().parents[2]
RHINO = "/usr/games/gtp-rhino"


def reversi(*args: str) -> list[str]:
    return [sys.executable, "-m", "agents", *args]


def test_a_player_that_cannot_start_loses_its_game_with_reason_error() -> None:
    game = ScheduledGame("g", "random", "gtp:/nonexistent/engine", "start", 7)
    record = play_scheduled(game, time_limit=5.0)
    result = GameResult.from_dict(record["result"])
    assert (result.reason, result.loser, result.winner) == ("error", "white", "black")
    assert "cannot start" in result.details and "/nonexistent/engine" in result.details


def test_the_arena_refuses_a_player_that_cannot_load_before_playing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("raise ImportError('this player is broken')\n")
    out = tmp_path / "r.jsonl"
    status, err = run_cli(["arena", "random", f"python:{broken}:make", "--out", str(out), "--no-progress"], capsys)
    assert status == 2
    assert "this player is broken" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1  # the error alone, no plan line before it
    assert not out.exists() or not [line for line in out.read_text().splitlines() if '"game"' in line]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["random", "mcts:sims=0"], "'mcts:sims=0': sims must be > 0"),
        (["random", "pattern:weights=no-such.npz"], "no such weights file"),
        (["random", "greedy", "--anchor", "nobody"], "anchor 'nobody' is not one of the agents"),
    ],
)
def test_a_bad_spec_or_anchor_is_one_line_before_anything_else(
    args: list[str], needle: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    status, err = run_cli(["arena", *args, "--games", "2", "--out", "r.jsonl"], capsys)
    assert status == 2 and err.startswith("reversi arena: error: ") and needle in err
    assert len(err.splitlines()) == 1, err  # no plan line, no progress bar
    assert not (tmp_path / "r.jsonl").exists()


def test_what_a_course_player_prints_or_reads_stays_off_the_arenas_stdout(tmp_path: Path) -> None:
    player = tmp_path / "chatty.py"
    player.write_text(
        "class Chatty:\n"
        "    def __init__(self, color):\n"
        "        self.color = color\n"
        "    def get_move(self, board):\n"
        "        print('thinking...')\n"
        "        return list(board.get_legal_actions(self.color))[0]\n"
        "class Asks(Chatty):\n"
        "    def get_move(self, board):\n"
        "        return input('your move? ')\n"
    )
    out = tmp_path / "r.jsonl"
    specs = [f"classic:{player}:Chatty", f"classic:{player}:Asks"]
    args = ["arena", *specs, "--games", "2", "--jobs", "1", "--out", str(out), "--no-progress", "--json", "-"]
    done = subprocess.run(reversi(*args), cwd=REPO, capture_output=True, text=True, timeout=600, stdin=None)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)  # the summary alone: the player's prints went to stderr
    assert len(summary["agents"]) == 2 and "thinking..." in done.stderr
    games = [json.loads(line) for line in out.read_text().splitlines()[1:]]
    asks = [g for g in games if f"classic:{player}:Asks" in (g["black"], g["white"])]
    assert len(asks) == 2 and all(g["reason"] == "error" and "EOFError" in g["result"]["details"] for g in asks)


def test_workers_are_fresh_after_a_timeout(tmp_path: Path) -> None:
    # alphabeta:20 never finishes a move in 0.5 s; its abandoned search must not
    # starve the innocent games that follow in the same worker.
    tournament = Tournament.create(["alphabeta:20", "random", "greedy"], games=2, seed=3, time_limit=0.5)
    out = tmp_path / "r.jsonl"
    run_tournament(tournament, out, jobs=2)
    games = [json.loads(line) for line in out.read_text().splitlines()[1:]]
    assert len(games) == 6
    for g in games:
        if "alphabeta:20" in (g["black"], g["white"]):
            assert g["reason"] == "timeout"
            assert g["result"]["loser"] == ("black" if g["black"] == "alphabeta:20" else "white")
        else:
            assert g["reason"] == "end", g["result"]["details"]


def descendants(pid: int) -> set[int]:
    """Every process below ``pid``, from /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            children.setdefault(ppid, []).append(int(entry))
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.skipif(not Path(RHINO).exists(), reason="needs gtp-rhino (apt-get install grhino)")
def test_engines_and_workers_die_with_the_arena_after_sigkill(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    arena = subprocess.Popen(
        reversi("arena", f"gtp:{RHINO}", "mcts:sims=20000", "--games", "40", "--jobs", "2", "--out", str(out)),
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        engines: set[int] = set()
        while time.monotonic() < deadline and not engines:
            time.sleep(0.2)
            below = descendants(arena.pid)
            engines = {p for p in below if "gtp-rhino" in Path(f"/proc/{p}/cmdline").read_text(errors="replace")}
        assert engines, "no engine started"
        below = descendants(arena.pid)
        arena.send_signal(signal.SIGKILL)
        arena.wait(timeout=10)
        end = time.monotonic() + 10
        while time.monotonic() < end and any(alive(p) for p in below):
            time.sleep(0.1)
        assert not [p for p in below if alive(p)], "processes outlived the arena"
    finally:
        arena.kill()
        arena.wait(timeout=10)


def results_file(path: Path, agents: list[str]) -> None:
    tournament = Tournament.create(agents, games=2, seed=1)
    line = {"type": "tournament", "version": FORMAT_VERSION, "tournament": tournament.to_dict()}
    path.write_text(json.dumps(line) + "\n")


def test_a_bare_resume_never_starts_a_program_named_in_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    marker = tmp_path / "pwned"
    out = tmp_path / "r.jsonl"
    results_file(out, ["random", f"gtp:/bin/sh -c 'touch {marker}'"])
    status, err = run_cli(["arena", "--resume", "--out", str(out), "--no-progress"], capsys)
    assert status == 2
    assert "never starts them" in err and "Traceback" not in err
    assert not marker.exists()
    # The same file with built-in players only is resumed as it is.
    plain = tmp_path / "plain.jsonl"
    results_file(plain, ["random", "greedy"])
    status, err = run_cli(["arena", "--resume", "--out", str(plain), "--no-progress"], capsys)
    assert status == 0, err


def test_resume_with_players_that_differ_from_the_file_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    marker = tmp_path / "pwned"
    out = tmp_path / "r.jsonl"
    results_file(out, ["random", f"gtp:/bin/sh -c 'touch {marker}'"])
    status, err = run_cli(["arena", "random", "greedy", "--resume", "--out", str(out), "--no-progress"], capsys)
    assert status == 2 and "different tournament" in err
    assert not marker.exists()


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ('{"type":"game","game_id":"g","black":"a","white":"b","black_score":1,"disc_difference":1e400}\n', "range"),
        ('{"type":"game","game_id":"g","black":"a","white":"b","black_score":NaN,"disc_difference":2}\n', "NaN"),
        ("[" * 100_000 + "]" * 100_000 + "\n", "nested"),
        ('{"type":"tournament","version":1,"tournament":{"agents":["a","b"],"time_limit":1e400}}\n', "range"),
        ('{"type":"game","game_id":"g","black":"a","white":"b","black_score":1,"disc_difference":900}\n', "-64 to 64"),
    ],
)
def test_hostile_results_files_get_one_clear_line(
    tmp_path: Path, content: str, needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(content + '{"type":"game"}\n')  # a second line, so the first is not taken as a torn write
    status, err = run_cli(["ratings", str(bad)], capsys)
    assert status == 2
    assert needle in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--games", "100000"], "distinct"),
        (["--opening-plies", "61"], "--opening-plies"),
        (["--time-limit", "inf"], "--time-limit"),
        (["--time-limit", "-1"], "--time-limit"),
        (["--seed", "99999999999999999999999"], "--seed"),
    ],
)
def test_bad_arena_options_fail_fast_in_one_line(
    tmp_path: Path, args: list[str], needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    t0 = time.monotonic()
    status, err = run_cli(["arena", "random", "greedy", *args, "--out", str(tmp_path / "r.jsonl")], capsys)
    assert status == 2 and needle in err and "Traceback" not in err
    assert time.monotonic() - t0 < 5.0


# A GTP engine that answers everything but a move, which it answers by killing its parent.
KILLER_ENGINE = """
import os, signal, sys

for line in sys.stdin:
    if line.startswith("genmove"):
        os.kill(os.getppid(), signal.SIGKILL)
    print("= \\n", flush=True)
"""


def test_a_worker_killed_under_its_game_is_named_by_its_signal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # An engine can kill the worker that runs its game (its parent process: an isolated
    # player no longer can, see test_isolation.py); the game is tried again (here: not), and
    # after the last try the arena says how the worker ended: it used to read the exit code
    # before the process was reaped and say "exit code None".
    killer = tmp_path / "killer.py"
    killer.write_text(f"#!{sys.executable}\n{KILLER_ENGINE}")
    killer.chmod(0o755)
    monkeypatch.setattr(tournament_module, "MAX_ATTEMPTS", 1)  # one try is enough to see the words
    tournament = Tournament.create([f"gtp:{killer}", "random"], games=2, seed=1, time_limit=10.0)
    with pytest.raises(RuntimeError, match=r"failed 1 times: the worker process ended \(killed by SIGKILL\)"):
        run_tournament(tournament, tmp_path / "r.jsonl", jobs=2)
