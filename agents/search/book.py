"""The opening book: positions of the opening, each legal move's value by deep search, backed up by negamax.

A position is stored once for its 8 symmetric images (``canonical``: the least image of the
mover's and the opponent's bitboards) with a value for each of its legal moves, in discs from
the mover's side. A move whose position is in the book too has that position's value, negated
(minimax through the book, as Edax's and Egaroucid's books back theirs up); a move out of the
book has the value a deep alpha-beta search gave it (``agents.search.book_build`` builds and
extends a book). ``Book.move`` is the lookup: the best stored move of a position, or None out
of the book. ``read_book`` reads a file as data (one ``BookError`` line for anything else);
``load_book`` gives the package's own book (``shipped_book_path``) or another file's, read once.
"""

from __future__ import annotations

import io
import json
import math
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from importlib.resources import files
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import state_to_move
from agents.datafiles import load_json, read_npz, write_bytes_atomic
from agents.limits import MAX_BOOK_FILE, MAX_BOOK_POSITIONS
from agents.search.timecontrol import GameClock
from reversi_env.bitboard import flips, legal_moves
from reversi_env.observation import Observation
from reversi_env.state import GameState
from reversi_env.symmetry import INVERSES, NUM_SYMMETRIES, SYMMETRIES

BOOK_FORMAT = 1
"""The layout of a book file (``metadata["format"]``); a file of another layout is refused."""

MAX_SCORE = 64.0
"""The largest value a move may have, in discs (a whole board)."""

Key = tuple[int, int]
"""A position as the book keys it: (the mover's bitboard, the opponent's), its canonical image."""


class BookError(ValueError):
    """A book file that cannot be read as a book: the message names the file and what is wrong."""


def _byte_images() -> list[list[list[int]]]:
    """``[k][i][byte]``: the image under symmetry ``k`` of the board whose byte ``i`` (row ``i``) is ``byte``."""
    tables = []
    for k in range(NUM_SYMMETRIES):
        rows = []
        for i in range(8):
            rows.append(
                [sum(1 << int(SYMMETRIES[k][8 * i + j]) for j in range(8) if byte >> j & 1) for byte in range(256)]
            )
        tables.append(rows)
    return tables


_BYTE_IMAGES = _byte_images()


def image(k: int, board: int) -> int:
    """The bitboard ``board`` moved by symmetry ``k`` (``reversi_env.symmetry.SYMMETRIES[k]``)."""
    rows = _BYTE_IMAGES[k]
    return (
        rows[0][board & 255]
        | rows[1][board >> 8 & 255]
        | rows[2][board >> 16 & 255]
        | rows[3][board >> 24 & 255]
        | rows[4][board >> 32 & 255]
        | rows[5][board >> 40 & 255]
        | rows[6][board >> 48 & 255]
        | rows[7][board >> 56 & 255]
    )


def canonical(mover: int, opponent: int) -> tuple[Key, int]:
    """The book's key of a position and the symmetry that takes the position to it.

    Args:
        mover: the bitboard of the player to move.
        opponent: the other player's bitboard.

    Returns:
        ``((mover', opponent'), k)``: the least of the 8 images, and the ``k`` with
        ``image(k, mover) == mover'``; a move ``a`` of the position is ``SYMMETRIES[k][a]`` in the key's.
    """
    best, best_k = (mover, opponent), 0
    for k in range(1, NUM_SYMMETRIES):
        candidate = (image(k, mover), image(k, opponent))
        if candidate < best:
            best, best_k = candidate, k
    return best, best_k


def state_key(state: GameState) -> tuple[Key, int]:
    """``canonical`` of ``state``: the book's key of the position, its mover's discs first,
    and the symmetry that takes the position to it."""
    mover, opponent = (state.black, state.white) if state.player == 0 else (state.white, state.black)
    return canonical(mover, opponent)


def child_key(key: Key, square: int) -> Key | None:
    """The key of the position after ``square`` is played in the position ``key``, or None if
    the reply is a pass or the game ends there (the book keeps positions with a move to play)."""
    mover, opponent = np.uint64(key[0]), np.uint64(key[1])
    f = flips(mover, opponent, np.uint64(square))
    after_mover, after_opponent = opponent ^ f, mover | f | np.uint64(1 << square)
    if not legal_moves(after_mover, after_opponent):
        return None
    return canonical(int(after_mover), int(after_opponent))[0]


def discs(key: Key) -> int:
    """The discs on the board of the position ``key``."""
    return (key[0] | key[1]).bit_count()


@dataclass
class Book:
    """An opening book: for each stored position (canonical key), each legal move's value in discs.

    Attributes:
        positions: key -> {square in the key's frame: value from the mover's side}; every
            legal move of a stored position has a value.
        depths: key -> the depth its moves were searched to.
        metadata: what made it (JSON): ``commands`` (each build's command line), ``seconds``
            (the builds' time in all), ``builds`` (each one's positions added and
            seconds), ``weights`` (the evaluation's file), ``positions``.
    """

    positions: dict[Key, dict[int, float]] = field(default_factory=dict)
    depths: dict[Key, int] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.positions)

    def __contains__(self, key: object) -> bool:
        return key in self.positions

    def __iter__(self) -> Iterator[Key]:
        """The stored positions' keys."""
        return iter(self.positions)

    def value(self, key: Key) -> float:
        """The value of the stored position ``key`` for its mover: its best move's (KeyError if not stored)."""
        return max(self.positions[key].values())

    def add(self, key: Key, scores: Mapping[int, float], depth: int) -> None:
        """Store the position ``key`` with its moves' values ``scores`` (the key's squares, discs), ``depth`` deep."""
        self.positions[key] = {int(a): float(v) for a, v in scores.items()}
        self.depths[key] = int(depth)

    def scores(self, state: GameState) -> dict[int, float] | None:
        """The book's value of each legal move of ``state`` (actions, discs for the mover), or None out of the book.

        Only moves legal in ``state`` are given: a book file is data, and a move it holds
        that the position does not allow is never offered.
        """
        if state.is_terminal() or not state.moves_bitboard:
            return None
        key, k = state_key(state)
        stored = self.positions.get(key)
        if stored is None:
            return None
        legal = state.moves_bitboard
        moves = {int(INVERSES[k][c]): v for c, v in stored.items()}
        return {a: v for a, v in moves.items() if legal >> a & 1} or None

    def move(self, state: GameState, *, margin: float = 0.0, rng: np.random.Generator | None = None) -> int | None:
        """The book's move in ``state``, or None if the position is not in the book.

        Args:
            state: the position, the mover to play.
            margin: with ``rng``, any move within ``margin`` discs of the best may be played.
            rng: the seeded generator that picks among those moves (None: the best, the
                lowest square among equals, so the same position gets the same move).

        Returns:
            A legal action of ``state``, or None.
        """
        scores = self.scores(state)
        if scores is None:
            return None
        best = max(scores.values())
        near = sorted(a for a, v in scores.items() if v >= best - (margin if rng is not None else 0.0))
        if rng is None or len(near) == 1:
            return near[0]
        return int(near[int(rng.integers(len(near)))])

    def back_up(self) -> None:
        """Negamax through the book: each move into a stored position takes that position's
        value, negated, from the fullest boards back to the start (a child has one disc more)."""
        for key in sorted(self.positions, key=discs, reverse=True):
            self.back_up_position(key)

    def back_up_position(self, key: Key) -> None:
        """Give each move of the stored position ``key`` whose position is stored that position's value, negated."""
        scores = self.positions[key]
        for square in scores:
            child = child_key(key, square)
            if child is not None and child in self.positions:
                scores[square] = -self.value(child)

    def save(self, path: str | Path) -> None:
        """Write the book to ``path`` (an ``.npz`` of plain arrays and JSON metadata), atomically.

        Raises:
            OSError: it cannot be written (nothing is left at ``path`` then).
        """
        keys = list(self.positions)
        boards = np.array(keys, dtype=np.uint64).reshape(len(keys), 2)
        counts = [len(self.positions[key]) for key in keys]
        offsets = np.zeros(len(keys) + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        squares = np.array([a for key in keys for a in self.positions[key]], dtype=np.uint8)
        scores = np.array([v for key in keys for v in self.positions[key].values()], dtype=np.float32)
        depths = np.array([self.depths.get(key, 0) for key in keys], dtype=np.uint8)
        meta = json.dumps({**self.metadata, "format": BOOK_FORMAT, "positions": len(keys)})
        archive = io.BytesIO()
        np.savez_compressed(
            archive,
            boards=boards,
            offsets=offsets,
            squares=squares,
            scores=scores,
            depths=depths,
            metadata=np.array(meta),
        )
        write_bytes_atomic(path, archive.getvalue())


_ARRAYS = ("boards", "offsets", "squares", "scores", "depths", "metadata")


def read_book(path: str | Path) -> Book:
    """The book in the file ``path`` (``Book.save``'s), checked as data.

    Raises:
        BookError: one line naming the file and what is wrong with it (not a regular file, over
            ``MAX_BOOK_FILE`` bytes, not an ``.npz`` of plain arrays, arrays that do not fit
            together, moves on occupied squares, values beyond a board); FileNotFoundError: no such file.
    """
    what = "an opening-book file"
    try:
        arrays = read_npz(
            path,
            _ARRAYS,
            what,
            {
                "boards": ((None, 2), "u"),
                "offsets": ((None,), "i"),
                "squares": ((None,), "u"),
                "scores": ((None,), "f"),
                "depths": ((None,), "u"),
                "metadata": ((), "U"),
            },
            limit=MAX_BOOK_FILE,
        )
        metadata = load_json(str(arrays["metadata"]))
    except FileNotFoundError:
        raise
    except ValueError as e:
        raise BookError(str(e) if str(path) in str(e) else f"{str(path)!r} is not {what}: {e}") from None
    problem = _problem(arrays, metadata)
    if problem is not None:
        raise BookError(f"{str(path)!r} is not {what}: {problem}")
    book = Book(metadata=metadata)
    offsets = arrays["offsets"].tolist()
    squares, scores = arrays["squares"].tolist(), arrays["scores"].tolist()
    for i, (mover, opponent) in enumerate(arrays["boards"].tolist()):
        key = (int(mover), int(opponent))
        moves = range(offsets[i], offsets[i + 1])
        book.positions[key] = {int(squares[j]): round(float(scores[j]), 3) for j in moves}  # float32 to 1/1000 disc
        book.depths[key] = int(arrays["depths"][i])
    return book


def _problem(arrays: dict[str, np.ndarray], metadata: object) -> str | None:
    """What is wrong with a book file's arrays and metadata, or None."""
    if not isinstance(metadata, dict) or metadata.get("format") != BOOK_FORMAT:
        return f"its metadata is not of a book of format {BOOK_FORMAT}"
    boards, offsets, squares, scores = arrays["boards"], arrays["offsets"], arrays["squares"], arrays["scores"]
    n = len(boards)
    if n > MAX_BOOK_POSITIONS:
        return f"it holds {n} positions, over the limit of {MAX_BOOK_POSITIONS}"
    if len(offsets) != n + 1 or len(arrays["depths"]) != n or len(squares) != len(scores):
        return "its arrays do not fit together (positions, offsets, depths, moves, values)"
    if n and (offsets[0] != 0 or offsets[-1] != len(squares) or np.any(np.diff(offsets) < 1)):
        return "its offsets do not cut its moves into one run or more a position"
    if not np.all(np.isfinite(scores)) or np.any(np.abs(scores) > MAX_SCORE):
        return f"it holds values that are not numbers of discs (at most {MAX_SCORE:g})"
    if np.any(squares > 63):
        return "it holds moves that are not squares (0-63)"
    boards = boards.astype(np.uint64)
    if np.any(boards[:, 0] & boards[:, 1]):
        return "it holds positions with two discs on one square"
    occupied = np.repeat(boards[:, 0] | boards[:, 1], np.diff(offsets)) if n else np.zeros(0, dtype=np.uint64)
    if np.any((occupied >> squares.astype(np.uint64)) & np.uint64(1)):
        return "it holds moves on occupied squares"
    return None


def shipped_book_path() -> Path:
    """Where the package's own book lives."""
    return Path(str(files("agents.search") / "data" / "book.npz"))


def load_book(path: str | Path | None = None) -> Book:
    """The book of the file ``path`` (the package's own for None; relative to the current
    directory), read once per file and version and shared; BookError for a file that is not one.

    The players share the one they are given and never change it.
    """
    file = shipped_book_path() if path is None else Path(path).expanduser().resolve()
    try:
        stat = file.stat()
    except OSError as e:
        raise BookError(f"no such opening-book file: {str(file)!r} ({e.strerror})") from None
    return _read_version(str(file), stat.st_mtime_ns, stat.st_size, stat.st_ino)


@lru_cache(maxsize=4)
def _read_version(file: str, mtime_ns: int, size: int, inode: int) -> Book:
    """The book of one version of one file (the version is the cache's key)."""
    return read_book(file)


def book_summary(book: Book) -> str:
    """One line on a book: its positions, moves, the deepest ply and its build commands' count."""
    moves = sum(len(scores) for scores in book.positions.values())
    deepest = max((discs(key) - 4 for key in book.positions), default=0)
    start = state_key(GameState.initial())[0]
    value = f", the start's value {book.value(start):+.2f} discs" if start in book else ""
    seconds = book.metadata.get("seconds")
    built = f", {seconds:,.1f} s of building" if isinstance(seconds, (int, float)) and math.isfinite(seconds) else ""
    return f"{len(book):,} positions, {moves:,} moves valued, to ply {deepest}{value}{built}"


def book_move(book: Book | None, observation: Observation, clock: GameClock | None = None) -> int | None:
    """The move ``book`` plays in the observation's position (``Book.move``), or None without a
    book or out of it: the hook a player consults before it searches.

    Args:
        book: the player's book (None: none).
        observation: the position, for the player to move.
        clock: the player's game clock, if it plays on one: a book move is one of its moves
            (a byo-yomi period counts it) and spends the time it took.

    Returns:
        The book's action, or None (the player searches then).
    """
    if book is None:
        return None
    start = time.perf_counter()
    move = book.move(state_to_move(observation))
    if move is not None and clock is not None:
        clock.punch(time.perf_counter() - start)
    return move


def book_value(player: object, state: GameState, action: int) -> float | None:
    """What ``player``'s book says ``action`` is worth in ``state``, to tell a book move apart.

    Args:
        player: any player; one with a ``book`` attribute (a Book) plays from it.
        state: the position the move was played in.
        action: the move played.

    Returns:
        The book's value of the move (discs for the mover), or None: no book, the position
        out of it, or a move it does not hold.
    """
    book = getattr(player, "book", None)
    if not isinstance(book, Book):
        return None
    return (book.scores(state) or {}).get(action)
