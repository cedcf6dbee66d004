"""A course turn that nothing inside the process can stop: a copy of the game takes over.

``Game`` stops a late ``get_move`` by raising ``TurnTimedOut`` in its thread,
as the course's ``func_timeout`` does. A ``get_move`` stuck in one long C call
that holds the GIL (a backtracking regex, ``10 ** 10 ** 8``, a C loop) takes
no exception and keeps every other thread of the process, the game's own
included, waiting until it returns: the game would hang for hours.

Under ``supervise`` (``reversi course``) each timed turn forks the process
first (``watch``). The copy waits for the turn to end; if it has not ended
``GRACE`` seconds after its limit, the copy kills the stuck process and plays
on from the turn's start as a turn over time (``TookOver``): the player loses
on time with the course's line and the file runs on, its later games
included (``random`` as it was at the turn's start, so a seeded file's
later games are the same; standard output and error are written through,
so what the stuck process printed is not lost with it). ``supervise`` runs the file in
a child process and returns the exit status of whichever process carries the
game at the end; it is the reaper of the copies (``processes.keep_orphans``),
so ``reversi course`` waits for them.
Without ``supervise`` (a ``Game`` run from Python) ``watch`` does nothing.
"""

from __future__ import annotations

import contextlib
import io
import os
import random
import select
import signal
import sys
import time
import traceback
from collections.abc import Callable

from agents.play import processes

GRACE = 1.0
"""Seconds past a turn's limit before the copy takes over (the game's own
thread normally ends a late turn within ``game.STOP_WAIT`` of the limit)."""

_SUPERVISOR: list[int] = []
"""In a supervised process: the supervisor's pid and the pipe to tell it of a takeover."""
_RELEASED: list[int] = []
"""Copies told their turn ended in time and not yet waited for (``_reap``)."""


class TookOver(Exception):  # noqa: N818 - it is what happened, not an error
    """Raised by ``watch`` in the copy that took over a stuck turn: the turn is over time."""


def _write_through() -> None:
    """Standard output and error written at each write, as ``python -u`` or
    an unbuffered terminal would, also into a pipe or a file: a stuck process
    that its copy kills takes what it has not written with it, and what the
    player printed before it got stuck ("thinking", even without its newline)
    would be lost. Each print costs a write or two (a few microseconds)."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if not isinstance(stream, io.TextIOWrapper):
            continue
        with contextlib.suppress(ValueError, OSError):
            stream.flush()
            raw = io.FileIO(stream.fileno(), "w", closefd=False)
            setattr(
                sys,
                name,
                io.TextIOWrapper(raw, encoding=stream.encoding, errors=stream.errors, newline="\n", write_through=True),
            )


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()


def supervise(run: Callable[[], int]) -> int:
    """``run()`` in a child process that ``watch`` may replace by a copy;
    the exit status of the last one (a signal N as 128 + N). Without fork or
    Linux's prctl (``processes``), ``run()`` here."""
    if not hasattr(os, "fork") or processes._PRCTL is None:
        return run()
    _flush()
    read_end, write_end = os.pipe()
    supervisor = os.getpid()
    current = os.fork()
    if current == 0:
        os.close(read_end)
        _SUPERVISOR[:] = [supervisor, write_end]
        _write_through()
        processes.die_with_parent(supervisor)
        code = 1
        try:
            code = run()
        except BaseException:  # what run() itself did not turn into an exit status
            traceback.print_exc()
        finally:
            _flush()
            os._exit(code)
    os.close(write_end)
    processes.keep_orphans()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the game's to handle
    os.set_blocking(read_end, False)
    takeovers = b""
    statuses: dict[int, int] = {}
    """The exit status of each process reaped: a copy that takes over may finish the game
    before the process it killed is reaped."""
    while current not in statuses:
        try:
            ended, status = os.waitpid(-1, 0)
        except ChildProcessError:
            return 1
        statuses[ended] = os.waitstatus_to_exitcode(status)
        with contextlib.suppress(BlockingIOError):
            takeovers += os.read(read_end, 4096)
        successors = takeovers.split()
        while current in statuses and successors and int(successors[-1]) != current:
            current = int(successors[-1])  # the copy that killed it carries the game now
    code = statuses[current]
    return code if code >= 0 else 128 - code


def _nothing() -> None:
    """``watch``'s release when nothing is watched."""


def watch(seconds: float) -> Callable[[], None]:
    """Fork a copy that takes the game over if the caller has not called the
    returned release within ``seconds`` (see the module docstring). In that
    copy this raises ``TookOver``. Outside ``supervise``, nothing is forked."""
    if not _SUPERVISOR:
        return _nothing
    _reap()
    _flush()  # else the copy would print what is buffered a second time
    seeded = random.getstate()  # ``random`` reseeds itself in a forked child
    read_end, write_end = os.pipe()
    judge = os.getpid()
    copy = os.fork()
    if copy == 0:
        os.close(write_end)
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the game, not its copy
        ready, _, _ = select.select([read_end], [], [], seconds)
        if ready:  # released, or the game's process ended
            os._exit(0)
        os.close(read_end)
        _RELEASED.clear()  # the judge's children, not this copy's
        supervisor, report = _SUPERVISOR
        os.write(report, f"{os.getpid()}\n".encode())
        os.kill(judge, signal.SIGKILL)
        end = time.monotonic() + 5.0
        while os.getppid() == judge and time.monotonic() < end:
            time.sleep(0.001)
        processes.die_with_parent(supervisor)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        random.setstate(seeded)
        raise TookOver(f"the turn went {GRACE:g} s over its limit and could not be stopped")
    os.close(read_end)

    def release() -> None:
        os.close(write_end)  # the copy wakes and exits; waiting for it here would cost the game a few ms a turn
        _RELEASED.append(copy)

    return release


def _reap() -> None:
    """Wait for the released copies that have exited (they stay zombies until then)."""
    for copy in list(_RELEASED):
        with contextlib.suppress(ChildProcessError):
            if os.waitpid(copy, os.WNOHANG)[0] == 0:
                continue
        _RELEASED.remove(copy)
