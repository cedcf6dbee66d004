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
"""In byo-yomi each move of a period gets this share of its even part of the period."""


def phase_weight(empties: int) -> float:
    """The share weight of a move with ``empties`` empty squares (``PHASE_WEIGHTS``)."""
    for bound, weight in PHASE_WEIGHTS:
        if empties <= bound:
            return weight
    return PHASE_WEIGHTS[-1][1]


class GameClock:
    """A player's time for a whole game: ``seconds`` of main time for all its
    moves, then, if ``period`` > 0, Canadian byo-yomi (``period`` seconds for
    each ``period_moves`` moves), as GTP's ``time_settings`` gives it. Each move
    gets its phase's share of what is left (``move_limit``); what a move does
    not use is there for the later ones. The player records its time
    (``spend``); a controller that keeps the real clock overrides it (``set_left``)."""

    def __init__(self, seconds: float, period: float = 0.0, period_moves: int = 0) -> None:
        """ValueError unless the times are finite and >= 0, ``period_moves`` an int
        >= 0, and a period has moves (and moves a period)."""
        for name, value in (("seconds", seconds), ("period", period)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < float("inf"):
                raise ValueError(f"{name} must be a finite number of seconds >= 0, got {value!r}")
        if isinstance(period_moves, bool) or not isinstance(period_moves, int) or period_moves < 0:
            raise ValueError(f"period_moves must be an int >= 0, got {period_moves!r}")
        if (period > 0) != (period_moves > 0):
            raise ValueError(f"a byo-yomi period needs seconds and moves, got {period!r} and {period_moves!r}")
        self.seconds, self.period, self.period_moves = float(seconds), float(period), period_moves
        self.left = self.seconds
        """Seconds left: of the main time, or of the current period once in byo-yomi."""
        self.moves_left = 0
        """Moves left to play in the current period (0: the main time is running)."""
        self._empties = 65
        """The empty squares at the last move (more at this one: a new game)."""

    def reset(self) -> None:
        """A new game: the full main time again."""
        self.left, self.moves_left, self._empties = self.seconds, 0, 65

    def set_left(self, seconds: float, moves: int = 0) -> None:
        """The clock as the controller reads it: ``seconds`` left of the main
        time (``moves`` 0) or of a byo-yomi period with ``moves`` moves to play."""
        self.left, self.moves_left, self._empties = max(float(seconds), 0.0), max(int(moves), 0), 65

    def move_limit(self, empties: int) -> float:
        """Seconds for a move with ``empties`` empty squares: in the main time
        its phase's share of the time left over the player's moves still to
        come (one every other empty square), at most ``MAX_MOVE_SHARE`` of it;
        in byo-yomi an even part of the period; never less than a millisecond.
        A move with more empty squares than the last one starts a new game (``reset``)."""
        if empties > self._empties:
            self.reset()
        self._empties = empties
        if self.moves_left > 0:
            return max(PERIOD_MARGIN * self.left / self.moves_left, 1e-3)
        if self.left <= 0 and self.period > 0:
            return max(PERIOD_MARGIN * self.period / self.period_moves, 1e-3)
        mine = range(max(empties, 1), 0, -2)
        share = phase_weight(empties) / sum(phase_weight(e) for e in mine)
        return max(self.left * min(share, MAX_MOVE_SHARE), 1e-3)

    def seconds_to_flag(self) -> float:
        """Seconds this move may take before the clock is lost: what is left, and
        the first byo-yomi period too while the main time runs."""
        return max(self.left, 0.0) + (self.period if self.moves_left == 0 else 0.0)

    def spend(self, seconds: float) -> None:
        """Take a move's ``seconds`` off the clock: a main time overrun is taken
        from the first byo-yomi period, and a period whose moves are played starts again."""
        self.left -= seconds
        if self.moves_left > 0:
            self.moves_left -= 1
            if self.moves_left == 0:
                self.left, self.moves_left = self.period, self.period_moves
        elif self.left <= 0 and self.period > 0:
            self.left, self.moves_left = max(self.period + self.left, 0.0), self.period_moves
