"""Child processes that cannot outlive their game: players and engines.

Every program or interpreter a game starts (an isolated player, a GTP engine)
runs in a process group of its own, so ``stop`` ends it with everything it
started (SIGTERM, then SIGKILL after a short grace), and Ctrl-C at the terminal
reaches only us. On Linux it also gets a parent-death signal (``prctl
PR_SET_PDEATHSIG``): if the process that started it dies, even by SIGKILL, the
kernel kills it too. Linux sends that signal when the *thread* that started
the child ends, so start children from a thread that lives as long as they do
(the main thread, as ``play_game``, the CLI and the arena do).
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from typing import Any

GRACE = 0.1
"""Seconds a stopped process gets between SIGTERM and SIGKILL."""

_PR_SET_PDEATHSIG = 1


def _load_prctl() -> Callable[..., int] | None:
    if not sys.platform.startswith("linux"):
        return None
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)  # the C library Python runs on, found without a search
        prctl: Callable[..., int] = libc.prctl
        return prctl
    return None


_PRCTL = _load_prctl()  # loaded before any fork: the child only calls it


def die_with_parent(parent: int | None = None) -> None:
    """Ask the kernel to SIGKILL this process when its parent dies (Linux; a
    no-op elsewhere). With ``parent`` (the pid we expect as parent) also exit
    at once if that parent died before the request took effect."""
    if _PRCTL is not None:
        _PRCTL(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    if parent is not None and os.getppid() != parent:
        os._exit(1)


def _check_program(program: str, path: str | None) -> None:
    """Raise the error Popen raises for a program it cannot start (not found:
    FileNotFoundError; not executable: PermissionError), which a launcher would
    only meet after the fork."""
    if shutil.which(program, path=path) is not None:
        return
    if os.sep in program and os.path.exists(program):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), program)
    raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), program)


def popen(args: list[str], *, ours: bool = False, **kwargs: Any) -> subprocess.Popen[Any]:
    """``subprocess.Popen(args, **kwargs)`` for a child that dies with us and
    can be stopped as a group (see the module docstring), with no Python run
    between fork and exec (a ``preexec_fn`` is unsafe with threads). A child
    running ``ours`` (our own Python code) asks for its parent-death signal
    itself (``die_with_parent``); another program is started through this
    module run as a script, which asks for it and then execs the program. A
    program that cannot be run raises here what Popen would (``_check_program``)."""
    if os.name == "posix":
        kwargs["process_group"] = 0
        if not ours and _PRCTL is not None:
            if "cwd" not in kwargs:
                _check_program(args[0], (kwargs.get("env") or os.environ).get("PATH"))
            args = [sys.executable, "-I", "-S", os.path.abspath(__file__), str(os.getpid()), *args]
    return subprocess.Popen(args, **kwargs)


def stop(proc: subprocess.Popen[Any] | None, grace: float = GRACE) -> None:
    """End ``proc`` and its process group: SIGTERM, SIGKILL after ``grace``
    seconds if anything is left, then reap it. Safe to call twice."""
    if proc is None:
        return
    if os.name != "posix":  # pragma: no cover - the project runs on POSIX
        with contextlib.suppress(OSError):
            proc.kill()
        with contextlib.suppress(Exception):
            proc.wait(timeout=5)
        return
    if proc.poll() is None:
        with contextlib.suppress(OSError):
            os.killpg(proc.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=grace)
    # The group may hold the child's own children even once the child is gone.
    with contextlib.suppress(OSError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(Exception):
        proc.wait(timeout=5)


if __name__ == "__main__":
    # python processes.py PARENT PROGRAM ARGS...: die with PARENT, become PROGRAM.
    die_with_parent(int(sys.argv[1]))
    os.execvp(sys.argv[2], sys.argv[2:])
