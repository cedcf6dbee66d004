"""The classic course framework's ``Board``, so students' players run unchanged.

Course players are objects built with a colour ("X" black, "O" white) whose
``get_move(board)`` returns a square like "D3", None for no move, or "Q" to
quit. They receive this facade, which keeps the course's API and behaviour:
``_board`` is an 8 x 8 list of lists of "X" / "O" / "." indexed
``[row][col]``, so ``board_num("E4") == (3, 4)``; ``get_legal_actions`` yields
moves in the course's order; ``_move`` / ``backpropagation`` change the board in
place; ``copy.deepcopy(board)`` works (the board is plain lists).

The rules come from ``GameState`` (one set of rules in the project); the board
itself is only lists, so a player may read or edit ``_board`` as it likes. Each
``get_move`` call receives a fresh board built from the player's own
observation, so nothing done to it can change the real game.

A student's file that does ``from board import Board`` is loaded by
``agents.play.specs`` with the module name ``board`` pointing here
(``register_board_module``).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from reversi_env.errors import InvalidMoveError, InvalidPositionError
from reversi_env.notation import FILES, parse_square
from reversi_env.state import BLACK, PLAYER_SYMBOLS, GameState, parse_player

EMPTY = "."
Coord = tuple[int, int]
"""A square as the course writes it: (row, col), both 0-7."""

# The course scans the opponent's discs row by row and, around each, these
# directions; legal moves come out in that order, which seeded players rely on.
_DIRECTIONS = ((-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1))


def _color(color: object) -> str:
    """ "X" or "O" from any colour spelling; a clear error otherwise."""
    return PLAYER_SYMBOLS[parse_player(color)]


class Board:
    """The course framework's board: the same methods, names and return values."""

    def __init__(self) -> None:
        """The standard start: white D4 and E5, black E4 and D5."""
        self.empty = EMPTY
        self._board: list[list[str]] = [[EMPTY] * 8 for _ in range(8)]
        self._board[3][4] = self._board[4][3] = "X"
        self._board[3][3] = self._board[4][4] = "O"

    @classmethod
    def from_state(cls, state: GameState) -> Board:
        """The board showing ``state``'s discs (the mover is not part of a board)."""
        board = cls()
        cells = state.compact()
        board._board = [list(cells[r * 8 : r * 8 + 8]) for r in range(8)]
        return board

    def to_state(self, color: object = BLACK) -> GameState:
        """This board as a GameState with ``color`` to move."""
        player = parse_player(color)
        if len(self._board) != 8 or any(len(row) != 8 for row in self._board):
            raise InvalidPositionError("Board._board must be 8 lists of 8 cells")
        black = white = 0
        for r, row in enumerate(self._board):
            for c, cell in enumerate(row):
                if cell == "X":
                    black |= 1 << (r * 8 + c)
                elif cell == "O":
                    white |= 1 << (r * 8 + c)
        return GameState(black, white, player)

    def __getitem__(self, index: int) -> list[str]:
        """``board[row][col]``, as in the course."""
        return self._board[index]

    # -- coordinates -------------------------------------------------------------

    def board_num(self, action: str) -> Coord:
        """``"E4" -> (3, 4)``: (row, col) of a square name (any case)."""
        square = parse_square(action)
        return square // 8, square % 8

    def num_board(self, action: Coord) -> str:
        """``(3, 4) -> "E4"``."""
        try:
            row, col = action
        except (TypeError, ValueError) as e:
            raise InvalidMoveError(f"a coordinate is (row, col), got {action!r}") from e
        if not (self.is_on_board(row, col)):
            raise InvalidMoveError(f"a coordinate is (row, col) with both 0-7, got {action!r}")
        return f"{FILES[col]}{row + 1}"

    def is_on_board(self, x: int, y: int) -> bool:
        """True if (row x, col y) is on the board."""
        return isinstance(x, int) and isinstance(y, int) and 0 <= x <= 7 and 0 <= y <= 7

    def _coord(self, action: str | Coord) -> Coord:
        if isinstance(action, str):
            return self.board_num(action)
        self.num_board(action)  # validates
        row, col = action
        return row, col

    # -- reading -------------------------------------------------------------------

    def count(self, color: str) -> int:
        """Number of ``color``'s discs ("X", "O" or "." for empty squares)."""
        return sum(row.count(color) for row in self._board)

    def get_winner(self) -> tuple[int, int]:
        """``(0, diff)`` black leads, ``(1, diff)`` white leads, ``(2, 0)`` level;
        ``diff`` is the (non-negative) disc difference."""
        black, white = self.count("X"), self.count("O")
        if black > white:
            return 0, black - white
        if white > black:
            return 1, white - black
        return 2, 0

    def _can_fliped(self, action: str | Coord, color: str) -> list[str] | bool:
        """The squares ("D4"-style) that ``color`` playing ``action`` would
        flip, or False if the move is illegal (the course's spelling)."""
        return self._flips(self._coord(action), color) or False

    def _flips(self, coord: Coord, color: str) -> list[str]:
        row, col = coord
        if self._board[row][col] != EMPTY:
            return []
        state = self.to_state(_color(color))
        square = row * 8 + col
        if not state.is_legal(square):
            return []
        return [self.num_board((s // 8, s % 8)) for s in state.flipped(square)]

    def get_legal_actions(self, color: str) -> Iterator[str]:
        """The legal moves of ``color`` ("D3"-style), in the course's order:
        empty squares next to the opponent's discs, scanned row by row. The
        moves are computed when the iteration starts."""
        me = _color(color)
        legal = set(self.to_state(me).legal_actions())
        opponent = "O" if me == "X" else "X"
        seen: set[Coord] = set()
        board = self._board
        for i in range(8):
            for j in range(8):
                if board[i][j] != opponent:
                    continue
                for dx, dy in _DIRECTIONS:
                    x, y = i + dx, j + dy
                    if 0 <= x <= 7 and 0 <= y <= 7 and board[x][y] == EMPTY and (x, y) not in seen:
                        seen.add((x, y))
                        if x * 8 + y in legal:
                            yield self.num_board((x, y))

    # -- changing ------------------------------------------------------------------

    def _move(self, action: str | Coord, color: str) -> list[str] | bool:
        """Play ``action`` for ``color`` on this board: the flipped squares, or
        False (and no change) if the move is illegal."""
        row, col = self._coord(action)
        flipped = self._flips((row, col), color)
        if not flipped:
            return False
        me = _color(color)
        for name in flipped:
            r, c = self.board_num(name)
            self._board[r][c] = me
        self._board[row][col] = me
        return flipped

    def backpropagation(self, action: str | Coord, flipped_pos: list[str] | list[Coord], color: str) -> None:
        """Undo ``_move(action, color)`` given the squares it flipped."""
        row, col = self._coord(action)
        self._board[row][col] = EMPTY
        opponent = "O" if _color(color) == "X" else "X"
        for p in flipped_pos:
            r, c = self._coord(p)
            self._board[r][c] = opponent

    # -- showing -------------------------------------------------------------------

    def display(self, step_time: dict[str, float] | None = None, total_time: dict[str, float] | None = None) -> None:
        """Print the board, the disc counts and the thinking times (dicts keyed
        "X" / "O", as the course's game passes them)."""
        print(self._text(step_time, total_time))

    def _text(self, step_time: dict[str, float] | None, total_time: dict[str, float] | None) -> str:
        step = step_time or {"X": 0, "O": 0}
        total = total_time or {"X": 0, "O": 0}
        lines = ["  " + " ".join(FILES)]
        lines += [f"{r + 1} {' '.join(row)}" for r, row in enumerate(self._board)]
        lines.append("discs / last move time / total time")
        for label, c in (("black X", "X"), ("white O", "O")):
            lines.append(f"{label}: {self.count(c)} / {step.get(c, 0)} / {total.get(c, 0)}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self._text(None, None)

    def __repr__(self) -> str:
        return f"<classic Board {''.join(''.join(r) for r in self._board)}>"


def register_board_module() -> None:
    """Make ``import board`` / ``from board import Board`` give this facade,
    unless a ``board`` module is already loaded; call it before importing a
    course player's file by hand (``agents.play.specs`` does it for ``classic:``)."""
    sys.modules.setdefault("board", sys.modules[__name__])
