"""The course framework's ``Game`` (its game.py): one game between two course players.

``Game(black_player, white_player).run()`` plays a game the course's way and
returns ``('black_win' | 'white_win' | 'draw', difference)``:

- the players become ``color`` "X" (black, moves first) and "O" (white);
- each turn the player to move gets the real board, ``get_move(board)``, and
  answers a square like "D3" or "Q";
- a turn may take 60 seconds in all (``time_limit``): slower loses, with
  difference 0, and the late ``get_move`` is stopped (``TurnTimedOut`` raised
  in it, as the course's ``func_timeout`` does; under ``reversi course`` one
  stuck in C code holding the GIL is left behind with its process, and a copy
  of the game forked at the turn's start plays on: ``takeover``);
- an answer that is not a legal move is shown ("X tried Z9: not a square,
  2 tries left") and asked again; the third loses, difference 0;
- a player who changes the board during its turn loses, difference 0;
- a player whose turn leaves the process without ``processes.RESERVE`` bytes
  of memory to spare loses, difference 0 ("out of memory"): the game could
  not go on (under ``reversi course`` memory is capped at 4 GiB; the next
  turn's thread would fail to start and hang the game). The game keeps that
  much back for its last lines;
- "Q" ends the game at once, decided by the discs on the board;
- a side with no legal move passes; the game ends when neither side can move;
- after each move the board is printed with both sides' disc counts, last
  step time and total time (seconds, to the hundredth; the course shows
  whole seconds).

While ``agents.play.course.loading()`` is active (a ``classic:`` spec loading
a course file for its player class), ``run`` plays nothing and returns None:
a course notebook's game at module level does not start.
"""

from __future__ import annotations

import copy
import ctypes
import mmap
import threading
import time
from collections.abc import Iterable
from typing import Any, cast

from agents.clocks import TimeControl
from agents.play import processes, waits
from agents.play.course import console, takeover
from agents.play.course.board import Board
from agents.play.referee import Referee, Verdict
from agents.play.result import Reason
from reversi_env.notation import parse_action
from reversi_env.state import PLAYER_NAMES, PLAYER_SYMBOLS

TIME_LIMIT = 60.0
"""Seconds a turn may take, as in the course."""
MAX_TRIES = 3
"""Answers a turn may take; all of them illegal loses."""
RESULTS = ("black_win", "white_win", "draw")
"""``run``'s first value, indexed by ``Board.get_winner``'s first."""

_LOADING = threading.Event()
"""Set while course files are loaded for their players: ``run`` plays nothing."""

_SKIPPED = [0]
"""How many times ``run`` has returned None unplayed because of ``_LOADING``."""


def skipped_runs() -> int:
    """How many games ``run`` has left unplayed while files were loaded for their players."""
    return _SKIPPED[0]


def plain_answer(answer: object) -> object:
    """A string answer as a plain ``str`` (a subclass's own ``__eq__`` could
    make "A1" equal to every legal move); anything else as it is."""
    return str.__str__(answer) if isinstance(answer, str) else answer


def shown_answer(answer: object, limit: int = 80) -> str:
    """``repr(answer)``, bounded; an answer whose repr raises is named by its type."""
    try:
        text = repr(answer)
    except Exception:  # a player's object may raise anything from __repr__
        text = f"<{type(answer).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def refusal(board: Board, answer: object, legal: list[str]) -> str | None:
    """None if the course's Game takes ``answer`` (``plain_answer``): one of
    the ``legal`` moves as the board lists them ("D3") or "Q"; else, in a few
    words, why not. The course compares answers with its list of legal moves,
    so "d3", " D3", (2, 3) and 19 are all illegal answers there, and here."""
    if type(answer) is str:
        if answer == "Q" or answer in legal:
            return None
        written = answer.strip().upper()
        if written in legal:
            return f"squares are written {written!r} (capitals)"
        if len(written) == 2 and board.board_num(written) is not None:
            return "not a legal move"
        return "not a square"
    if answer is None:
        return "not a move (a side with no legal move passes without being asked)"
    pair = board._pair(answer)
    if pair is not None:
        return f"squares are written {board.num_board(pair)!r}, not as (row, col)"
    return "not a square (a move is written 'D3')"


class _TurnTimeoutError(Exception):
    """A turn took longer than the time limit."""


class _NoMemoryLeftError(Exception):
    """A player answered, leaving the process too little memory to go on."""


class TurnTimedOut(BaseException):
    """Raised inside a ``get_move`` that is over its time, to stop it (a
    BaseException, so ``except Exception`` in a player does not hold it)."""


STOP_WAIT = 0.1
"""Seconds the game waits for a late ``get_move`` to stop before it goes on."""


def _stop_thread(worker: threading.Thread) -> None:
    """Stop a late ``get_move`` as the course's ``func_timeout`` does: raise
    ``TurnTimedOut`` in its thread (it takes effect at the player's next line
    of Python; a long C call, ``time.sleep`` included, finishes first), then
    wait ``STOP_WAIT`` seconds for it. Without this a search that forgot its
    clock runs on beside the rest of the file, still moving discs on the
    finished game's board."""
    if worker.ident is None or not worker.is_alive():
        return
    console.abandon(worker)  # a line typed from now on is not for this turn
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(worker.ident), ctypes.py_object(TurnTimedOut))
    worker.join(STOP_WAIT)


class Game:
    """The course's game: ``Game(black_player, white_player).run()``."""

    def __init__(self, black_player: Any, white_player: Any, *, time_limit: float | None = TIME_LIMIT) -> None:
        """Seat the players (their ``color`` becomes "X" and "O"); ``time_limit``
        is the seconds a turn may take (None: no limit)."""
        self.board = Board()
        self.current_player: Any = None
        self.black_player = black_player
        self.white_player = white_player
        self.black_player.color = "X"
        self.white_player.color = "O"
        self.time_limit = time_limit

    def switch_player(self, black_player: Any, white_player: Any) -> Any:
        """The player whose turn comes next: black first, then alternately."""
        if self.current_player is None or self.current_player is not self.black_player:
            return black_player
        return white_player

    def print_winner(self, winner: int | None) -> None:
        """Print who won: 0 black, 1 white, 2 a draw."""
        if winner is not None:
            print(["Black wins!", "White wins!", "Draw"][winner])

    def force_loss(
        self, is_timeout: bool = False, is_board: bool = False, is_legal: bool = False, is_memory: bool = False
    ) -> tuple[int, int]:
        """The player to move loses (too slow, changed the board, three
        illegal answers, or left no memory): returns (winner, 0) and says why."""
        black_moved = self.current_player is self.black_player
        loser, winner_name = ("black - X", "white - O") if black_moved else ("white - O", "black - X")
        if is_timeout:
            print(f"\n{loser} thought for more than {self.time_limit:g} s, so {winner_name} wins")
        if is_legal:
            print(f"\n{loser} answered {MAX_TRIES} illegal moves, so {winner_name} wins")
        if is_board:
            print(f"\n{loser} changed the board, so {winner_name} wins")
        if is_memory:
            print(f"\n{loser} ran {processes.memory_note()}, so {winner_name} wins")
        return (1 if black_moved else 0), 0

    def game_over(self) -> bool:
        """True when neither side has a legal move."""
        return not any(self.board.get_legal_actions("X")) and not any(self.board.get_legal_actions("O"))

    def run(self) -> tuple[str, int] | None:
        """Play the game; ``(result, difference)`` at the end (see the module
        docstring). Returns None at once while course files are being loaded."""
        if _LOADING.is_set():
            _SKIPPED[0] += 1
            return None
        try:
            reserve = mmap.mmap(-1, processes.RESERVE)
        except OSError:
            raise MemoryError(processes.memory_note()) from None
        self.referee = Referee(
            self.board.to_state(), time_control=TimeControl.per_move(self.time_limit), max_illegal=MAX_TRIES
        )
        self.referee.begin()  # a side without a move at the start passes
        total_time = {"X": 0.0, "O": 0.0}
        step_time = {"X": 0.0, "O": 0.0}
        print("\n=====Game start!=====\n")
        self.board.display(step_time, total_time)
        while not self.referee.over:
            self.current_player = self.switch_player(self.black_player, self.white_player)
            color = "X" if self.current_player is self.black_player else "O"
            if color != PLAYER_SYMBOLS[self.referee.to_move]:
                continue  # a pass, played by the referee: the other side moves
            seconds = self._turn(color, reserve)
            if seconds is not None:
                step_time[color] = seconds
                total_time[color] = round(total_time[color] + seconds, 2)
                self.board.display(step_time, total_time)
        print("\n=====Game over!=====\n")
        self.board.display(step_time, total_time)
        result = self.referee.result
        assert result is not None  # the loop ends when the referee has a result
        winner = ("black", "white", "draw").index(result.winner)
        self.print_winner(winner)
        reserve.close()
        return RESULTS[winner], 0 if result.loser is not None else self.board.get_winner()[1]

    def _turn(self, color: str, reserve: mmap.mmap) -> float | None:
        """Ask ``color`` for its move and push the answer to the referee: the
        move's seconds (to the hundredth) once played, None if the game ended."""
        before = copy.deepcopy(self.board._board)
        left = self.referee.time_left()
        try:
            release = takeover.watch(left + takeover.GRACE) if left is not None else None
            start = time.perf_counter()  # the copy's fork is not the player's time
            try:
                action, seconds = self._ask(color, self.board.get_legal_actions(color), start)
                shown = round(time.perf_counter() - start, 2)
            finally:
                if release is not None:
                    release()
        except (_TurnTimeoutError, takeover.TookOver):
            self.referee.time_out()
            self.force_loss(is_timeout=True)
            return None
        except _NoMemoryLeftError:
            reserve.close()  # room for the game's last lines
            self.referee.lose(Reason.ERROR, f"{PLAYER_NAMES[self.referee.to_move]} ran {processes.memory_note()}")
            self.force_loss(is_memory=True)
            return None
        if before != self.board._board:
            self.referee.lose(Reason.TAMPER, f"{PLAYER_NAMES[self.referee.to_move]} changed the board")
            self.force_loss(is_board=True)
        elif action is None:
            self.force_loss(is_legal=True)
        elif action == "Q":
            self.referee.quit(f"{PLAYER_NAMES[self.referee.to_move]} quit")
        else:
            self.board._move(action, color)
            self.referee.play(parse_action(action), seconds)
            return shown
        return None

    def _ask(self, color: str, legal: Iterable[str], start: float) -> tuple[str | None, float]:
        """The player's legal answer or "Q", and the seconds of its last try;
        asks until the referee has no try left to give (None). Raises
        _TurnTimeoutError and _NoMemoryLeftError."""
        moves, mark = list(legal), start
        while True:
            action = plain_answer(self._get_move(self.referee.time_left()))
            now = time.perf_counter()
            seconds, mark = now - mark, now
            if not processes.has_room():  # the next thread would not start: the game would hang
                raise _NoMemoryLeftError
            why = refusal(self.board, action, moves)
            if why is None:
                return cast(str, action), seconds
            shown = action if isinstance(action, str) else shown_answer(action)
            ruling = self.referee.reject(f"{color} tried {shown}: {why}", seconds)
            print(ruling.text)
            if ruling.verdict is Verdict.LOST:
                return None, seconds

    def _get_move(self, limit: float | None) -> object:
        """``current_player.get_move(board)`` within ``limit`` seconds (None: as
        long as it takes); the player's own exception is raised here, as in the course."""
        if limit is None:
            return self.current_player.get_move(self.board)
        box: list[tuple[bool, object]] = []

        def ask() -> None:
            try:
                box.append((True, self.current_player.get_move(self.board)))
            except BaseException as e:  # raised again in the game's thread
                box.append((False, e))

        worker = threading.Thread(target=ask, name="course-get-move", daemon=True)
        worker.start()
        waits.join(worker, limit)  # Ctrl-C still ends it
        if not box:
            _stop_thread(worker)
            raise _TurnTimeoutError
        ok, value = box[0]
        if not ok:
            assert isinstance(value, BaseException)
            raise value
        return value
