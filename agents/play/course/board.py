"""The course framework's ``Board`` (its board.py), so students' players run unchanged.

A course file does ``from board import Board``; ``agents.play.course`` makes
that name this module. The API, names and answers are the course's:
``_board`` is an 8 x 8 list of lists of "X" (black) / "O" (white) / "."
indexed ``[row][col]``, so ``board_num("E4") == (3, 4)`` and
``board_num("Z9") is None``; ``get_legal_actions`` yields moves and
``_can_fliped`` / ``_move`` return flipped squares in the course's order;
``_move`` / ``backpropagation`` change the board in place; ``copy.deepcopy``
works (the board is plain lists).

The rules come from the bitboard kernels (one set of rules in the project):
the lists are read into two bitboards at each question, so a player may read
or edit ``_board`` as it likes and the board answers for what it shows.
"""

from __future__ import annotations

import operator
from collections.abc import Iterator
from typing import cast

import numpy as np

from reversi_env import bitboard as bb
from reversi_env.errors import InvalidPositionError
from reversi_env.notation import FILES
from reversi_env.state import BLACK, PLAYER_SYMBOLS, GameState, parse_player

EMPTY = "."
Coord = tuple[int, int]
"""A square as the course writes it: (row, col), both 0-7."""

# The course walks these directions from the placed disc and lists each line's
# flips from its far end back towards the disc.
_FLIP_DIRECTIONS = ((0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1))
_FLIP_ORDER = {d: k for k, d in enumerate(_FLIP_DIRECTIONS)}
_NAMES = tuple(f"{FILES[i % 8]}{i // 8 + 1}" for i in range(64))
# The course finds candidate moves around each opponent disc (row by row) in
# these directions; legal moves come out in that order, which seeded players rely on.
_SCAN_DIRECTIONS = ((-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1))
_TO_BLACK = str.maketrans({"X": "1", "O": "0", EMPTY: "0"})
_TO_WHITE = str.maketrans({"X": "0", "O": "1", EMPTY: "0"})


def _color(color: object) -> str:
    """ "X" or "O" from any colour spelling; a clear error otherwise."""
    return PLAYER_SYMBOLS[parse_player(color)]


def _u64(bits: int) -> int | np.uint64:
    """A bitboard for the kernels: a Python int below 2**63 passes as is (the
    faster call), a larger one must be np.uint64 (numba would type it signed)."""
    return np.uint64(bits) if bits >> 63 else bits


def _square(row: int, col: int) -> str:
    return _NAMES[row * 8 + col]


def _first_reached(row: int, col: int, theirs: int) -> tuple[int, int]:
    """Where the course's scan first meets the empty square (row, col): the
    (opponent disc, direction) pair that reaches it earliest."""
    best = (64, len(_SCAN_DIRECTIONS))
    for k, (dx, dy) in enumerate(_SCAN_DIRECTIONS):
        x, y = row - dx, col - dy
        if 0 <= x <= 7 and 0 <= y <= 7 and theirs >> (x * 8 + y) & 1:
            best = min(best, (x * 8 + y, k))
    return best


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
        black, white = self._bitboards()
        return GameState(black, white, parse_player(color))

    def _bitboards(self) -> tuple[int, int]:
        """(black, white) as ints, bit ``row * 8 + col``; InvalidPositionError
        if ``_board`` is not 8 rows of 8 cells "X" / "O" / "."."""
        rows = self._board
        try:
            cells = "".join(map("".join, rows))
            if len(rows) != 8 or set(map(len, rows)) != {8}:
                raise ValueError
            # A cell other than "X", "O" or "." survives translate and fails int().
            return int(cells.translate(_TO_BLACK)[::-1], 2), int(cells.translate(_TO_WHITE)[::-1], 2)
        except (TypeError, ValueError):
            raise InvalidPositionError(
                f"Board._board must be 8 lists of 8 cells 'X', 'O' or '.', got {rows!r}"
            ) from None

    def __getitem__(self, index: int) -> list[str]:
        """``board[row][col]``, as in the course."""
        return self._board[index]

    # -- coordinates -------------------------------------------------------------

    def board_num(self, action: str) -> Coord | None:
        """``"E4" -> (3, 4)``: (row, col) of a square name (any case); None
        for anything else (``"Z9"``), as in the course. Like the course, only
        the first two characters are read."""
        try:
            col, row = str(action[0]).upper(), str(action[1]).upper()
        except (TypeError, IndexError, KeyError):
            return None
        if len(row) == 1 and len(col) == 1 and row in "12345678" and col in FILES:
            return "12345678".index(row), FILES.index(col)
        return None

    def num_board(self, action: Coord) -> str | None:
        """``(3, 4) -> "E4"``; None for a pair off the board, as in the course.
        Any integers will do, numpy's too (``np.argwhere`` gives those)."""
        coord = self._pair(action)
        return None if coord is None else _square(*coord)

    def is_on_board(self, x: int, y: int) -> bool:
        """True if (row x, col y) is on the board: ``0 <= x <= 7 and 0 <= y <= 7``,
        as the course compares them (numpy integers included); False for what
        does not compare with numbers."""
        try:
            return bool(0 <= x <= 7 and 0 <= y <= 7)
        except (TypeError, ValueError):  # a string, None, an array of several values
            return False

    @staticmethod
    def _pair(action: object) -> Coord | None:
        """(row, col) as Python ints from a pair of integers on the board
        (numpy's included), None for anything else."""
        try:
            row, col = cast(Coord, action)
            row, col = operator.index(row), operator.index(col)
        except Exception:  # not a pair of integers, whatever its own methods raise
            return None
        return (row, col) if 0 <= row <= 7 and 0 <= col <= 7 else None

    def _coord(self, action: object) -> Coord | None:
        """(row, col) of a name or a pair, None if it is not a square."""
        if isinstance(action, str):
            return self.board_num(action)
        return self._pair(action)

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

    def _can_fliped(self, action: object, color: str) -> list[str] | bool:
        """The squares ("D4"-style) that ``color`` playing ``action`` would
        flip, in the course's order, or False if the move is not legal (the
        course's spelling)."""
        return self._flips(action, color) or False

    def _flips(self, action: object, color: str) -> list[str]:
        coord = self._coord(action)
        me = color if color in ("X", "O") else _color(color)
        if coord is None:
            return []
        row, col = coord
        if self._board[row][col] != EMPTY:
            return []
        black, white = self._bitboards()
        mine, theirs = (black, white) if me == "X" else (white, black)
        mask = int(bb.flips(_u64(mine), _u64(theirs), row * 8 + col))
        if not mask:
            return []
        # The course lists the flips direction by direction, each line from its far end.
        keyed = []
        while mask:
            square = (mask & -mask).bit_length() - 1
            mask &= mask - 1
            r, c = divmod(square, 8)
            dr, dc = (r > row) - (r < row), (c > col) - (c < col)
            keyed.append((_FLIP_ORDER[dr, dc], -abs(r - row) - abs(c - col), square))
        keyed.sort()
        return [_NAMES[square] for _, _, square in keyed]

    def get_legal_actions(self, color: str) -> Iterator[str]:
        """The legal moves of ``color`` ("D3"-style), in the course's order:
        empty squares next to the opponent's discs, found by scanning those
        discs row by row and each one's neighbours in a fixed order. The moves
        are computed when the iteration starts."""
        me = _color(color)
        black, white = self._bitboards()
        mine, theirs = (black, white) if me == "X" else (white, black)
        moves = int(bb.legal_moves(_u64(mine), _u64(theirs)))
        order: list[tuple[tuple[int, int], int]] = []
        while moves:
            square = (moves & -moves).bit_length() - 1
            moves &= moves - 1
            row, col = divmod(square, 8)
            order.append((_first_reached(row, col, theirs), square))
        for _, square in sorted(order):
            yield _square(*divmod(square, 8))

    # -- changing ------------------------------------------------------------------

    def _move(self, action: object, color: str) -> list[str] | bool:
        """Play ``action`` for ``color`` on this board: the flipped squares, or
        False (and no change) if the move is not legal."""
        flipped = self._flips(action, color)
        if not flipped:
            return False
        me = _color(color)
        for name in flipped:
            r, c = "12345678".index(name[1]), FILES.index(name[0])
            self._board[r][c] = me
        coord = self._coord(action)
        assert coord is not None  # it flipped something, so it is a square
        self._board[coord[0]][coord[1]] = me
        return flipped

    def backpropagation(self, action: object, flipped_pos: list[str] | list[Coord], color: str) -> None:
        """Undo ``_move(action, color)`` given the squares it flipped."""
        opponent = "O" if _color(color) == "X" else "X"
        for square, cell in ((action, EMPTY), *((p, opponent) for p in flipped_pos)):
            coord = self._coord(square)
            if coord is None:
                raise InvalidPositionError(f"backpropagation: {square!r} is not a square")
            self._board[coord[0]][coord[1]] = cell

    # -- showing -------------------------------------------------------------------

    def display(self, step_time: dict[str, float] | None = None, total_time: dict[str, float] | None = None) -> None:
        """Print the board, the disc counts and the thinking times (dicts keyed
        "X" / "O", as the course's game passes them)."""
        print(self._text(step_time, total_time) + "\n")

    def _text(self, step_time: dict[str, float] | None, total_time: dict[str, float] | None) -> str:
        step = step_time or {"X": 0, "O": 0}
        total = total_time or {"X": 0, "O": 0}
        lines = ["  " + " ".join(FILES)]
        lines += [f"{r + 1} {' '.join(row)}" for r, row in enumerate(self._board)]
        lines.append("statistics: discs / step time / total time")
        for label, c in (("black X", "X"), ("white O", "O")):
            lines.append(f"{label}: {self.count(c)} / {step.get(c, 0)} / {total.get(c, 0)}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self._text(None, None)

    def __repr__(self) -> str:
        return f"<course Board {''.join(''.join(r) for r in self._board)}>"
