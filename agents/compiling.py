"""The line a first run shows while numba compiles: most of a minute of silence otherwise.

The engine's numba functions are compiled as their modules are imported and
cached on disk (``cache=True``), so only the first run on a machine (or after
an upgrade) pays for it: 38 s for the engine's core (MCTS and alpha-beta) on an idle 2-core machine,
where a warm import takes 1.2 s. A block that imports
them runs under :func:`compile_notice`, which says what is happening once numba
really compiles in it (numba's ``numba:compile`` event, sent only when a function is
not in the cache) and the block has taken longer than a warm import ever does, and
shows the time spent: a warm import slowed down by a busy machine says nothing.
On a terminal the notice is one line whose clock ticks; elsewhere (a log, a pipe)
it is one line at the start and one at the end.
A block inside another one (``from agents import MCTSAgent`` imports
``agents.search``, which has a block of its own) leaves the saying to the outer one.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NoReturn, TextIO

from tqdm import tqdm

from agents.interrupts import ctrl_c

NOTICE_AFTER = 5.0
"""Seconds a block may take before it is announced: over three warm imports of the engine, a tenth of a cold one."""

_announcing = threading.local()
"""``active`` is set while a thread runs an outer block."""


@contextmanager
def compile_notice(what: str, after: float = NOTICE_AFTER, stream: TextIO | None = None) -> Iterator[None]:
    """Run the block; if numba compiles in it and it takes more than ``after`` seconds, show on
    ``stream`` (stderr) that ``what`` is compiling.

    The notice counts the block's seconds until it ends: on a terminal one line whose clock
    ticks, elsewhere a line at the start and one with the time at the end.
    A Ctrl-C in the block ends a program in one line and the shell's status for it
    (130), as ``reversi`` does elsewhere: the block is an import, ahead of any
    handler of the program's own. At an interactive prompt it stays a KeyboardInterrupt.
    The block runs under :func:`agents.interrupts.ctrl_c`, and a press in it is remembered: numba's
    compiler may fail on the function it was building rather than pass the KeyboardInterrupt
    on, and either way the block ends as a Ctrl-C.
    """
    if getattr(_announcing, "active", False):
        yield
        return
    _announcing.active = True
    try:
        with _announced(what, after, stream):
            yield
    finally:
        _announcing.active = False


_WATCH = 0.1
"""Seconds between the notice's looks for numba (imported in the block) and its compiling."""


class _Compiling:
    """Whether numba has compiled since ``watch``: a listener of its ``numba:compile``
    event, installed once the block has imported numba (this module does not import
    it, for ``reversi --help`` must not wait for numba)."""

    def __init__(self) -> None:
        self.seen = threading.Event()
        self._listener: Any = None

    def watch(self) -> None:
        """Listen, if numba is imported by now (called again until it is)."""
        event = sys.modules.get("numba.core.event")
        if self._listener is not None or event is None or getattr(event.__spec__, "_initializing", False):
            return  # not imported yet, or half-built: the block's thread is importing it right now
        seen = self.seen

        class Listener(event.Listener):  # type: ignore[name-defined]  # numba, imported by the block
            def on_start(self, _: object) -> None:
                seen.set()

            def on_end(self, _: object) -> None:
                pass

        self._listener = Listener()
        event.register("numba:compile", self._listener)

    def stop(self) -> None:
        """Stop listening."""
        if self._listener is not None:
            sys.modules["numba.core.event"].unregister("numba:compile", self._listener)


def _clock(seconds: float) -> str:
    minutes, seconds = divmod(int(seconds), 60)
    return f"{minutes:02d}:{seconds:02d}"


@contextmanager
def _announced(what: str, after: float, stream: TextIO | None) -> Iterator[None]:
    """The outer block of :func:`compile_notice`: the notice and the Ctrl-C."""
    done = threading.Event()
    started = time.time()
    compiling = _Compiling()
    compiling.watch()
    desc = f"compiling {what} for this machine (first run only; later runs start at once)"

    def announce() -> None:
        while not done.wait(_WATCH):
            compiling.watch()
            if compiling.seen.is_set() and time.time() - started >= after:
                break
        else:
            return
        out = stream or sys.stderr
        if not out.isatty():
            print(f"{desc} ...", file=out, flush=True)
            done.wait()
            print(f"{desc}: {_clock(time.time() - started)}", file=out, flush=True)
            return
        with tqdm(desc=desc, bar_format="{desc}: {elapsed}", file=out) as bar:
            bar.start_t = started
            bar.refresh()
            while not done.wait(1.0):
                bar.refresh()

    watcher = threading.Thread(target=announce, name="compile-notice", daemon=True)
    watcher.start()
    with ctrl_c() as presses:
        before = presses.count
        interrupted = False
        try:
            yield
        except KeyboardInterrupt:
            interrupted = True
        except BaseException:
            if presses.count == before:
                raise
        finally:
            done.set()
            watcher.join()  # the notice's line ends before the interruption's
            compiling.stop()
    if interrupted or presses.count > before:
        _interrupted(what, stream)


def _interrupted(what: str, stream: TextIO | None) -> NoReturn:
    """End on a Ctrl-C in the block: a KeyboardInterrupt at a prompt, else one line and status 130."""
    if hasattr(sys, "ps1") or sys.flags.interactive:
        raise KeyboardInterrupt
    print(f"interrupted while compiling {what}; the next run compiles what is left", file=stream or sys.stderr)
    raise SystemExit(130)
