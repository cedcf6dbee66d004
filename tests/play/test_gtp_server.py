"""`reversi gtp`: our players as GTP engines, checked in process and through real pipes."""

from __future__ import annotations

import io
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import REPO_ROOT

from agents.clocks import TimeControl
from agents.play.gtp import GTPEngine
from agents.play.gtp_server import GTPServer
from agents.play.match import play_game
from agents.search.ladder import RandomAgent
from reversi_env import GameState
from reversi_env.notation import PASS, action_name

RHINO = "/usr/games/gtp-rhino"
SERVER = [sys.executable, "-m", "agents", "gtp", "--player", "greedy", "--seed", "1"]


def test_the_protocol_answers_in_gtp_form() -> None:
    server = GTPServer("greedy")
    assert server.handle("protocol_version") == "= 2\n\n"
    assert server.handle("7 name") == "=7 reversi-env greedy\n\n"
    assert server.handle("known_command genmove") == "= true\n\n"
    assert server.handle("boardsize 10").startswith("? unacceptable size")
    assert server.handle("boardsize 8") == "=\n\n"
    assert server.handle("play black D3") == "=\n\n"
    assert server.handle("play black C4").startswith("? illegal move")  # white's turn
    assert server.handle("play white A1").startswith("? illegal move")
    reply = server.handle("genmove white")
    assert reply is not None and reply.startswith("= ")
    move = reply[2:].strip()
    assert server.state == GameState.initial().apply("D3").apply(move)
    assert server.handle("final_score") == "? cannot score\n\n"  # mid-game
    assert "X to move" in (server.handle("showboard") or "")
    assert server.handle("frobnicate").startswith("? unknown command")
    assert server.handle("# just a comment") == ""
    assert server.handle("quit") == "=\n\n" and server.over


def must_pass() -> GameState:
    """A position whose mover must pass while the other side can move, from random play."""
    rng = random.Random(4)
    while True:
        state = GameState.initial()
        while not state.is_terminal():
            if state.legal_actions() == [PASS]:
                return state
            state = state.apply(rng.choice(state.legal_actions()))


def test_a_forced_pass_the_client_skips_is_played_for_the_side_to_pass() -> None:
    start = must_pass()
    other = ("white", "black")[start.player]
    server = GTPServer("greedy")
    server.state = start
    reply = server.handle(f"genmove {other}")  # the client skipped the pass, as gtp-rhino does
    assert reply is not None and reply.startswith("= ") and "pass" not in reply
    assert server.state.player == start.player  # pass, then the other side's move: back to the passer


def test_undo_takes_back_the_last_play_or_genmove_as_gtp_rhino_does() -> None:
    server = GTPServer("greedy")
    assert server.handle("known_command undo") == "= true\n\n" and "undo" in server.handle("list_commands")
    assert server.handle("undo") == "? cannot undo\n\n"
    assert server.handle("play b d3") == "=\n\n"
    assert server.handle("3 genmove w").startswith("=3 ")
    assert server.handle("4 undo") == "=4\n\n" and server.state == GameState.initial().apply("D3")
    assert server.handle("undo") == "=\n\n" and server.state == GameState.initial()
    assert server.handle("undo") == "? cannot undo\n\n"
    # A forced pass the client skipped goes with the move it preceded.
    start = must_pass()
    server.state = start
    assert server.handle(f"genmove {('white', 'black')[start.player]}").startswith("= ")
    assert server.handle("undo") == "=\n\n" and server.state == start
    server.handle("play b d3")
    assert server.handle("clear_board") == "=\n\n" and server.handle("undo") == "? cannot undo\n\n"


def test_genmove_after_the_end_is_a_pass_as_gtp_rhino_answers() -> None:
    server = GTPServer("greedy")
    rng = random.Random(1)
    while not server.state.is_terminal():
        move = rng.choice(server.state.legal_actions())
        word = "pass" if move == PASS else action_name(move)
        assert server.handle(f"play {('b', 'w')[server.state.player]} {word}") == "=\n\n"
    final = server.state
    assert server.handle("5 genmove b") == "=5 pass\n\n" and server.handle("genmove w") == "= pass\n\n"
    assert server.state == final and server.handle("play b pass").startswith("? illegal move")


def test_a_play_after_the_end_says_the_game_is_over() -> None:
    server = GTPServer("greedy")
    rng = random.Random(2)
    while not server.state.is_terminal():
        move = rng.choice(server.state.legal_actions())
        word = "pass" if move == PASS else action_name(move)
        server.handle(f"play {('b', 'w')[server.state.player]} {word}")
    for colour in ("black", "white"):
        assert server.handle(f"play {colour} pass") == "? illegal move: the game is over\n\n"


def test_a_megabyte_vertex_is_answered_with_a_short_prefix_of_it() -> None:
    reply = GTPServer("greedy").handle("play black " + "A" * 1_000_000) or ""
    assert reply.startswith("? illegal move: not a square: 'AAAA") and "(1000000 characters)" in reply
    assert len(reply) < 300


def test_final_score_fails_mid_game_and_counts_the_discs_at_the_end_as_gtp_rhino_answers() -> None:
    # The shortest game: black wins 13-0 with 51 squares empty.
    moves = ["E6", "F4", "E3", "F6", "G5", "D6", "E7", "F5", "C5"]
    commands = ["boardsize 8", "clear_board", "final_score"]
    for i, move in enumerate(moves):
        commands += [f"play {'bw'[i % 2]} {move}", "final_score"]
    server = GTPServer("greedy")
    ours = [server.handle(c) for c in commands]
    done = subprocess.run(
        [RHINO, "-l", "1"], input="\n".join([*commands, "quit"]) + "\n", capture_output=True, text=True, timeout=30
    )
    rhinos = [answer + "\n\n" for answer in done.stdout.split("\n\n")[: len(commands)]]
    assert ours[:-1] == rhinos[:-1] and ours.count("? cannot score\n\n") == len(moves)
    # Over: ours the discs as they stand (the course's count), gtp-rhino's the empties to the winner too.
    assert (ours[-1], rhinos[-1]) == ("= B+13\n\n", "= B+64\n\n")


def test_quit_keeps_its_id_and_ends_the_session() -> None:
    out = io.StringIO()
    GTPServer("greedy").serve(["1 name\n", "12 quit\n", "name\n"], out)
    assert out.getvalue() == "=1 reversi-env greedy\n\n=12\n\n"


def test_our_client_plays_a_whole_game_against_our_server() -> None:
    with GTPEngine(SERVER, start_timeout=60.0) as engine:
        result = play_game(engine, RandomAgent(seed=2), time_limit=30.0)
    assert result.reason == "end", result.details
    assert result.final_state().is_terminal()


@pytest.mark.skipif(not Path(RHINO).exists(), reason="needs gtp-rhino (apt-get install grhino)")
def test_gtp_rhino_and_our_server_play_a_whole_game() -> None:
    with GTPEngine(SERVER, start_timeout=60.0) as ours, GTPEngine(RHINO) as rhino:
        result = play_game(rhino, ours, time_limit=30.0)
    assert result.reason == "end", result.details
    assert result.final_state().is_terminal()


def test_the_subcommand_ends_cleanly_at_the_end_of_input_and_refuses_bad_specs() -> None:
    done = subprocess.run(SERVER, input="name\n", capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout == "= reversi-env greedy\n\n" and not done.stderr
    bad = subprocess.run([*SERVER[:-4], "--player", "human"], input="", capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and len(bad.stderr.splitlines()) == 1


def _genmove_seconds(server: GTPServer, colour: str) -> float:
    """The seconds ``genmove colour`` took, checking it answered a move."""
    start = time.perf_counter()
    reply = server.handle(f"genmove {colour}")
    assert reply is not None and reply.startswith("= "), reply
    return time.perf_counter() - start


def test_time_settings_put_a_timed_player_on_the_controllers_clock() -> None:
    server = GTPServer("alphabeta:time=5", seed=0)
    _genmove_seconds(server, "black")  # compile before the clock matters
    assert server.handle("time_settings 1.5 0 0") == "=\n\n"
    assert server.handle("clear_board") == "=\n\n"
    rng = random.Random(3)
    used = 0.0
    while not server.state.is_terminal():
        if server.state.player == 0:
            used += _genmove_seconds(server, "black")
        elif server.state.legal_actions() == [PASS]:
            server.state = server.state.apply(PASS)
        else:
            move = rng.choice(server.state.legal_actions())
            assert server.handle(f"play white {action_name(move)}") == "=\n\n"
    assert server.players[0].clock is server.clocks[0]
    # 1.5 s for the game, not 5 s a move; and a loose allowance for a busy machine.
    assert 0.5 < used < 1.5 + 0.3, used


def test_time_left_keeps_the_clock_right_and_byo_yomi_shares_its_period() -> None:
    server = GTPServer("mcts:time=5", seed=0)
    _genmove_seconds(server, "black")
    server.handle("clear_board")
    assert server.handle("time_left b 0.2 0") == "=\n\n"  # only a time_left: the main time as it stands
    assert server.clocks[0].left == 0.2
    assert _genmove_seconds(server, "black") < 0.2 + 0.15
    assert server.handle("time_settings 0 2 4") == "=\n\n"  # byo-yomi only: 2 s for every 4 moves
    assert server.handle("time_left w 1.0 2") == "=\n\n"
    assert _genmove_seconds(server, "white") < 0.9 * 1.0 / 2 + 0.15
    assert server.clocks[1].moves_left == 1


def test_no_time_limits_and_players_by_depth_keep_their_own_budget() -> None:
    server = GTPServer("alphabeta:time=0.2", seed=0)
    server.handle("time_settings 30 0 0")
    assert server.handle("time_settings 0 1 0") == "=\n\n"  # GTP: byo-yomi time without stones, no limits
    _genmove_seconds(server, "black")
    assert server.clocks == {} and server.players[0].clock is None
    depth = GTPServer("alphabeta:2")
    depth.handle("time_settings 30 0 0")
    _genmove_seconds(depth, "black")
    assert depth.players[0].clock is None and not depth.players[0].timed


def test_without_a_controller_s_clock_the_rule_is_a_time_control_of_the_time_limit() -> None:
    assert GTPServer("greedy", time_limit=5.0).time_control == TimeControl.per_move(5.0)
    assert GTPServer("greedy", time_limit=None).time_control.unlimited


@pytest.mark.parametrize(
    ("command", "needle"),
    [
        ("time_settings 30", "time_settings MAIN_SECONDS"),
        ("time_settings 30 0 0 9", "time_settings MAIN_SECONDS"),
        ("time_settings -1 0 0", "time_settings MAIN_SECONDS"),
        ("time_settings 30 5 1.5", "time_settings MAIN_SECONDS"),
        ("time_settings 30 0 5", "time_settings MAIN_SECONDS"),
        ("time_left b", "time_left COLOUR"),
        ("time_left b soon 0", "time_left COLOUR"),
        ("time_left b 3 -1", "time_left COLOUR"),
        ("time_left b inf 0", "time_left COLOUR"),
        ("time_left b -1e400 0", "time_left COLOUR"),
        ("time_left purple 3 0", "expected a colour"),
    ],
)
def test_bad_time_commands_are_one_line_errors(command: str, needle: str) -> None:
    reply = GTPServer("alphabeta:time=1").handle(command)
    assert reply is not None and reply.startswith("? ") and needle in reply and reply.count("\n") == 2


MISBEHAVING = {
    "hang.py": "import pathlib, time\n\n"
    "def policy(obs):\n"
    "    pathlib.Path(__file__).with_name('moving').touch()\n"
    "    time.sleep(1000)\n",
    "printer.py": "import numpy as np\n\n"
    "def policy(obs):\n"
    "    print('= A1')\n"
    "    print('=== A1/0/0', flush=True)\n"
    "    return int(np.flatnonzero(obs['action_mask'])[0])\n",
    "exiter.py": "import sys\n\ndef policy(obs):\n    sys.exit(0)\n",
    "exit_at_import.py": "import sys\n\nsys.exit(3)\n\ndef policy(obs):\n    return 19\n",
    "no_import.py": "import no_such_module_of_this_test\n\ndef policy(obs):\n    return 19\n",
    "ctor.py": "class P:\n    def __init__(self, symbol):\n        raise KeyError('k')\n\n"
    "    def get_move(self, board):\n        return 0\n",
    "ownmod.py": "import numpy as np\n\n"
    "def make():\n    return lambda obs: int(np.flatnonzero(obs['action_mask'])[-1])\n",
}
"""Player files that misbehave (and one module imported by name), written where the engine runs."""
UNBUILDABLE = [
    "python:exit_at_import.py:policy",
    "python:no_import.py:policy",
    "classic:ctor.py:P",
    "python:no_such_module_of_this_test:make",
    "gtp:./no-such-engine",
]
"""Specs that parse but whose player cannot be built."""
SHOWBOARD = GTPServer("random").handle("showboard")


def engine(command: str, cwd: Path, *args: str, python: tuple[str, ...] = ()) -> list[str]:
    """The command line of ``reversi COMMAND ARGS`` with the misbehaving players written to ``cwd``."""
    for name, text in MISBEHAVING.items():
        (cwd / name).write_text(text)
    return [sys.executable, *python, "-m", "agents", command, *args]


def run_engine(
    command: str, cwd: Path, *args: str, given: str, python: tuple[str, ...] = ()
) -> subprocess.CompletedProcess[str]:
    """``reversi COMMAND ARGS`` run in ``cwd`` to the end of ``given``."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO_ROOT), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run(
        engine(command, cwd, *args, python=python),
        input=given,
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=60,
    )


def test_a_hanging_player_is_stopped_by_the_time_limit_or_the_clock_and_the_session_goes_on(tmp_path: Path) -> None:
    done = run_engine(
        "gtp",
        tmp_path,
        "--player",
        "python:hang.py:policy",
        "--time-limit",
        "0.3",
        given="genmove b\ntime_left b 0.2 0\ngenmove b\nshowboard\nquit\n",
    )
    assert done.stdout == (
        "? player timeout: no move within 0.3 s; the player was stopped\n\n=\n\n"
        "? player timeout: no move within 0.7 s; the player was stopped\n\n"  # the clock's 0.2 s and CLOCK_GRACE
        f"{SHOWBOARD}=\n\n"
    ), done.stderr
    assert done.returncode == 0 and "Traceback" not in done.stderr


@pytest.mark.parametrize("limit", ["0.5", "off"])
def test_what_a_player_prints_goes_to_stderr_not_into_the_answers(tmp_path: Path, limit: str) -> None:
    done = run_engine(
        "gtp", tmp_path, "--player", "python:printer.py:policy", "--time-limit", limit, given="genmove b\nquit\n"
    )
    assert done.stdout == "= D3\n\n=\n\n"
    assert done.returncode == 0 and "= A1" in done.stderr


@pytest.mark.parametrize("limit", ["0.5", "off"])
def test_sys_exit_in_a_move_is_a_failure_not_the_end_of_the_session(tmp_path: Path, limit: str) -> None:
    done = run_engine(
        "gtp",
        tmp_path,
        "--player",
        "python:exiter.py:policy",
        "--time-limit",
        limit,
        given="genmove b\nshowboard\nquit\n",
    )
    assert done.stdout == f"? player error: SystemExit: 0\n\n{SHOWBOARD}=\n\n"
    assert done.returncode == 0 and "Traceback" not in done.stderr


@pytest.mark.parametrize("limit", ["0.5", "off"])
@pytest.mark.parametrize("spec", UNBUILDABLE)
def test_a_player_that_cannot_be_built_is_one_line_and_status_2_at_start_up(
    tmp_path: Path, spec: str, limit: str
) -> None:
    done = run_engine("gtp", tmp_path, "--player", spec, "--time-limit", limit, given="name\ngenmove b\n")
    assert done.returncode == 2 and done.stdout == ""
    assert (
        done.stderr.startswith(f"reversi gtp: error: cannot build player {spec!r}: ") and done.stderr.count("\n") == 1
    )


def test_a_module_named_by_a_python_spec_is_found_in_the_current_directory(tmp_path: Path) -> None:
    # -P: no current directory on the path, as under the installed ``reversi`` script; as under ``reversi play``
    # the player is built in a child process whose path starts with the directory the engine runs in.
    done = run_engine("gtp", tmp_path, "--player", "python:ownmod:make", given="genmove b\n", python=("-P",))
    assert done.stdout == "= E6\n\n" and done.returncode == 0, done.stderr


@pytest.mark.parametrize("limit", ["0.5", "off"])
def test_ctrl_c_during_a_move_still_ends_the_session_with_status_130(tmp_path: Path, limit: str) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO_ROOT), os.environ.get("PYTHONPATH", "")])}
    args = engine(
        "gtp", tmp_path, "--player", "python:hang.py:policy", "--time-limit", "60" if limit == "0.5" else limit
    )
    with subprocess.Popen(
        args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path, env=env
    ) as proc:
        assert proc.stdin is not None
        proc.stdin.write("genmove b\n")
        proc.stdin.flush()
        deadline = time.monotonic() + 60
        while not (tmp_path / "moving").exists():
            assert time.monotonic() < deadline and proc.poll() is None, "the player never started its move"
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130 and out == "" and "Traceback" not in err
