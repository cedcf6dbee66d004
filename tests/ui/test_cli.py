"""The ``reversi`` command, driven through real subprocesses with scripted input."""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import engine_imports, run_cli

from agents.base import QuitGame
from agents.limits import (
    MAX_BLOCKS,
    MAX_BUFFER,
    MAX_CHANNELS,
    MAX_GAMES,
    MAX_PARALLEL_GAMES,
    MAX_ROUNDS,
    MAX_SEARCH_DEPTH,
    MAX_SIMULATIONS,
    MAX_WORKERS,
)
from agents.play.human import HumanPlayer, mcts_hint
from agents.play.match import GameResult
from agents.ui.cli import build_parser, main
from reversi_env import GameState, parse_square
from reversi_env.observation import observe

PROMPT_END = "| Q]: "
PROMPT_RE = re.compile(r"move \[([A-H1-8 ]+) \| hint \| help \| Q\]: $")
WAIT = 120.0  # seconds before a stuck subprocess fails the test (never reached when it works)


def reversi(*args: str) -> list[str]:
    return [sys.executable, "-m", "agents", *args]


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    return subprocess.run(reversi(*args), input=stdin, capture_output=True, text=True, timeout=WAIT, env=env)


class Session:
    """A live ``reversi play`` process: read its output up to a prompt, answer it."""

    def __init__(self, *args: str) -> None:
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen(
            reversi("play", *args), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
        )
        self.output = ""

    def read_until(self, *markers: str) -> str:
        """Output up to the next marker; the text read in this call."""
        assert self.proc.stdout is not None
        start = len(self.output)
        fd = self.proc.stdout.fileno()
        while not any(m in self.output[start:] for m in markers):
            ready, _, _ = select.select([fd], [], [], WAIT)
            assert ready, f"no output for {WAIT} s; so far:\n{self.output[start:]}"
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            self.output += chunk.decode()
        return self.output[start:]

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()

    def finish(self) -> tuple[int, str]:
        rest, err = self.proc.communicate(timeout=WAIT)
        self.output += rest.decode()
        return self.proc.returncode, err.decode()


def legal_from_prompt(text: str) -> list[str]:
    match = PROMPT_RE.search(text)
    assert match, f"no move prompt at the end of:\n{text[-400:]}"
    return match.group(1).split()


def test_a_full_game_against_random_with_bad_input_mixed_in(tmp_path: Path) -> None:
    save = tmp_path / "game.json"
    session = Session("--black", "human", "--white", "random", "--seed", "3", "--save", str(save))
    sent: list[str] = []
    turn = 0
    while True:
        text = session.read_until(PROMPT_END, "Game over")
        if "Game over" in text:
            break
        legal = legal_from_prompt(text)
        if turn == 0:
            assert "  A B C D E F G H" in text and "4 . . . O X . . ." in text
            assert legal == ["D3", "C4", "F5", "E6"]
            session.send("zz")
            assert "'zz' is not a move" in session.read_until(PROMPT_END)
            session.send("")
            session.read_until(PROMPT_END)
            session.send("help")
            assert "Commands:" in session.read_until(PROMPT_END)
        elif turn == 1:
            illegal = next(f"{c}{r}" for c in "ABCDEFGH" for r in "12345678" if f"{c}{r}" not in legal)
            session.send(illegal)
            assert f"{illegal} is not legal here" in session.read_until(PROMPT_END)
            session.send("pass")
            assert "You cannot pass" in session.read_until(PROMPT_END)
        elif turn == 2:
            session.send("hint")
            hinted = re.search(r"hint: ([A-H][1-8])", session.read_until(PROMPT_END))
            assert hinted and hinted.group(1) in legal
        move = legal[turn % len(legal)]
        session.send(move.lower() if turn % 2 else move)
        sent.append(move)
        turn += 1
    code, err = session.finish()
    assert code == 0, err
    assert "Traceback" not in err
    out = session.output
    assert "Game over:" in out and "transcript:" in out
    assert re.search(r"X black \(human\): +\d+ discs \| last \d+\.\d\d s \| total \d+\.\d\d s", out)
    assert re.search(r"O white \(random\): +\d+ discs \| last \d+\.\d\d s \| total \d+\.\d\d s", out)
    assert "last move: O (white) played" in out
    result = GameResult.from_json(save.read_text())
    assert result.reason == "end"
    assert result.final_state().is_terminal()
    assert (result.black, result.white) == result.final_state().score()
    black_moves = [m for i, m in enumerate(result.moves) if result.mover(i) == 0 and m != "PASS"]
    assert black_moves == sent
    assert f"{result.black}-{result.white}" in out


def test_q_quits_and_the_game_is_scored_by_discs(tmp_path: Path) -> None:
    save = tmp_path / "quit.json"
    session = Session("--white", "random", "--seed", "1", "--save", str(save))
    session.read_until(PROMPT_END)
    session.send("d3")
    session.read_until(PROMPT_END)
    session.send("Q")
    code, err = session.finish()
    assert code == 0 and "Traceback" not in err
    assert "black quit" in session.output
    result = GameResult.from_json(save.read_text())
    assert result.reason == "quit" and len(result.moves) == 2 and result.moves[0] == "D3"


def test_end_of_input_ends_the_game_cleanly() -> None:
    done = run("play", "--white", "random", "--seed", "1", stdin="d3\n")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert "Game over:" in done.stdout and "end of input" in done.stdout


def test_ctrl_c_ends_the_game_cleanly_with_the_result_so_far(tmp_path: Path) -> None:
    save = tmp_path / "interrupted.json"
    session = Session("--white", "random", "--seed", "1", "--save", str(save))
    session.read_until(PROMPT_END)
    session.send("f5")
    session.read_until(PROMPT_END)
    session.proc.send_signal(signal.SIGINT)
    code, err = session.finish()
    assert code == 130
    assert "Traceback" not in err
    assert "interrupted" in session.output
    assert "Game stopped: not finished, " in session.output and "Game over" not in session.output  # not "won"
    result = GameResult.from_json(save.read_text())
    assert result.reason == "interrupted" and result.moves[0] == "F5" and len(result.moves) == 2


def test_two_programs_play_a_whole_game(tmp_path: Path) -> None:
    save = tmp_path / "ai.json"
    done = run("play", "--black", "random", "--white", "alphabeta:1", "--seed", "2", "--save", str(save))
    assert done.returncode == 0, done.stderr
    result = GameResult.from_json(save.read_text())
    assert result.reason == "end" and result.white_name == "alphabeta-1"
    assert done.stdout.count("  A B C D E F G H") == len(result.moves) + 1
    assert "time limit: 60 s per move" in done.stdout


def test_a_silent_human_at_a_pipe_loses_on_time() -> None:
    # stdin is a pipe that stays open and never says anything (`sleep 20 | reversi play ...`).
    silent = subprocess.Popen(["sleep", "60"], stdout=subprocess.PIPE)
    proc = subprocess.Popen(
        reversi("play", "--black", "human", "--white", "random", "--time-limit", "1"),
        stdin=silent.stdout,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        out, err = proc.communicate(timeout=WAIT)
    finally:
        proc.kill()
        silent.kill()
        silent.wait()
    assert proc.returncode == 0, err
    assert "Traceback" not in err and "Fatal Python error" not in err
    assert "black lost on time" in out
    assert "black (X) [1 s left] move [D3 C4 F5 E6" in out  # the clock at the prompt


def test_the_prompt_shows_the_course_clock_by_default() -> None:
    done = run("play", "--white", "random", stdin="")
    assert "black (X) [60 s left] move [" in done.stdout
    assert "time limit: 60 s per move (--time-limit off lifts it)" in done.stdout
    off = run("play", "--white", "random", "--time-limit", "off", stdin="")
    assert "s left]" not in off.stdout and "black (X) move [" in off.stdout


def test_ctrl_c_during_a_long_search_acts_at_once(tmp_path: Path) -> None:
    save = tmp_path / "cut.json"
    session = Session("--black", "mcts:sims=100000000", "--white", "random", "--time-limit", "off", "--save", str(save))
    session.read_until("legal moves: D3 C4 F5 E6")
    time.sleep(1.0)  # the search is under way
    t0 = time.monotonic()
    session.proc.send_signal(signal.SIGINT)
    code, err = session.finish()
    assert code == 130 and "Traceback" not in err
    assert time.monotonic() - t0 < 5.0
    assert GameResult.from_json(save.read_text()).reason == "interrupted"


def test_each_rejected_try_is_shown_as_it_happens(tmp_path: Path) -> None:
    player = tmp_path / "stubborn.py"
    player.write_text(
        "class Stubborn:\n    name = 'stubborn'\n\n    def act(self, observation):\n        return 'Z9'\n"
    )
    save = tmp_path / "g.json"
    done = run("play", "--black", f"python:{player}:Stubborn", "--white", "random", "--save", str(save))
    assert done.returncode == 0, done.stderr
    tried = [line for line in done.stdout.splitlines() if line.startswith("X tried 'Z9': not a square")]
    lines = [line for line in tried if line.endswith("left")]  # as they happen (the verdict lists them again)
    assert [line.rsplit(", ", 1)[1] for line in lines] == ["2 tries left", "1 try left", "no tries left"]
    result = GameResult.from_json(save.read_text())
    assert result.reason == "illegal" and result.details.count("X tried 'Z9'") == 3


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["play", "--white", "nonsense"], "unknown player"),
        (["play", "--black", "mcts:speed=3"], "unknown option"),
        (["play", "--time", "-1"], "positive"),
        (["play", "--max-illegal", "0"], "max-illegal"),
        (["gui", "--ai", "alphabeta:x"], "integer"),
        (["gui", "--ai", "human"], "must be a program"),
        (["play", "--save", "/no/such/dir/game.json"], "no directory '/no/such/dir'"),
        # Checked before the game, not after it (where the game's record would be lost):
        (["play", "--black", "random", "--white", "random", "--save", "/"], "--save '/': is a directory"),
        (["play", "--black", "random", "--white", "random", "--save", ""], "--save '': no file name"),
        (["play", "--black", "random", "--white", "random", "--load", ""], "no file name given"),
        (["play", "--black", "random", "--white", "random", "--load", "/dev/null"], "empty, not a game record"),
        (["replay", "--all", "/dev/null"], "/dev/null: empty, not a game record"),
        (["fly"], "invalid choice"),
        ([], "required"),
    ],
)
def test_bad_command_lines_exit_2_with_a_message(
    args: list[str], needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, err = run_cli(args, capsys)
    assert status == 2
    assert needle in err


def test_a_bad_weights_file_is_one_line_before_the_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``weights=FILE`` names a file relative to the current directory; one that is not weights stops ``play``."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.npz").write_bytes(b"PK\x03\x04 a truncated zip")
    for black in ("pattern:weights=bad.npz", "mcts:time=1,weights=bad.npz", "alphabeta:time=1,weights=nothing.npz"):
        status, err = run_cli(["play", "--black", black, "--white", "random"], capsys)
        assert status == 2 and len(err.strip().splitlines()) == 1, err
        assert err.startswith(f"reversi play: error: cannot build player {black!r}: ")
        assert str(tmp_path / ("nothing.npz" if "nothing" in black else "bad.npz")) in err


def test_the_gui_without_a_screen_says_so_instead_of_waiting_on_an_invisible_window() -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER")}
    done = subprocess.run(reversi("gui", "--ai", "random"), capture_output=True, text=True, timeout=WAIT, env=env)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("reversi gui: error: no display to open a window on")
    assert len(done.stderr.strip().splitlines()) == 1


def test_help_lists_the_subcommands_and_specs(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as top:
        main(["--help"])
    out = capsys.readouterr().out
    assert top.value.code == 0
    for command in ("play", "gui", "arena", "ratings"):
        assert command in out
    with pytest.raises(SystemExit):
        main(["play", "--help"])
    out = capsys.readouterr().out
    assert "classic:FILE.py:CLASS" in out and "--save" in out


COMMANDS = sorted(next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices)

EVERY_HELP = """
import sys
from agents.ui.cli import main
for argv in ([], *([command] for command in sys.argv[1:])):
    try:
        main([*argv, "--help"])
    except SystemExit as done:
        assert done.code == 0, (argv, done.code)
"""


def test_help_imports_nothing_the_first_run_compiles() -> None:
    """``reversi --help``, ``reversi --version`` and every ``reversi COMMAND --help`` answer at once
    on an empty numba cache: they import nothing of the engine (they took a minute to compile it)."""
    top = subprocess.run(reversi_importing("--help"), capture_output=True, text=True, timeout=WAIT)
    assert top.returncode == 0 and top.stdout.startswith("usage: reversi [-h] [--version] COMMAND ...")
    assert engine_imports(top.stderr) == []
    version = subprocess.run(reversi_importing("--version"), capture_output=True, text=True, timeout=WAIT)
    assert version.returncode == 0 and version.stdout == f"reversi {importlib.metadata.version('reversi-env')}\n"
    assert engine_imports(version.stderr) == []
    each = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", EVERY_HELP, *COMMANDS], capture_output=True, text=True, timeout=WAIT
    )
    assert each.returncode == 0, each.stderr[-2000:]
    assert [f"usage: reversi {c} " in each.stdout for c in COMMANDS] == [True] * len(COMMANDS)
    assert engine_imports(each.stderr) == []


def reversi_importing(*args: str) -> list[str]:
    """``reversi ARGS`` that lists on stderr every module it imports (``python -X importtime``)."""
    return [sys.executable, "-X", "importtime", "-m", "agents", *args]


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["play", "--black", "nosuchagent"], "reversi play: error: argument --black: unknown player 'nosuchagent'; "),
        (["play", "--bogus"], "reversi: error: unrecognized arguments: --bogus"),
        (["solve", "--scoring", "fair", "F5"], "reversi solve: error: argument --scoring: invalid choice: 'fair' "),
        (["train-eval", "--out", "w.npz", "--exact-empties", "21"], "reversi train-eval: error: argument "),
    ],
)
def test_a_bad_command_line_is_answered_without_the_engine(args: list[str], error: str) -> None:
    """The parser's own errors (an unknown option, a bad value or spec) need nothing compiled either."""
    done = subprocess.run(reversi_importing(*args), capture_output=True, text=True, timeout=WAIT)
    said = [line for line in done.stderr.splitlines() if not line.startswith("import time:")]
    assert done.returncode == 2 and done.stdout == ""
    assert said[0].startswith("usage: reversi") and said[-1].startswith(error), said
    assert engine_imports(done.stderr) == []


SIZE_OPTIONS = [
    ("train-az", "--channels", MAX_CHANNELS),
    ("train-az", "--blocks", MAX_BLOCKS),
    ("train-az", "--buffer", MAX_BUFFER),
    ("train-az", "--games", MAX_GAMES),
    ("train-az", "--simulations", MAX_SIMULATIONS),
    ("train-az", "--parallel-games", MAX_PARALLEL_GAMES),
    ("train-az", "--workers", MAX_WORKERS),
    ("train-az", "--warm-depth", MAX_SEARCH_DEPTH),
    ("train-az", "--eval-games", MAX_GAMES),
    ("train-az", "--eval-sims", MAX_SIMULATIONS),
    ("train-eval", "--games", MAX_GAMES),
    ("train-eval", "--rounds", MAX_ROUNDS),
    ("train-eval", "--workers", MAX_WORKERS),
    ("train-eval", "--iterations", MAX_ROUNDS),
    ("arena", "--jobs", MAX_WORKERS),
]


@pytest.mark.parametrize(("command", "option", "most"), SIZE_OPTIONS)
def test_size_options_have_an_upper_bound_said_in_one_line(
    command: str, option: str, most: int, capsys: pytest.CaptureFixture[str]
) -> None:
    """``train-az --channels 100000`` went on to a torch traceback asking for 360 GB."""
    status, err = run_cli([command, "--out", "x", option, str(most + 1)], capsys)
    assert status == 2
    said = f"must be from 0 to {most}" if option.startswith("--eval") else f"must be at most {most}"
    assert err.splitlines()[-1] == f"reversi {command}: error: argument {option}: {said}, got '{most + 1}'"


def test_the_console_script_is_installed() -> None:
    script = Path(sys.executable).parent / "reversi"
    done = subprocess.run([str(script), "play", "--help"], capture_output=True, text=True, timeout=WAIT)
    assert done.returncode == 0 and "reversi play" in done.stdout


def scripted_human(lines: list[str], **kwargs: object) -> tuple[HumanPlayer, list[str]]:
    said: list[str] = []
    answers = iter(lines)

    def read(prompt: str) -> str:
        said.append(prompt)
        try:
            return next(answers)
        except StopIteration:
            raise EOFError from None

    return HumanPlayer(0, read=read, write=said.append, **kwargs), said  # type: ignore[arg-type]


def test_the_human_player_reprompts_until_a_legal_move() -> None:
    human, said = scripted_human(["", "x9", "pass", "a1", "board", "help", "F5"])
    assert human.act(observe(GameState.initial(), 0)) == parse_square("F5")
    text = "\n".join(said)
    assert "'x9' is not a move" in text and "You cannot pass" in text and "A1 is not legal here" in text
    assert "Commands:" in text and "X to move" in text
    assert sum(p.startswith("black (X) move [D3 C4 F5 E6") for p in said) == 7


def test_the_human_player_quits_on_q_and_end_of_input_and_survives_a_broken_hint() -> None:
    def broken_hint(observation: object) -> int:
        raise RuntimeError("no search today")

    human, said = scripted_human(["hint", "Q"], hint=broken_hint)
    with pytest.raises(QuitGame, match="typed Q"):
        human.act(observe(GameState.initial(), 0))
    assert any("no hint available: RuntimeError: no search today" in s for s in said)
    with pytest.raises(QuitGame, match="end of input"):
        scripted_human([])[0].act(observe(GameState.initial(), 0))


def test_hint_suggests_a_legal_move_from_mcts() -> None:
    state = GameState.initial().apply("D3")
    assert mcts_hint(observe(state, 1)) in state.legal_actions()


@pytest.mark.parametrize("time_limit", ["off", "60"])
def test_the_console_script_finds_a_python_player_in_the_current_directory(tmp_path: Path, time_limit: str) -> None:
    (tmp_path / "first_bot.py").write_text(
        "import numpy as np\n\ndef first(observation):\n    return int(np.flatnonzero(observation['action_mask'])[0])\n"
    )
    script = Path(sys.executable).parent / "reversi"
    done = subprocess.run(
        [str(script), "play", "--black", "python:first_bot:first", "--white", "greedy", "--time-limit", time_limit],
        capture_output=True,
        text=True,
        timeout=WAIT,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert "Game over" in done.stdout and "illegal" not in done.stdout


def test_help_at_the_prompt_names_undo_and_resign_too() -> None:
    # The terminal takes "undo" and "resign" at the prompt, but "help" did not list them.
    done = run("play", "--white", "random", stdin="help\n" + "x" * 5000 + "\n")
    assert done.returncode == 0, done.stderr
    help_text = done.stdout[done.stdout.index("Commands:") :]
    assert "  undo " in help_text and "  resign " in help_text and "  hint " in help_text
    # A long line that is not a move is quoted back cut short, not in full.
    assert "'" + "x" * 20 + "...' is not a move" in done.stdout and "x" * 21 not in done.stdout


def test_a_start_where_the_game_is_over_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    # It "played" a game of no moves and reported a 0-0 draw; --load refuses a finished game.
    for command in ("play", "gui"):
        status, err = run_cli([command, "--start=" + "-" * 64 + "X"], capsys)
        assert status == 2
        assert err == f"reversi {command}: error: --start: the game is over in that position: neither side can move\n"


@pytest.fixture
def slow_loader(tmp_path: Path) -> str:
    """The spec of a python: player whose module takes 5 s to import."""
    path = tmp_path / "slow_loader.py"
    path.write_text("import time\n\ntime.sleep(5)\n\n\ndef first(observation):\n    return 19\n")
    return f"python:{path}:first"


def test_a_player_that_loads_slower_than_the_time_limit_is_one_line(slow_loader: str) -> None:
    # MoveTimeout from its start-up reached the person as a traceback, exit status 1.
    done = run("play", "--black", slow_loader, "--white", "random", "--time-limit", "1")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr == f"reversi play: error: {slow_loader} took over the time limit to load\n"
    gui = run("gui", "--ai", slow_loader, "--time-limit", "1")
    assert gui.returncode == 2 and gui.stderr == f"reversi gui: error: {slow_loader} took over the time limit to load\n"


@pytest.mark.parametrize(
    ("ai", "needle"),
    [
        ("gtp:/no/such/engine", "reversi gui: error: cannot build player 'gtp:/no/such/engine': cannot start engine"),
        ("python:no_such_module_here:make", "reversi gui: error: SpecError: cannot import module"),
        ("human", "reversi gui: error: --ai must be a program, not 'human' (--mode humans puts two people"),
        ("bogus:3", "reversi gui: error: argument --ai: unknown player 'bogus:3'"),
    ],
)
def test_the_gui_refuses_an_ai_that_cannot_play_before_opening_the_window(ai: str, needle: str) -> None:
    # The window opened, the AI failed at its first turn and the person "won" 4-1.
    # (SDL_VIDEODRIVER=dummy here: a window would open, and the run would never end.)
    done = subprocess.run(reversi("gui", "--ai", ai), capture_output=True, text=True, timeout=WAIT)
    assert done.returncode == 2 and done.stdout == "" and "Traceback" not in done.stderr
    assert done.stderr.splitlines()[-1].startswith(needle)


def test_the_arena_checks_its_picture_and_summary_paths_before_playing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A --plot or --json that cannot be written failed after the tournament's last game.
    out = tmp_path / "results.jsonl"
    cases = (("--plot", tmp_path / "no" / "r.png", "no directory"), ("--json", tmp_path, "is a directory"))
    for flag, path, why in cases:
        status, err = run_cli(["arena", "random", "greedy", "--games", "2", "--out", str(out), flag, str(path)], capsys)
        assert status == 2 and err.startswith(f"reversi arena: error: {flag} {str(path)!r}: {why}")
        assert not out.exists()  # no game was played


def test_the_narration_says_when_mcts_did_not_simulate() -> None:
    # "0 simulations in 0.00 s, expected result +0.00" for a forced single move, and
    # "0 simulations ..., a proven win" for an endgame it solved exactly.
    from conftest import random_game

    from agents.search.mcts import MCTSAgent
    from agents.ui.play_cli import describe_search

    games = [random_game(seed) for seed in range(20)]
    single = next(s for g in games for s in g if len(s.legal_actions()) == 1 and s.legal_actions() != [64])
    solved = next(s for s in games[0] if s.num_empty() == 10 and not s.is_terminal())
    mcts = MCTSAgent(simulations=300, seed=0)
    assert describe_search(mcts.search(single)) == "its only legal move, played without a search"
    line = describe_search(mcts.search(solved))
    assert re.fullmatch(r"solved \(\d+ positions\) in \d+\.\d\d s, a proven (win|loss|draw)( by \d+ discs)?", line)
    opening = describe_search(mcts.search(GameState.initial()))
    assert re.fullmatch(r"300 simulations in \d+\.\d\d s, expected result [+-]\d\.\d\d \(.*\)", opening)


def test_the_narration_says_a_move_came_from_the_opening_book() -> None:
    from agents.play.specs import make_agent
    from agents.search.book import load_book
    from agents.ui.play_cli import NarratedAgent

    lines: list[str] = []
    narrated = NarratedAgent(make_agent("mcts:time=0.1", seed=0), "X (mcts)", write=lines.append)
    start = GameState.initial()
    move = narrated.act(observe(start, start.player))
    scores = load_book().scores(start)
    assert scores is not None and move == load_book().move(start)
    assert lines == ["X (mcts) thinking...", f"X (mcts): from its opening book, worth {scores[move]:+.1f} discs"]
    lines.clear()
    NarratedAgent(make_agent("mcts:sims=50", seed=0), "X (mcts)", write=lines.append).act(observe(start, start.player))
    assert lines[1].startswith("X (mcts): 50 simulations")  # no book: the search is narrated
