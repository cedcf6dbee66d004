"""The time manager of a timed alpha-beta search.

A timer thread sets the search's stop flag when the budget is spent
(``StopClock``): the numba search runs without the GIL and reads the flag at
every hashed node, so it unwinds within microseconds. The budget aims a little
short of the limit, for the Python around the search. A move's time is its
own (none is saved for later moves), so a search that can use an unfinished
depth deepens until the clock stops it; one that cannot (every move's exact
score wanted) starts a depth only while it may still finish it (``may_deepen``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import TracebackType
from typing import TypeVar

import numpy as np

from agents.clocks import Clock, TimeControl, TimeLeft

TIME_MARGIN = 0.05
"""The search aims this fraction of the limit short of it."""
OVERHEAD = 0.005
"""Seconds kept for the Python around the search (building the position, choosing the move)."""
DEEPEN_FRACTION = 0.5
"""Where an unfinished depth is worthless, a new depth starts only while less
than this fraction of the budget is spent: the next depth costs about 3 times
the last, so about twice the time spent so far."""


T = TypeVar("T")

WAKE_SECONDS = 0.1
"""How often the main thread wakes from waiting on ``interruptible``'s search."""


def interruptible(search: Callable[[], T], stop: Callable[[], None]) -> T:
    """``search()`` on a worker thread, so that Ctrl-C still reaches the main thread
    while the numba search (which releases the GIL) runs: it calls ``stop`` (the
    search's stop flag), waits for the search to unwind and re-raises."""
    result: list[T] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            result.append(search())
        except BaseException as e:  # handed to the main thread, which raises it
            failure.append(e)

    worker = threading.Thread(target=run, name="search", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(WAKE_SECONDS)
    except KeyboardInterrupt:
        stop()
        worker.join()
        raise
    if failure:
        raise failure[0]
    return result[0]


def budget(time_limit: float) -> float:
    """The seconds a search may use for a move of ``time_limit`` seconds."""
    return max(0.0, time_limit * (1.0 - TIME_MARGIN) - OVERHEAD)


class StopClock:
    """A context that sets ``flags[index]`` to 1 after ``seconds`` (from a timer
    thread) and records when the search started."""

    def __init__(self, flags: np.ndarray, index: int, seconds: float) -> None:
        """``flags``: the search's int64 stats array; ``index``: its stop slot."""
        self.flags = flags
        self.index = index
        self.seconds = seconds
        self.start = time.perf_counter()
        self._timer = threading.Timer(seconds, self._stop)
        self._timer.daemon = True

    def _stop(self) -> None:
        self.flags[self.index] = 1

    def elapsed(self) -> float:
        """Seconds since the clock was made."""
        return time.perf_counter() - self.start

    def may_deepen(self) -> bool:
        """True while a new iteration that must finish to count is worth starting."""
        return self.elapsed() < DEEPEN_FRACTION * self.seconds

    def __enter__(self) -> StopClock:
        self._timer.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self._timer.cancel()


class StopSignal:
    """An agent's ``stop()``: ends its search under way from another thread.

    A search registers what ends it (``on_stop``: setting a stats array's stop
    slot, an event its loops read) while it runs, and ``stop()`` calls those;
    ``begin()`` at the start of each search forgets a stop that came while none ran."""

    def __init__(self) -> None:
        """No search stopped yet."""
        self._lock = threading.Lock()
        self._stopped = False
        self._actions: list[Callable[[], None]] = []

    @property
    def stopped(self) -> bool:
        """True once ``stop()`` was called during the current search."""
        return self._stopped

    def begin(self) -> None:
        """A new search: an earlier stop no longer counts."""
        with self._lock:
            self._stopped = False

    def stop(self) -> None:
        """End the current search as soon as possible (safe from any thread, and twice)."""
        with self._lock:
            self._stopped = True
            actions = list(self._actions)
        for action in actions:
            action()

    @contextmanager
    def on_stop(self, action: Callable[[], None]) -> Iterator[None]:
        """While the block runs, ``stop()`` calls ``action`` (at once if the search was stopped already)."""
        with self._lock:
            self._actions.append(action)
            stopped = self._stopped
        if stopped:
            action()
        try:
            yield
        finally:
            with self._lock:
                self._actions.remove(action)


PHASE_WEIGHTS = ((14, 0.02), (18, 0.2), (28, 2.0), (40, 1.0), (64, 0.7))
"""A game clock's share of time for a move, by the empty squares (up to each
bound, that weight): the most at 19-28 empties, where the win/loss/draw and
exact searches begin and decide close games, almost nothing from 18 empties
down, which the solver finishes in milliseconds (time kept for moves that do
not need it is time the earlier moves did not get). Zebra's fixed depths
(``-l 14 22 24``) spend their time about so: 0.2-0.5 s a move in the opening
and 0.4-0.5 in the midgame against 1.2-1.4 s at 21-28 empties and 0.2 after
(the opponent's seconds a move in ``bench_engine.py --zebra PATH --out FILE`` games)."""
MAX_MOVE_SHARE = 0.5
"""No move takes more than this share of the time left on the clock."""
PERIOD_MARGIN = 0.9
"""In overtime each move of a period gets this share of its even part of the period; on
the main clock no move takes more than this share of what is left."""


def phase_weight(empties: int) -> float:
    """The share weight of a move with ``empties`` empty squares (``PHASE_WEIGHTS``)."""
    for bound, weight in PHASE_WEIGHTS:
        if empties <= bound:
            return weight
    return PHASE_WEIGHTS[-1][1]


def game_clock(game_time: float | TimeControl) -> GameClock:
    """The game clock of a search given ``game_time``: a TimeControl, or seconds for all its moves."""
    return GameClock(game_time if isinstance(game_time, TimeControl) else TimeControl(clock=float(game_time)))


class GameClock(Clock):
    """A player's budgeting of its game clock under a ``TimeControl``: each move
    gets its phase's share of what is left (``move_limit``); what a move does
    not use is there for the later ones. The increments still to come and a
    period's end (``moves_to_go``) count in the share; in overtime each move gets
    an even part of the period. The player records its time (``punch``); a
    controller that keeps the real clock overrides it (``set_left``, ``see``)."""

    def __init__(self, control: TimeControl) -> None:
        """A full clock under ``control``.

        Raises:
            TypeError: ``control`` is not a TimeControl.
            ValueError: ``control`` has no game clock.
        """
        if not isinstance(control, TimeControl):
            raise TypeError(f"a game clock is built from a TimeControl, got {type(control).__name__}")
        if control.clock is None:
            raise ValueError(f"a game clock needs a TimeControl with a clock, got {control.describe()!r}")
        super().__init__(control)
        self._empties = 65
        """The empty squares at the last move (more at this one: a new game)."""

    def reset(self) -> None:
        """A new game: the full clock again."""
        self.restart()
        self._empties = 65

    def set_left(self, seconds: float, moves: int = 0) -> None:
        """The clock as a GTP controller reads it (``time_left``): ``seconds`` left of
        the main time (``moves`` 0) or of an overtime period with ``moves`` moves to play
        (of the clock's period, without overtime)."""
        overtime = moves > 0 and self.control.overtime is not None
        period = self.control.moves_to_go if moves <= 0 else moves
        self.set(max(float(seconds), 0.0), max(int(moves), 0) if overtime else period, overtime)
        self._empties = 65

    def see(self, left: TimeLeft) -> None:
        """The clock as the referee keeps it, at the start of a move: its rule and what is left."""
        if left.clock is not None:
            self.control = left.control
            self.set(max(left.clock, 0.0), left.moves_left, left.overtime)
            self._empties = 65

    def move_limit(self, empties: int) -> float:
        """Seconds for a move with ``empties`` empty squares, never less than a millisecond.

        On the main clock: its phase's share of the time left and of the increments
        still to come, over the player's moves up to the end of the game (one every
        other empty square) or of the clock's period, at most ``MAX_MOVE_SHARE`` of it
        and never past the clock; a move limit of the rule bounds it too. In overtime:
        an even part of the period. A move with more empty squares than the last one
        starts a new game (``reset``)."""
        if empties > self._empties:
            self.reset()
        self._empties = empties
        control, left = self.control, self.left or 0.0
        if self.in_overtime and self.moves_left:
            limit = PERIOD_MARGIN * left / self.moves_left
        elif left <= 0 and control.overtime is not None:
            limit = PERIOD_MARGIN * control.overtime / (control.overtime_moves or (max(empties, 1) + 1) // 2)
        else:
            mine = list(range(max(empties, 1), 0, -2))[: self.moves_left]
            share = phase_weight(empties) / sum(phase_weight(e) for e in mine)
            pool = left + control.increment * (len(mine) - 1)
            limit = min(pool * share, MAX_MOVE_SHARE * (left + control.increment), PERIOD_MARGIN * left)
        if control.move is not None:
            limit = min(limit, control.move * (1.0 - TIME_MARGIN))
        return max(limit, 1e-3)

    def seconds_to_flag(self) -> float:
        """Seconds this move may take before the clock is lost: what is left, and
        the first overtime period too while the main time runs."""
        allowance = self.allowance()
        return max(allowance, 0.0) if allowance is not None else float("inf")
