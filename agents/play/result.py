"""The record of a game and why it ended: ``Reason``, ``MoveRecord``, ``GameResult``.

They sit below the referee, the match runner, the window and the records, which
all read and write them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from agents.datafiles import load_json
from reversi_env.notation import action_name
from reversi_env.state import BLACK, GameState, Player


class Reason(str, Enum):
    """Why a game ended. The values are the words records and results files
    hold (``GameResult.reason``), so files written before still load."""

    END = "end"
    """The game was played out: neither side can move."""
    TIMEOUT = "timeout"
    """A player ran out of time (a move over its limit, or its game clock)."""
    ILLEGAL = "illegal"
    """A player sent the last allowed illegal or malformed move of a turn."""
    ERROR = "error"
    """A player raised an exception (or its process died)."""
    TAMPER = "tamper"
    """A player changed the real board (``TamperedBoard``)."""
    RESIGN = "resign"
    """A player resigned (a person at the terminal or in the window; a record read from GGF)."""
    QUIT = "quit"
    """A player quit (``QuitGame``): the game is scored by the discs on the board."""
    INTERRUPTED = "interrupted"
    """Ctrl-C stopped the game (``MatchInterrupted``): it names no winner."""

    @property
    def loses(self) -> bool:
        """True if this reason costs a player (``loser``) the game whatever the discs say."""
        return self.value in LOSING_REASONS

    @property
    def lost_by(self) -> str:
        """How a report says a loss for this reason ("lost 2 games by time"): "time", "illegal moves"..."""
        return _LOST_BY.get(self.value, self.value)


_LOST_BY = {
    "illegal": "illegal moves",
    "error": "an exception",
    "timeout": "time",
    "tamper": "changing the board",
    "resign": "resigning",
}
"""The words of ``Reason.lost_by`` for the reasons that lose (``LOSING_REASONS``)."""


REASONS = tuple(reason.value for reason in Reason)
"""The reasons' words, in ``Reason``'s order."""

LOSING_REASONS = ("timeout", "illegal", "error", "tamper", "resign")
"""The reasons that cost a player (``loser``) the game whatever the discs say."""

TRANSCRIPT_PASS = "--"
"""How a pass is written in a transcript (every move takes two characters)."""

DETAIL_LIMIT = 4000
"""Characters of a player's error text kept (a traceback's head and tail)."""


def bounded(text: str, limit: int = DETAIL_LIMIT) -> str:
    """``text`` cut to about ``limit`` characters, keeping its head and its tail."""
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n[... {len(text) - limit} characters cut ...]\n{text[-half:]}"


@dataclass(frozen=True)
class MoveRecord:
    """One ply as ``on_move`` sees it: who moved, what, and the thinking time."""

    ply: int
    player: Player
    action: int
    seconds: float
    forced: bool = False

    @property
    def name(self) -> str:
        """The move in notation: "D3" or "PASS"."""
        return action_name(self.action)


@dataclass
class GameResult:
    """The record of one game, JSON round-trippable with ``to_json``/``from_json``.

    ``black`` / ``white`` are the disc counts on the board when the game
    stopped. ``winner`` is "black", "white" or "draw": by discs for "end",
    "quit" and "interrupted", the opponent of ``loser`` for a timeout, illegal
    moves or an error.
    ``moves`` holds every ply in notation ("D3", "PASS"), passes included, so the
    players alternate strictly from ``start`` (compact board text, None for the
    standard start). ``times`` holds each ply's thinking time in seconds (0 for
    a forced pass).
    """

    winner: str
    black: int
    white: int
    reason: str = "end"
    moves: list[str] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    loser: str | None = None
    details: str = ""
    black_name: str = "black"
    white_name: str = "white"
    start: str | None = None

    @property
    def disc_difference(self) -> int:
        """Black's discs minus white's."""
        return self.black - self.white

    @property
    def transcript(self) -> str:
        """The moves as one lowercase string, ``"f5d6c3..."``, a pass as ``"--"``."""
        return "".join(TRANSCRIPT_PASS if m == "PASS" else m.lower() for m in self.moves)

    def start_state(self) -> GameState:
        """The position the game started from."""
        return GameState.initial() if self.start is None else GameState.from_string(self.start)

    def mover(self, ply: int) -> Player:
        """Who played ply ``ply`` (0-based): players alternate, passes included."""
        return (self.start_state().player + ply) % 2

    @property
    def black_time(self) -> float:
        """Black's total thinking time in seconds."""
        return self._total(BLACK)

    @property
    def white_time(self) -> float:
        """White's total thinking time in seconds."""
        return self._total(1 - BLACK)

    def _total(self, player: Player) -> float:
        first = self.start_state().player
        return float(sum(t for i, t in enumerate(self.times) if (first + i) % 2 == player))

    def final_state(self) -> GameState:
        """The last position, replayed from ``start`` and ``moves`` (checked)."""
        state = self.start_state()
        for m in self.moves:
            state = state.apply(m)
        return state

    @property
    def ending(self) -> str:
        """How the game ended, in words ("black resigned", "white lost on time");
        "" for a game played out."""
        how = {
            "timeout": f"{self.loser} lost on time",
            "illegal": f"{self.loser} lost by illegal moves",
            "error": f"{self.loser} lost by an error",
            "tamper": f"{self.loser} lost by changing the board",
            "quit": (self.details.splitlines() or ["a player quit"])[-1],
            "interrupted": "interrupted",
            "resign": f"{self.loser} resigned",
        }
        return "" if self.reason == "end" else how[self.reason]

    def summary(self) -> str:
        """One line for people: the winner, the score and, unless the game was
        played out, how it ended (an unfinished game names no winner)."""
        who = "draw" if self.winner == "draw" else f"{self.winner} wins"
        if self.reason == "interrupted":
            who = "not finished"
        line = f"{who}, {self.black}-{self.white} (black {self.black_name}, white {self.white_name})"
        return f"{line}; {self.ending}" if self.ending else line

    def to_dict(self) -> dict[str, Any]:
        """A plain dict for JSON, with the derived figures included for readers."""
        return {
            "winner": self.winner,
            "black": self.black,
            "white": self.white,
            "disc_difference": self.disc_difference,
            "reason": self.reason,
            "loser": self.loser,
            "details": self.details,
            "black_name": self.black_name,
            "white_name": self.white_name,
            "start": self.start,
            "moves": list(self.moves),
            "transcript": self.transcript,
            "times": list(self.times),
            "black_time": self.black_time,
            "white_time": self.white_time,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameResult:
        """The inverse of ``to_dict`` (derived figures are recomputed); raises
        ValueError naming the field for a malformed record."""
        if not isinstance(data, dict):
            raise ValueError(f"a game result must be a dict, got {type(data).__name__}")
        try:
            result = cls(
                winner=str(data["winner"]),
                black=int(data["black"]),
                white=int(data["white"]),
                reason=str(data.get("reason", "end")),
                moves=[str(m) for m in data.get("moves", [])],
                times=[float(t) for t in data.get("times", [])],
                loser=None if data.get("loser") is None else str(data["loser"]),
                details=str(data.get("details", "")),
                black_name=str(data.get("black_name", "black")),
                white_name=str(data.get("white_name", "white")),
                start=None if data.get("start") is None else str(data["start"]),
            )
        except KeyError as e:
            raise ValueError(f"a game result needs the field {e.args[0]!r}") from e
        except (TypeError, ValueError) as e:
            raise ValueError(f"malformed game result: {e}") from e
        result._check()
        return result

    def _check(self) -> None:
        if self.winner not in ("black", "white", "draw"):
            raise ValueError(f"winner must be 'black', 'white' or 'draw', got {self.winner!r}")
        if self.reason not in REASONS:
            raise ValueError(f"reason must be one of {REASONS}, got {self.reason!r}")
        if self.loser not in (None, "black", "white"):
            raise ValueError(f"loser must be None, 'black' or 'white', got {self.loser!r}")
        if len(self.times) != len(self.moves):
            raise ValueError(f"{len(self.moves)} moves but {len(self.times)} times")
        if not all(0 <= t < float("inf") for t in self.times):
            raise ValueError("times must be finite and >= 0")
        final = self.final_state()  # the start must parse and the moves replay legally
        if final.score() != (self.black, self.white):
            raise ValueError(f"the moves end with {final.score()} discs, the record says {(self.black, self.white)}")
        if (self.reason in LOSING_REASONS) != (self.loser is not None):
            raise ValueError(f"reason {self.reason!r} and loser {self.loser!r} contradict each other")
        if self.loser is not None:
            expected = "white" if self.loser == "black" else "black"
        else:
            expected = "draw" if self.black == self.white else ("black" if self.black > self.white else "white")
        if self.winner != expected:
            raise ValueError(f"winner {self.winner!r} contradicts the record (expected {expected!r})")
        if self.reason == "end" and not final.is_terminal():
            raise ValueError("reason 'end' but the game is not over after the moves")

    def to_json(self, **kwargs: Any) -> str:
        """``json.dumps(self.to_dict(), **kwargs)``."""
        return json.dumps(self.to_dict(), **kwargs)

    @classmethod
    def from_json(cls, text: str) -> GameResult:
        """The inverse of ``to_json``."""
        try:
            data = load_json(text)
        except ValueError as e:
            raise ValueError(f"not a JSON game result: {e}") from e
        return cls.from_dict(data)
