"""GameState: an immutable Reversi position with a checked API.

This is the front door for people and policies: every method validates its
input and raises ``InvalidMoveError`` / ``IllegalMoveError`` with the input and
the board in the message. Search code that needs raw speed calls the kernels in
``reversi_env.bitboard`` on ``kernel_boards()`` instead.
"""

from __future__ import annotations

import re
from typing import ClassVar, TypeAlias

import numpy as np

from reversi_env import bitboard as bb
from reversi_env.errors import IllegalMoveError, InvalidPositionError, quoted
from reversi_env.notation import NUM_ACTIONS, PASS, Action, action_name, square_name, to_action

Player: TypeAlias = int
"""0 = black (X, moves first), 1 = white (O)."""

BLACK: Player = 0
"""Black's player number; black moves first."""
WHITE: Player = 1
"""White's player number."""
PLAYER_NAMES = ("black", "white")
PLAYER_SYMBOLS = ("X", "O")
HEADER = "  A B C D E F G H"

_MASK64 = (1 << 64) - 1
_EMPTY_CHARS = ".-_"
_BLACK_CHARS = "Xx*●"
_WHITE_CHARS = "Oo0○"
_STATUS_RE = re.compile(r"\b([XO])\s+to\s+move\b")


def parse_player(value: object) -> Player:
    """0/1, "black"/"white", "X"/"O" (any case) -> 0 or 1."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)) and int(value) in (0, 1):
        return int(value)
    if isinstance(value, str):
        v = value.strip().lower()
        if v in ("black", "x", "b"):
            return BLACK
        if v in ("white", "o", "w"):
            return WHITE
    raise InvalidPositionError(f"a player must be 0/1, 'black'/'white' or 'X'/'O', got {quoted(value)}")


def _bits(m: int) -> list[int]:
    """Set bit indices of a Python int, lowest first."""
    out = []
    while m:
        low = m & -m
        out.append(low.bit_length() - 1)
        m ^= low
    return out


class GameState:
    """An immutable position: black and white bitboards and the player to move.

    Equal by value and hashable. ``apply`` returns a new state.
    """

    __slots__ = ("_b", "_moves", "_player", "_terminal", "_w")

    _b: int
    _w: int
    _player: Player
    _moves: int
    _terminal: bool
    NUM_ACTIONS: ClassVar[int] = NUM_ACTIONS

    def __init__(self, black: int = int(bb.INITIAL_BLACK), white: int = int(bb.INITIAL_WHITE), player: object = BLACK):
        """Build a position from two bitboards (ints 0 <= b < 2**64) and the
        player to move; validated. ``GameState()`` is the start position."""
        for name, value in (("black", black), ("white", white)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 <= int(value) <= _MASK64:
                raise InvalidPositionError(f"{name} must be a 64-bit bitboard int, got {quoted(value)}")
        if int(black) & int(white):
            raise InvalidPositionError(
                f"black and white overlap on {', '.join(square_name(s) for s in _bits(int(black) & int(white)))}"
            )
        b, w, player = int(black), int(white), parse_player(player)
        p, o = (b, w) if player == BLACK else (w, b)
        moves = bb.legal_moves(p, o)
        self._init(b, w, player, moves, moves == 0 and bb.legal_moves(o, p) == 0)

    def _init(self, b: int, w: int, player: Player, moves: int, terminal: bool) -> None:
        # Only constructors call this; every public attribute is a read-only property.
        self._b = b
        self._w = w
        self._player = player
        self._moves = moves
        self._terminal = bool(terminal)

    @classmethod
    def _trusted(cls, b: int, w: int, player: Player) -> GameState:
        """A state from boards known to be valid (no overlap check)."""
        p, o = (b, w) if player == BLACK else (w, b)
        moves = bb.legal_moves(p, o)
        s = object.__new__(cls)
        s._init(b, w, player, moves, moves == 0 and bb.legal_moves(o, p) == 0)
        return s

    @classmethod
    def initial(cls) -> GameState:
        """The start: white D4 and E5, black E4 and D5, black to move."""
        return cls._trusted(int(bb.INITIAL_BLACK), int(bb.INITIAL_WHITE), BLACK)

    @classmethod
    def from_kernel(cls, p: int | np.uint64, o: int | np.uint64, player: object) -> GameState:
        """From kernel boards (mover's discs, opponent's discs) and the mover; validated."""
        player = parse_player(player)
        p, o = int(p), int(o)
        return cls(*((p, o) if player == BLACK else (o, p)), player)

    # -- reading ---------------------------------------------------------------

    @property
    def black(self) -> int:
        """Black's discs as a 64-bit int (bit i = square i)."""
        return self._b

    @property
    def white(self) -> int:
        """White's discs as a 64-bit int."""
        return self._w

    @property
    def player(self) -> Player:
        """The player to move: 0 black, 1 white."""
        return self._player

    def kernel_boards(self) -> tuple[np.uint64, np.uint64]:
        """``(P, O)`` as np.uint64: the mover's and the opponent's discs, the
        form every kernel in ``reversi_env.bitboard`` takes."""
        b, w = np.uint64(self._b), np.uint64(self._w)
        return (b, w) if self._player == BLACK else (w, b)

    @property
    def moves_bitboard(self) -> int:
        """Bitboard of the squares the player to move may place on."""
        return self._moves

    def legal_actions(self) -> list[Action]:
        """Sorted legal actions: squares, ``[64]`` on a forced pass, ``[]`` when over."""
        if self._moves:
            return _bits(self._moves)
        return [] if self._terminal else [PASS]

    def legal_mask(self) -> np.ndarray:
        """int8 vector of 65: 1 where the action is legal."""
        return bb.mask_of(self._moves, self._moves == 0 and not self._terminal)

    def is_legal(self, action: object) -> bool:
        """True if ``action`` (an int or a name like "D3") is legal here; False
        for anything else, malformed input included."""
        try:
            a = to_action(action)
        except ValueError:
            return False
        if a == PASS:
            return self._moves == 0 and not self._terminal
        return bool(self._moves >> a & 1)

    def is_terminal(self) -> bool:
        """True when neither side can place a disc."""
        return self._terminal

    def score(self) -> tuple[int, int]:
        """Disc counts ``(black, white)``."""
        return self._b.bit_count(), self._w.bit_count()

    def disc_difference(self) -> int:
        """Black's discs minus white's."""
        b, w = self.score()
        return b - w

    def num_empty(self) -> int:
        """Number of empty squares."""
        return 64 - (self._b | self._w).bit_count()

    def winner(self) -> Player | None:
        """0 black or 1 white when the game is over and decided; None for a
        draw or a game still going (check ``is_terminal()``)."""
        if not self._terminal:
            return None
        d = self.disc_difference()
        return None if d == 0 else (BLACK if d > 0 else WHITE)

    def board(self) -> np.ndarray:
        """(8, 8) int8 array: 0 empty, 1 black, 2 white (``[row, col]``)."""
        planes = bb.planes_of(self._b, self._w)
        return planes[:, :, 0] + 2 * planes[:, :, 1]

    def planes(self, perspective: Player | None = None) -> np.ndarray:
        """(8, 8, 2) int8: plane 0 the discs of ``perspective`` (default: the
        player to move), plane 1 the other side's."""
        me = self._player if perspective is None else parse_player(perspective)
        mine, theirs = (self._b, self._w) if me == BLACK else (self._w, self._b)
        return bb.planes_of(mine, theirs)

    # -- moving ----------------------------------------------------------------

    def apply(self, action: object) -> GameState:
        """The position after ``action`` (0-64 or a name like "D3" / "pass").

        Raises InvalidMoveError for a malformed action and IllegalMoveError for
        one the rules forbid here; both name the move and show the board.
        """
        a = to_action(action)
        if a == PASS:
            if self._moves or self._terminal:
                why = "the game is over" if self._terminal else "a placement is available"
                raise IllegalMoveError(f"illegal move PASS: {why}\n{self}")
            return GameState._trusted(self._b, self._w, 1 - self._player)
        if not self._moves >> a & 1:
            why = "the game is over" if self._terminal else "it flips nothing or the square is taken"
            raise IllegalMoveError(
                f"illegal move {square_name(a)} ({a}) for {PLAYER_SYMBOLS[self._player]}: {why}\n{self}"
            )
        p, o = (self._b, self._w) if self._player == BLACK else (self._w, self._b)
        nxt, prev, moves, terminal = bb.successor(p, o, a)
        player = 1 - self._player
        s = object.__new__(GameState)
        s._init(*((nxt, prev) if player == BLACK else (prev, nxt)), player, int(moves), terminal)
        return s

    def flipped(self, action: object) -> list[int]:
        """Squares that ``action`` would flip (checked like ``apply``)."""
        a = to_action(action)
        if not self.is_legal(a):
            self.apply(a)  # raises the IllegalMoveError with its message
        if a == PASS:
            return []
        p, o = self.kernel_boards()
        return _bits(bb.flips(p, o, a))

    # -- text ------------------------------------------------------------------

    def __str__(self) -> str:
        rows = [HEADER]
        b, w = self._b, self._w
        for r in range(8):
            cells = []
            for c in range(8):
                i = r * 8 + c
                cells.append("X" if b >> i & 1 else "O" if w >> i & 1 else ".")
            rows.append(f"{r + 1} {' '.join(cells)}")
        status = f"{PLAYER_SYMBOLS[self._player]} to move"
        rows.append(status + (" (game over)" if self._terminal else ""))
        return "\n".join(rows)

    def compact(self) -> str:
        """64 characters A1..H8 (``X``, ``O``, ``.``), a space, and the mover."""
        b, w = self._b, self._w
        cells = "".join("X" if b >> i & 1 else "O" if w >> i & 1 else "." for i in range(64))
        return f"{cells} {PLAYER_SYMBOLS[self._player]}"

    @classmethod
    def from_string(cls, text: str, player: object = None) -> GameState:
        """Read ``str(state)`` or ``state.compact()`` back.

        The mover is ``player`` if given, else read from the text ("X to move"
        or the compact form's last character), else black.
        """
        if not isinstance(text, str):
            raise InvalidPositionError(f"board text must be a str, got {type(text).__name__}")
        cells, found_player = cls._parse_cells(text)
        if player is None:
            player = BLACK if found_player is None else found_player
        b = w = 0
        for i, ch in enumerate(cells):
            if ch in _BLACK_CHARS:
                b |= 1 << i
            elif ch in _WHITE_CHARS:
                w |= 1 << i
        return cls(b, w, parse_player(player))

    @staticmethod
    def _parse_cells(text: str) -> tuple[str, Player | None]:
        cell_chars = _EMPTY_CHARS + _BLACK_CHARS + _WHITE_CHARS
        squashed = "".join(text.split())
        if len(squashed) in (64, 65) and all(c in cell_chars for c in squashed[:64]):
            side = squashed[64:]
            if side and side not in "XxOo":
                raise InvalidPositionError(f"compact board: the 65th character must be X or O, got {quoted(side)}")
            return squashed[:64], (parse_player(side) if side else None)
        if squashed and all(c in cell_chars for c in squashed):  # a compact board of the wrong length
            raise InvalidPositionError(
                f"board text of {len(squashed)} cells: a compact board is 64 cells of . X O (A1..H8), "
                f"then optionally X or O to move; got {quoted(text)}"
            )
        rows: dict[int, str] = {}
        for line in text.splitlines():
            m = re.match(r"\s*([1-8])\s+(.*)$", line)
            if not m:
                continue
            found = "".join(m.group(2).split())
            # A row may repeat its number after its cells (boards labelled on both sides), nothing else.
            cells = found[:8] if found[8:] in ("", m.group(1)) else found
            if len(cells) != 8 or any(c not in cell_chars for c in cells):
                raise InvalidPositionError(f"row {m.group(1)} must have 8 cells of . X O, got {quoted(line)}")
            rows[int(m.group(1))] = cells
        if sorted(rows) != list(range(1, 9)):
            raise InvalidPositionError(f"board text needs rows 1-8 (or 64 cells), found rows {sorted(rows)}:\n{text}")
        status = _STATUS_RE.search(text)
        return "".join(rows[r] for r in range(1, 9)), (parse_player(status.group(1)) if status else None)

    # -- value semantics -------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GameState):
            return NotImplemented
        return self._b == other._b and self._w == other._w and self._player == other._player

    def __hash__(self) -> int:
        return hash((self._b, self._w, self._player))

    def __repr__(self) -> str:
        return f"GameState.from_string({self.compact()!r})"

    def __reduce__(self) -> tuple[object, tuple[int, int, int]]:
        return (GameState, (self._b, self._w, self._player))

    def __copy__(self) -> GameState:
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> GameState:
        return self


def perft(depth: int, state: GameState | None = None) -> int:
    """Number of leaves ``depth`` plies below ``state`` (default: the start).
    A pass uses one ply; a finished game is one leaf at any greater depth."""
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 0:
        raise ValueError(f"perft depth must be a non-negative int, got {depth!r}")
    if state is None:
        state = GameState.initial()
    elif not isinstance(state, GameState):
        raise TypeError(f"perft state must be a GameState, got {type(state).__name__}")
    p, o = state.kernel_boards()
    return int(bb.perft(p, o, int(depth)))


def divide(depth: int, state: GameState | None = None) -> dict[str, int]:
    """perft split by first move (``{"D3": 3, ...}``): to find a wrong count."""
    state = GameState.initial() if state is None else state
    return {action_name(a): perft(depth - 1, state.apply(a)) for a in state.legal_actions()} if depth > 0 else {}
