"""The referee's rules and the time control it enforces: tries, time, the end, a game clock."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from conftest import run_cli

from agents.base import Agent
from agents.clocks import Clock, TimeControl, TimeLeft
from agents.play.match import play_game
from agents.play.referee import Referee, Verdict, tries_phrase
from agents.play.result import LOSING_REASONS, REASONS, GameResult, Reason
from agents.ui.gui.flow import GameFlow
from reversi_env import GameState
from reversi_env.errors import IllegalMoveError
from reversi_env.notation import parse_action
from reversi_env.observation import Observation
from reversi_env.state import BLACK, WHITE


def test_reasons_keep_the_words_records_hold() -> None:
    assert REASONS == ("end", "timeout", "illegal", "error", "tamper", "resign", "quit", "interrupted")
    assert [r.value for r in Reason if r.loses] == list(LOSING_REASONS)


def test_a_legal_move_is_played_and_the_next_side_moves() -> None:
    referee = Referee()
    ruling = referee.play(parse_action("D3"), 1.5)
    assert ruling.verdict is Verdict.PLAYED and ruling.tries_left == 3
    assert [(r.name, r.seconds, r.forced) for r, _ in ruling.plies] == [("D3", 1.5, False)]
    assert referee.to_move == WHITE and referee.moves == ["D3"] and referee.times == [1.5]


def test_an_illegal_move_raises_and_changes_nothing() -> None:
    referee = Referee()
    with pytest.raises(IllegalMoveError):
        referee.play(parse_action("A1"), 0.0)
    assert referee.moves == [] and not referee.over


def test_rejected_tries_count_down_and_the_last_loses() -> None:
    referee = Referee(max_illegal=2)
    first = referee.reject("X tried 'Z9': not a square", 0.5)
    assert (first.verdict, first.tries_left, first.text) == (
        Verdict.REJECTED,
        1,
        "X tried 'Z9': not a square, 1 try left",
    )
    second = referee.reject("X tried 'A1': not legal here", 0.5)
    assert (second.verdict, second.reason) == (Verdict.LOST, Reason.ILLEGAL)
    result = referee.result
    assert result is not None and (result.winner, result.loser, result.reason) == ("white", "black", "illegal")
    assert result.details.startswith("black sent 2 illegal moves:\nX tried 'Z9': not a square\n")
    with pytest.raises(RuntimeError):
        referee.play(parse_action("D3"), 0.0)


def test_a_rejected_try_is_noted_and_its_time_counts_for_the_move() -> None:
    referee = Referee()
    referee.reject("X tried 'Z9': not a square", 2.0)
    ruling = referee.play(parse_action("D3"), 1.0)
    assert ruling.plies[0][0].seconds == 3.0
    assert referee.notes == ["black move 1: rejected X tried 'Z9': not a square"]
    assert tries_phrase(0) == "no tries left" and tries_phrase(1) == "1 try left"


def test_time_left_counts_a_turns_tries_against_the_move_limit() -> None:
    referee = Referee(time_control=TimeControl(move=10.0))
    referee.reject("X tried 'Z9': not a square", 4.0)
    assert referee.time_left() == 6.0
    ruling = referee.time_out(6.5)
    assert (ruling.verdict, ruling.reason) == (Verdict.LOST, Reason.TIMEOUT)
    assert referee.result is not None and referee.result.details.endswith("black took over 10.0 s for move 1")


def test_a_forced_pass_is_played_for_the_side_without_a_move() -> None:
    # White to move with no placement; black has one: white passes without being asked.
    state = GameState.from_string("XXXXXXXX" * 7 + "XXXXXXO. O")
    referee = Referee(state)
    assert [(r.name, r.forced) for r, _ in referee.begin()] == [("PASS", True)]
    assert referee.to_move == BLACK
    ruling = referee.play(parse_action("H8"), 0.25)
    assert ruling.verdict is Verdict.OVER and ruling.reason is Reason.END
    result = referee.result
    assert result is not None and result.moves == ["PASS", "H8"] and result.winner == "black"
    assert GameResult.from_json(result.to_json()) == result  # a record the files accept


def test_quit_and_resign_end_the_game() -> None:
    quitting = Referee()
    assert quitting.quit("black quit").verdict is Verdict.OVER
    assert quitting.result is not None and (quitting.result.reason, quitting.result.winner) == ("quit", "draw")
    resigning = Referee()
    resigning.play(parse_action("D3"), 0.0)
    ruling = resigning.lose(Reason.RESIGN, "white resigned")
    assert ruling.verdict is Verdict.LOST and resigning.result is not None and resigning.result.loser == "white"
    with pytest.raises(ValueError):
        Referee().lose(Reason.QUIT, "not a loss")


def test_a_game_clock_takes_each_move_and_adds_the_increment() -> None:
    control = TimeControl(clock=30.0, increment=2.0)
    referee = Referee(time_control=control)
    assert referee.time_left() == 30.0
    referee.play(parse_action("D3"), 10.0)  # black: 30 - 10 + 2
    assert referee.clocks[BLACK].left == 22.0 and referee.time_left() == 30.0  # white's turn, untouched
    referee.play(parse_action("C3"), 29.0)  # white: 30 - 29 + 2
    assert referee.clocks[WHITE].left == 3.0
    referee.reject("X tried 'Z9': not a square", 5.0)
    assert referee.time_left() == 17.0  # black's 22 less the 5 of the rejected try


def test_a_player_loses_on_time_when_its_clock_runs_out() -> None:
    referee = Referee(time_control=TimeControl(clock=20.0, increment=1.0, move=60.0))
    referee.play(parse_action("D3"), 15.0)  # black has 6 left
    referee.play(parse_action("C3"), 1.0)
    referee.play(parse_action("C4"), 6.5)  # black answers after 6.5 s of its 6: -0.5 + 1
    referee.play(parse_action("E3"), 1.0)
    assert referee.time_left() == 0.5
    ruling = referee.time_out(0.5)
    assert ruling.reason is Reason.TIMEOUT and referee.result is not None and referee.result.loser == "black"
    assert "ran out of time on its clock (20 s a side + 1 s a move)" in referee.result.details


def test_moves_to_go_give_the_next_period_its_time() -> None:
    clock = Clock(TimeControl(clock=10.0, moves_to_go=2))
    clock.punch(3.0)
    assert (clock.left, clock.moves_left) == (7.0, 1)
    clock.punch(4.0)  # the period's last move: 3 left, and 10 more for the next 2
    assert (clock.left, clock.moves_left) == (13.0, 2)
    assert clock.allowance(used=5.0) == 8.0


def test_a_move_limit_and_a_clock_the_tighter_wins() -> None:
    clock = Clock(TimeControl(move=5.0, clock=8.0))
    assert clock.allowance() == 5.0
    clock.punch(4.0)
    assert clock.allowance() == 4.0
    assert Clock(TimeControl()).allowance(100.0) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("300", TimeControl(clock=300.0)),
        ("300+2", TimeControl(clock=300.0, increment=2.0)),
        ("40/5400", TimeControl(clock=5400.0, moves_to_go=40)),
        ("40/5400+30", TimeControl(clock=5400.0, increment=30.0, moves_to_go=40)),
        (" 0.5+0.1 ", TimeControl(clock=0.5, increment=0.1)),
        ("300,5/30", TimeControl(clock=300.0, overtime=30.0, overtime_moves=5)),  # GTP's time_settings 300 30 5
        ("0,1/30", TimeControl(clock=0.0, overtime=30.0, overtime_moves=1)),  # 30 s every move from the start
        ("900+10,120", TimeControl(clock=900.0, increment=10.0, overtime=120.0)),  # GGF's TI[15:00/10/2:00]
    ],
)
def test_clock_forms_parse(text: str, expected: TimeControl) -> None:
    assert TimeControl.parse_clock(text) == expected


@pytest.mark.parametrize("text", ["", "+2", "300+", "x", "0", "40/", "0/300", "300+2+1", "1e9"])
def test_bad_clock_forms_say_so(text: str) -> None:
    with pytest.raises(ValueError):
        TimeControl.parse_clock(text)


@pytest.mark.parametrize(
    "text", ["300,", ",30", "300,5/", "300,0/30", "300,0", "300,5/30,5/30", "40/5400,5/30", "300,5/30+2", "300:5/30"]
)
def test_bad_overtime_forms_say_so(text: str) -> None:
    with pytest.raises(ValueError):
        TimeControl.parse_clock(text)


@pytest.mark.parametrize(
    "control",
    [
        TimeControl(clock=300.0),
        TimeControl(clock=1234.56789, increment=0.1),
        TimeControl(clock=5400.0, increment=30.0, moves_to_go=40),
        TimeControl(clock=1e-5, moves_to_go=3),
        TimeControl(clock=0.0, overtime=1 / 3, overtime_moves=7),
        TimeControl(clock=123456.7891234, increment=2.5, overtime=120.0),
        TimeControl(clock=60.0, overtime=10.0, overtime_moves=5, move=2.0),
    ],
)
def test_a_clock_s_text_reads_back_as_the_same_rule(control: TimeControl) -> None:
    assert TimeControl.parse_clock(control.clock_text(), control.move) == control


def test_a_time_control_checks_its_fields_and_says_itself() -> None:
    with pytest.raises(ValueError):
        TimeControl(move=0.0)
    with pytest.raises(ValueError):
        TimeControl(increment=2.0)  # an increment needs a clock
    with pytest.raises(ValueError):
        TimeControl(clock=10.0, moves_to_go=0)
    assert TimeControl(move=60.0).describe() == "60 s per move"
    assert TimeControl(clock=5400.0, moves_to_go=40, move=300.0).describe() == "40 moves in 5400 s, 300 s per move"
    assert TimeControl().unlimited and TimeControl.per_move(None) == TimeControl()


class _Sleeper(Agent):
    """Plays its first legal move after ``seconds`` of (real) thinking."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.name = f"sleeper {seconds}"

    def act(self, observation: Observation) -> int:
        time.sleep(self.seconds)
        return int(observation["action_mask"].nonzero()[0][0])


class _Instant(Agent):
    name = "instant"

    def act(self, observation: Observation) -> int:
        return int(observation["action_mask"].nonzero()[0][0])


def test_play_game_loses_a_player_on_its_game_clock() -> None:
    # 0.1 s a move against a 0.35 s clock: black's fourth move at the latest runs it out.
    result = play_game(_Sleeper(0.1), _Instant(), time_control=TimeControl(clock=0.35))
    assert (result.reason, result.loser) == ("timeout", "black")
    assert len(result.moves) <= 6
    assert result.details.startswith("black ran out of time on its clock (0.35 s a side)")


def test_play_game_adds_the_increment_after_each_move() -> None:
    # 0.02 s a move outlives a 0.1 s clock only with 0.05 s added after each move.
    without = play_game(_Sleeper(0.02), _Instant(), time_control=TimeControl(clock=0.1))
    assert (without.reason, without.loser) == ("timeout", "black")
    with_increment = play_game(_Sleeper(0.02), _Instant(), time_control=TimeControl(clock=0.1, increment=0.05))
    assert with_increment.reason == "end"
    with pytest.raises(ValueError):
        play_game(_Instant(), _Instant(), time_limit=5.0, time_control=TimeControl(clock=0.1))


def test_the_play_command_runs_a_game_clock(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    slow = tmp_path / "slow.py"
    slow.write_text(
        "import time\n\n\nclass Slow:\n    def __init__(self, color):\n        self.color = color\n\n"
        "    def get_move(self, board):\n        time.sleep(5)\n"
    )
    save = tmp_path / "game.json"
    args = ["play", "--black", f"classic:{slow}:Slow", "--white", "greedy", "--clock", "0.5+1", "--save", str(save)]
    status, err = run_cli(args, capsys)
    assert (status, err) == (0, "")
    result = GameResult.from_json(save.read_text())
    assert (result.reason, result.loser) == ("timeout", "black")
    assert result.details == "black ran out of time on its clock (0.5 s a side + 1 s a move) for move 1"
    status, err = run_cli(["play", "--clock", "5+"], capsys)
    assert status == 2 and err.endswith(
        "a clock is [MOVES/]SECONDS[+INCREMENT][,[MOVES/]OVERTIME] ('300+2', '40/5400', '300,5/30'), got '5+'\n"
    )


def test_the_window_loses_a_side_on_its_clock_and_undo_gives_no_time_back() -> None:
    flow = GameFlow(time_control=TimeControl(clock=10.0))
    flow.play(parse_action("D3"), 9.5)
    flow.play(parse_action("C3"), 1.0)
    assert flow.time_left() == pytest.approx(0.5, abs=0.05)
    flow.turn_started -= 1.0  # black has thought a second of its half
    assert flow.check_clock()
    assert flow.result is not None and (flow.result.reason, flow.result.loser) == ("timeout", "black")
    assert flow.result.details == "black ran out of time on its clock (10 s a side)"
    assert flow.undo() and flow.undo() and not flow.over and flow.state == GameState.initial()
    assert flow.time_left() == 0.0  # back before D3, and its 9.5 s and the second after still spent
    assert flow.check_clock() and flow.result is not None and flow.result.loser == "black"


def test_an_undo_in_the_window_keeps_the_clocks_as_they_stand() -> None:
    flow = GameFlow(time_control=TimeControl(clock=10.0, increment=1.0))
    flow.play(parse_action("D3"), 4.0)  # black: 10 - 4 + 1
    flow.turn_started -= 2.0  # white thinks 2 s, then takes black's move back
    assert flow.undo()
    assert flow.referee.clocks[BLACK].left == 7.0
    assert flow.referee.clocks[WHITE].left == pytest.approx(8.0, abs=0.05)


def test_an_undo_at_the_terminal_gives_no_time_back() -> None:
    from agents.play.human import HumanPlayer
    from agents.ui.play_cli import Opening, TerminalDisplay, TurnRequests, play_session, terminal_player

    lines = iter(["d3", "undo", "d3"])

    def slow_typist(prompt: str) -> str:
        time.sleep(0.6)  # each line after 0.6 s of the 1 s clock
        return next(lines)

    requests = TurnRequests()
    human = terminal_player(HumanPlayer(BLACK, read=slow_typist, write=lambda text: None), BLACK, "human", requests)
    display = TerminalDisplay(("human", "instant"), write=lambda text: None)
    control = TimeControl(clock=1.0, increment=0.5)
    result = play_session([human, _Instant()], Opening(), requests, display, time_control=control)
    # D3 (0.6 s, then 0.5 more), "undo" at the next turn (0.6 s): 0.3 s left for the D3 typed again.
    assert (result.reason, result.loser) == ("timeout", "black")
    assert result.moves == []


def test_the_window_takes_a_game_clock_from_its_command_line() -> None:
    from agents.ui.cli import build_parser
    from agents.ui.gui.control import GameControl
    from agents.ui.options import time_control

    args = build_parser().parse_args(["gui", "--clock", "40/600+5", "--time-limit", "30"])
    control = GameControl("random", mode="humans", time_control=time_control(args))
    assert control.flow.time_control == TimeControl(move=30.0, clock=600.0, increment=5.0, moves_to_go=40)
    assert control.flow.time_left() == pytest.approx(30.0, abs=0.5)  # the move's limit is the tighter


def test_overtime_follows_the_clock_and_starts_again_each_period() -> None:
    clock = Clock(TimeControl(clock=2.0, overtime=10.0, overtime_moves=5))
    assert clock.allowance() == 12.0  # the main time and then the first period
    clock.punch(2.5)  # over the main time: the half second comes off the first period
    assert (clock.left, clock.moves_left, clock.in_overtime) == (9.5, 5, True)
    assert clock.allowance() == 9.5
    for _ in range(5):
        clock.punch(1.0)
    assert (clock.left, clock.moves_left) == (10.0, 5)  # the period's moves played: a new period
    grace = Clock(TimeControl(clock=5.0, increment=1.0, overtime=120.0))  # GGF's TI[5/1/2:00]
    grace.punch(7.0)
    assert (grace.left, grace.moves_left, grace.in_overtime) == (119.0, None, True)
    grace.punch(100.0)
    assert grace.left == 20.0  # the rest of the game on one grace, the increment still added
    assert TimeControl(clock=600.0, overtime=30.0, overtime_moves=5).describe() == (
        "600 s a side, then 30 s for every 5 moves"
    )
    assert TimeControl(clock=5.0, overtime=120.0).describe() == "5 s a side, then 120 s for the rest of the game"


def test_a_player_sees_the_rule_and_its_clock_as_it_stands() -> None:
    control = TimeControl.parse_clock("40/300+2", move=60.0)
    referee = Referee(time_control=control)
    referee.play(parse_action("D3"), 10.0)
    referee.play(parse_action("C3"), 1.0)
    referee.reject("X tried 'Z9': not a square", 4.0)
    left = referee.clocks[BLACK].reading(referee.used)
    assert left == TimeLeft(control, 56.0, 288.0, 39)  # the move's 60 less the try; 300 - 10 + 2 - 4
    assert control.clock_text() == "40/300+2" and TimeControl.parse_clock(control.clock_text(), 60.0) == control
    assert TimeLeft.of(5.0) == TimeLeft(TimeControl(), 5.0) and TimeLeft.of(None).seconds is None
    assert TimeLeft.of(left) is left
    with pytest.raises(TypeError):
        TimeLeft.of("5")  # type: ignore[arg-type]


def test_every_losing_reason_has_its_words_for_a_report() -> None:
    words = {reason: reason.lost_by for reason in Reason if reason.loses}
    assert set(words) == {Reason(word) for word in LOSING_REASONS}
    assert words[Reason.TIMEOUT] == "time" and words[Reason.ILLEGAL] == "illegal moves"
    assert len(set(words.values())) == len(words)
