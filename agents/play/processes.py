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
import ctypes.util
import os
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
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
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


def _child_setup() -> None:
    """``preexec_fn`` of ``popen``: a process group of its own, death with the parent."""
    os.setpgid(0, 0)
    die_with_parent()


def popen(args: list[str], *, ours: bool = False, **kwargs: Any) -> subprocess.Popen[Any]:
    """``subprocess.Popen(args, **kwargs)`` for a child that dies with us and
    can be stopped as a group (see the module docstring). A child running
    ``ours`` (our own Python code) asks for its parent-death signal itself
    (``die_with_parent``), so no Python runs between fork and exec; another
    program gets it from a ``preexec_fn``."""
    if os.name == "posix":
        if ours:
            kwargs["process_group"] = 0
        else:
            kwargs["preexec_fn"] = _child_setup
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
