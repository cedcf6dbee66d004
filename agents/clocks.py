"""How long players may think: ``TimeControl`` (the rule) and ``Clock`` (one side's time under it).

A ``TimeControl`` says it once for every room that plays: the referee enforces
it, the CLI builds it from ``--time-limit`` and ``--clock``, and a timed player
receives what its ``Clock`` leaves for the move under way. It holds any mix of

- ``move``: seconds a move may take (the course's 60 s);
- ``clock``: seconds each side has for its moves, a game clock that loses when it runs out;
- ``increment``: seconds added to a side's clock after each of its moves (Fischer);
- ``moves_to_go``: the moves a ``clock`` is for; after that many moves the side
  gets ``clock`` seconds more (a classical "40 moves in 90 minutes");
- ``overtime``: seconds a side gets once its ``clock`` runs out, for every
  ``overtime_moves`` moves (Canadian byo-yomi, as GTP's ``time_settings`` says
  it) or, without ``overtime_moves``, for the rest of the game (GGF's grace).

python-chess's ``chess.engine.Limit`` is the model: one record, every field
optional. A forced pass is not a move here: nobody is asked, so no time is
spent, no increment is added and no move of ``moves_to_go`` is counted.

A timed player receives a ``TimeLeft`` for each move: the rule, the seconds the
move may take and its clock as it stands, so that it can share its game clock out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from decimal import Decimal

from agents.limits import MAX_SECONDS

_CLOCK_FORM = re.compile(
    r"(?:(?P<moves>\d+)/)?(?P<clock>[0-9.]+)(?:\+(?P<increment>[0-9.]+))?"
    r"(?:,(?:(?P<overtime_moves>\d+)/)?(?P<overtime>[0-9.]+))?"
)
"""``[MOVES/]SECONDS[+INCREMENT][,[MOVES/]OVERTIME]``: a period as PGN's TimeControl tag writes
one ("40/5400+30"), then the overtime, written as a period is ("300,5/30")."""


def _figure(seconds: float) -> str:
    """``seconds`` as ``parse_clock`` reads them back to the same float: "300", "0.5", "0.00001"."""
    text = repr(float(seconds))
    return (format(Decimal(text), "f") if "e" in text else text).removesuffix(".0")


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
    overtime: float | None = None
    """Seconds once ``clock`` runs out, for each ``overtime_moves`` moves (None: no overtime)."""
    overtime_moves: int | None = None
    """The moves an ``overtime`` period is for; then a new period (None: the rest of the game)."""

    def __post_init__(self) -> None:
        if self.move is not None:
            _seconds("move", self.move)
        if self.clock is not None:  # no main time is a game played in overtime from the start (GTP's 0 s)
            _seconds("clock", self.clock, zero=self.overtime is not None)
        _seconds("increment", self.increment, zero=True)
        if self.overtime is not None:
            _seconds("overtime", self.overtime)
        for name, moves in (("moves_to_go", self.moves_to_go), ("overtime_moves", self.overtime_moves)):
            if moves is not None and (isinstance(moves, bool) or not isinstance(moves, int) or moves < 1):
                raise ValueError(f"{name} must be None or an int >= 1, got {moves!r}")
        if self.clock is None and (self.increment or self.moves_to_go is not None or self.overtime is not None):
            raise ValueError("an increment, moves to go or overtime needs a game clock")
        if self.overtime_moves is not None and self.overtime is None:
            raise ValueError("overtime moves need overtime seconds")
        if self.overtime is not None and self.moves_to_go is not None:
            raise ValueError("give moves to go (periods of the clock) or overtime (after it), not both")

    @classmethod
    def per_move(cls, seconds: float | None, clock: TimeControl | None = None) -> TimeControl:
        """``seconds`` a move (None: no limit), as ``--time-limit`` says it, under ``clock``'s
        game clock (None: none), as ``--clock`` says it."""
        return cls(move=seconds) if clock is None else replace(clock, move=seconds)

    @classmethod
    def of(cls, rule: TimeControl | float | None) -> TimeControl:
        """``rule`` as a TimeControl: a bare number of seconds (or None, no limit) is a move's limit.

        Raises:
            ValueError: a number of seconds out of range.
        """
        return rule if isinstance(rule, TimeControl) else cls.per_move(rule)

    def load_limit(self) -> float | None:
        """The seconds a player may take to load: a move's, else the game clock's (None: no limit)."""
        return self.move if self.move is not None else self.clock

    @classmethod
    def parse_clock(cls, text: str, move: float | None = None) -> TimeControl:
        """A game clock from ``[MOVES/]SECONDS[+INCREMENT][,[MOVES/]OVERTIME]``: "300"
        (5 minutes a side), "300+2" (2 s more after each move), "40/5400" (40 moves in
        90 minutes, then as much again for the next 40), "40/5400+30"; after a comma the
        overtime once the clock runs out, moves first as in a period: "300,5/30" (30 s
        for every 5 moves, GTP's byo-yomi), "300+10,120" (120 s for the rest of the game,
        GGF's grace); ``move`` the seconds a move may take too.

        Raises:
            ValueError: the text is not of that form, or a figure is out of range.
        """
        found = _CLOCK_FORM.fullmatch(text.strip())
        if found is None:
            raise ValueError(
                "a clock is [MOVES/]SECONDS[+INCREMENT][,[MOVES/]OVERTIME] ('300+2', '40/5400', '300,5/30'), "
                f"got {text!r}"
            )
        try:
            clock = float(found["clock"])
            increment = float(found["increment"]) if found["increment"] else 0.0
            overtime = float(found["overtime"]) if found["overtime"] else None
        except ValueError:
            raise ValueError(f"a clock's seconds must be numbers, got {text!r}") from None
        moves, overtime_moves = (int(found[key]) if found[key] else None for key in ("moves", "overtime_moves"))
        return cls(
            move=move,
            clock=clock,
            increment=increment,
            moves_to_go=moves,
            overtime=overtime,
            overtime_moves=overtime_moves,
        )

    def clock_text(self) -> str:
        """The game clock as ``parse_clock`` reads it back, figure for figure ("300+2",
        "40/5400", "300,5/30"); "" without a clock."""
        if self.clock is None:
            return ""
        text = ("" if self.moves_to_go is None else f"{self.moves_to_go}/") + _figure(self.clock)
        text += f"+{_figure(self.increment)}" if self.increment else ""
        if self.overtime is not None:
            text += "," + ("" if self.overtime_moves is None else f"{self.overtime_moves}/") + _figure(self.overtime)
        return text

    @property
    def unlimited(self) -> bool:
        """True when nothing limits a side's time."""
        return self.move is None and self.clock is None

    def describe(self) -> str:
        """The rule in words: "60 s per move", "300 s a side + 2 s a move", "40 moves in 5400 s",
        "600 s a side, then 30 s for every 5 moves"."""
        parts = []
        if self.clock is not None:
            clock = (
                f"{self.clock:g} s a side"
                if self.moves_to_go is None
                else f"{self.moves_to_go} moves in {self.clock:g} s"
            )
            parts.append(clock + (f" + {self.increment:g} s a move" if self.increment else ""))
        if self.overtime is not None:
            every = "the rest of the game" if self.overtime_moves is None else f"every {self.overtime_moves} moves"
            parts[-1] += f", then {self.overtime:g} s for {every}"
        if self.move is not None:
            parts.append(f"{self.move:g} s per move")
        return ", ".join(parts) or "no time limit"


@dataclass(frozen=True)
class TimeLeft:
    """A side's time at the move under way, as a timed player receives it
    (python-chess's ``Limit`` with a side's clock, increment and moves to go)."""

    control: TimeControl
    """The game's rule."""
    seconds: float | None = None
    """Seconds the move under way may still take before it loses on time (None: no limit)."""
    clock: float | None = None
    """Seconds left on the side's game clock, or on its overtime period once in overtime (None: no clock)."""
    moves_left: int | None = None
    """Moves to play before the clock gets more time: of ``moves_to_go``, or of an overtime period."""
    overtime: bool = False
    """True once the main clock has run out and the side plays in overtime."""

    @classmethod
    def of(cls, limit: TimeLeft | float | None) -> TimeLeft:
        """``limit`` as a TimeLeft: a bare number of seconds (or None) is a move's limit and no clock.

        Raises:
            TypeError: ``limit`` is neither a TimeLeft, a number nor None.
        """
        if isinstance(limit, TimeLeft):
            return limit
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, (int, float))):
            raise TypeError(f"a time left is a TimeLeft, seconds or None, got {type(limit).__name__}")
        return cls(TimeControl(), None if limit is None else float(limit))


class Clock:
    """One side's time under a ``TimeControl``: what is left on its game clock,
    how many moves it has before the clock gets more, and whether it is in overtime."""

    def __init__(self, control: TimeControl) -> None:
        """A full clock: the game starts."""
        self.control = control
        self.left: float | None = control.clock
        """Seconds left on the game clock, or of the overtime period once in overtime (None: no game clock)."""
        self.moves_left: int | None = control.moves_to_go
        """Moves to play before the clock gets more (None: no periods)."""
        self.in_overtime = False
        """True once the main clock ran out and overtime periods run."""

    def restart(self) -> None:
        """The full clock again (a new game)."""
        self.left, self.moves_left, self.in_overtime = self.control.clock, self.control.moves_to_go, False

    def allowance(self, used: float = 0.0) -> float | None:
        """Seconds the move under way may still take, ``used`` seconds into it
        (None: no limit); it may be <= 0: the time is up. While the main clock
        runs, a move may reach into the first overtime period."""
        clock = self.left
        if clock is not None and not self.in_overtime and self.control.overtime is not None:
            clock = max(clock, 0.0) + self.control.overtime
        limits = [limit - used for limit in (self.control.move, clock) if limit is not None]
        return min(limits) if limits else None

    def reading(self, used: float = 0.0) -> TimeLeft:
        """The clock as a player sees it ``used`` seconds into its move."""
        return TimeLeft(
            self.control,
            self.allowance(used),
            None if self.left is None else self.left - used,
            self.moves_left,
            self.in_overtime,
        )

    def set(self, left: float, moves: int | None = None, overtime: bool = False) -> None:
        """The clock as a controller reads it: ``left`` seconds, ``moves`` moves to play
        before it gets more, in overtime or not (a GTP ``time_left``, a ``TimeLeft``)."""
        self.left, self.moves_left, self.in_overtime = float(left), moves, overtime

    def charge(self, seconds: float) -> None:
        """Take ``seconds`` of a turn that played no move (a game stopped for an undo) off the clock."""
        if self.left is not None:
            self.left -= seconds

    def punch(self, seconds: float) -> None:
        """A move of ``seconds`` is played: take them off the game clock, add the
        increment and, when a period's moves are played, the next period's time;
        a main clock run out goes on in overtime, the overrun taken from its first period."""
        control = self.control
        if self.left is None:
            return
        self.left = self.left - seconds + control.increment
        if self.moves_left is not None:
            self.moves_left -= 1
            if self.moves_left == 0:
                if self.in_overtime:
                    self.left, self.moves_left = control.overtime or 0.0, control.overtime_moves
                else:
                    self.left += control.clock or 0.0
                    self.moves_left = control.moves_to_go
        elif not self.in_overtime and self.left <= 0 and control.overtime is not None:
            self.left, self.moves_left = max(control.overtime + self.left, 0.0), control.overtime_moves
            self.in_overtime = True
