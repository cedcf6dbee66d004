"""The rules of a game between two seats, once: ``Referee``.

Whoever seats the players (the match runner, the window, the course ``Game``)
asks the side to move for an answer, within ``time_left()`` seconds, and
pushes what came back with the seconds it took. The referee rules:

- ``play(action, seconds)``: a legal move is **played** (and a forced pass after
  it, for the side that has no move; nobody is asked for a pass); the game is
  **over** when neither side can move, decided by the discs;
- ``reject(tried, seconds)``: an illegal or malformed answer is **rejected**
  with the tries left; the ``max_illegal``-th at one turn **loses** ("illegal");
- ``time_out(seconds)``: the side to move took longer than its time
  (``TimeControl``: seconds a move, a game clock with its increment and moves
  to go) and **loses** ("timeout");
- ``lose(reason, details)``: an exception, a change to the real board or a
  resignation **loses**; ``quit(details)`` ends the game at once, scored by the
  discs ("quit"); ``interrupt()`` stops it unfinished ("interrupted").

A turn's time is the sum of its tries' seconds, and a move's time is charged
to its side's ``Clock`` once the move is played. The referee keeps the moves,
their times and the tries that did not lose, and gives the ``GameResult``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import Enum

from agents.clocks import Clock, TimeControl, TimeLeft
from agents.play.result import GameResult, MoveRecord, Reason, bounded
from reversi_env.notation import PASS, action_name
from reversi_env.state import PLAYER_NAMES, GameState, Player

DEFAULT_CONTROL = TimeControl(move=60.0)
"""The course's rule: 60 s a move, no game clock."""

DETAILS_LIMIT = 4 * 4000
"""The most characters a result's ``details`` keeps (a player's tracebacks are bounded before)."""


class Verdict(Enum):
    """What the referee made of an answer."""

    PLAYED = "played"
    """The move is on the board and the game goes on."""
    REJECTED = "rejected"
    """The answer is refused; the side to move has tries left and is asked again."""
    LOST = "lost"
    """The side to move lost (``Ruling.reason``); the game is over."""
    OVER = "over"
    """The game ended without a loser: played out, or a player quit."""


Ply = tuple[MoveRecord, GameState]
"""A ply played and the position after it."""


@dataclass(frozen=True)
class Ruling:
    """The referee's answer to one push."""

    verdict: Verdict
    text: str = ""
    """A rejected try with its tries left ("X tried 'Z9': not a square, 2 tries left"); a loss's details."""
    tries_left: int = 0
    """Tries the side to move has left at this turn."""
    reason: Reason | None = None
    """Why the game ended (LOST and OVER)."""
    plies: tuple[Ply, ...] = ()
    """The plies played, each with the position after it: the move, and a forced pass after it."""


def tries_phrase(left: int) -> str:
    """The tries left in words: "2 tries left", "1 try left" or "no tries left"."""
    return "no tries left" if left <= 0 else f"{left} {'try' if left == 1 else 'tries'} left"


class Referee:
    """The rules of one game (see the module docstring).

    Args:
        start: the position the game starts from (None: the standard start);
            a forced pass there is played by ``begin``.
        time_control: how long a side may think (default ``DEFAULT_CONTROL``).
        max_illegal: the illegal answers at one turn that lose.
        names: the players' names for the result.
        clocks: the sides' clocks as the game so far left them (a game taken up again
            after an undo: an undo takes moves back, not time); default full clocks.

    Raises:
        ValueError: ``max_illegal`` is not an int >= 1, or ``clocks`` are not under ``time_control``.
        TypeError: ``start`` is not a GameState, or ``time_control`` not a TimeControl.
    """

    def __init__(
        self,
        start: GameState | None = None,
        *,
        time_control: TimeControl = DEFAULT_CONTROL,
        max_illegal: int = 3,
        names: tuple[str, str] = ("black", "white"),
        clocks: tuple[Clock, Clock] | None = None,
    ) -> None:
        if start is not None and not isinstance(start, GameState):
            raise TypeError(f"start must be a GameState or None, got {type(start).__name__}")
        if not isinstance(time_control, TimeControl):
            raise TypeError(f"time_control must be a TimeControl, got {type(time_control).__name__}")
        if isinstance(max_illegal, bool) or not isinstance(max_illegal, int) or max_illegal < 1:
            raise ValueError(f"max_illegal must be an int >= 1, got {max_illegal!r}")
        self.start = start
        self.state = GameState.initial() if start is None else start
        self.time_control = time_control
        self.max_illegal = max_illegal
        self.names = names
        if clocks is not None and any(not isinstance(c, Clock) or c.control != time_control for c in clocks):
            raise ValueError("clocks must be two Clocks under the game's time control")
        self.clocks = (Clock(time_control), Clock(time_control)) if clocks is None else clocks
        self.moves: list[str] = []
        self.times: list[float] = []
        self.notes: list[str] = []
        """The tries rejected at turns that did not lose, for the record."""
        self.result: GameResult | None = None
        self.used = 0.0
        """Seconds the side to move has spent on this turn's tries so far."""
        self.tries: list[str] = []
        """This turn's rejected tries."""
        self.opening: tuple[Ply, ...] = ()
        """A pass forced at the start, played by ``begin``."""
        self._begun = False

    def begin(self) -> tuple[Ply, ...]:
        """Start the game: play a pass forced at the start (nobody is asked) and
        return it, the first time; every push begins the game if this was not called."""
        if not self._begun and self.result is None:
            self._begun = True
            self.opening = self._passes()
            if self.state.is_terminal():
                self.result = self._finish(Reason.END)
            return self.opening
        return ()

    @property
    def over(self) -> bool:
        """True once the game has a result."""
        return self.result is not None

    @property
    def to_move(self) -> Player:
        """The side to move."""
        return self.state.player

    def time_left(self) -> float | None:
        """Seconds the side to move may still think at this turn (None: no limit; <= 0: none)."""
        self.begin()
        return self.clocks[self.to_move].allowance(self.used)

    def reading(self) -> TimeLeft:
        """The side to move's time as it is told to its player: the rule, the seconds
        it may still think at this turn (``time_left``) and its clock."""
        self.begin()
        return self.clocks[self.to_move].reading(self.used)

    def play(self, action: int, seconds: float) -> Ruling:
        """The side to move plays ``action``, its turn's last try taking ``seconds``.

        Raises:
            IllegalMoveError: ``action`` is not legal here (a ValueError, showing the board).
            RuntimeError: the game is over.
        """
        self._check_open()
        if not self.state.is_legal(action):
            self.state.apply(action)  # raises IllegalMoveError naming the move, with the board
        mover, spent = self.to_move, self.used + seconds
        if self.tries:
            self.notes.append(f"{PLAYER_NAMES[mover]} move {len(self.moves) + 1}: rejected " + "; ".join(self.tries))
        self.clocks[mover].punch(spent)
        plies = (self._push(action, spent, forced=False), *self._passes())
        if self.state.is_terminal():
            self.result = self._finish(Reason.END)
            return Ruling(Verdict.OVER, reason=Reason.END, plies=plies)
        return Ruling(Verdict.PLAYED, tries_left=self.max_illegal, plies=plies)

    def reject(self, tried: str, seconds: float, details: str | None = None) -> Ruling:
        """The side to move sent an answer that is not a legal move: ``tried`` says
        what and why ("X tried 'Z9': not a square"). The last allowed try loses
        ("illegal", with ``details``, default the tries and the board)."""
        self._check_open()
        self.used += seconds
        self.tries.append(tried)
        left = self.max_illegal - len(self.tries)
        text = f"{tried}, {tries_phrase(left)}"
        if left > 0:
            return Ruling(Verdict.REJECTED, text, left)
        who = PLAYER_NAMES[self.to_move]
        if details is None:
            details = f"{who} sent {len(self.tries)} illegal moves:\n" + "\n".join(self.tries) + f"\n{self.state}"
        return self._lose(Reason.ILLEGAL, details, text)

    def time_out(self, seconds: float = 0.0, details: str | None = None) -> Ruling:
        """The side to move is out of time, ``seconds`` into its last try: it
        loses ("timeout", with ``details``, default what limit it passed)."""
        self._check_open()
        self.used += seconds
        if details is None:
            details = f"{PLAYER_NAMES[self.to_move]} {self.overtime_words()} for move {len(self.moves) + 1}"
        return self._lose(Reason.TIMEOUT, details)

    def on_clock(self) -> bool:
        """True when the side to move's game clock, not a move's limit, is what ends its time."""
        clock, move = self.clocks[self.to_move], self.time_control.move
        return clock.left is not None and (move is None or clock.left < move)

    def overtime_words(self) -> str:
        """What the side to move passed: "took over 60.0 s" (its move's limit)
        or "ran out of time on its clock (300 s a side)"."""
        if self.on_clock():
            return f"ran out of time on its clock ({dataclasses.replace(self.time_control, move=None).describe()})"
        return f"took over {self.time_control.move} s"

    def restart_turn(self) -> None:
        """The turn starts again (the seat changed hands): no time used, no tries."""
        self.used, self.tries = 0.0, []

    def lose(self, reason: Reason, details: str, player: Player | None = None) -> Ruling:
        """``player`` (default the side to move) loses for ``reason``: an error, a
        change to the board, a resignation, or a timeout outside a turn (a player's
        ``reset()`` before the game)."""
        if player is None:
            self._check_open()
        elif self.result is not None:
            raise RuntimeError("the game is over")
        if not reason.loses:
            raise ValueError(f"{reason.value!r} is not a reason to lose")
        return self._lose(reason, details, player=player)

    def quit(self, details: str, seconds: float = 0.0) -> Ruling:
        """A player quit, ``seconds`` into its last try: the game ends now, scored by the discs
        on the board; the turn's time comes off its clock (a game stopped for an undo goes on
        with the time it has)."""
        self._check_open()
        self.clocks[self.to_move].charge(self.used + seconds)
        self.result = self._finish(Reason.QUIT, None, details)
        return Ruling(Verdict.OVER, details, reason=Reason.QUIT)

    def interrupt(self, details: str = "interrupted (Ctrl-C)") -> GameResult:
        """The game stops unfinished (Ctrl-C): its record so far (a result kept if it had one)."""
        if self.result is None:
            self.result = self._finish(Reason.INTERRUPTED, None, details)
        return self.result

    def _check_open(self) -> None:
        """Begin the game if it was not; RuntimeError once it is over."""
        self.begin()
        if self.result is not None:
            raise RuntimeError("the game is over")

    def _lose(self, reason: Reason, details: str, text: str | None = None, player: Player | None = None) -> Ruling:
        self.result = self._finish(reason, self.to_move if player is None else player, details)
        return Ruling(Verdict.LOST, details if text is None else text, reason=reason)

    def _push(self, action: int, seconds: float, forced: bool) -> Ply:
        """Put ``action`` on the board for the side to move; a new turn starts."""
        record = MoveRecord(len(self.moves), self.to_move, action, seconds, forced)
        self.state = self.state.apply(action)
        self.moves.append(action_name(action))
        self.times.append(seconds)
        self.used, self.tries = 0.0, []
        return record, self.state

    def _passes(self) -> tuple[Ply, ...]:
        """The forced pass the side to move now has to play, if any (nobody is asked)."""
        if not self.state.is_terminal() and self.state.legal_actions() == [PASS]:
            return (self._push(PASS, 0.0, forced=True),)
        return ()

    def _finish(self, reason: Reason, loser: Player | None = None, details: str = "") -> GameResult:
        b, w = self.state.score()
        by_discs = "draw" if b == w else ("black" if b > w else "white")
        text = bounded("\n".join([*self.notes, details] if details else self.notes), DETAILS_LIMIT)
        return GameResult(
            winner=by_discs if loser is None else PLAYER_NAMES[1 - loser],
            black=b,
            white=w,
            reason=reason.value,
            moves=list(self.moves),
            times=list(self.times),
            loser=None if loser is None else PLAYER_NAMES[loser],
            details=text,
            black_name=self.names[0],
            white_name=self.names[1],
            start=None if self.start is None else self.start.compact(),
        )
