"""How long players may think: ``TimeControl`` (the rule) and ``Clock`` (one side's time under it).

A ``TimeControl`` says it once for every room that plays: the referee enforces
it, the CLI builds it from ``--time-limit`` and ``--clock``, and a timed player
receives what its ``Clock`` leaves for the move under way. It holds any mix of

- ``move``: seconds a move may take (the course's 60 s);
- ``clock``: seconds each side has for its moves, a game clock that loses when it runs out;
- ``increment``: seconds added to a side's clock after each of its moves (Fischer);
- ``moves_to_go``: the moves a ``clock`` is for; after that many moves the side
  gets ``clock`` seconds more (a classical "40 moves in 90 minutes").

python-chess's ``chess.engine.Limit`` is the model: one record, every field
optional. A forced pass is not a move here: nobody is asked, so no time is
spent, no increment is added and no move of ``moves_to_go`` is counted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agents.limits import MAX_SECONDS

_CLOCK_FORM = re.compile(r"(?:(?P<moves>\d+)/)?(?P<clock>[0-9.]+)(?:\+(?P<increment>[0-9.]+))?")
"""``[MOVES/]SECONDS[+INCREMENT]``, as PGN's TimeControl tag writes a period ("40/5400+30")."""


def _seconds(name: str, value: object, *, zero: bool = False) -> float:
    """``value`` as seconds: a number, > 0 (or >= 0 with ``zero``) and at most ``MAX_SECONDS``."""
    low_ok = (lambda v: v >= 0) if zero else (lambda v: v > 0)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (low_ok(value) and value <= MAX_SECONDS):
        bound = ">= 0" if zero else "> 0"
        raise ValueError(f"{name} must be seconds {bound} and <= {MAX_SECONDS:g}, got {value!r}")
    return float(value)


@dataclass(frozen=True)
class TimeControl:
    """How long a side may think (see the module docstring); no field set: no limit.

    Raises:
        ValueError: a time that is not a number of seconds in range, ``moves_to_go``
            that is not an int >= 1, or an increment or moves to go without a clock.
    """

    move: float | None = None
    """Seconds a move may take, all its tries included (None: no limit a move)."""
    clock: float | None = None
    """Seconds each side has for its moves (None: no game clock)."""
    increment: float = 0.0
    """Seconds added to a side's clock after each of its moves."""
    moves_to_go: int | None = None
    """The moves ``clock`` is for; then ``clock`` seconds more for as many (None: the whole game)."""

    def __post_init__(self) -> None:
        if self.move is not None:
            _seconds("move", self.move)
        if self.clock is not None:
            _seconds("clock", self.clock)
        _seconds("increment", self.increment, zero=True)
        moves = self.moves_to_go
        if moves is not None and (isinstance(moves, bool) or not isinstance(moves, int) or moves < 1):
            raise ValueError(f"moves_to_go must be None or an int >= 1, got {moves!r}")
        if self.clock is None and (self.increment or moves is not None):
            raise ValueError("an increment or moves to go needs a game clock")

    @classmethod
    def per_move(cls, seconds: float | None) -> TimeControl:
        """``seconds`` a move and no game clock (None: no limit), as ``--time-limit`` says it."""
        return cls(move=seconds)

    @classmethod
    def parse_clock(cls, text: str, move: float | None = None) -> TimeControl:
        """A game clock from ``[MOVES/]SECONDS[+INCREMENT]``: "300" (5 minutes a side),
        "300+2" (2 s more after each move), "40/5400" (40 moves in 90 minutes, then as
        much again for the next 40), "40/5400+30"; ``move`` the seconds a move may take too.

        Raises:
            ValueError: the text is not of that form, or a figure is out of range.
        """
        found = _CLOCK_FORM.fullmatch(text.strip())
        if found is None:
            raise ValueError(f"a clock is SECONDS, SECONDS+INCREMENT or MOVES/SECONDS[+INCREMENT], got {text!r}")
        try:
            clock = float(found["clock"])
            increment = float(found["increment"]) if found["increment"] else 0.0
        except ValueError:
            raise ValueError(f"a clock's seconds must be numbers, got {text!r}") from None
        moves = int(found["moves"]) if found["moves"] else None
        return cls(move=move, clock=clock, increment=increment, moves_to_go=moves)

    @property
    def unlimited(self) -> bool:
        """True when nothing limits a side's time."""
        return self.move is None and self.clock is None

    def describe(self) -> str:
        """The rule in words: "60 s per move", "300 s a side + 2 s a move", "40 moves in 5400 s"."""
        parts = []
        if self.clock is not None:
            clock = (
                f"{self.clock:g} s a side"
                if self.moves_to_go is None
                else f"{self.moves_to_go} moves in {self.clock:g} s"
            )
            parts.append(clock + (f" + {self.increment:g} s a move" if self.increment else ""))
        if self.move is not None:
            parts.append(f"{self.move:g} s per move")
        return ", ".join(parts) or "no time limit"


class Clock:
    """One side's time under a ``TimeControl``: what is left on its game clock
    and how many moves it has before the next period."""

    def __init__(self, control: TimeControl) -> None:
        """A full clock: the game starts."""
        self.control = control
        self.left: float | None = control.clock
        """Seconds left on the game clock (None: no game clock)."""
        self.moves_left: int | None = control.moves_to_go
        """Moves to play before ``clock`` seconds more come (None: no periods)."""

    def allowance(self, used: float = 0.0) -> float | None:
        """Seconds the move under way may still take, ``used`` seconds into it
        (None: no limit); it may be <= 0: the time is up."""
        limits = [limit - used for limit in (self.control.move, self.left) if limit is not None]
        return min(limits) if limits else None

    def punch(self, seconds: float) -> None:
        """A move of ``seconds`` is played: take them off the game clock, add the
        increment and, when a period's moves are played, the next period's time."""
        if self.left is None:
            return
        self.left = self.left - seconds + self.control.increment
        if self.moves_left is not None:
            self.moves_left -= 1
            if self.moves_left == 0:
                self.left += self.control.clock or 0.0
                self.moves_left = self.control.moves_to_go
