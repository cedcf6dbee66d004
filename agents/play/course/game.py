"""The course framework's ``Game`` (its game.py): one game between two course players.

``Game(black_player, white_player).run()`` plays a game the course's way and
returns ``('black_win' | 'white_win' | 'draw', difference)``:

- the players become ``color`` "X" (black, moves first) and "O" (white);
- each turn the player to move gets the real board, ``get_move(board)``, and
  answers a square like "D3" or "Q";
- a turn may take 60 seconds in all (``time_limit``): slower loses, with
  difference 0;
- an answer that is not a legal move is shown ("X tried Z9: not a square,
  2 tries left") and asked again; the third loses, difference 0;
- a player who changes the board during its turn loses, difference 0;
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
import threading
import time
from typing import Any

from agents.play import waits
from agents.play.course.board import Board

TIME_LIMIT = 60.0
"""Seconds a turn may take, as in the course."""
MAX_TRIES = 3
"""Answers a turn may take; all of them illegal loses."""
RESULTS = ("black_win", "white_win", "draw")
"""``run``'s first value, indexed by ``Board.get_winner``'s first."""

_LOADING = threading.Event()
"""Set while course files are loaded for their players: ``run`` plays nothing."""


class _TurnTimeoutError(Exception):
    """A turn took longer than the time limit."""


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

    def force_loss(self, is_timeout: bool = False, is_board: bool = False, is_legal: bool = False) -> tuple[int, int]:
        """The player to move loses (too slow, changed the board, or three
        illegal answers): returns (winner, 0) and says why."""
        black_moved = self.current_player is self.black_player
        loser, winner_name = ("black - X", "white - O") if black_moved else ("white - O", "black - X")
        if is_timeout:
            print(f"\n{loser} thought for more than {self.time_limit:g} s, so {winner_name} wins")
        if is_legal:
            print(f"\n{loser} answered {MAX_TRIES} illegal moves, so {winner_name} wins")
        if is_board:
            print(f"\n{loser} changed the board, so {winner_name} wins")
        return (1 if black_moved else 0), 0

    def game_over(self) -> bool:
        """True when neither side has a legal move."""
        return not any(self.board.get_legal_actions("X")) and not any(self.board.get_legal_actions("O"))

    def run(self) -> tuple[str, int] | None:
        """Play the game; ``(result, difference)`` at the end (see the module
        docstring). Returns None at once while course files are being loaded."""
        if _LOADING.is_set():
            return None
        total_time = {"X": 0.0, "O": 0.0}
        step_time = {"X": 0.0, "O": 0.0}
        print("\n=====Game start!=====\n")
        self.board.display(step_time, total_time)
        while True:
            self.current_player = self.switch_player(self.black_player, self.white_player)
            color = "X" if self.current_player is self.black_player else "O"
            legal = list(self.board.get_legal_actions(color))
            if not legal:
                if self.game_over():
                    winner, diff = self.board.get_winner()
                    break
                continue  # a pass: the other side moves
            before = copy.deepcopy(self.board._board)
            start = time.perf_counter()
            try:
                action = self._ask(color, legal, start)
            except _TurnTimeoutError:
                winner, diff = self.force_loss(is_timeout=True)
                break
            seconds = round(time.perf_counter() - start, 2)
            if before != self.board._board:
                winner, diff = self.force_loss(is_board=True)
                break
            if action is None:
                winner, diff = self.force_loss(is_legal=True)
                break
            if action == "Q":
                winner, diff = self.board.get_winner()
                break
            self.board._move(action, color)
            step_time[color] = seconds
            total_time[color] = round(total_time[color] + seconds, 2)
            self.board.display(step_time, total_time)
            if self.game_over():
                winner, diff = self.board.get_winner()
                break
        print("\n=====Game over!=====\n")
        self.board.display(step_time, total_time)
        self.print_winner(winner)
        return RESULTS[winner], diff

    def _ask(self, color: str, legal: list[str], start: float) -> str | None:
        """The player's legal answer or "Q", asking up to MAX_TRIES times;
        None after that many illegal answers. Raises _TurnTimeoutError."""
        for tries_left in range(MAX_TRIES - 1, -1, -1):
            action = self._get_move(start)
            if action == "Q" or action in legal:
                return str(action)
            if self.board._coord(action) is None:
                why = "not a square"
            elif isinstance(action, str) and action.strip().upper() in legal:
                why = f"squares are written {action.strip().upper()!r} (capitals)"
            else:
                why = "not a legal move"
            shown = action if isinstance(action, str) else repr(action)
            left = f"{tries_left} {'try' if tries_left == 1 else 'tries'} left" if tries_left else "no tries left"
            print(f"{color} tried {shown}: {why}, {left}")
        return None

    def _get_move(self, start: float) -> object:
        """``current_player.get_move(board)`` within what is left of the turn's
        time; the player's own exception is raised here, as in the course."""
        if self.time_limit is None:
            return self.current_player.get_move(self.board)
        box: list[tuple[bool, object]] = []

        def ask() -> None:
            try:
                box.append((True, self.current_player.get_move(self.board)))
            except BaseException as e:  # raised again in the game's thread
                box.append((False, e))

        worker = threading.Thread(target=ask, name="course-get-move", daemon=True)
        worker.start()
        waits.join(worker, self.time_limit - (time.perf_counter() - start))  # Ctrl-C still ends it
        if not box:
            raise _TurnTimeoutError
        ok, value = box[0]
        if not ok:
            assert isinstance(value, BaseException)
            raise value
        return value
