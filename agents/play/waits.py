"""Waits on another thread that a Ctrl-C can end.

Python runs its signal handlers in the main thread only, and the kernel may
give a Ctrl-C (SIGINT) to any thread of the process. Given to a player's
thread or a pipe reader's, it wakes nobody, and a main thread blocked in one
long wait would see it only when the wait ends: after a whole move, up to the
course's 60 s. So the main thread waits in slices of ``WAKE`` seconds, and
Python looks for a signal between them.
"""

from __future__ import annotations

import queue
import threading
import time
from typing import TypeVar

WAKE = 0.25
"""Seconds the main thread waits at a time before it looks for a Ctrl-C."""

T = TypeVar("T")


def get(box: queue.SimpleQueue[T] | queue.Queue[T], seconds: float | None) -> T:
    """The next item of ``box`` within ``seconds`` (None: as long as it
    takes); raises ``queue.Empty`` when they are up."""
    end = None if seconds is None else time.monotonic() + max(seconds, 0.0)
    while True:
        left = WAKE if end is None else end - time.monotonic()
        try:
            return box.get(timeout=min(max(left, 0.0), WAKE))
        except queue.Empty:
            if end is not None and left <= WAKE:
                raise


def join(thread: threading.Thread, seconds: float) -> None:
    """Wait for ``thread`` to end, ``seconds`` at most."""
    end = time.monotonic() + max(seconds, 0.0)
    while thread.is_alive() and (left := end - time.monotonic()) > 0:
        thread.join(min(left, WAKE))
