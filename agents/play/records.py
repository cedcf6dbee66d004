"""Game records in the formats Othello players exchange: read, write, check.

Three formats, one record (``GameResult``: start position, moves, times,
names, result):

- JSON: ``GameResult.to_json`` / ``from_json``, what ``--save game.json`` writes;
- transcripts: the moves in a row, ``"f5d6c3d3c4"`` (any case, spaces
  allowed); a pass may be written ``--`` or ``pa`` or left out, since the
  position says when one is forced; the moves only, from the standard start
  (``check_format``), not how the game ended;
- GGF, the Generic Game Format of GGS (the Generic Game Server) that NBoard
  and most engines read: ``(;GM[Othello]PB[..]PW[..]RE[+18.000]BO[8 rows *]
  B[f5//1.20]W[d6//0.50]...;)`` with ``*`` black, ``O`` white, ``-`` empty in
  ``BO``, "move/eval/time" in each move and ``PA`` for a pass. GGF names
  three endings off the board (``RE[..:r]`` resigned, ``:t`` time, ``:s``
  scored as it stands): a loss by illegal moves, an error or a changed board
  is written ``:r`` and reads back as a resignation by the same loser (JSON
  keeps the exact reason).

A file is data: it is parsed, never executed. Everything read is checked
(legal moves from the stated start, known fields, numbers where numbers
belong) and a bad file raises ``RecordError`` with one line that says what
and where.
"""

from __future__ import annotations

import codecs
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agents.clocks import TimeControl
from agents.datafiles import read_data, write_text_atomic
from agents.limits import MAX_TEXT_FILE
from agents.play.match import GameResult
from reversi_env.errors import QUOTE_LIMIT, InvalidMoveError, InvalidPositionError, quoted
from reversi_env.notation import PASS, action_name, parse_square
from reversi_env.state import BLACK, PLAYER_NAMES, GameState, Player

if TYPE_CHECKING:  # the dataset module and its kernels load only when a game becomes data
    from reversi_env.dataset import Game

FORMATS = ("json", "ggf", "transcript")
"""The record formats, as ``write_record`` / ``--save`` name them."""
UNFINISHED = "interrupted"
"""The reason of a record that stops before the game's end (a transcript of
an opening, a position to start from)."""

_PASS_WORDS = ("--", "pa", "ps", "pass")
_MOVE_RE = re.compile(r"\s*([a-hA-H][1-8]|--|pa(?:ss)?|ps)", re.IGNORECASE)
_GGF_PROP_RE = re.compile(r"\s*([A-Z]{1,2})\[([^\]]*)\]")


def _property(key: str, value: str) -> str:
    """A GGF property as an error quotes it: ``KEY[value]``, a long value quoted by a short prefix."""
    return f"{key}[{value}]" if len(value) <= QUOTE_LIMIT else f"{key}[{quoted(value)}]"


_GGF_CELLS = {"-": ".", "*": "X", "O": "O"}


class RecordError(ValueError):
    """A game record that cannot be read; the message is one line."""


# -- transcripts ---------------------------------------------------------------------


def parse_transcript(text: str, start: GameState | None = None) -> list[int]:
    """The actions of ``text`` ("f5d6c3", passes optional) played from
    ``start``, forced passes included; RecordError names the first bad move."""
    state = GameState.initial() if start is None else start
    actions: list[int] = []
    pos, body = 0, text.strip()
    while pos < len(body):
        m = _MOVE_RE.match(body, pos)
        if m is None:
            raise RecordError(f"transcript: {body[pos : pos + 8]!r} at character {pos + 1} is not a move like 'f5'")
        pos = m.end()
        word = m.group(1).lower()
        if word in _PASS_WORDS:
            action = PASS
        else:
            action = parse_square(word)
            if not state.is_legal(action) and state.legal_actions() == [PASS]:
                actions.append(PASS)  # a pass the transcript leaves out
                state = state.apply(PASS)
        if not state.is_legal(action):
            who = PLAYER_NAMES[state.player]
            raise RecordError(f"transcript: move {len(actions) + 1} ({action_name(action)}) is not legal for {who}")
        actions.append(action)
        state = state.apply(action)
    return actions


def write_transcript(moves: list[str]) -> str:
    """``["F5", "PASS", "D6"] -> "f5d6"``: the usual form, passes left out."""
    return "".join(m.lower() for m in moves if m != "PASS")


def from_transcript(text: str, start: GameState | None = None) -> GameResult:
    """A record of the transcript's moves (no names, no times)."""
    actions = parse_transcript(text, start)
    return record([action_name(a) for a in actions], [0.0] * len(actions), start)


def parse_start(text: str) -> GameState:
    """A position to start from: a 64-character board (``X``, ``O``, ``.``,
    A1 to H8) and the side to move ``X`` or ``O``, or a transcript from the
    standard start. RecordError if it is neither."""
    squashed = "".join(text.split())
    if len(squashed) in (64, 65) and set(squashed[:64]) <= set("XxOo.-"):
        try:
            return GameState.from_string(squashed)
        except InvalidPositionError as e:
            raise RecordError(f"not a position: {str(e).splitlines()[0]}") from None
    state = GameState.initial()
    for action in parse_transcript(text):
        state = state.apply(action)
    return state


# -- GGF -------------------------------------------------------------------------------


def to_ggf(result: GameResult) -> str:
    """The record as one GGF game."""
    start = result.start_state()
    rows = [start.compact()[r * 8 : r * 8 + 8] for r in range(8)]
    board = " ".join(row.replace(".", "-").replace("X", "*") for row in rows)
    flag = {"timeout": ":t", "quit": ":s"}.get(result.reason, ":r" if result.loser is not None else "")
    props = [
        "GM[Othello]",
        "PC[reversi-env]",
        f"PB[{_ggf_text(result.black_name)}]",
        f"PW[{_ggf_text(result.white_name)}]",
        "TY[8]",
        f"RE[{_ggf_score(result)}{flag}]",
        f"BO[8 {board} {'*' if start.player == BLACK else 'O'}]",
    ]
    for ply, (move, seconds) in enumerate(zip(result.moves, result.times, strict=True)):
        color = "B" if result.mover(ply) == BLACK else "W"
        props.append(f"{color}[{'PA' if move == 'PASS' else move.lower()}//{seconds:.2f}]")
    return "(;" + "".join(props) + ";)"


def _ggf_text(name: str) -> str:
    return re.sub(r"[\[\]\s]+", "_", name)


def _ggf_score(result: GameResult) -> str:
    """Black's disc difference, or +/-64 for a game lost on a rule (GGS scores a forfeit so)."""
    if result.loser is not None and result.reason != "end":
        return "+64.000" if result.loser == "white" else "-64.000"
    return f"{result.disc_difference:+.3f}"


def _ggf_properties(text: str) -> list[tuple[str, str]]:
    """The properties of the first game of a GGF text, in order; RecordError if malformed."""
    body = text.strip()
    if not body.startswith("(;"):
        raise RecordError("GGF: a game starts with '(;'")
    end = body.find(";)")
    if end < 0:
        raise RecordError("GGF: the game does not end with ';)'")
    props: list[tuple[str, str]] = []
    pos, inner = 0, body[2:end]
    while pos < len(inner.rstrip()):
        m = _GGF_PROP_RE.match(inner, pos)
        if m is None:
            raise RecordError(f"GGF: {inner[pos : pos + 12].strip()!r} is not a property like PB[name]")
        props.append((m.group(1), m.group(2)))
        pos = m.end()
    return props


@dataclass(frozen=True)
class GGFClock:
    """One colour's clock in a GGF game (``TI``, or ``TB`` / ``TW``): the main
    time, the increment added after each move and the grace once the main time
    is out, in seconds (``TI[15:00/10/2:00]``; NBoard and GGS read a missing
    grace as 2:00)."""

    main: float
    increment: float = 0.0
    grace: float = 120.0

    def time_control(self) -> TimeControl:
        """The clock as a ``TimeControl``: the main time with its increment, then the grace for the rest of the game."""
        return TimeControl(clock=self.main, increment=self.increment, overtime=self.grace or None)

    def left(self, spent: float, moves: int) -> float:
        """Seconds left after ``moves`` moves that took ``spent`` seconds in all."""
        left = self.main + self.increment * moves - spent
        return max(left if left > 0 else left + self.grace, 0.0)


def ggf_clocks(text: str) -> dict[Player, GGFClock]:
    """The clock of each colour a GGF game sets (``TI`` both, ``TB`` black's,
    ``TW`` white's); none if it sets none. RecordError for a malformed time."""
    clocks: dict[Player, GGFClock] = {}
    for key, value in _ggf_properties(text):
        if key in ("TI", "TB", "TW"):
            parts = [_ggf_seconds(key, value, part) if part.strip() else None for part in value.split("/")]
            main, increment, grace = [*parts, None, None][:3]
            if len(parts) > 3 or main is None:
                raise RecordError(f"GGF: {_property(key, value)} is not a clock like TI[15:00] or TI[5:00/10/2:00]")
            clock = GGFClock(main, increment or 0.0, 120.0 if grace is None else grace)
            for colour in {"TI": (BLACK, 1 - BLACK), "TB": (BLACK,), "TW": (1 - BLACK,)}[key]:
                clocks[colour] = clock
    return clocks


def _ggf_seconds(key: str, value: str, text: str) -> float:
    """``[d.][h:][m:]s`` in seconds, as GGS writes a time."""
    days, dot, rest = text.strip().partition(".")
    if not dot or ":" in days or ":" not in rest:  # no days: a dot is the seconds' own
        days, rest = "0", text.strip()
    try:
        seconds = 0.0
        for part in rest.split(":"):
            seconds = seconds * 60 + float(part)
        seconds += 86400 * float(days)
    except ValueError:
        raise RecordError(f"GGF: {_property(key, value)} is not a clock like TI[15:00] or TI[5:00/10/2:00]") from None
    if not 0 <= seconds < float("inf"):
        raise RecordError(f"GGF: {_property(key, value)} is not a clock like TI[15:00] or TI[5:00/10/2:00]")
    return seconds


def from_ggf(text: str) -> GameResult:
    """The first game of a GGF text; RecordError for anything malformed."""
    props = _ggf_properties(text)
    fields = dict(props)
    if fields.get("GM", "Othello").lower() != "othello":
        raise RecordError(f"GGF: the game is {fields['GM']!r}, not Othello")
    start = _ggf_board(fields["BO"]) if "BO" in fields else GameState.initial()
    state = start
    moves: list[str] = []
    times: list[float] = []
    for key, value in props:
        if key not in ("B", "W"):
            continue
        parts = value.split("/")
        word = parts[0].strip().lower()
        try:
            action = PASS if word in _PASS_WORDS else parse_square(word)
            seconds = float(parts[2]) if len(parts) > 2 and parts[2].strip() else 0.0
        except (InvalidMoveError, ValueError):
            move = f"move {len(moves) + 1} {_property(key, value)}"
            raise RecordError(f"GGF: {move} is not a move like B[f5//1.20]") from None
        color = BLACK if key == "B" else 1 - BLACK
        if state.player != color and state.legal_actions() == [PASS]:
            state = state.apply(PASS)  # a pass the record leaves out
            moves.append("PASS")
            times.append(0.0)
        if state.player != color or not state.is_legal(action):
            raise RecordError(f"GGF: move {len(moves) + 1} {_property(key, value)} is not legal here")
        state = state.apply(action)
        moves.append(action_name(action))
        times.append(seconds)
    result = record(moves, times, start if "BO" in fields else None)
    result.black_name = fields.get("PB", "black")
    result.white_name = fields.get("PW", "white")
    flag = fields.get("RE", "").partition(":")[2]
    if flag in ("r", "t") and not state.is_terminal():
        loser = _ggf_loser(fields["RE"])
        result.reason = "resign" if flag == "r" else "timeout"
        result.loser = PLAYER_NAMES[loser]
        result.winner = PLAYER_NAMES[1 - loser]
    elif flag == "s" and not state.is_terminal():  # scored as it stands: what ``to_ggf`` writes for a quit
        result.reason = "quit"
    return result


_GGF_GAME_RE = re.compile(r"\(\s*;")


def from_ggf_games(text: str) -> list[GameResult]:
    """Every game of a GGF text, one after another (as GGS archives hold them, a game
    a line); RecordError naming the game (from 1) for the first that cannot be read."""
    starts = [m.start() for m in _GGF_GAME_RE.finditer(text)]
    if not starts:
        raise RecordError("GGF: no game in the text (a game begins with '(;')")
    games = []
    for i, start in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else len(text)
        try:
            games.append(from_ggf(text[start:end]))
        except RecordError as e:
            raise RecordError(f"game {i + 1}: {e}") from None
        except (ValueError, KeyError) as e:
            raise RecordError(f"game {i + 1}: GGF: {str(e).splitlines()[0] if str(e) else type(e).__name__}") from None
    return games


def dataset_game(result: GameResult) -> Game:
    """A record as a dataset's game (``reversi_env.dataset.Game``): its placements, the
    disc difference on the board at its end, and its winner (a resignation or a timeout
    included). RecordError for a game from another start than the standard one."""
    from reversi_env.dataset import Game

    if result.start is not None and result.start_state() != GameState.initial():
        raise RecordError("a dataset holds games from the standard start; this one starts elsewhere")
    moves = tuple(parse_square(m) for m in result.moves if m != "PASS")
    outcome = {"black": 1, "white": -1}.get(result.winner, 0)
    return Game(moves, result.disc_difference, outcome)


def _ggf_board(value: str) -> GameState:
    """``BO[8 rows... side]``: the eight rows apart (as GGS writes them) or in one
    64-character word (as NBoard does)."""
    parts = value.split()
    if len(parts) == 3 and len(parts[1]) == 64:
        parts = [parts[0], *(parts[1][r * 8 : r * 8 + 8] for r in range(8)), parts[2]]
    if len(parts) != 10 or parts[0] != "8" or any(len(row) != 8 for row in parts[1:9]):
        raise RecordError(f"GGF: {_property('BO', value)} is not an 8 x 8 board ('8', eight rows, the side to move)")
    cells = "".join(parts[1:9])
    if set(cells) - set(_GGF_CELLS) or parts[9] not in ("*", "O"):
        raise RecordError(f"GGF: {_property('BO', value)} may hold only '-', '*' and 'O', and '*' or 'O' to move")
    return GameState.from_string("".join(_GGF_CELLS[c] for c in cells), "X" if parts[9] == "*" else "O")


def _ggf_loser(result: str) -> int:
    try:
        score = float(result.partition(":")[0])
    except ValueError:
        raise RecordError(f"GGF: {_property('RE', result)} is not a result like RE[+18.000]") from None
    return 1 - BLACK if score > 0 else BLACK


# -- one record from any of them ---------------------------------------------------------


def record(moves: list[str], times: list[float], start: GameState | None = None) -> GameResult:
    """A record of ``moves`` (with their ``times``) from ``start``, its result
    read off the final position; reason "end" if the game is over, else UNFINISHED."""
    state = GameState.initial() if start is None else start
    for m in moves:
        state = state.apply(m)
    b, w = state.score()
    return GameResult(
        winner="draw" if b == w else ("black" if b > w else "white"),
        black=b,
        white=w,
        reason="end" if state.is_terminal() else UNFINISHED,
        moves=moves,
        times=times,
        start=None if start is None else start.compact(),
    )


def read_record(text: str) -> GameResult:
    """A record from JSON, GGF or a transcript, told apart by how they begin.
    The names and details it holds come back printable: a control character
    (a terminal's escape sequence, say) is shown as '?'."""
    body = text.lstrip("\ufeff").strip()
    if not body:
        raise RecordError("empty, not a game record")
    try:
        if body.startswith("{"):
            result = GameResult.from_json(body)
        elif body.startswith("(") or "GM[" in body[:40]:
            result = from_ggf(body)
        else:
            result = from_transcript(body)
    except RecordError:
        raise
    except (ValueError, KeyError, TypeError) as e:
        raise RecordError(str(e).splitlines()[0] if str(e) else type(e).__name__) from None
    result.black_name = _printable(result.black_name)
    result.white_name = _printable(result.white_name)
    result.details = _printable(result.details, keep="\n")
    return result


_BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def _printable(text: str, keep: str = "") -> str:
    """``text`` with every control character but those in ``keep`` (and every
    bidirectional override) replaced by '?'."""
    return "".join(
        "?" if c not in keep and (unicodedata.category(c) == "Cc" or c in _BIDI_CONTROLS) else c for c in text
    )


def decode_record(data: bytes) -> str:
    """The text of a record file: UTF-8 (a byte-order mark is skipped), or
    UTF-16 with its byte-order mark (as some Windows editors save);
    RecordError for anything else."""
    try:
        if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
            return data.decode("utf-16")
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        where = f"byte {e.start + 1} is 0x{data[e.start]:02x}"
        raise RecordError(f"cannot read: not text in UTF-8 or UTF-16 with a byte-order mark ({where})") from None


def load_record(path: str | Path) -> GameResult:
    """``read_record`` of a file; RecordError (one line naming the file) if it
    cannot be read or is not a game record."""
    if not str(path).strip():
        raise RecordError("no file name given")
    try:
        data = read_data(path, MAX_TEXT_FILE, "a game record")
    except OSError as e:
        raise RecordError(f"{path}: cannot read: {e.strerror or e}") from None
    try:
        return read_record(decode_record(data))
    except RecordError as e:
        raise RecordError(f"{path}: {e}") from None


def format_for(path: str | Path) -> str:
    """The format a file name asks for: .ggf GGF, .txt a transcript, else JSON."""
    suffix = Path(path).suffix.lower()
    return {".ggf": "ggf", ".txt": "transcript"}.get(suffix, "json")


def check_format(path: str | Path, start: GameState | None) -> None:
    """RecordError if the format ``path`` asks for cannot hold a game from
    ``start`` (None: the standard start): a transcript's moves are read from
    the standard start, so one from elsewhere would not read back."""
    if format_for(path) == "transcript" and start is not None and start != GameState.initial():
        raise RecordError(
            f"{path}: a transcript (.txt) holds moves from the standard start; "
            "this game starts from another position: save it as .json or .ggf"
        )


def write_record(result: GameResult, path: str | Path) -> None:
    """Write ``result`` in the format its file name asks for, atomically
    (OSError if it cannot; RecordError, before writing, if the format cannot hold it)."""
    fmt = format_for(path)
    check_format(path, result.start_state())
    text = {
        "json": lambda: result.to_json(indent=2),
        "ggf": lambda: to_ggf(result),
        "transcript": lambda: write_transcript(result.moves),
    }[fmt]()
    write_text_atomic(path, text + "\n")
