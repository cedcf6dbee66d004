"""WTHOR, the French Othello federation's database of expert games: read and write.

Three kinds of file, each a 16-byte header and fixed-size records, integers
little-endian:

* the header: the century, the year (two digits), the month and the day the
  file was made (one byte each); N1, a uint32, the number of games (in a
  ``.wtb``); N2, a uint16, the number of names (in a ``.jou`` or ``.trn``);
  the year of the games (uint16); the board size (0 or 8 for 8 x 8), 0 for
  games (1 for solitaires), the depth of the theoretical scores, and a spare byte;
* ``.wtb``: 68 bytes a game: the tournament's, black's and white's numbers
  (uint16 each, indices into the ``.trn`` and ``.jou`` lists), black's discs
  at the end (empty squares go to the winner), black's theoretical score, then
  60 moves, one byte each, ``10 * row + column`` (11 is A1, 18 H1, 88 H8), 0
  after the last; passes are not written;
* ``.jou`` (players) and ``.trn`` (tournaments): one name a record, 20 and
  26 bytes, NUL-terminated, in Latin-1.

A file is data: it is read with bounds (at most ``MAX_GAMES`` games or
``MAX_NAMES`` names), checked (the header's counts against the file's size,
every move byte a square, the moves legal when they are replayed) and a bad
one raises ``WthorError`` with one line saying what and where.
"""

from __future__ import annotations

import datetime
import struct
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from reversi_env.errors import IllegalMoveError
from reversi_env.notation import PASS, square_name
from reversi_env.state import GameState

HEADER_SIZE = 16
GAME_SIZE = 68
MOVES_PER_GAME = 60
NAME_SIZES = {".jou": 20, ".trn": 26}
"""Record sizes of the name lists: players (``.jou``) and tournaments (``.trn``)."""
MAX_GAMES = 1_000_000
"""The most games a ``.wtb`` may hold here (a year of the federation's base holds a few thousand)."""
MAX_NAMES = 65_535
"""The most names a list may hold (N2 is a uint16)."""
_HEADER = struct.Struct("<4BIHH4B")
_GAME_HEAD = struct.Struct("<3H2B")


class WthorError(ValueError):
    """A WTHOR file that cannot be read or written; the message is one line."""


@dataclass(frozen=True)
class WthorHeader:
    """A file's 16-byte header.

    Attributes:
        created: the day the file was made.
        games: N1, the number of games (0 in a name list).
        names: N2, the number of names (0 in a game file).
        year: the year of the games (0 in a name list).
        board_size: 0 or 8 (both mean 8 x 8).
        solitaire: 1 for a file of solitaires, 0 for games.
        depth: the depth of the theoretical scores.
    """

    created: datetime.date
    games: int = 0
    names: int = 0
    year: int = 0
    board_size: int = 8
    solitaire: int = 0
    depth: int = 0

    def pack(self) -> bytes:
        """The 16 bytes of this header."""
        c = self.created
        return _HEADER.pack(
            c.year // 100, c.year % 100, c.month, c.day, self.games, self.names, self.year,
            self.board_size, self.solitaire, self.depth, 0,
        )  # fmt: skip


@dataclass(frozen=True)
class WthorGame:
    """One game of a ``.wtb``.

    Attributes:
        moves: the squares played (0-63, A1 = 0), passes left out, at most 60.
        black_score: black's discs at the end, empty squares counted for the winner.
        theoretical_score: black's score with perfect play from the position the base computed it at.
        tournament: the index of its tournament in the ``.trn`` list.
        black: the index of black's name in the ``.jou`` list.
        white: the index of white's name in the ``.jou`` list.
    """

    moves: tuple[int, ...]
    black_score: int
    theoretical_score: int = 0
    tournament: int = 0
    black: int = 0
    white: int = 0

    @property
    def disc_difference(self) -> int:
        """Black's discs minus white's at the end, as WTHOR counts them (empty squares to the winner)."""
        return 2 * self.black_score - 64


@dataclass
class WthorBase:
    """A ``.wtb`` with, when they were read beside it, its player and tournament names."""

    header: WthorHeader
    games: list[WthorGame]
    players: list[str] = field(default_factory=list)
    tournaments: list[str] = field(default_factory=list)

    def player(self, index: int) -> str:
        """The name of player ``index`` (its number when there is no such name)."""
        return self.players[index] if 0 <= index < len(self.players) else f"player {index}"

    def tournament(self, index: int) -> str:
        """The name of tournament ``index`` (its number when there is no such name)."""
        return self.tournaments[index] if 0 <= index < len(self.tournaments) else f"tournament {index}"


# -- reading ---------------------------------------------------------------------------


def _read_bounded(path: str | Path, limit: int) -> bytes:
    """At most ``limit`` bytes of ``path``; WthorError if it cannot be read or is longer."""
    try:
        with open(path, "rb") as f:
            data = f.read(limit + 1)
    except OSError as e:
        raise WthorError(f"{path}: cannot read: {e.strerror or e}") from None
    if len(data) > limit:
        raise WthorError(f"{path}: larger than a WTHOR file can be here ({limit:,} bytes)")
    return data


def parse_header(data: bytes, where: str = "WTHOR") -> WthorHeader:
    """The header at the start of ``data``; WthorError if there is none or its date is not one."""
    if len(data) < HEADER_SIZE:
        raise WthorError(f"{where}: {len(data)} bytes, shorter than the 16-byte header")
    century, year, month, day, games, names, games_year, size, kind, depth, _ = _HEADER.unpack_from(data)
    try:
        created = datetime.date(century * 100 + year, month, day)
    except ValueError:
        raise WthorError(
            f"{where}: the header's date {century:02d}{year:02d}-{month:02d}-{day:02d} is not a date"
        ) from None
    return WthorHeader(created, games, names, games_year, size, kind, depth)


def decode_moves(raw: np.ndarray, where: str = "WTHOR") -> np.ndarray:
    """(G, 60) WTHOR move bytes -> (G, 60) int8 squares (0-63), -1 after the last move.

    Raises WthorError naming the first game and move whose byte is not a square
    or that follows the end of its game.
    """
    raw = np.asarray(raw, dtype=np.uint8)
    row, col = np.divmod(raw.astype(np.int16), 10)
    square = (row - 1) * 8 + (col - 1)
    ok = (row >= 1) & (row <= 8) & (col >= 1) & (col <= 8)
    empty = raw == 0
    ended = np.cumsum(empty, axis=1) > 0
    bad = (~ok & ~empty) | (ended & ~empty)
    if bad.any():
        g, m = (int(x) for x in np.argwhere(bad)[0])
        why = "follows the end of the game" if ended[g, m] else "is not a square (11 to 88)"
        raise WthorError(f"{where}: game {g + 1}, move {m + 1}: byte {int(raw[g, m])} {why}")
    return np.where(ok, square, -1).astype(np.int8)


def parse_wtb(data: bytes, where: str = "WTHOR") -> WthorBase:
    """A ``.wtb``'s header and games from its bytes; WthorError (one line, naming
    ``where``) for a short or long file, a count that does not match, a bad move byte."""
    header = parse_header(data, where)
    body = len(data) - HEADER_SIZE
    if header.games > MAX_GAMES:
        raise WthorError(f"{where}: the header counts {header.games:,} games, more than {MAX_GAMES:,}")
    if body != header.games * GAME_SIZE:
        held, extra = divmod(body, GAME_SIZE)
        more = f" and {extra} bytes" if extra else ""
        raise WthorError(
            f"{where}: the header counts {header.games} games, the file holds {held}{more} "
            f"({GAME_SIZE} bytes a game after the 16-byte header)"
        )
    records = np.frombuffer(data, dtype=np.uint8, offset=HEADER_SIZE).reshape(header.games, GAME_SIZE)
    squares = decode_moves(records[:, 8:], where)
    heads = records[:, :8].copy().view(np.dtype([("t", "<u2"), ("b", "<u2"), ("w", "<u2"), ("s", "u1"), ("th", "u1")]))
    games = []
    for i in range(header.games):
        t, b, w, score, theory = heads[i, 0]
        if score > 64:
            raise WthorError(f"{where}: game {i + 1}: black's score {score} is more than 64")
        row = squares[i]
        games.append(WthorGame(tuple(int(s) for s in row[row >= 0]), int(score), int(theory), int(t), int(b), int(w)))
    return WthorBase(header, games)


def parse_names(data: bytes, size: int, where: str = "WTHOR") -> list[str]:
    """The names of a ``.jou`` (``size`` 20) or ``.trn`` (``size`` 26) from its bytes; WthorError if the
    header's count does not match the file's size."""
    header = parse_header(data, where)
    body = len(data) - HEADER_SIZE
    if body != header.names * size:
        held, extra = divmod(body, size)
        more = f" and {extra} bytes" if extra else ""
        raise WthorError(
            f"{where}: the header counts {header.names} names, the file holds {held}{more} ({size} bytes a name)"
        )
    names = []
    for i in range(header.names):
        raw = data[HEADER_SIZE + i * size : HEADER_SIZE + (i + 1) * size]
        name = raw.split(b"\0", 1)[0].decode("latin-1")
        names.append("".join(c if c.isprintable() else "?" for c in name).strip())
    return names


def _name_size(path: str | Path) -> int:
    suffix = Path(path).suffix.lower()
    if suffix not in NAME_SIZES:
        raise WthorError(f"{path}: a name list is a .jou (players) or a .trn (tournaments)")
    return NAME_SIZES[suffix]


def read_names(path: str | Path) -> list[str]:
    """The names of a ``.jou`` or ``.trn`` file (told apart by the suffix); WthorError if it cannot be read."""
    size = _name_size(path)
    data = _read_bounded(path, HEADER_SIZE + MAX_NAMES * size)
    return parse_names(data, size, str(path))


def _beside(path: Path, suffix: str) -> Path | None:
    """The name list beside a ``.wtb``: ``WTHOR.JOU`` / ``WTHOR.TRN`` in its folder, in any case."""
    folder = path.parent if str(path.parent) else Path()
    try:
        for candidate in folder.iterdir():
            if candidate.name.lower() == f"wthor{suffix}" and candidate.is_file():
                return candidate
    except OSError:
        return None
    return None


def read_wtb(path: str | Path, *, names: bool = True) -> WthorBase:
    """A ``.wtb`` file's games; with ``names``, the player and tournament lists
    ``WTHOR.JOU`` and ``WTHOR.TRN`` beside it, where present. WthorError (one line) if any cannot be read."""
    p = Path(path)
    base = parse_wtb(_read_bounded(p, HEADER_SIZE + MAX_GAMES * GAME_SIZE), str(path))
    if names:
        players, tournaments = _beside(p, ".jou"), _beside(p, ".trn")
        base.players = read_names(players) if players is not None else []
        base.tournaments = read_names(tournaments) if tournaments is not None else []
    return base


# -- replaying ---------------------------------------------------------------------------


def replay(moves: Sequence[int], where: str = "WTHOR") -> list[int]:
    """The actions of a game written without its passes (as WTHOR writes it): the
    moves with every forced pass put back. WthorError names the first illegal move."""
    state = GameState.initial()
    actions: list[int] = []
    for ply, square in enumerate(moves):
        if state.legal_actions() == [PASS]:
            actions.append(PASS)
            state = state.apply(PASS)
        try:
            state = state.apply(square)
        except IllegalMoveError:
            name = square_name(square) if 0 <= square < 64 else str(square)
            raise WthorError(f"{where}: move {ply + 1} ({name}) is not legal") from None
        actions.append(square)
    return actions


def score_of(moves: Sequence[int]) -> int:
    """The WTHOR score of a game written without its passes: black's discs at the end,
    the empty squares counted for the winner (half of them each on a draw)."""
    state = GameState.initial()
    for a in replay(moves):
        state = state.apply(a)
    black, white = state.score()
    empty = 64 - black - white
    return black + empty if black > white else (black if black < white else black + empty // 2)


# -- writing ---------------------------------------------------------------------------


def _atomic_write(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename (OSError if it cannot)."""
    p = Path(path)
    tmp = p.with_name(f".{p.name}.tmp")
    tmp.write_bytes(data)
    tmp.replace(p)


def pack_wtb(games: Sequence[WthorGame], *, year: int, created: datetime.date | None = None, depth: int = 0) -> bytes:
    """The bytes of a ``.wtb`` holding ``games`` of ``year``; WthorError for a game WTHOR cannot hold."""
    if len(games) > MAX_GAMES:
        raise WthorError(f"{len(games):,} games: a file holds at most {MAX_GAMES:,} here")
    if not 0 <= year <= 65535:
        raise WthorError(f"the year of the games must be 0 to 65535, got {year}")
    header = WthorHeader(created or datetime.date.today(), games=len(games), year=year, depth=depth)
    out = bytearray(header.pack())
    for i, g in enumerate(games):
        if len(g.moves) > MOVES_PER_GAME or any(not 0 <= m < 64 for m in g.moves):
            raise WthorError(f"game {i + 1}: WTHOR holds at most 60 squares 0-63 (passes left out), got {g.moves}")
        if not (0 <= g.black_score <= 64 and 0 <= g.theoretical_score <= 64):
            raise WthorError(f"game {i + 1}: scores are 0 to 64, got {g.black_score} and {g.theoretical_score}")
        if not all(0 <= n <= 65535 for n in (g.tournament, g.black, g.white)):
            raise WthorError(f"game {i + 1}: player and tournament numbers are 0 to 65535")
        out += _GAME_HEAD.pack(g.tournament, g.black, g.white, g.black_score, g.theoretical_score)
        out += bytes(10 * (m // 8 + 1) + m % 8 + 1 for m in g.moves).ljust(MOVES_PER_GAME, b"\0")
    return bytes(out)


def write_wtb(
    path: str | Path,
    games: Sequence[WthorGame],
    *,
    year: int,
    created: datetime.date | None = None,
    depth: int = 0,
) -> None:
    """Write ``games`` to a ``.wtb`` at ``path``, atomically.

    Args:
        path: the file to write.
        games: the games (moves without passes, scores, name indices).
        year: the year of the games, in the header.
        created: the day in the header (default today).
        depth: the depth of the theoretical scores, in the header.

    Raises:
        WthorError: for a game WTHOR cannot hold (before anything is written).
        OSError: if the file cannot be written.
    """
    _atomic_write(path, pack_wtb(games, year=year, created=created, depth=depth))


def pack_names(names: Sequence[str], size: int, *, created: datetime.date | None = None) -> bytes:
    """The bytes of a name list of records of ``size`` (20 players, 26 tournaments); WthorError for a name
    that is too long or not Latin-1."""
    if len(names) > MAX_NAMES:
        raise WthorError(f"{len(names):,} names: a list holds at most {MAX_NAMES:,}")
    out = bytearray(WthorHeader(created or datetime.date.today(), names=len(names), board_size=0).pack())
    for i, name in enumerate(names):
        try:
            raw = name.encode("latin-1")
        except UnicodeEncodeError:
            raise WthorError(f"name {i + 1} ({name!r}) is not Latin-1, which WTHOR writes") from None
        if len(raw) >= size or b"\0" in raw:
            raise WthorError(f"name {i + 1} ({name!r}) is longer than {size - 1} bytes or holds a NUL")
        out += raw.ljust(size, b"\0")
    return bytes(out)


def write_names(path: str | Path, names: Sequence[str], *, created: datetime.date | None = None) -> None:
    """Write a ``.jou`` (players) or ``.trn`` (tournaments) at ``path``, atomically; the suffix says which.
    Raises WthorError for a name the list cannot hold, OSError if the file cannot be written."""
    _atomic_write(path, pack_names(names, _name_size(path), created=created))
