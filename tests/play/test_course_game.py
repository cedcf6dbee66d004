"""The course framework's Game: the course's rules, output and return value."""

from __future__ import annotations

import os
import random
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from agents.play import course
from agents.play.course import console
from agents.play.course.board import Board
from agents.play.course.game import Game, _stop_thread
from agents.play.match import play_game
from agents.play.specs import SpecError, load_classic_class, make_agent
from reversi_env import GameState


class RandomPlayer:
    """The course's example player: a random legal move."""

    def __init__(self, color: str = "X") -> None:
        self.color = color

    def get_move(self, board: Any) -> str | None:
        moves = list(board.get_legal_actions(self.color))
        return random.choice(moves) if moves else None


class Says(RandomPlayer):
    """Answers ``answers`` in turn, then random legal moves."""

    def __init__(self, *answers: object) -> None:
        super().__init__()
        self.answers = list(answers)

    def get_move(self, board: Any) -> Any:
        return self.answers.pop(0) if self.answers else super().get_move(board)


def test_a_full_game_returns_the_winner_and_the_difference(capsys: pytest.CaptureFixture[str]) -> None:
    random.seed(1)
    black, white = RandomPlayer(), RandomPlayer()
    game = Game(black, white)
    assert (black.color, white.color) == ("X", "O")
    result, diff = game.run()  # type: ignore[misc]
    b, w = game.board.count("X"), game.board.count("O")
    expected = "black_win" if b > w else "white_win" if w > b else "draw"
    assert (result, diff) == (expected, abs(b - w))
    assert game.game_over()
    out = capsys.readouterr().out
    assert out.count("=====Game start!=====") == 1 and out.count("=====Game over!=====") == 1
    lines = out.splitlines()
    start = lines.index("  A B C D E F G H")
    assert lines[start + 4] == "4 . . . O X . . ."
    assert lines[start + 9] == "statistics: discs / step time / total time"
    assert lines[start + 10] == "black X: 2 / 0.0 / 0.0"
    assert lines[start + 11] == "white O: 2 / 0.0 / 0.0"
    moves = out.count("statistics:") - 2  # the start and the end are shown too
    assert moves == b + w - 4 and len([s for s in out.split("\n\n") if "black X:" in s]) == moves + 2
    assert lines[-1] == {"black_win": "Black wins!", "white_win": "White wins!", "draw": "Draw"}[result]


def test_three_illegal_answers_lose_and_each_is_shown(capsys: pytest.CaptureFixture[str]) -> None:
    result = Game(Says("Z9", "d3", "D4"), RandomPlayer()).run()
    assert result == ("white_win", 0)
    out = capsys.readouterr().out
    assert "X tried Z9: not a square, 2 tries left" in out
    assert "X tried d3: squares are written 'D3' (capitals), 1 try left" in out
    assert "X tried D4: not a legal move, no tries left" in out
    assert "black - X answered 3 illegal moves, so white - O wins" in out


def test_answers_the_course_does_not_take_are_illegal_tries_that_say_why(capsys: pytest.CaptureFixture[str]) -> None:
    class Sly(str):  # equal to everything: the course's `in legal_actions` would take it
        def __eq__(self, other: object) -> bool:
            return True

        __hash__ = str.__hash__

    assert Game(Says((2, 3), 19, Sly("A1")), RandomPlayer()).run() == ("white_win", 0)
    out = capsys.readouterr().out
    assert "X tried (2, 3): squares are written 'D3', not as (row, col), 2 tries left" in out
    assert "X tried 19: not a square (a move is written 'D3'), 1 try left" in out
    assert "X tried A1: not a legal move, no tries left" in out


def test_an_illegal_answer_then_a_legal_one_plays_on(capsys: pytest.CaptureFixture[str]) -> None:
    random.seed(2)
    black = Says(None, "D3")
    game = Game(black, RandomPlayer())
    game.run()
    assert "X tried None: not a move (a side with no legal move passes without being asked), 2 tries left" in (
        capsys.readouterr().out
    )
    assert game.board.count("X") + game.board.count("O") > 5


def test_changing_the_board_loses(capsys: pytest.CaptureFixture[str]) -> None:
    class Vandal(RandomPlayer):
        def get_move(self, board: Any) -> str | None:
            board._board[0][0] = self.color
            return super().get_move(board)

    assert Game(RandomPlayer(), Vandal()).run() == ("black_win", 0)
    assert "white - O changed the board, so black - X wins" in capsys.readouterr().out


def test_searching_on_the_board_and_putting_it_back_is_allowed() -> None:
    class Searcher(RandomPlayer):
        def get_move(self, board: Any) -> str | None:
            for move in list(board.get_legal_actions(self.color)):
                board.backpropagation(move, board._move(move, self.color), self.color)
            return super().get_move(board)

    random.seed(3)
    game = Game(Searcher(), Searcher())
    game.run()
    assert game.game_over()


def test_a_slow_turn_loses(capsys: pytest.CaptureFixture[str]) -> None:
    class Slow(RandomPlayer):
        def get_move(self, board: Any) -> str | None:
            time.sleep(2)
            return super().get_move(board)

    t0 = time.monotonic()
    assert Game(Slow(), RandomPlayer(), time_limit=0.3).run() == ("white_win", 0)
    assert time.monotonic() - t0 < 1.5
    assert "black - X thought for more than 0.3 s, so white - O wins" in capsys.readouterr().out


def test_a_late_search_is_stopped_as_the_courses_func_timeout_stops_it(capsys: pytest.CaptureFixture[str]) -> None:
    class Runaway(RandomPlayer):
        """Searches on the real board the course's way, and forgets its clock."""

        searches = 0
        caught = False

        def get_move(self, board: Any) -> str | None:
            self.thread = threading.current_thread()
            while True:
                try:
                    for move in list(board.get_legal_actions(self.color)):
                        flipped = board._move(move, self.color)
                        board.backpropagation(move, flipped, self.color)
                    self.searches += 1
                except Exception:  # a player's own catch-all does not keep it going
                    self.caught = True

    runaway = Runaway()
    game = Game(runaway, RandomPlayer(), time_limit=0.3)
    assert game.run() == ("white_win", 0)
    assert "black - X thought for more than 0.3 s, so white - O wins" in capsys.readouterr().out
    runaway.thread.join(10)  # stopped, not left running (at once on a quiet machine: STOP_WAIT)
    assert not runaway.thread.is_alive() and not runaway.caught


def test_a_read_whose_turn_is_over_takes_no_line_even_when_it_asks_again(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    class Stubborn(RandomPlayer):
        """A human whose bare except catches the turn's stop too, and asks again."""

        done = False

        def get_move(self, board: Any) -> str | None:
            self.thread = threading.current_thread()
            self.got: list[str] = []
            while not self.done:
                try:
                    self.got.append(input("move: "))
                except BaseException:  # a student's bare except
                    continue
            return "Q"

    read_end, write_end = os.pipe()
    stubborn = Stubborn()
    with os.fdopen(read_end) as keyboard, console.serving():
        monkeypatch.setattr(sys, "stdin", keyboard)
        assert Game(stubborn, RandomPlayer(), time_limit=0.2).run() == ("white_win", 0)
        os.write(write_end, b"D3\n")  # typed after the turn was over
        os.close(write_end)
        assert input() == "D3"  # before: the abandoned read took it, and this one got the end of input
    assert stubborn.got == []
    stubborn.done = True
    _stop_thread(stubborn.thread)  # its except asks no more: the thread ends
    stubborn.thread.join(10)
    assert not stubborn.thread.is_alive()
    assert "black - X thought for more than 0.2 s" in capsys.readouterr().out


def test_the_default_limit_is_the_courses_60_seconds() -> None:
    assert Game(RandomPlayer(), RandomPlayer()).time_limit == 60


def test_q_ends_the_game_decided_by_the_discs(capsys: pytest.CaptureFixture[str]) -> None:
    assert Game(Says("Q"), RandomPlayer()).run() == ("draw", 0)
    game = Game(Says("D3"), Says("Q"))
    assert game.run() == ("black_win", 3)  # 4 discs to 1 after D3
    assert capsys.readouterr().out.splitlines()[-1] == "Black wins!"


def test_a_side_without_moves_passes() -> None:
    # X to move has no legal move here; O has, then nobody has.
    state = GameState.from_string("OOOOOOOO" + "OOOOOOOO" * 6 + "OOOOOOX. X")
    assert state.legal_actions() == [64]
    game = Game(RandomPlayer(), RandomPlayer())
    game.board = Board.from_state(state)
    assert game.run() == ("white_win", 64)
    assert game.board.count("O") == 64


def test_a_players_exception_stops_the_game_as_in_the_course() -> None:
    class Broken(RandomPlayer):
        def get_move(self, board: Any) -> str | None:
            raise ZeroDivisionError("student bug")

    with pytest.raises(ZeroDivisionError, match="student bug"):
        Game(Broken(), RandomPlayer()).run()


def test_while_loading_run_plays_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    with course.loading():
        assert Game(RandomPlayer(), RandomPlayer()).run() is None
    assert capsys.readouterr().out == ""
    random.seed(0)
    assert Game(RandomPlayer(), RandomPlayer()).run() is not None


COURSE_FILE = """
from board import Board
from game import Game
import random


class RandomPlayer:
    def __init__(self, color):
        self.color = color

    def random_choice(self, board):
        action_list = list(board.get_legal_actions(self.color))
        return random.choice(action_list) if action_list else None

    def get_move(self, board):
        return self.random_choice(board)


class AIPlayer(RandomPlayer):
    def get_move(self, board):
        moves = list(board.get_legal_actions(self.color))
        best = max(moves, key=lambda m: len(board._can_fliped(m, self.color)))
        return best


black_player = AIPlayer("X")
white_player = RandomPlayer("O")
game = Game(black_player, white_player)
print("RESULT", game.run())
"""


def test_a_course_file_loads_its_players_without_playing_its_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "student.py"
    path.write_text(COURSE_FILE)
    (tmp_path / "board.py").write_text("raise ImportError('the platform board.py must win')\n")
    player_class = load_classic_class(str(path), "AIPlayer")
    assert capsys.readouterr().out == "RESULT None\n"
    assert course.shadowed(path) == [tmp_path / "board.py"]
    random.seed(5)
    result = play_game(make_agent(f"classic:{path}:AIPlayer", "X"), "random", time_limit=None)
    assert result.reason == "end" and result.black_name == "AIPlayer"
    assert isinstance(player_class("X").get_move(Board()), str)


def test_a_file_that_uses_the_unplayed_games_result_fails_to_load_saying_why(tmp_path: Path) -> None:
    path = tmp_path / "student.py"
    path.write_text(COURSE_FILE.replace('print("RESULT", game.run())', "winner, diff = game.run()"))
    with pytest.raises(SpecError) as failed:
        load_classic_class(str(path), "AIPlayer")
    message = str(failed.value)
    assert "failed to load at line" in message and "(winner, diff = game.run()): TypeError" in message
    assert "Game(...).run() plays nothing and returns None" in message and "if __name__ == '__main__':" in message
    path.write_text(COURSE_FILE + "\nraise RuntimeError('my own bug')\n")
    with pytest.raises(SpecError) as other:
        load_classic_class(str(path), "AIPlayer")
    assert "RuntimeError: my own bug" in str(other.value) and "returns None" not in str(other.value)


def test_run_file_runs_a_course_file_as_a_script(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "notebook.py"
    path.write_text(
        COURSE_FILE
        + textwrap.dedent("""
        import sys
        print("ARGV", sys.argv[1:])
    """)
    )
    random.seed(0)
    course.run_file(path, ["--fast"])
    out = capsys.readouterr().out
    assert "=====Game start!=====" in out
    assert "RESULT ('" in out and "ARGV ['--fast']" in out
    assert str(tmp_path) not in sys.path
