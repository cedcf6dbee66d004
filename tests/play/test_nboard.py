"""`reversi nboard`: NBoard protocol transcripts through a real engine process, and the scores checked."""

from __future__ import annotations

import io
import os
import queue
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import REPO_ROOT, TEST_DATA
from test_gtp_server import UNBUILDABLE, run_engine

from agents.clocks import TimeControl
from agents.play import nboard
from agents.play.nboard import EXACT_DEPTH, HINT_EXACT_EMPTIES, NBoardServer
from agents.play.records import from_ggf, record, to_ggf
from agents.search.book import load_book
from reversi_env import GameState
from reversi_env.notation import PASS, action_name, parse_action

GGF = (TEST_DATA / "ggs_triple0_saio3000.ggf").read_text()
GAME = from_ggf(GGF)
NBOARD_EXAMPLE = (  # the game of the protocol's example session: NBoard writes the board as one word
    "(;GM[Othello]PC[NBoard]DT[2014-02-21 20:52:27 GMT]PB[./mEdax]PW[chris]RE[?]TI[15:00]TY[8]"
    "BO[8 ---------------------------O*------*O--------------------------- *]"
    "B[F5]W[F6]B[D3]W[C5]B[E6]W[F7]B[E7]W[F4];)"
)
MOVE_LINE = re.compile(r"=== ([A-H][1-8]|PA)(?:/(-?\d+\.\d\d)/(\d+\.\d\d))?")  # a forced pass: no eval
SEARCH_LINE = re.compile(r"search ((?:[A-H][1-8]|PA)+) (-?\d+\.\d\d) 0 (\S+)")


def action_of(word: str) -> int:
    """The action of a move the engine names: ``F5``, or ``PA`` for a pass."""
    return PASS if word == "PA" else parse_action(word)


def prefix(plies: int) -> str:
    """The GGF of the test game's first ``plies`` moves (as our writer writes it)."""
    return to_ggf(record(GAME.moves[:plies], GAME.times[:plies]))


def position(plies: int) -> GameState:
    state = GameState.initial()
    for move in GAME.moves[:plies]:
        state = state.apply(move)
    return state


class Engine:
    """``reversi nboard`` in a process of its own, read line by line with a timeout."""

    def __init__(self, *args: str) -> None:
        self.args = args
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO_ROOT), os.environ.get("PYTHONPATH", "")])}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "agents", "nboard", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=REPO_ROOT,
            env=env,
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.pings = 0

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def send(self, *lines: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write("".join(line + "\n" for line in lines))
        self.proc.stdin.flush()

    def until(self, done: str, timeout: float = 120.0) -> list[str]:
        """Every line up to and including the first that starts with ``done``."""
        got: list[str] = []
        while True:
            line = self.lines.get(timeout=timeout)
            assert line is not None, f"the engine closed its output; so far: {got}"
            got.append(line)
            if line.startswith(done):
                return got

    def sync(self, *lines: str) -> list[str]:
        """Send ``lines`` and a ping; everything answered before the pong."""
        self.pings += 1
        self.send(*lines, f"ping {self.pings}")
        return self.until(f"pong {self.pings}")[:-1]

    def close(self) -> tuple[int, str]:
        """End of input: the exit status and what went to stderr."""
        assert self.proc.stdin is not None and self.proc.stderr is not None
        self.proc.stdin.close()
        code = self.proc.wait(timeout=60)
        return code, self.proc.stderr.read()


@pytest.fixture(params=["random:seed=1", "mcts:sims=200,seed=1"])
def engine(request: pytest.FixtureRequest) -> Iterator[Engine]:
    e = Engine("--player", request.param, "--time", "0.2")
    yield e
    if e.proc.poll() is None:
        e.proc.kill()
        e.proc.wait()


def test_a_session_handshake_game_go_hint(engine: Engine) -> None:
    assert engine.sync("nboard 2") == [f"set myname reversi-{engine.args[1]}"]
    assert engine.sync("set depth 6", f"set game {prefix(20)}", "set contempt 0")[-1].startswith("set myname")
    state = position(20)
    reply = engine.sync("go")
    moves = [MOVE_LINE.fullmatch(line) for line in reply if line.startswith("===")]
    assert len(moves) == 1 and moves[0] is not None and moves[0].group(2) is not None, reply
    assert state.is_legal(action_of(moves[0].group(1)))
    assert engine.sync("go")[-2].startswith("=== "), "go must not change the board: the same position again"
    hints = [SEARCH_LINE.fullmatch(line) for line in engine.sync("hint 3") if line.startswith("search")]
    assert len(hints) == 3 and all(hints), hints
    squares = [h.group(1)[:2] for h in hints if h]
    assert len(set(squares)) == 3 and all(state.is_legal(parse_action(s)) for s in squares)
    # A move played, then the position after it is the one searched.
    engine.sync(f"move {squares[1]}/0.00/1.5")
    after = state.apply(squares[1])
    reply = engine.sync("go")
    move = next(MOVE_LINE.fullmatch(line) for line in reply if line.startswith("==="))
    assert move is not None and after.is_legal(action_of(move.group(1)))
    code, err = engine.close()
    assert code == 0 and "Traceback" not in err


def test_pong_comes_after_everything_asked_before_it() -> None:
    engine = Engine("--player", "mcts:sims=2000,seed=1")
    engine.send("nboard 2", f"set game {prefix(10)}", "go", "hint 2", "ping 7", "hint 1", "ping 8")
    lines = engine.until("pong 8")
    before, after = lines[: lines.index("pong 7")], lines[lines.index("pong 7") + 1 : -1]
    assert [line.split()[0] for line in before if line.startswith(("===", "search"))] == ["===", "search", "search"]
    assert [line.split()[0] for line in after if line.startswith(("===", "search"))] == ["search"]
    assert before[-1] == "status" and after[-1] == "status"  # each search finished before the next pong
    assert engine.close()[0] == 0


def test_a_ping_stops_the_search_under_way_as_the_protocol_asks() -> None:
    # 30 s a search: NBoard pings before it changes the position, and waited for the pong that long.
    engine = Engine("--player", "mcts:time=30,seed=1", "--time", "30")
    engine.sync("nboard 2", f"set game {prefix(20)}")
    for ping, (command, answer) in enumerate((("hint 3", "search "), ("go", "=== "), ("analyze", "status"))):
        engine.send(command)
        engine.until("status ")  # the search has begun
        pinged = time.perf_counter()
        engine.send(f"ping {ping}")
        lines = engine.until(f"pong {ping}", timeout=60)
        assert time.perf_counter() - pinged < 5.0, lines
        # A hint or a move answers with what it had found; an analysis ends where it was.
        assert lines[-2] == "status" and any(line.startswith(answer) for line in lines), lines
    engine.send("quit")
    assert engine.close()[0] == 0


def serve_in_thread(
    monkeypatch: pytest.MonkeyPatch, exact_empties: int
) -> tuple[queue.Queue[str | None], io.StringIO, threading.Thread]:
    """A random player's session in a thread of this process, exact from ``exact_empties``
    empty squares: the queue to put its commands in (None ends it), what it wrote, its thread."""
    monkeypatch.setattr(nboard, "HINT_EXACT_EMPTIES", exact_empties)
    commands: queue.Queue[str | None] = queue.Queue()
    out = io.StringIO()
    server = NBoardServer("random:seed=1", out=out)
    session = threading.Thread(target=server.serve, args=(iter(commands.get, None),), daemon=True)
    session.start()
    return commands, out, session


def wait_for(out: io.StringIO, text: str, count: int = 1, timeout: float = 60.0) -> float:
    """The time (``perf_counter``) ``out`` holds ``text`` ``count`` times; it must within ``timeout`` seconds."""
    deadline = time.perf_counter() + timeout
    while out.getvalue().count(text) < count:
        assert time.perf_counter() < deadline, out.getvalue()
        time.sleep(0.01)
    return time.perf_counter()


def test_a_ping_stops_an_exact_hint_under_way(monkeypatch: pytest.MonkeyPatch) -> None:
    """An exact hint or analysis stops at a ping as an MCTS one does, answering the moves solved by
    then. At HINT_EXACT_EMPTIES (14) a hint took 0.15 s at most on random positions; from 22 empty
    squares here it takes seconds, so the limit is raised for the test."""
    commands, out, session = serve_in_thread(monkeypatch, 22)
    commands.put("nboard 2")
    commands.put(f"set game {prefix(38)}")
    state = position(38)
    assert state.num_empty() == 22
    for ping, command in enumerate(("hint 3", "analyze")):
        commands.put(command)
        wait_for(out, "status analysing", ping + 1)
        pinged = time.perf_counter()
        commands.put(f"ping {ping}")
        assert wait_for(out, f"pong {ping}") - pinged < 3.0, out.getvalue()
    commands.put(None)
    session.join(timeout=10)
    lines = out.getvalue().splitlines()
    assert lines[lines.index("pong 0") - 1] == "status" and lines[lines.index("pong 1") - 1] == "status", lines
    assert not any(line.startswith("status player") for line in lines), lines
    for hint in (SEARCH_LINE.fullmatch(line) for line in lines if line.startswith("search")):
        assert hint is not None and hint.group(3) == EXACT_DEPTH and state.is_legal(parse_action(hint.group(1)))


def test_a_ping_stops_the_exact_score_of_a_move_under_way(monkeypatch: pytest.MonkeyPatch) -> None:
    """``go`` scores its move by an exact solve near the end; a ping stops that solve as it stops
    an exact hint, and the move is sent with the player's own estimate (0 for a random player).
    From 24 empty squares the solve after the move takes about 9 s, so the limit is raised."""
    commands, out, session = serve_in_thread(monkeypatch, 24)
    commands.put(f"set game {prefix(36)}")
    commands.put("go")
    wait_for(out, "status thinking")
    commands.put("ping 1")
    wait_for(out, "pong 1", timeout=3.0)
    commands.put(None)
    session.join(timeout=10)
    lines = out.getvalue().splitlines()
    assert lines[-3:-1] == [lines[-3], "status"] and lines[-1] == "pong 1", lines
    move = MOVE_LINE.fullmatch(lines[-3])
    assert move is not None and move.group(2) == "0.00" and position(36).is_legal(action_of(move.group(1))), lines


def test_bad_input_gets_one_status_line_and_no_traceback() -> None:
    engine = Engine("--player", "random:seed=1")
    engine.sync("nboard 2", f"set game {prefix(4)}")
    state = position(4)
    bad = [
        "move Z9",
        "move A1",  # a square, but not legal here
        "move",
        "hint x",
        "hint 0",
        "set depth deep",
        "set game (;GM[Othello]BO[8 junk *];)",
        "set game (;GM[Othello]B[f5]W[a1];)",
        "set",
    ]
    for line in bad:
        reply = engine.sync(line)
        assert len(reply) == 1 and reply[0].startswith("status "), (line, reply)
    assert engine.sync("frobnicate 3", "\x00\xff", "") == []  # unknown commands are ignored, as the protocol asks
    reply = engine.sync("go")  # the bad commands left the game as it was
    move = next(MOVE_LINE.fullmatch(line) for line in reply if line.startswith("==="))
    assert move is not None and state.is_legal(action_of(move.group(1)))
    code, err = engine.close()
    assert code == 0 and "Traceback" not in err and "frobnicate" in err


def test_nboards_own_game_text_is_read(engine: Engine) -> None:
    """The protocol's example: a GGF board in one 64-character word, moves in capitals."""
    engine.sync("nboard 2", f"set game {NBOARD_EXAMPLE}")
    state = from_ggf(NBOARD_EXAMPLE).final_state()
    assert len(from_ggf(NBOARD_EXAMPLE).moves) == 8 and state.player == 0
    move = next(MOVE_LINE.fullmatch(line) for line in engine.sync("go") if line.startswith("==="))
    assert move is not None and state.is_legal(action_of(move.group(1)))
    engine.close()


def test_a_whole_game_over_the_protocol_has_legal_moves_only(engine: Engine) -> None:
    """The test plays NBoard's part: go, then the move it answered, to the end."""
    engine.sync("nboard 2", "set depth 4", f"set game {prefix(0)}")
    state = GameState.initial()
    while not state.is_terminal():
        reply = engine.sync("go")
        move = next(MOVE_LINE.fullmatch(line) for line in reply if line.startswith("==="))
        assert move is not None, reply
        action = action_of(move.group(1))
        assert state.is_legal(action), (move.group(0), state)
        assert (action == PASS) == (state.legal_actions() == [PASS])
        engine.sync(f"move {move.group(0)[4:]}")  # as NBoard does: the move with its eval and time
        state = state.apply(action)
    assert engine.sync("go") == ["status go: the game is over"]
    assert engine.sync("learn") == ["learned"]
    code, err = engine.close()
    assert code == 0 and "Traceback" not in err


def exact(state: GameState) -> int:
    """Brute-force negamax: the final disc difference for the side to move."""
    if state.is_terminal():
        black, white = state.score()
        return black - white if state.player == 0 else white - black
    return max(-exact(state.apply(a)) for a in state.legal_actions())


def test_hints_near_the_end_are_exact_and_ordered() -> None:
    state = position(52)  # 8 empty squares
    out = io.StringIO()
    server = NBoardServer("random", out=out)
    server.handle(f"set game {prefix(52)}")
    server.handle("hint 64")
    lines = [SEARCH_LINE.fullmatch(line) for line in out.getvalue().splitlines() if line.startswith("search")]
    scores = [float(m.group(2)) for m in lines if m]
    assert scores == sorted(scores, reverse=True)
    truth = {a: -exact(state.apply(a)) for a in state.legal_actions()}
    got = {parse_action(m.group(1)): float(m.group(2)) for m in lines if m}
    assert got == truth and all(m.group(3) == EXACT_DEPTH for m in lines if m)


def test_hints_do_not_spend_a_players_game_clock() -> None:
    out = io.StringIO()
    server = NBoardServer("mcts:clock=30", default_time=0.05, seed=1, out=out)
    server.handle(f"set game {prefix(20)}")
    server.handle("hint 3")
    assert len([line for line in out.getvalue().splitlines() if line.startswith("search")]) == 3
    player = server.players[position(20).player]
    assert player.clock is not None and player.clock.left == 30.0


def test_a_forced_pass_before_the_exact_end_is_scored_by_the_reply_not_as_an_even_game() -> None:
    moves = ["D3", "C3", "E6", "D2", "D1", "E1", "B2", "C1"]  # then black must pass, with 52 empty squares
    state = GameState.initial()
    for move in moves:
        state = state.apply(move)
    assert state.legal_actions() == [PASS] and state.num_empty() > HINT_EXACT_EMPTIES
    out, after = io.StringIO(), io.StringIO()
    server = NBoardServer("mcts:sims=200,seed=1", out=out)
    server.handle(f"set game {to_ggf(record(moves, [0.0] * len(moves)))}")
    server.handle("hint 1")
    server.handle("analyze")
    # The same search of white's reply, in a session told of the pass.
    reply = NBoardServer("mcts:sims=200,seed=1", out=after)
    reply.handle(f"set game {to_ggf(record([*moves, 'PASS'], [0.0] * (len(moves) + 1)))}")
    reply.handle("hint 1")
    lines = out.getvalue().splitlines()
    hint = SEARCH_LINE.fullmatch(next(line for line in lines if line.startswith("search")))
    white = SEARCH_LINE.fullmatch(after.getvalue().splitlines()[1])
    assert hint is not None and white is not None
    assert hint.group(1) == "PA" + white.group(1) and hint.group(3) == white.group(3)
    assert float(hint.group(2)) == -float(white.group(2)) != 0
    analysis = float(next(line for line in lines if line.startswith("analysis 8 ")).split()[2])
    assert analysis != 0 and (analysis > 0) == (float(hint.group(2)) > 0)


def test_analyze_scores_every_position_last_first() -> None:
    out = io.StringIO()
    server = NBoardServer("random", default_time=0.05, seed=1, out=out)
    server.handle(f"set game {prefix(52)}")
    server.handle("move " + GAME.moves[52])
    server.handle("analyze")
    lines = [line.split() for line in out.getvalue().splitlines() if line.startswith("analysis")]
    plies = [int(words[1]) for words in lines]
    assert plies == list(range(53, -1, -1))
    states = [position(k) for k in range(54)]
    for words in lines[:2]:  # the exact end: 7 and 8 empty squares
        assert float(words[2]) == exact(states[int(words[1])])


def test_set_depth_sets_an_open_alphabeta_depth_and_nothing_the_command_line_fixed() -> None:
    out = io.StringIO()
    open_depth = NBoardServer("alphabeta", out=out)
    open_depth.handle("set depth 3")
    assert out.getvalue() == "set myname reversi-alphabeta:depth=3\n"
    assert open_depth._player(0).depth == 3
    out = io.StringIO()
    fixed = NBoardServer("alphabeta:2", out=out)
    fixed.handle("set depth 9")
    assert out.getvalue() == "set myname reversi-alphabeta:2\n" and fixed._player(0).depth == 2
    out = io.StringIO()
    seeded = NBoardServer("alphabeta:seed=4", out=out)
    seeded.handle("set depth 99")
    assert out.getvalue() == "set myname reversi-alphabeta:seed=4,depth=20\n" and seeded._player(1).depth == 20
    out = io.StringIO()
    bare = NBoardServer("alphabeta:", out=out)
    bare.handle("set depth 5")
    assert out.getvalue() == "set myname reversi-alphabeta:depth=5\n"  # not "alphabeta:,depth=5"
    out = io.StringIO()
    timed = NBoardServer("alphabeta:time=0.1", out=out)  # its strength is its time: a depth would be ignored
    timed.handle("set depth 6")
    assert out.getvalue() == "set myname reversi-alphabeta:time=0.1\n" and timed.depth is None


def test_the_subcommand_refuses_a_human_and_bad_specs() -> None:
    for spec, lines in (("human", 1), ("mcts:sims=-1", 3)):  # argparse adds its usage (two lines)
        done = subprocess.run(
            [sys.executable, "-m", "agents", "nboard", "--player", spec],
            input="",
            capture_output=True,
            text=True,
            timeout=120,
            cwd=REPO_ROOT,
        )
        assert done.returncode == 2 and "Traceback" not in done.stderr and len(done.stderr.splitlines()) == lines


def test_other_handshakes_and_nboard_1_moves_are_understood() -> None:
    out = io.StringIO()
    server = NBoardServer("random", out=out)
    server.handle("nboard 1")
    server.handle("nboard 3")
    assert out.getvalue().splitlines() == [
        "set myname reversi-random",
        "status reversi speaks NBoard protocol 2, not 3",
        "set myname reversi-random",
    ]
    server.handle("F5")  # NBoard 1.1 sends a bare move
    server.handle("set contempt 100")
    server.handle("set frobnication on")
    server.handle("move d6//0.3")  # an empty eval
    assert server.state == GameState.initial().apply("F5").apply("D6")
    assert server.moves == [parse_action("F5"), parse_action("D6")]
    assert len(out.getvalue().splitlines()) == 3


def test_a_go_s_rule_is_a_time_control_of_the_time_limit() -> None:
    assert NBoardServer("greedy", time_limit=5.0, out=io.StringIO()).time_control == TimeControl.per_move(5.0)
    assert NBoardServer("greedy", time_limit=None, out=io.StringIO()).time_control.unlimited


def test_a_player_on_a_game_clock_plays_on_the_clock_the_game_sets() -> None:
    # TI[1:00//0]: a minute each, no grace. Black's moves took 20 + 20 + 15 + 2 s: 3 s left of its 600.
    timed = NBOARD_EXAMPLE.replace("TI[15:00]", "TI[1:00//0]")
    for move, seconds in (("B[F5]", 20), ("B[D3]", 20), ("B[E6]", 15), ("B[E7]", 2)):
        timed = timed.replace(move, f"{move[:-1]}//{seconds}]")
    server = NBoardServer("mcts:clock=600,seed=1", out=io.StringIO())
    server.handle(f"set game {timed}")
    black = server._player(0)
    server.handle("go")
    assert 0 < black.clock.left < 3.0  # what the game left, less this move's time
    # The times of the moves NBoard sends count too: black's next took 2.5 s of what was left.
    server.handle(f"move {next(a for a in ('C4', 'C3', 'D6', 'G4') if server.state.is_legal(a))}/0.00/2.5")
    white = server.state.legal_actions()[0]
    server.handle(f"move {'PA' if white == PASS else action_name(white)}/0.00/1")
    server.handle("go")
    assert 0 <= black.clock.left < 0.5
    assert server.clocks[1].left(1.0, 1) == 59.0  # white's own: a minute less its one timed move
    server.handle(f"set game {timed.replace('TI[1:00//0]', 'TI[soon]')}")
    server.handle("move C4/0.00/later")
    said = server.out.getvalue().splitlines()  # type: ignore[attr-defined]
    assert said[-2:] == [
        "status set game: GGF: TI[soon] is not a clock like TI[15:00] or TI[5:00/10/2:00]",
        "status move: 'C4/0.00/later' is not a move like F5/EVAL/TIME",
    ]


def test_go_scores_any_players_move_exactly_near_the_end() -> None:
    out = io.StringIO()
    server = NBoardServer("random:seed=3", out=out)
    server.handle(f"set game {prefix(52)}")
    server.handle("go")
    move = next(MOVE_LINE.fullmatch(line) for line in out.getvalue().splitlines() if line.startswith("==="))
    assert move is not None and move.group(2) is not None
    state = position(52)
    assert float(move.group(2)) == -exact(state.apply(action_of(move.group(1))))
    assert server.state == state  # go leaves the board to NBoard's move


def test_a_book_move_is_scored_by_the_book() -> None:
    out = io.StringIO()
    server = NBoardServer("mcts:time=0.2", out=out)  # a search by time opens from the package's book
    server.handle(f"set game {prefix(0)}")
    server.handle("go")
    lines = out.getvalue().splitlines()
    move = next(MOVE_LINE.fullmatch(line) for line in lines if line.startswith("==="))
    assert move is not None and move.group(2) is not None
    scores = load_book().scores(GameState.initial())
    assert scores is not None and action_of(move.group(1)) == load_book().move(GameState.initial())
    assert float(move.group(2)) == pytest.approx(scores[action_of(move.group(1))], abs=0.005)
    assert not any(line.startswith("nodestats") for line in lines)  # nothing was searched


@pytest.mark.parametrize(
    ("spec", "limit", "answer"),
    [
        ("python:hang.py:policy", "0.3", "status player timeout: no move within 0.3 s; the player was stopped"),
        ("python:exiter.py:policy", "0.5", "status player error: SystemExit: 0"),
        ("python:exiter.py:policy", "off", "status player error: SystemExit: 0"),
    ],
)
def test_a_player_that_hangs_or_exits_gets_a_status_line_and_the_session_goes_on(
    tmp_path: Path, spec: str, limit: str, answer: str
) -> None:
    done = run_engine("nboard", tmp_path, "--player", spec, "--time-limit", limit, given="nboard 2\ngo\nping 1\n")
    assert done.stdout.splitlines() == [f"set myname reversi-{spec}", "status thinking", answer, "pong 1"]
    assert done.returncode == 0 and "Traceback" not in done.stderr


@pytest.mark.parametrize("limit", ["0.5", "off"])
def test_what_a_player_prints_goes_to_stderr_not_into_the_protocol(tmp_path: Path, limit: str) -> None:
    spec = "python:printer.py:policy"
    done = run_engine("nboard", tmp_path, "--player", spec, "--time-limit", limit, given="nboard 2\ngo\nping 1\n")
    lines = done.stdout.splitlines()
    assert lines[:2] == [f"set myname reversi-{spec}", "status thinking"] and lines[3:] == ["status", "pong 1"]
    assert lines[2].startswith("=== D3/0.00/") and "=== A1" in done.stderr and done.returncode == 0


@pytest.mark.parametrize("spec", UNBUILDABLE)
def test_a_player_that_cannot_be_built_is_one_line_and_status_2_at_start_up(tmp_path: Path, spec: str) -> None:
    done = run_engine("nboard", tmp_path, "--player", spec, "--time-limit", "0.5", given="nboard 2\ngo\n")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(f"reversi nboard: error: cannot build player {spec!r}: ")
    assert done.stderr.count("\n") == 1
