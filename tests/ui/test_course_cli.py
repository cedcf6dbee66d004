"""``reversi course``, ``reversi replay`` and the records, undo and resign of
``reversi play``, through real subprocesses and the real ``main``."""

from __future__ import annotations

import dataclasses
import os
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import TEST_DATA, run_cli

from agents.play.course import takeover
from agents.play.match import LOSING_REASONS, GameResult, play_game
from agents.play.records import UNFINISHED, from_ggf, load_record, record, write_record
from agents.ui.cli import main
from agents.ui.course_cli import replay, replay_frames
from reversi_env import GameState

WAIT = 120.0  # seconds before a stuck subprocess fails the test (never reached when it works)

STUDENT = """\
from board import Board
from game import Game
import random
import sys


class RandomPlayer:
    def __init__(self, color):
        self.color = color

    def get_move(self, board):
        moves = list(board.get_legal_actions(self.color))
        return random.choice(moves) if moves else None


random.seed(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
result = Game(RandomPlayer("X"), RandomPlayer("O")).run()
print("RESULT", result)
"""


def run(
    *args: str, stdin: str = "", cwd: Path | None = None, buffered: bool = False
) -> subprocess.CompletedProcess[str]:
    """``reversi ARGS`` in a subprocess; ``buffered``: with Python's own buffering of a piped stdout."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    if buffered:
        del env["PYTHONUNBUFFERED"]
    command = [sys.executable, "-m", "agents", *args]
    return subprocess.run(command, input=stdin, capture_output=True, text=True, timeout=WAIT, env=env, cwd=cwd)


def test_a_course_file_runs_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "student.py"
    path.write_text(STUDENT)
    done = run("course", str(path), "7")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "=====Game start!=====" in out and "=====Game over!=====" in out
    result_line = next(line for line in out.splitlines() if line.startswith("RESULT"))
    final = out[out.index("=====Game over!=====") :]
    black = int(final.split("black X: ")[1].split(" /")[0])
    white = int(final.split("white O: ")[1].split(" /")[0])
    expected = "black_win" if black > white else "white_win" if white > black else "draw"
    assert result_line == f"RESULT ('{expected}', {abs(black - white)})"
    assert done.stderr == ""


def test_the_platforms_framework_wins_over_a_copy_beside_the_file(tmp_path: Path) -> None:
    (tmp_path / "student.py").write_text(STUDENT)
    (tmp_path / "board.py").write_text("raise SystemExit('the copy was imported')\n")
    (tmp_path / "game.py").write_text("raise SystemExit('the copy was imported')\n")
    done = run("course", "student.py", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "RESULT ('" in done.stdout
    assert "note: board.py beside the file is not used" in done.stderr
    assert "note: game.py beside the file is not used" in done.stderr


def test_a_course_file_that_raises_exits_1_with_its_own_lines(tmp_path: Path) -> None:
    path = tmp_path / "broken.py"
    path.write_text(STUDENT.replace("return random.choice", "return 1 / 0 or random.choice"))
    done = run("course", str(path))
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert lines[0] == "reversi course: broken.py stopped: ZeroDivisionError: division by zero"
    assert any("broken.py, line 13, in get_move" in line for line in lines[1:])


def test_a_course_file_past_the_memory_limit_stops_with_one_line(tmp_path: Path) -> None:
    path = tmp_path / "greedy.py"
    path.write_text(STUDENT.replace("return random.choice", "return bytes(5 << 30) and random.choice"))
    done = run("course", str(path))
    assert done.returncode == 1
    assert done.stderr.splitlines()[0] == (
        "reversi course: greedy.py stopped: MemoryError: out of memory (its limit is 4 GiB)"
    )


def test_a_course_player_cannot_kill_reversi_course_itself(tmp_path: Path) -> None:
    path = tmp_path / "killer.py"
    killer = "return os.kill(os.getppid(), signal.SIGKILL) or random.choice"
    path.write_text("import os, signal\n" + STUDENT.replace("return random.choice", killer))
    done = run("course", str(path))
    assert done.returncode == 1, done.returncode
    assert done.stderr.splitlines()[0] == (
        "reversi course: killer.py stopped: PermissionError: [Errno 1] Operation not permitted"
        " (a player may not signal or trace other processes)"
    )


def test_course_exit_codes(tmp_path: Path) -> None:
    (tmp_path / "exits.py").write_text("import sys\nsys.exit(3)\n")
    assert run("course", str(tmp_path / "exits.py")).returncode == 3
    missing = run("course", str(tmp_path / "missing.py"))
    assert missing.returncode == 2 and "not a Python file" in missing.stderr


STUCK = """\
import random
import re
import sys
import time
from game import Game


class First:
    def __init__(self, color):
        self.color = color

    def get_move(self, board):
        if STUCK:
            re.match(r"(a+)+$", "a" * 40 + "b")  # hours of C code holding the GIL
        return sorted(board.get_legal_actions(self.color))[0]


STUCK = True
random.seed(7)
t0 = time.monotonic()
print("RESULT", Game(First("X"), First("O"), time_limit=0.3).run())
print("SECONDS", time.monotonic() - t0)
print("RANDOM", random.random())
STUCK = False
print("RESULT", Game(First("X"), First("O"), time_limit=0.3).run())
sys.exit(5)
"""


def test_a_get_move_holding_the_gil_loses_on_time_and_the_file_runs_on(tmp_path: Path) -> None:
    path = tmp_path / "stuck.py"
    path.write_text(STUCK)
    done = run("course", str(path))
    assert done.returncode == 5, done.stderr
    assert done.stderr == ""
    out = done.stdout
    assert out.count("black - X thought for more than 0.3 s, so white - O wins") == 1
    results = [line for line in out.splitlines() if line.startswith("RESULT")]
    assert results[0] == "RESULT ('white_win', 0)" and len(results) == 2
    seconds = float(next(line for line in out.splitlines() if line.startswith("SECONDS")).split()[1])
    assert 0.3 + takeover.GRACE <= seconds < 0.3 + takeover.GRACE + 1.5
    assert out.count("=====Game start!=====") == 2  # nothing printed twice by the copy
    assert f"RANDOM {random.Random(7).random()}" in out  # a seeded file stays seeded
    assert not running(str(path))  # the stuck process was killed, the copies ended


PRINTS_THEN_STICKS = """\
import re
from game import Game


class First:
    def __init__(self, color, stuck=False):
        self.color = color
        self.stuck = stuck

    def get_move(self, board):
        print("thinking", self.color, end="" if self.stuck else "\\n")  # the stuck one's line unfinished
        if self.stuck:
            re.match(r"(a+)+$", "a" * 40 + "b")  # hours of C code holding the GIL
        return sorted(board.get_legal_actions(self.color))[0]


print("ahead of the game, ", end="")
Game(First("X"), First("O", stuck=True), time_limit=1.5).run()  # time enough for X on a loaded machine
"""


def test_what_a_stuck_get_move_printed_reaches_a_pipe_once_and_in_order(tmp_path: Path) -> None:
    path = tmp_path / "sticks.py"
    path.write_text(PRINTS_THEN_STICKS)
    done = run("course", str(path), buffered=True)
    assert done.returncode == 0, done.stderr
    said = [line for line in done.stdout.splitlines() if line.startswith(("ahead", "thinking", "white - O"))]
    assert said == [
        "ahead of the game, ",  # printed before the first turn's fork, once
        "thinking X",
        "thinking O",  # printed, without its newline, by the process the copy killed
        "white - O thought for more than 1.5 s, so black - X wins",
    ]


HOG = """\
import mmap
import time
from game import Game


class First:
    def __init__(self, color, hog=False):
        self.color = color
        self.hog = hog
        self.held = []

    def get_move(self, board):
        if self.hog:  # all the address space but a page, mapped and never touched
            self.hog, page, size = False, mmap.mmap(-1, 4096), 1 << 30
            while size >= 4096:
                try:
                    self.held.append(mmap.mmap(-1, size))
                except OSError:
                    size //= 2
            page.close()
        return sorted(board.get_legal_actions(self.color))[0]


t0 = time.monotonic()
print("RESULT", Game(First("X", hog=True), First("O"), time_limit=0.5).run())
print("SECONDS", time.monotonic() - t0)
"""


def test_a_player_that_leaves_no_memory_loses_at_once(tmp_path: Path) -> None:
    path = tmp_path / "hog.py"
    path.write_text(HOG)
    done = run("course", str(path))
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""  # before: a thread's "Exception ignored", then white lost on time
    out = done.stdout
    assert "black - X ran out of memory (its limit is 4 GiB), so white - O wins" in out
    assert "RESULT ('white_win', 0)" in out
    assert float(out.split("SECONDS")[1]) < 0.5  # at its answer, not at the next turn's limit


TYPIST = """\
import re
import sys
from game import Game


class Human:
    def __init__(self, color):
        self.color = color

    def get_move(self, board):
        try:
            line = input("move: ")
        except EOFError:
            return "Q"
        print(f"got {line!r}")
        return line


class First:
    def __init__(self, color, stuck=False):
        self.color = color
        self.stuck = stuck

    def get_move(self, board):
        if self.stuck:
            re.match(r"(a+)+$", "a" * 40 + "b")  # hours of C code holding the GIL
        return sorted(board.get_legal_actions(self.color))[0]


print("RESULT", Game(Human("X"), First("O"), time_limit=0.2).run())
if sys.argv[1:] == ["takeover"]:
    print("RESULT", Game(First("X", stuck=True), First("O"), time_limit=0.2).run())
print("RESULT", Game(Human("X"), First("O"), time_limit=5).run())
"""


def typed_late(tmp_path: Path, *args: str) -> tuple[str, str]:
    """Run ``TYPIST``; once its games before the last have ended (the first
    with the human's read over time, abandoned in input()), type D3 and end
    the input. The file's standard output and error."""
    path = tmp_path / "typist.py"
    path.write_text(TYPIST)
    command = [sys.executable, "-m", "agents", "course", str(path), *args]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    pipe = subprocess.PIPE
    with subprocess.Popen(command, stdin=pipe, stdout=pipe, stderr=pipe, text=True, env=env) as proc:
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        results = []
        while len(results) < 1 + len(args) and (line := proc.stdout.readline()):
            results += [line] if line.startswith("RESULT") else []
        assert results == ["RESULT ('white_win', 0)\n"] * (1 + len(args))
        proc.stdin.write("D3\n")  # typed after that turn was over: for the last game
        proc.stdin.close()
        out, err = proc.stdout.read(), proc.stderr.read()
        assert proc.wait(WAIT) == 0, err
    return out, err


def test_a_line_typed_after_a_turn_timed_out_goes_to_the_next_read(tmp_path: Path) -> None:
    out, err = typed_late(tmp_path)
    assert "move: got 'D3'" in out  # before: the abandoned read took it, and this one got the end of input
    assert out.rstrip().splitlines()[-1] == "RESULT ('draw', 0)"  # Q at the end of input: 3-3 after D3 and a reply
    assert err == ""


def test_the_copy_that_took_over_reads_the_keyboard_the_abandoned_read_held(tmp_path: Path) -> None:
    out, err = typed_late(tmp_path, "takeover")  # the copy was forked while the abandoned read waited
    assert "move: got 'D3'" in out  # before: "RuntimeError: reentrant call inside <_io.BufferedReader ...>"
    assert out.rstrip().splitlines()[-1] == "RESULT ('draw', 0)"
    assert err == ""


def running(needle: str) -> list[int]:
    """The living processes whose command line holds ``needle``."""
    found = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            command = Path(f"/proc/{entry}/cmdline").read_bytes().decode(errors="replace")
            state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if needle in command and state not in ("Z", "X"):
            found.append(int(entry))
    return found


def saved_game(tmp_path: Path, name: str = "game.json") -> tuple[Path, GameResult]:
    result = play_game("random:seed=4", "greedy:seed=4", time_limit=None)
    path = tmp_path / name
    write_record(result, path)
    return path, result


def test_replay_all_prints_every_position_with_its_time(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, result = saved_game(tmp_path, "game.ggf")
    assert main(["replay", str(path), "--all"]) == 0
    out = capsys.readouterr().out
    assert out.count("  A B C D E F G H") == len(result.moves) + 1
    assert f"move 1: X (black) plays {result.moves[0]} in " in out
    assert out.rstrip().endswith(result.summary())


def test_replay_steps_forward_and_back() -> None:
    game = load_record(TEST_DATA / "ggs_triple0_saio3000.ggf")
    frames = replay_frames(game)
    shown: list[str] = []
    keys = iter(["", "", "b", "x", "q"])
    replay(game, read=lambda prompt: next(keys), write=shown.append)
    assert shown[:4] == [*frames[:3], frames[1]]
    assert "keys:" in shown[4] and len(shown) == 5
    assert frames[1].startswith("move 1: X (black) plays F5 in 0.00 s")


def test_replay_through_the_terminal(tmp_path: Path) -> None:
    path, result = saved_game(tmp_path)
    done = run("replay", str(path), stdin="\n" * (len(result.moves) + 2))
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("  A B C D E F G H") == len(result.moves) + 1
    assert f"end of the record: {result.summary()}" in done.stdout


def test_a_corrupt_record_is_one_line_and_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "broken.ggf"
    path.write_text("(;GM[Othello]B[f5]W[f5];)")
    for args in (["replay", str(path)], ["play", "--load", str(path), "--black", "random"]):
        done = run(*args)
        assert done.returncode == 2
        assert done.stderr.strip().count("\n") == 0 and "move 2 W[f5] is not legal" in done.stderr
        assert "Traceback" not in done.stderr


def test_play_resumes_a_saved_game_and_saves_the_whole(tmp_path: Path) -> None:
    part = play_game("random:seed=1", "random:seed=2", time_limit=None)
    state = GameState.initial()
    for move in part.moves[:20]:
        state = state.apply(move)
    black, white = state.score()
    winner = "black" if black > white else "white" if white > black else "draw"
    # A game cut short as Ctrl-C leaves it: the record's discs are those on the board.
    unfinished = GameResult.from_dict(
        {
            **part.to_dict(),
            "moves": part.moves[:20],
            "times": part.times[:20],
            "black": black,
            "white": white,
            "winner": winner,
            "reason": "interrupted",
            "loser": None,
        }
    )
    path = tmp_path / "unfinished.json"
    path.write_text(unfinished.to_json())
    out = tmp_path / "whole.txt"
    done = run("play", "--load", str(path), "--black", "greedy", "--white", "greedy", "--save", str(out))
    assert done.returncode == 0, done.stderr
    whole = load_record(out)
    assert whole.moves[:20] == part.moves[:20] and whole.reason == "end"
    finished = tmp_path / "finished.json"
    finished.write_text(part.to_json())
    over = run("play", "--load", str(finished))
    assert over.returncode == 2 and f"the game is over: {part.summary()}; see it with: reversi replay" in over.stderr


def cut_short(moves: int = 20) -> GameResult:
    """The first ``moves`` plies of a random game, as a record of an unfinished game."""
    whole = play_game("random:seed=1", "random:seed=2", time_limit=None)
    return record(whole.moves[:moves], whole.times[:moves])


@pytest.mark.parametrize("suffix", [".json", ".ggf"])
def test_play_will_not_resume_a_game_that_ended_off_the_board(
    tmp_path: Path, suffix: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # It played on from the last position, as if nobody had resigned, lost on time or by illegal moves.
    part = cut_short()
    path = tmp_path / f"game{suffix}"
    for reason in (*LOSING_REASONS, "quit"):
        loser = None if reason == "quit" else "black"
        ended = dataclasses.replace(part, reason=reason, loser=loser, winner="white" if loser else part.winner)
        write_record(ended, path)
        saved = load_record(path)
        assert saved.loser == loser and saved.reason != UNFINISHED  # GGF: illegal, error and tamper as resign
        assert main(["play", "--load", str(path), "--black", "random", "--white", "random"]) == 2
        out, err = capsys.readouterr()
        assert out == ""  # no game was opened
        assert (
            err
            == f"reversi play: error: {path}: the game is over: {saved.summary()}; see it with: reversi replay {path}\n"
        )
        assert saved.ending and saved.ending in err  # how it ended: "black resigned", "black lost on time"...
        assert main(["replay", str(path), "--all"]) == 0
        assert capsys.readouterr().out.rstrip().endswith(saved.summary())


def test_a_game_cut_short_resumes_from_every_format(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Ctrl-C's record says "not finished": --load plays it on, whatever --save wrote it as.
    part = cut_short()
    assert part.reason == UNFINISHED
    for suffix in (".json", ".ggf", ".txt"):
        path, whole = tmp_path / f"unfinished{suffix}", tmp_path / f"whole{suffix}"
        write_record(part, path)
        args = ["play", "--load", str(path), "--black", "random", "--white", "random", "--save", str(whole)]
        assert main([*args, "--time-limit", "off"]) == 0, capsys.readouterr().err
        game = load_record(whole)
        assert game.moves[:20] == part.moves and game.reason == "end"


def test_play_starts_from_a_transcript_or_a_board(tmp_path: Path) -> None:
    save = tmp_path / "from.ggf"
    done = run("play", "--start", "f5d6c3", "--black", "greedy", "--white", "greedy", "--save", str(save))
    assert done.returncode == 0, done.stderr
    game = from_ggf(save.read_text())
    assert game.start_state() == GameState.initial().apply("F5").apply("D6").apply("C3")
    board = GameState.initial().apply("D3").compact()  # white to move
    done = run("play", "--start", board, "--black", "random", "--white", "greedy", "--save", str(save))
    assert done.returncode == 0, done.stderr
    assert from_ggf(save.read_text()).start_state() == GameState.initial().apply("D3")
    bad = run("play", "--start", "f5f5")
    assert bad.returncode == 2 and "not legal" in bad.stderr


def test_a_transcript_is_refused_before_a_game_from_another_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # It was written after the game, without the start: replay and --load then said "move 1 (..) is not legal".
    save = tmp_path / "game.txt"
    later = tmp_path / "later.json"
    write_record(record([], [], GameState.initial().apply("F5")), later)
    for opening in (["--start", "f5d6c3"], ["--load", str(later)]):
        status, err = run_cli(["play", *opening, "--black", "random", "--white", "random", "--save", str(save)], capsys)
        assert status == 2 and not save.exists()
        assert err == (
            f"reversi play: error: {save}: a transcript (.txt) holds moves from the standard start; "
            "this game starts from another position: save it as .json or .ggf\n"
        )


def test_undo_and_resign_at_the_terminal(tmp_path: Path) -> None:
    save = tmp_path / "resigned.json"
    script = "d3\nundo\nundo\nc4\nresign\n"
    done = run("play", "--black", "human", "--white", "greedy", "--save", str(save), stdin=script)
    assert done.returncode == 0, done.stderr
    assert "took back 2 move(s)" in done.stdout and "nothing to take back yet" in done.stdout
    game = GameResult.from_json(save.read_text())
    assert game.moves[0] == "C4" and len(game.moves) == 2
    assert (game.reason, game.loser, game.winner) == ("resign", "black", "white")
    assert "black resigned" in done.stdout


def test_mcts_says_it_is_thinking_and_what_it_found() -> None:
    done = run("play", "--black", "mcts:c=1.4,iters=50,seed=1", "--white", "random", "--seed", "1")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    thinking = [i for i, line in enumerate(lines) if line == "X (mcts:c=1.4,iters=50,seed=1) thinking..."]
    assert thinking
    found = lines[thinking[0] + 1]
    assert found.startswith("X (mcts:c=1.4,iters=50,seed=1): 50 simulations in ")
    assert "expected result" in found or "proven" in found


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["gui", "--time-limit", "soon"], "must be a number"),
        (["gui", "--mode", "chess"], "invalid choice"),
        (["gui", "--start", "f5f5"], "not legal"),
        (["gui", "--load", "/no/such/game.json"], "cannot read"),
        (["play", "--load", "/no/such/game.json"], "cannot read"),
        (["play", "--start", "f5", "--load", "x.json"], "not allowed with"),
    ],
)
def test_bad_gui_and_record_options_exit_2_with_one_line(
    args: list[str], needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, err = run_cli(args, capsys)
    assert status == 2
    assert needle in err and "Traceback" not in err


def test_a_course_human_types_moves_and_q(tmp_path: Path) -> None:
    path = tmp_path / "human.py"
    path.write_text(
        STUDENT.replace(
            'result = Game(RandomPlayer("X"), RandomPlayer("O")).run()',
            textwrap.dedent(
                """
                class HumanPlayer:
                    def __init__(self, color):
                        self.color = color

                    def get_move(self, board):
                        return input("move: ").strip()


                result = Game(HumanPlayer("X"), RandomPlayer("O")).run()
                """
            ),
        )
    )
    done = run("course", str(path), stdin="E9\nD3\nQ\n")
    assert done.returncode == 0, done.stderr
    assert "X tried E9: not a square, 2 tries left" in done.stdout
    assert done.stdout.count("statistics:") == 4  # the start, D3, white's reply, the end
    assert done.stdout.rstrip().splitlines()[-1] == "RESULT ('draw', 0)"  # 3-3 after any two first moves
