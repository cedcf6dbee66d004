"""GTPEngine against the real gtp-rhino and against fake engines that misbehave."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from conftest import TEST_DATA, random_game, stop_after

from agents.base import MoveTimeout
from agents.clocks import TimeControl, TimeLeft
from agents.play.gtp import EngineError, GTPEngine, MoveTracker, find_moves, gtp_time_left, gtp_time_settings
from agents.play.isolation import build_player
from agents.play.match import play_game
from agents.play.specs import SpecError
from agents.search.ladder import RandomAgent
from reversi_env import GameState
from reversi_env.notation import PASS
from reversi_env.observation import observe
from reversi_env.state import BLACK, WHITE

RHINO = "/usr/games/gtp-rhino"

# A GTP engine in Python that plays the first legal move, with a misbehaviour
# chosen on its command line: after `n` of its own moves it replies garbage,
# plays an illegal move, hangs, or dies; "die-once" dies once (a marker file
# records it) and then plays on.
FAKE = textwrap.dedent(
    """
    import os, sys, time

    DIRS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]

    def new_board():
        board = {(r, c): "." for r in range(8) for c in range(8)}
        board[3, 3] = board[4, 4] = "O"
        board[3, 4] = board[4, 3] = "X"
        return board

    def flips(board, me, r, c):
        if board[r, c] != ".":
            return []
        them, out = "O" if me == "X" else "X", []
        for dr, dc in DIRS:
            line, rr, cc = [], r + dr, c + dc
            while (rr, cc) in board and board[rr, cc] == them:
                line.append((rr, cc))
                rr, cc = rr + dr, cc + dc
            if line and (rr, cc) in board and board[rr, cc] == me:
                out += line
        return out

    def play(board, me, square):
        if square == "pass":
            return
        r, c = int(square[1]) - 1, "abcdefgh".index(square[0])
        for sq in flips(board, me, r, c) + [(r, c)]:
            board[sq] = me

    mode, n, marker = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    board, played = new_board(), 0

    def reply(text=""):
        sys.stdout.write("= " + text + "\\n\\n")
        sys.stdout.flush()

    for line in sys.stdin:
        words = line.lower().split()
        if not words:
            continue
        cmd = words[0]
        if cmd == "quit":
            reply()
            break
        if cmd == "clear_board":
            board = new_board()
            reply()
        elif cmd == "play":
            play(board, "X" if words[1].startswith("b") else "O", words[2])
            reply()
        elif cmd == "genmove":
            if played >= n and mode != "ok":
                if mode == "garbage":
                    sys.stdout.write("what is a reversi\\n\\n")
                    sys.stdout.flush()
                    continue
                if mode == "illegal":
                    reply("A1")
                    continue
                if mode == "hang-once" and not os.path.exists(marker):
                    open(marker, "w").close()
                    time.sleep(3600)
                if mode == "hang":
                    time.sleep(3600)
                if mode == "flood":
                    sys.stdout.write("= " + "x" * 10_000_000 + "\\n\\n")
                    sys.stdout.flush()
                    continue
                if mode == "die" or (mode == "die-once" and not os.path.exists(marker)):
                    open(marker, "w").close()
                    os._exit(3)
            me = "X" if words[1].startswith("b") else "O"
            moves = [f"{'abcdefgh'[c]}{r + 1}" for r in range(8) for c in range(8) if flips(board, me, r, c)]
            move = moves[0] if moves else "pass"
            play(board, me, move)
            played += 1
            reply(move)
        else:
            reply()
    """
)


def fake_engine(tmp_path: Path, mode: str, after: int = 3, timeout: float = 60.0) -> GTPEngine:
    script = tmp_path / "fake_gtp.py"
    script.write_text(FAKE)
    return GTPEngine([sys.executable, str(script), mode, str(after), str(tmp_path / "died")], timeout=timeout)


def board_from_showboard(text: str) -> GameState:
    """gtp-rhino's showboard rows "  3 . . . X . . . ." as a position (black to move)."""
    rows = [line.split()[1:] for line in text.splitlines() if line.strip()[:1].isdigit()]
    assert len(rows) == 8
    black = white = 0
    for r, cells in enumerate(rows):
        for c, cell in enumerate(cells):
            if cell == "X":
                black |= 1 << (r * 8 + c)
            elif cell == "O":
                white |= 1 << (r * 8 + c)
    return GameState(black, white, 0)


@pytest.mark.parametrize(
    ("control", "command"),
    [
        (TimeControl(clock=300.0, overtime=30.0, overtime_moves=5), "time_settings 300 30 5"),
        (TimeControl(clock=600.0), "time_settings 600 0 0"),
        (TimeControl(clock=0.0, overtime=10.0, overtime_moves=1), "time_settings 0 10 1"),
        (TimeControl(move=60.0), "time_settings 0 60 1"),  # a move limit alone: a byo-yomi of one stone
        (TimeControl(move=0.25), "time_settings 0 0.25 1"),  # under a second: not 0, which says none
        (TimeControl(clock=300.0, increment=2.0), None),  # what GTP cannot say is not said
        (TimeControl(clock=5400.0, moves_to_go=40), None),
        (TimeControl(clock=300.0, overtime=120.0), None),
        (TimeControl(clock=300.0, move=60.0), None),
        (TimeControl(), None),
    ],
)
def test_a_time_control_in_gtp_words(control: TimeControl, command: str | None) -> None:
    assert gtp_time_settings(control) == command


def test_a_time_left_in_gtp_words() -> None:
    byo_yomi = TimeControl(clock=300.0, overtime=30.0, overtime_moves=5)
    assert gtp_time_left(BLACK, TimeLeft(byo_yomi, 329.9, 299.9)) == "time_left black 299 0"  # the main time
    assert gtp_time_left(WHITE, TimeLeft(byo_yomi, 12.5, 12.5, 3, True)) == "time_left white 12 3"  # a period's
    assert gtp_time_left(BLACK, TimeLeft(TimeControl(move=60.0), 58.0)) == "time_left black 58 1"
    assert gtp_time_left(BLACK, TimeLeft(TimeControl(clock=300.0, move=5.0), 5.0, 280.0)) == "time_left black 5 0"
    assert gtp_time_left(BLACK, TimeLeft(TimeControl(clock=10.0), -0.5, -0.5)) == "time_left black 0 0"
    assert gtp_time_left(BLACK, TimeLeft(TimeControl())) is None


def recorder(tmp_path: Path, knows_time: bool) -> tuple[GTPEngine, Path]:
    """Our own GTP server as an external engine that logs the commands it reads (tests/data/gtp_recorder.py)."""
    log = tmp_path / "commands.log"
    script = TEST_DATA / "gtp_recorder.py"
    command = [sys.executable, str(script), str(log), "timed" if knows_time else "untimed"]
    return GTPEngine(command, start_timeout=300.0), log  # a fresh clone compiles the engine first


def test_the_engine_is_told_the_rule_once_a_game_and_its_clock_before_each_move(tmp_path: Path) -> None:
    engine, log = recorder(tmp_path, knows_time=True)
    control = TimeControl(clock=300.0, overtime=30.0, overtime_moves=5)
    with engine:
        for seed in (1, 2):
            result = play_game(engine, RandomAgent(seed=seed), time_control=control)
            assert result.reason == "end", result.details
        per_move = play_game(engine, RandomAgent(seed=3), time_limit=30.0)
        assert per_move.reason == "end", per_move.details
    lines = log.read_text().splitlines()
    settings = [line for line in lines if line.startswith("time_settings")]
    assert settings == ["time_settings 300 30 5", "time_settings 300 30 5", "time_settings 0 30 1"]
    third = lines.index("time_settings 0 30 1")
    asked = [i for i, line in enumerate(lines) if line.startswith("genmove")]
    assert len(asked) >= 3 * 25  # each game's moves of black but its forced passes
    told = {i: lines[i - 1].split() for i in asked}
    assert all(words[:2] == ["time_left", "black"] for words in told.values())
    assert {told[i][3] for i in asked if i < third} == {"0"}  # on the main time
    assert {told[i][3] for i in asked if i > third} == {"1"}  # a move's own seconds
    assert 290 <= int(told[asked[0]][2]) <= 300 and 25 <= int(told[asked[-1]][2]) <= 30


def test_an_engine_that_knows_no_time_commands_is_not_sent_them_and_plays(tmp_path: Path) -> None:
    engine, log = recorder(tmp_path, knows_time=False)
    with engine:
        result = play_game(RandomAgent(seed=4), engine, time_control=TimeControl(clock=300.0))
    assert result.reason == "end", result.details
    lines = log.read_text().splitlines()
    assert lines.count("known_command time_settings") == lines.count("known_command time_left") == 1
    assert not [line for line in lines if line.startswith(("time_settings", "time_left"))]


def test_our_gtp_server_plays_on_the_clock_it_is_sent(tmp_path: Path) -> None:
    """Its player takes 30 s a move by its own budget: only the clock sent makes it move in the rule's 20 s."""
    server = [sys.executable, "-m", "agents", "gtp", "--player", "alphabeta:time=30", "--time-limit", "off"]
    control = TimeControl(clock=20.0)
    with GTPEngine(server, start_timeout=300.0) as engine:  # a fresh clone compiles the search first
        try:
            action = engine.act_timed(observe(GameState.initial(), 0), TimeLeft(control, 20.0, 20.0))
        except MoveTimeout:
            pytest.fail("the server's player did not play on the clock it was sent")
    assert action in GameState.initial().legal_actions()


def test_rhino_coordinates_match_ours() -> None:
    with GTPEngine(RHINO) as engine:
        engine.send("play black d3")
        shown = board_from_showboard(engine.send("showboard"))
        assert shown.black == GameState.initial().apply("D3").black
        # Its first move as black from the start is one of ours.
        engine.send("clear_board")
        assert engine.act(observe(GameState.initial(), 0)) in GameState.initial().legal_actions()


@pytest.mark.parametrize("engine_colour", [0, 1])
def test_rhino_plays_full_games_against_random(engine_colour: int) -> None:
    with GTPEngine(RHINO) as engine:
        wins = 0
        for game in range(3):
            rnd = RandomAgent(seed=game)
            players = (engine, rnd) if engine_colour == 0 else (rnd, engine)
            start = None if game == 0 else GameState.initial().apply("F5").apply(["D6", "F6"][game - 1])
            result = play_game(*players, time_limit=30.0, start=start)
            assert result.reason == "end", result.details
            result.final_state()  # every move replays legally
            wins += result.winner == ("black", "white")[engine_colour]
        assert engine.restarts == 0
    assert wins >= 2  # a real engine beats a random mover


def test_engine_board_stays_in_sync_with_the_game() -> None:
    rnd = RandomAgent(seed=7)
    state = GameState.initial()
    with GTPEngine(RHINO) as engine:
        while not state.is_terminal():
            if state.player == 1:
                action = engine.act(observe(state, 1))
                shown = board_from_showboard(engine.send("showboard"))
                after = state.apply(action)
                assert (shown.black, shown.white) == (after.black, after.white)
            else:
                action = rnd.act(observe(state, 0))
            state = state.apply(action)


@pytest.mark.parametrize(
    ("mode", "words"),
    [("garbage", "malformed"), ("illegal", "illegal move"), ("die", "died"), ("hang", "no reply")],
)
def test_misbehaving_engine_loses_the_game_cleanly(tmp_path: Path, mode: str, words: str) -> None:
    with fake_engine(tmp_path, mode, after=3, timeout=2.0) as engine:
        result = play_game(engine, RandomAgent(seed=1), time_limit=20.0)
        assert result.reason == "error"
        assert result.loser == "black" and result.winner == "white"
        assert words in result.details
        assert len(result.moves) >= 6  # three good engine moves came first
        result.final_state()
        restarts = engine.restarts
        assert restarts == {"die": 1, "hang": 0}.get(mode, 0)
        # The next game starts afresh: a dead or hung engine is restarted.
        again = play_game(RandomAgent(seed=2), engine, time_limit=20.0)
        assert again.loser == "white" and words in again.details
        # die: restarted at reset() and once more mid-game; hang: at reset() only.
        assert engine.restarts == restarts + {"die": 2, "hang": 1}.get(mode, 0)


def test_crashed_engine_is_restarted_and_the_game_goes_on(tmp_path: Path) -> None:
    with fake_engine(tmp_path, "die-once", after=5) as engine:
        result = play_game(engine, RandomAgent(seed=3), time_limit=20.0)
        assert result.reason == "end", result.details
        assert engine.restarts == 1
        assert (tmp_path / "died").exists()


def test_close_ends_the_process(tmp_path: Path) -> None:
    engine = fake_engine(tmp_path, "ok")
    assert engine.alive
    engine.close()
    assert not engine.alive
    engine.close()  # twice is fine
    # A new game starts a closed engine again.
    result = play_game(engine, RandomAgent(seed=4), time_limit=20.0)
    assert result.reason == "end", result.details
    assert engine.restarts == 0
    engine.close()


def test_a_stopped_move_ends_the_engine_and_the_next_move_starts_a_fresh_one(tmp_path: Path) -> None:
    engine = fake_engine(tmp_path, "hang-once", after=0)
    pid = engine.pid
    engine.stop()  # no move under way: nothing happens
    assert engine.alive and engine.pid == pid
    state = GameState.initial()
    error, seconds = stop_after(engine, state, 0.3)
    assert isinstance(error, EngineError) and "stopped" in str(error) and seconds < 1.0
    assert pid is not None and not engine.alive
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    assert engine.act(observe(state, 0)) in state.legal_actions() and engine.restarts == 0
    engine.close()


class _StoppedAsItStarts(GTPEngine):
    """A GTPEngine that, once ``stop_in_start`` is set, is stopped as its next engine
    starts, before the process exists: a stop from another thread at that moment."""

    stop_in_start = False

    def _start(self) -> None:
        if self.stop_in_start:
            self.stop()
        super()._start()


def test_a_stop_while_the_stopped_engine_is_replaced_stops_the_replacement(tmp_path: Path) -> None:
    script = tmp_path / "fake_gtp.py"
    script.write_text(FAKE)
    engine = _StoppedAsItStarts([sys.executable, str(script), "hang", "0", str(tmp_path / "died")], timeout=3.0)
    state = GameState.initial()
    error, _ = stop_after(engine, state, 0.2)
    assert isinstance(error, EngineError) and "stopped" in str(error)
    # The next move starts a fresh engine, and is stopped while that one starts: the stop found
    # no process to end, and the fresh engine hung to the 3 s timeout.
    engine.stop_in_start = True
    start = time.monotonic()
    with pytest.raises(EngineError, match="was stopped"):
        engine.act(observe(state, state.player))
    assert time.monotonic() - start < 1.0 and not engine.alive
    engine.close()


def test_a_late_engine_loses_on_time_and_its_process_is_killed_at_once(tmp_path: Path) -> None:
    engine = fake_engine(tmp_path, "hang", after=2, timeout=60.0)
    assert engine.pid is not None
    pid = engine.pid
    moved: list[float] = []
    result = play_game(engine, RandomAgent(seed=5), time_limit=1.0, on_move=lambda m, s: moved.append(time.monotonic()))
    late = time.monotonic() - moved[-1]  # from the opponent's last move to the verdict
    assert (result.reason, result.loser) == ("timeout", "black")
    assert 1.0 <= late < 1.3, late
    assert not engine.alive
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    # The next game starts a fresh engine.
    again = play_game(RandomAgent(seed=6), engine, time_limit=5.0)  # it hangs again after two moves
    assert again.loser == "white" and again.reason == "timeout"
    engine.close()


def test_a_flooding_engine_loses_by_an_error_with_bounded_details(tmp_path: Path) -> None:
    with fake_engine(tmp_path, "flood", after=1, timeout=20.0) as engine:
        result = play_game(engine, RandomAgent(seed=7), time_limit=20.0)
    assert (result.reason, result.loser) == ("error", "black")
    assert "over 65536 characters" in result.details
    assert len(result.details) < 20_000


def test_engine_start_up_wait_obeys_the_time_limit(tmp_path: Path) -> None:
    script = tmp_path / "sleepy.py"
    script.write_text("import time\ntime.sleep(60)\n")
    t0 = time.monotonic()
    with pytest.raises(SpecError, match="no reply"):
        build_player(f"gtp:{sys.executable} {script}", 0, time_limit=1.0)
    assert time.monotonic() - t0 < 3.0


def test_the_engine_dies_with_its_parent_even_after_sigkill() -> None:
    root = Path(__file__).resolve().parents[2]
    code = (
        "import time\nfrom agents.play.gtp import GTPEngine\n"
        f"e = GTPEngine({RHINO!r})\nprint(e.pid, flush=True)\ntime.sleep(120)\n"
    )
    parent = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(root)}
    )
    try:
        assert parent.stdout is not None
        engine = int(parent.stdout.readline())
        os.kill(engine, 0)
        parent.send_signal(signal.SIGKILL)
        parent.wait(timeout=10)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            try:
                os.kill(engine, 0)
            except ProcessLookupError:
                break
            time.sleep(0.05)
        else:
            pytest.fail("gtp-rhino outlived the process that started it")
    finally:
        parent.kill()
        parent.wait(timeout=10)


def test_engine_joins_from_an_opening_position() -> None:
    start = GameState.initial()
    for move in ["F5", "F6", "E6", "F4"]:
        start = start.apply(move)
    moves = find_moves(
        GameState.initial(), start.player, *(start.black, start.white)[:: 1 if start.player == 0 else -1]
    )
    assert moves is not None
    replayed = GameState.initial()
    for a in moves:
        replayed = replayed.apply(a)
    assert replayed == start


def test_move_tracker_follows_whole_games_from_what_one_side_sees() -> None:
    white_passes = 0
    for seed in range(30):
        states = random_game(seed)
        tracker = MoveTracker("white")
        played = []  # the game's moves, passes included, as the tracker should know them
        for i, state in enumerate(states[:-1]):
            action = next(a for a in state.legal_actions() if state.apply(a) == states[i + 1])
            if state.player == WHITE:
                seen, colour, rebuilt = tracker.sync(observe(state, WHITE))
                assert (seen, colour) == (state, WHITE)
                assert rebuilt == (i == 1)  # rebuilt from the initial position at its first turn only
                assert tracker.moves == played
                tracker.play(state, action)
                white_passes += action == PASS
            played.append(action)
        tracker.lose_track()  # rebuilds from the initial position (a search: an early position)
        early = next(i for i, s in enumerate(states) if i > 1 and s.player == WHITE)
        seen, _, rebuilt = tracker.sync(observe(states[early], WHITE))
        assert rebuilt and seen == states[early]
    assert white_passes > 0  # the games cover the tracked side's forced passes


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="needs a command"):
        GTPEngine("")
    with pytest.raises(ValueError, match="timeout"):
        GTPEngine(RHINO, timeout=0)
    with pytest.raises(EngineError, match="cannot start"):
        GTPEngine("/nonexistent/engine")
    with GTPEngine(RHINO) as engine, pytest.raises(EngineError, match="refused"):
        engine.send("boardsize 10")
