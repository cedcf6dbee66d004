"""Players in a process of their own: real child processes, real signals, real hogs."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from conftest import REPO_ROOT, stop_after

from agents.base import MoveTimeout, stop_agent
from agents.play.isolation import IsolatedPlayer, PlayerStartError, build_player
from agents.play.match import play_game
from agents.search.ladder import RandomAgent
from reversi_env import GameState
from reversi_env.observation import observe

# A regex with catastrophic backtracking: minutes of C code holding the GIL.
HOG = """
import re

class Hog:
    name = "hog"

    def act(self, observation):
        re.match(r"(a+)+$", "a" * 40 + "b")
        return 19


def make():
    return Hog()
"""

PLAYERS = """
from agents.base import TamperedBoard


class Scripted:
    def __init__(self, answer):
        self.name = "scripted"
        self.answer = answer

    def act(self, observation):
        return self.answer()


class Unprintable:
    def __repr__(self):
        raise RuntimeError("no repr for you")

    __str__ = __repr__


def bad_repr():
    return Scripted(Unprintable)


def square():
    return Scripted(lambda: "Z9")


def boom():
    def fail():
        raise ValueError("boom " + "x" * 100000)
    return Scripted(fail)


def tamper():
    def fail():
        raise TamperedBoard("D4 changed from O to X")
    return Scripted(fail)


def exits():
    def fail():
        raise SystemExit(3)
    return Scripted(fail)


def printer():
    def answer():
        print("19 is my move")  # stdout is the terminal's, not the protocol's
        return 19
    return Scripted(answer)
"""


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return str(path)


def gone(pid: int, within: float = 2.0) -> bool:
    """True once process ``pid`` has ended (gone, or a zombie waiting for whoever reaps it)."""
    end = time.monotonic() + within
    while time.monotonic() < end:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            return True
        if stat.rsplit(")", 1)[1].split()[0] in ("Z", "X"):
            return True
        time.sleep(0.02)
    return False


def test_a_player_holding_the_gil_in_c_loses_on_time_and_its_process_is_killed(tmp_path: Path) -> None:
    hog = IsolatedPlayer(f"python:{write(tmp_path, 'hog.py', HOG)}:make", 0, timeout=1.0)
    try:
        hog.wait_ready()  # start-up is not the move
        pid = hog.pid
        assert pid is not None
        t0 = time.monotonic()
        result = play_game(hog, RandomAgent(seed=1), time_limit=1.0)
        elapsed = time.monotonic() - t0
        assert (result.reason, result.loser, result.winner) == ("timeout", "black", "white")
        assert 1.0 <= elapsed < 1.0 + 1.0, elapsed
        assert gone(pid)
        assert not hog.alive
    finally:
        hog.close()


def test_what_a_late_player_started_is_stopped_with_it(tmp_path: Path) -> None:
    pidfile = tmp_path / "grandchild.pid"
    spawner = write(
        tmp_path,
        "spawner.py",
        f"""
        import subprocess, time

        class Spawner:
            name = "spawner"

            def act(self, observation):
                child = subprocess.Popen(["sleep", "600"])
                open({str(pidfile)!r}, "w").write(str(child.pid))
                time.sleep(600)
        """,
    )
    result = play_game(f"python:{spawner}:Spawner", "random", time_limit=1.0)
    assert (result.reason, result.loser) == ("timeout", "black")
    assert gone(int(pidfile.read_text()))


DAEMONISER = """
import os, subprocess, sys, time

class Daemoniser:
    name = "daemoniser"

    def __init__(self):
        self.moves = 0

    def act(self, observation):
        self.moves += 1
        # A session of its own, outside our process group...
        session = subprocess.Popen(["sleep", "600"], start_new_session=True)
        # ...and a double fork: the grandchild's parent exits at once.
        middle = os.fork()
        if middle == 0:
            os.setsid()
            if os.fork() == 0:
                os.execvp("sleep", ["sleep", "600"])
            os._exit(0)
        os.waitpid(middle, 0)
        with open(PIDS, "a") as f:
            f.write(f"{session.pid}\\n")
        if self.moves == SLOW_MOVE:
            time.sleep(600)
        return int(observation["action_mask"].nonzero()[0][0])
"""


@pytest.mark.parametrize("slow_move", [1, 0], ids=["late", "game-played-out"])
def test_what_a_player_started_outside_its_group_is_stopped_with_it(tmp_path: Path, slow_move: int) -> None:
    pids = tmp_path / "pids"
    source = f"PIDS = {str(pids)!r}\nSLOW_MOVE = {slow_move}\n" + DAEMONISER
    spec = f"python:{write(tmp_path, 'daemoniser.py', source)}:Daemoniser"
    before = {int(p) for p in os.listdir("/proc") if p.isdigit()}
    result = play_game(spec, "random", time_limit=2.0)
    assert result.reason == ("timeout" if slow_move else "end"), result.details
    started = [int(p) for p in pids.read_text().split()]
    assert started and all(gone(pid) for pid in started)
    # the double-forked grandchildren too: no sleep of ours is left anywhere
    left = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) not in before:
            try:
                cmd = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
                state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if cmd[:2] == [b"sleep", b"600"] and state not in ("Z", "X"):
                left.append(int(entry))
    assert not left


def test_a_stopped_player_comes_back_fresh_for_the_next_game(tmp_path: Path) -> None:
    path = write(tmp_path, "players.py", PLAYERS)
    player = IsolatedPlayer(f"python:{path}:printer", 0, timeout=5.0)
    try:
        player.wait_ready()
        first = player.pid
        with pytest.raises(MoveTimeout):
            player.act_timed(observe(GameState.initial(), 0), 0.0)
        assert first is not None and gone(first)
        player.reset()  # a new game: a new process
        assert player.pid not in (None, first)
        assert player.act_timed(observe(GameState.initial(), 0), 5.0) == 19
    finally:
        player.close()


def test_a_stop_ends_the_move_under_way_and_its_process(tmp_path: Path) -> None:
    hog = IsolatedPlayer(f"python:{write(tmp_path, 'hog.py', HOG)}:make", 0, timeout=None)
    try:
        hog.wait_ready()
        pid = hog.pid
        stop_agent(hog)  # no move under way: nothing happens
        assert pid is not None and hog.alive
        error, seconds = stop_after(hog, GameState.initial(), 0.3)
        assert isinstance(error, PlayerStartError) and seconds < 1.0 and gone(pid)
    finally:
        hog.close()


@pytest.mark.parametrize(
    ("factory", "reason", "needle"),
    [
        ("square", "illegal", "X tried 'Z9': not a square"),
        ("bad_repr", "illegal", "whose repr raised RuntimeError"),
        ("boom", "error", "ValueError: boom"),
        ("tamper", "tamper", "D4 changed from O to X"),
        ("exits", "error", "SystemExit: 3"),
    ],
)
def test_what_a_child_player_does_is_reported_faithfully(
    tmp_path: Path, factory: str, reason: str, needle: str
) -> None:
    spec = f"python:{write(tmp_path, 'players.py', PLAYERS)}:{factory}"
    rejected: list[str] = []
    result = play_game(spec, "random", time_limit=30.0, on_reject=lambda player, text: rejected.append(text))
    assert (result.reason, result.loser) == (reason, "black")
    assert needle in result.details
    assert len(result.details) < 20_000  # a 100 kB error message is cut
    assert "match.py" not in result.details  # the player's traceback, not the runner's
    if reason == "illegal":
        assert [t.endswith(("2 tries left", "1 try left", "no tries left")) for t in rejected] == [True] * 3


def test_a_player_that_cannot_load_is_one_clear_error(tmp_path: Path) -> None:
    broken = write(tmp_path, "broken.py", "import no_such_module_here\n")
    player = build_player(f"python:{broken}:make", 0, time_limit=10.0)
    try:
        with pytest.raises(PlayerStartError, match="No module named 'no_such_module_here'"):
            player.wait_ready()
    finally:
        player.close()
    result = play_game("random", f"python:{broken}:make", time_limit=10.0)
    assert (result.reason, result.loser) == ("error", "white")
    assert "no_such_module_here" in result.details


def test_a_player_whose_module_loads_forever_loses_on_time(tmp_path: Path) -> None:
    slow = write(tmp_path, "slow.py", "import time\ntime.sleep(60)\nmake = object\n")
    result = play_game(f"python:{slow}:make", "random", time_limit=1.0)
    assert (result.reason, result.loser) == ("timeout", "black")


def test_a_classic_player_runs_isolated_under_a_time_limit(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "course.py",
        """
        import re

        class AIPlayer:
            def __init__(self, color):
                self.color = color
                self.calls = 0

            def get_move(self, board):
                self.calls += 1
                if self.calls == 2:
                    re.match(r"(a+)+$", "a" * 40 + "b")
                return list(board.get_legal_actions(self.color))[0]
        """,
    )
    player = build_player(f"classic:{path}:AIPlayer", 1, time_limit=2.0)
    assert isinstance(player, IsolatedPlayer)
    try:
        result = play_game("greedy", player, time_limit=2.0)
    finally:
        player.close()
    assert (result.reason, result.loser, len(result.moves)) == ("timeout", "white", 3)


def test_a_classic_answer_refused_in_the_child_is_the_same_line_as_in_process(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "lower.py",
        """
        from board import Board

        class AIPlayer:
            def __init__(self, color):
                self.color = color

            def get_move(self, board):
                return list(board.get_legal_actions(self.color))[0].lower()
        """,
    )
    rejected: list[str] = []
    result = play_game(f"classic:{path}:AIPlayer", "random", time_limit=30.0, on_reject=lambda _, t: rejected.append(t))
    assert (result.reason, result.loser, result.moves) == ("illegal", "black", [])
    assert rejected[0] == "X tried 'd3': squares are written 'D3' (capitals), 2 tries left"
    assert "X tried 'd3': squares are written 'D3' (capitals)" in result.details


ROGUES = """
import os

class Rogue:
    def __init__(self, color):
        self.color = color

    def get_move(self, board):
        if ROGUE == "exit":
            os._exit(0)  # would end whatever process it runs in
        import reversi_env.state as state  # patch the rules the runner judges by

        state.GameState.is_legal = lambda self, action: True
        return "A1"
"""


@pytest.mark.parametrize(("rogue", "reason"), [("exit", "error"), ("patch", "illegal")])
def test_without_a_time_limit_other_peoples_code_still_runs_apart(tmp_path: Path, rogue: str, reason: str) -> None:
    path = write(tmp_path, "rogue.py", f"ROGUE = {rogue!r}\n" + ROGUES)
    result = play_game(f"classic:{path}:Rogue", "random", time_limit=None)
    assert (result.reason, result.loser, result.moves) == (reason, "black", [])
    if rogue == "exit":
        assert result.details.endswith("PlayerStartError: Rogue's process ended (exit status 0) when asked for a move")
    assert GameState.initial().is_legal(0) is False  # our rules are untouched
    with pytest.raises(ValueError, match="A1"):
        GameState.initial().apply("A1")
    player = build_player(f"classic:{path}:Rogue", 0, time_limit=None, isolate=True)
    assert isinstance(player, IsolatedPlayer)
    player.close()


def test_the_player_process_dies_with_its_parent_even_after_sigkill(tmp_path: Path) -> None:
    path = write(tmp_path, "players.py", PLAYERS)
    root = Path(__file__).resolve().parents[2]
    parent = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\n"
            "from agents.play.isolation import IsolatedPlayer\n"
            f"p = IsolatedPlayer('python:{path}:printer', 0)\n"
            "p.wait_ready()\n"
            "print(p.pid, flush=True)\n"
            "time.sleep(120)\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(root)},
    )
    try:
        assert parent.stdout is not None
        child = int(parent.stdout.readline())
        os.kill(child, 0)  # alive while its parent lives
        parent.send_signal(signal.SIGKILL)
        parent.wait(timeout=10)
        assert gone(child, within=5.0)
    finally:
        parent.kill()
        parent.wait(timeout=10)


# Takes 2 GiB, 64 MiB at a time (bounded, so a run without a limit only plays on).
GREEDY = """
class Greedy:
    name = "greedy-for-memory"

    def act(self, observation):
        held = [bytearray(64 << 20) for _ in range(32)]
        return 19 if held else 0


def make():
    return Greedy()
"""


# Takes every byte its cap leaves and keeps it (``bytes`` asks for zeroed pages
# it never touches, so the machine's memory is not used): our code that reads
# the next request and writes the reply finds none left.
HOARDER = """
class Hoarder:
    name = "hoarder"

    def __init__(self):
        self.held = []

    def act(self, observation):
        size = 1 << 30
        while size:
            try:
                self.held.append(bytes(size))
            except MemoryError:
                size //= 2
        return 19


def make():
    return Hoarder()
"""


@pytest.mark.parametrize("player", [GREEDY, HOARDER], ids=["allocates-past-it", "holds-all-of-it"])
def test_a_player_past_its_memory_limit_loses_by_an_error_saying_so(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], player: str
) -> None:
    spec = f"python:{write(tmp_path, 'player.py', player)}:make"
    isolated = IsolatedPlayer(spec, 0, timeout=30.0, memory_limit=1 << 30)
    try:
        result = play_game(isolated, RandomAgent(seed=1), time_limit=30.0)
    finally:
        isolated.close()
    assert (result.reason, result.loser) == ("error", "black")
    assert result.details.splitlines()[-1] == "MemoryError: out of memory (its limit is 1 GiB)"
    assert "Traceback" not in capfd.readouterr().err


ATTACKS = ["sigkill", "sigstop", "group", "ptrace", "opponent"]

# A player that attacks the judge (its parent process) or its opponent (whose
# pid the opponent leaves in a file), a new attack at each move it is asked
# for, and a victim that plays.
ATTACKERS = """
import ctypes, os, signal, time
from pathlib import Path

FOLDER = Path(__file__).parent


class First:
    def act(self, observation):
        return int(observation["action_mask"].nonzero()[0][0])


class Attacker(First):
    def __init__(self):
        self.attacks = ATTACKS

    def act(self, observation):
        judge = os.getppid()
        attack, self.attacks = self.attacks[0], self.attacks[1:]
        if attack == "sigkill":
            os.kill(judge, signal.SIGKILL)
        elif attack == "sigstop":
            os.kill(judge, signal.SIGSTOP)
        elif attack == "group":
            os.killpg(os.getpgid(judge), signal.SIGKILL)
        elif attack == "ptrace":  # PTRACE_ATTACH stops the judge and holds it
            libc = ctypes.CDLL(None, use_errno=True)
            if libc.ptrace(16, judge, None, None) != 0:
                raise PermissionError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
        else:
            end = time.monotonic() + 30
            while not (FOLDER / "victim.pid").exists() and time.monotonic() < end:
                time.sleep(0.01)
            os.kill(int((FOLDER / "victim.pid").read_text()), signal.SIGKILL)
        return super().act(observation)


def victim():
    (FOLDER / "victim.pid").write_text(str(os.getpid()))
    return First()
"""

# The judge: one game for each attack between the same two processes, in a
# process (and session) of its own, since the old code let the attacker kill
# or freeze it.
JUDGE = """
import json, sys
from agents.play.isolation import IsolatedPlayer
from agents.play.match import play_game

attacker = IsolatedPlayer(f"python:{sys.argv[1]}:Attacker", 0, timeout=30.0)
victim = IsolatedPlayer(f"python:{sys.argv[1]}:victim", 1, timeout=30.0)
for _ in range(int(sys.argv[2])):
    result = play_game(attacker, victim, time_limit=30.0)
    print(json.dumps([result.reason, result.loser, result.details.splitlines()[-1]]), flush=True)
"""


def test_a_player_cannot_signal_or_trace_the_judge_or_its_opponent(tmp_path: Path) -> None:
    path = write(tmp_path, "attackers.py", f"ATTACKS = {ATTACKS!r}\n" + ATTACKERS)
    root = Path(__file__).resolve().parents[2]
    judge = subprocess.Popen(
        [sys.executable, "-c", JUDGE, path, str(len(ATTACKS))],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(root)},
        start_new_session=True,
    )
    try:
        out, _ = judge.communicate(timeout=90)
    finally:
        with contextlib.suppress(OSError):  # a judge stopped or traced by the old code
            os.killpg(judge.pid, signal.SIGKILL)
        judge.wait(timeout=10)
    assert judge.returncode == 0, (judge.returncode, out)
    fenced = "PermissionError: [Errno 1] Operation not permitted (a player may not signal or trace other processes)"
    assert [json.loads(line) for line in out.splitlines()] == [["error", "black", fenced]] * len(ATTACKS)


# What a player may still do to itself: threads, its own signals, its own children.
SELF_SUFFICIENT = """
import os, signal, subprocess, threading


class Busy:
    def act(self, observation):
        caught = []
        signal.signal(signal.SIGUSR1, lambda *_: caught.append(1))
        os.kill(os.getpid(), signal.SIGUSR1)
        worker = threading.Thread(target=caught.append, args=(2,))
        worker.start()
        signal.pthread_kill(worker.ident, 0)
        worker.join()
        child = subprocess.Popen(["sleep", "60"])
        child.kill()
        assert caught == [1, 2] and child.wait() == -signal.SIGKILL
        return int(observation["action_mask"].nonzero()[0][0])


def make():
    return Busy()
"""


def test_a_fenced_player_still_signals_itself_its_threads_and_its_children(tmp_path: Path) -> None:
    path = write(tmp_path, "busy.py", SELF_SUFFICIENT)
    result = play_game(f"python:{path}:make", "random", time_limit=30.0)
    assert result.reason == "end", result.details


SPY = """
import json
import os
import sys


def _read(path):
    try:
        with open(path, "rb") as f:
            return f.read().decode("latin-1")
    except OSError as e:
        return type(e).__name__


def _got(text):
    return text if text.endswith("Error") else f"read {len(text)} characters"


class Spy:
    def __init__(self, color):
        self.color = color

    def get_move(self, board):
        judge = os.getppid()
        others = []
        for entry in os.listdir("/proc"):
            if entry.isdigit() and int(entry) not in (os.getpid(), judge):
                stat = _read(f"/proc/{entry}/stat")
                if ")" in stat and stat.rsplit(")", 1)[1].split()[1] == str(judge):
                    others.append(entry)
        found = {
            "judge": {name: _got(_read(f"/proc/{judge}/{name}")) for name in ("environ", "maps")},
            "opponents": [_got(_read(f"/proc/{pid}/environ")) for pid in others],
            "token": os.environ.get("SECRET_TOKEN"),
            "stdin": sys.stdin.read(),
        }
        raise RuntimeError("SPY " + json.dumps(found))
"""


IDLE = """
class Idle:
    def __init__(self, color):
        self.color = color

    def get_move(self, board):
        return sorted(board.get_legal_actions(self.color))[0]
"""


def test_a_fenced_player_reads_nothing_of_the_judge_the_opponent_or_the_person(tmp_path: Path) -> None:
    """A real spy, judged in a real process whose environment holds a token and whose stdin holds a
    person's moves: it reads neither, nor the judge's or the opponent's memory map."""
    spy = write(tmp_path, "spy.py", SPY)
    idle = write(tmp_path, "idle.py", IDLE)
    judge = (
        "import sys\nfrom agents.play.isolation import build_player\nfrom agents.play.match import play_game\n"
        "from reversi_env.state import BLACK, WHITE\n"
        f"black = build_player('classic:{idle}:Idle', BLACK, isolate=True)\n"
        f"white = build_player('classic:{spy}:Spy', WHITE, isolate=True)\n"
        "print(play_game(black, white, time_limit=60.0).details)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", judge],
        input="F5 D6 C3 resign\n",
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT), "SECRET_TOKEN": "hunter2"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout.rsplit("RuntimeError: SPY ", 1)[1].splitlines()[0])
    assert found["stdin"] == ""
    assert found["token"] is None
    assert found["judge"] == {"environ": "PermissionError", "maps": "PermissionError"}
    assert found["opponents"] and set(found["opponents"]) == {"PermissionError"}
    assert "hunter2" not in done.stdout


def test_a_player_gets_the_projects_own_settings_and_no_token() -> None:
    """``REVERSI_SB3_MODEL`` names the model a ``python:`` player loads; a token stays with the judge."""
    from agents.play.processes import player_environment

    judge = {"PATH": "/usr/bin", "REVERSI_SB3_MODEL": "m.zip", "SECRET_TOKEN": "hunter2", "AWS_SECRET_ACCESS_KEY": "k"}
    assert player_environment(judge) == {"PATH": "/usr/bin", "REVERSI_SB3_MODEL": "m.zip"}
