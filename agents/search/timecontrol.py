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
from types import TracebackType

import numpy as np

TIME_MARGIN = 0.05
"""The search aims this fraction of the limit short of it."""
OVERHEAD = 0.005
"""Seconds kept for the Python around the search (building the position, choosing the move)."""
DEEPEN_FRACTION = 0.5
"""Where an unfinished depth is worthless, a new depth starts only while less
than this fraction of the budget is spent: the next depth costs about 3 times
the last, so about twice the time spent so far."""


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
