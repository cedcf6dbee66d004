"""The time manager of a timed alpha-beta search.

Iterative deepening starts a new depth only while it may still search at
least that depth's first move (``may_deepen``), and a timer thread sets the search's stop flag when the
budget is spent (``StopClock``): the numba search runs without the GIL and
reads the flag at every hashed node, so it unwinds within microseconds. The
budget aims a little short of the limit, for the Python around the search.
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
"""A new depth starts only while less than this fraction of the budget is spent.
The next depth costs about 3 times the last (so about twice the time spent so
far) and will rarely finish, but its first move, the last depth's best, takes
about half of it: once that is searched, the unfinished depth can still show
a better move (``iterative_deepening`` plays it)."""


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
        """True while a new iteration is worth starting."""
        return self.elapsed() < DEEPEN_FRACTION * self.seconds

    def __enter__(self) -> StopClock:
        self._timer.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self._timer.cancel()
