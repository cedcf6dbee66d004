"""The keyboard in a course file's process: a line typed goes to a turn still being played.

A course player may read the keyboard (``input("move: ")``). A turn over its
time is abandoned (``game._stop_thread``), but its thread, blocked in a read,
cannot be stopped: left alone it would take the next line typed, meant for
the next turn or for the file. While ``serving()`` (``reversi course``),
``input`` is ours: one reader thread reads a line when one is wanted, and the
line goes to a read that is not abandoned (``abandon``), the oldest first.
A line read before its turn was abandoned stays that turn's, as it would in
the course. Reads of ``sys.stdin`` itself are left as they are.
"""

from __future__ import annotations

import builtins
import contextlib
import io
import os
import sys
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager

WAKE = 0.02
"""Seconds between a waiting read's looks for its line (a stopped turn's
``TurnTimedOut`` reaches its thread between looks)."""


class _Keyboard:
    """``input`` for every thread of the process, over one reader thread."""

    def __init__(self, read: Callable[..., str]) -> None:
        """``read(prompt)``: one line of standard input, without its newline (``input``)."""
        self._read = read
        self._lock = threading.Lock()
        self._lines: deque[tuple[str, BaseException | None]] = deque()
        self._reading = False
        self._abandoned: weakref.WeakSet[threading.Thread] = weakref.WeakSet()

    def input(self, prompt: object = "") -> str:
        """``builtins.input``: write ``prompt``, then the next line typed
        (EOFError at the end of input, as ``input`` raises). The main thread
        with nothing read ahead reads itself, as ``input`` always does there
        (a file's own ``import readline`` keeps its line editing)."""
        if threading.current_thread() is threading.main_thread():
            with self._lock:
                idle = not self._reading and not self._lines
            if idle:
                return self._read(prompt)
        sys.stderr.flush()
        sys.stdout.write(str(prompt))
        sys.stdout.flush()
        me = threading.current_thread()
        while True:
            with self._lock:  # a C lock: a TurnTimedOut raised in this block cannot break it
                if me not in self._abandoned:
                    if self._lines:
                        line, error = self._lines.popleft()
                        break
                    if not self._reading:
                        self._reading = True
                        threading.Thread(target=self._reader, name="course-keyboard", daemon=True).start()
            time.sleep(WAKE)
        if error is not None:
            raise error
        return line

    def _reader(self) -> None:
        try:
            typed: tuple[str, BaseException | None] = (self._read(), None)
        except Exception as e:  # EOFError, a closed stdin: the read that gets this line raises it
            typed = ("", e)
        with self._lock:
            self._lines.append(typed)
            self._reading = False

    def abandon(self, thread: threading.Thread) -> None:
        """``thread``'s reads take no more lines (its turn is over)."""
        with self._lock:
            self._abandoned.add(thread)

    def forked(self) -> None:
        """In a forked copy only the forking thread lives: no reader, and the
        lock free. A reader caught in a read held ``sys.stdin``'s lock: the copy
        reads through a fresh ``sys.stdin`` on the same file descriptor (what
        that read had of an unfinished line is lost)."""
        self._lock = threading.Lock()
        if self._reading and isinstance(sys.stdin, io.TextIOWrapper):
            with contextlib.suppress(ValueError, OSError):
                stdin = sys.stdin
                raw = io.FileIO(stdin.fileno(), "r", closefd=False)
                sys.stdin = io.TextIOWrapper(
                    io.BufferedReader(raw), encoding=stdin.encoding, errors=stdin.errors, newline="\n"
                )
        self._reading = False


_SERVING: list[_Keyboard] = []
"""The keyboard ``builtins.input`` is served by, while ``serving()``."""


def _forked() -> None:
    for keyboard in _SERVING:
        keyboard.forked()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forked)


@contextmanager
def serving() -> Iterator[None]:
    """``builtins.input`` served by one reader thread (see the module docstring)."""
    saved = builtins.input
    keyboard = _Keyboard(saved)
    _SERVING.append(keyboard)
    builtins.input = keyboard.input
    try:
        yield
    finally:
        builtins.input = saved
        _SERVING.remove(keyboard)


def abandon(thread: threading.Thread) -> None:
    """The turn played in ``thread`` is over: its reads of the keyboard take no line."""
    for keyboard in _SERVING:
        keyboard.abandon(thread)
