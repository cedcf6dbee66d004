"""Ctrl-C as the ``reversi`` command takes it: one KeyboardInterrupt, raised where the program can handle it.

Python runs a signal's handler in whatever Python code the main thread runs next, and three
places there would garble or lose the KeyboardInterrupt the default handler raises:

- numba's compiled code calls back into Python (``numba.core.serialize``) while it boxes
  what it returns, and does not look for an exception raised there: the call then fails as
  ``SystemError: CPUDispatcher(...) returned a result with an exception set``. A loop of
  such calls nearly always takes the signal there, the first Python code after the work.
- numba's C dispatcher types a function passed as an argument by calling Python
  (``Dispatcher._numba_type_``) and clears any exception raised there: the call goes on and
  the press is gone.
- a finaliser (``__del__``, a weakref callback, a callback of LLVM's while numba compiles),
  where Python shows the exception as "ignored", drops it, and the program goes on as if
  no key had been pressed.

Inside :func:`ctrl_c` a press in numba's or llvmlite's Python code is raised by the first
event of the program's own code, once no numba code is on the stack (a profile function,
set for that moment only), and a press dropped in a finaliser comes again as a real SIGINT a
moment later, so a blocking call (a sleep, a pipe) wakes for it as for the key.

Code that garbles an exception raised anywhere inside it, TorchScript's tracing (which turns a
KeyboardInterrupt into a RuntimeError, "Could not cast attribute ..."), runs under
:func:`held`: a press there waits for the code to end.
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

AGAIN_AFTER = 0.01
"""Seconds after which a press dropped in a finaliser is delivered again."""

_NUMBA_PACKAGES = frozenset({"numba", "llvmlite"})
"""The packages whose Python code numba's compiled code and its C dispatcher call while they run."""

PUT_OFF_EVENTS = 100_000
"""Profile events a press in numba's code waits for the program's own code, at most: a call's
dispatch and boxing take a few dozen, a compile millions (a press there is raised in it)."""


@dataclass
class Presses:
    """A :func:`ctrl_c` block's Ctrl-C: ``count``, how many times SIGINT came in it (a press
    dropped comes again and counts again, so any press makes it grow), and whether the block
    is ``active``."""

    count: int = 0
    active: bool = True
    held: int = 0
    """How many :func:`held` blocks are running: while any is, a press waits for the last to end."""
    waiting: bool = False
    """Whether a press came while held and waits to be raised."""
    lock: threading.Lock = field(default_factory=threading.Lock)


_block: Presses | None = None
"""The outermost active block's presses; None outside every block."""


def _in_numba(frame: FrameType | None) -> bool:
    """Whether numba's or llvmlite's Python code is on the stack of ``frame``."""
    while frame is not None:
        if str(frame.f_globals.get("__name__", "")).partition(".")[0] in _NUMBA_PACKAGES:
            return True
        frame = frame.f_back
    return False


class _PutOff:
    """The profile function that raises a put-off press at the first event with no numba code on
    the stack, or at the ``PUT_OFF_EVENTS``-th event (a press in a compile ends the compile)."""

    def __init__(self) -> None:
        self.left = PUT_OFF_EVENTS

    def __call__(self, frame: FrameType, event: str, arg: object) -> None:
        self.left -= 1
        if self.left <= 0 or not _in_numba(frame):
            sys.setprofile(None)
            raise KeyboardInterrupt


def _again(presses: Presses) -> None:
    """Deliver SIGINT to the main thread again after ``AGAIN_AFTER`` seconds, if the block is still active."""

    def send() -> None:
        with presses.lock:
            if presses.active:
                main = threading.main_thread().ident
                if main is not None:
                    signal.pthread_kill(main, signal.SIGINT)

    timer = threading.Timer(AGAIN_AFTER, send)
    timer.daemon = True
    timer.start()


@contextmanager
def ctrl_c() -> Iterator[Presses]:
    """Run the block with a Ctrl-C raised as one KeyboardInterrupt in the program's own code.

    Returns (as the block's value): the block's presses; a block inside another one shares the
    outer one's. Where Ctrl-C is not Python's to raise (another thread, a handler of the
    program's own, ignored), the block changes nothing and counts nothing.
    """
    global _block
    if threading.current_thread() is not threading.main_thread():
        yield Presses(active=False)
        return
    if _block is not None:
        yield _block
        return
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield Presses(active=False)
        return
    presses = Presses()
    unraisable = sys.unraisablehook

    def press(signum: int, frame: FrameType | None) -> None:
        presses.count += 1
        if presses.held:
            presses.waiting = True
            return
        if isinstance(sys.getprofile(), _PutOff):
            return  # a press put off already: one KeyboardInterrupt for both
        if presses.active and sys.getprofile() is None and _in_numba(frame):
            sys.setprofile(_PutOff())  # a profiler of the user's own: raised here, as ever
            return
        raise KeyboardInterrupt

    def dropped(info: Any) -> None:
        if isinstance(info.exc_value, KeyboardInterrupt) and presses.active:
            _again(presses)
        else:
            unraisable(info)

    _block = presses
    signal.signal(signal.SIGINT, press)
    sys.unraisablehook = dropped
    try:
        yield presses
    finally:
        with presses.lock:
            presses.active = False
        put_off = isinstance(sys.getprofile(), _PutOff)
        if put_off:
            sys.setprofile(None)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        sys.unraisablehook = unraisable
        _block = None
    if put_off:  # the block ended before the program's own code ran again
        raise KeyboardInterrupt


@contextmanager
def held() -> Iterator[None]:
    """Run the block with a Ctrl-C pressed in it raised as one KeyboardInterrupt once it ends.

    Inside a :func:`ctrl_c` block the press counts in that block's presses; outside one the
    block is a :func:`ctrl_c` block of its own. Where Ctrl-C is not Python's to raise (another
    thread among them), the block runs as it is. The KeyboardInterrupt takes the place of an
    exception the block raises.
    """
    with ctrl_c() as presses:
        if not presses.active:
            yield
            return
        presses.held += 1
        try:
            yield
        finally:
            presses.held -= 1
            if presses.waiting and not presses.held:
                presses.waiting = False
                raise KeyboardInterrupt
