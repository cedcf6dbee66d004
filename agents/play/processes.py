"""Child processes that cannot outlive their game: players and engines.

Every program or interpreter a game starts (an isolated player, a GTP engine)
runs in a process group of its own, so ``stop`` ends it with everything it
started (SIGTERM, then SIGKILL after a short grace), and Ctrl-C at the terminal
reaches only us. What it started outside the group (``setsid``, a double fork)
``stop`` finds in /proc as its descendants and kills first; an isolated
player's process is the reaper of its orphans (``keep_orphans``), so a
daemonised grandchild stays among them. On Linux it also gets a parent-death signal (``prctl
PR_SET_PDEATHSIG``): if the process that started it dies, even by SIGKILL, the
kernel kills it too. Linux sends that signal when the *thread* that started
the child ends, so start children from a thread that lives as long as they do
(the main thread, as ``play_game``, the CLI and the arena do). A child that
runs other people's code cannot signal or trace the processes outside it
(``confine``).
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import mmap
import os
import resource
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from typing import Any

GRACE = 0.1
"""Seconds a stopped process gets between SIGTERM and SIGKILL."""

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36

SWEEPS = 20
"""Rounds of ``kill_descendants`` at most (a process that forks as fast as it
is killed cannot hold ``stop`` up longer)."""


def _load_libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    with contextlib.suppress(OSError):
        libc = ctypes.CDLL(None, use_errno=True)  # the C library Python runs on, found without a search
        libc.syscall.restype = ctypes.c_long
        return libc
    return None


_LIBC = _load_libc()  # loaded before any fork: the child only calls it
_PRCTL: Callable[..., int] | None = getattr(_LIBC, "prctl", None)


def die_with_parent(parent: int | None = None) -> None:
    """Ask the kernel to SIGKILL this process when its parent dies (Linux; a
    no-op elsewhere). With ``parent`` (the pid we expect as parent) also exit
    at once if that parent died before the request took effect."""
    if _PRCTL is not None:
        _PRCTL(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    if parent is not None and os.getppid() != parent:
        os._exit(1)


MEMORY_LIMIT = 4 << 30
"""Bytes of address space a player's process may hold (``limit_memory``): a
player with numpy, numba or torch loaded needs under 1 GiB of it."""


def limit_memory(limit: int | None) -> None:
    """Cap this process's address space at ``limit`` bytes (``RLIMIT_AS``,
    soft and hard, so it cannot be raised again; None: no cap). Past it an
    allocation fails with MemoryError instead of taking the machine's memory.
    Called by a child that runs other people's code, before it runs any."""
    if limit is not None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_DUMPABLE = 4
_CAPABILITY_VERSION_3 = 0x20080522
_LANDLOCK_MACHINES = ("x86_64", "aarch64")
"""Where ``confine`` knows the Landlock system calls' numbers (444 to 446 there)."""
_LANDLOCK_CREATE_RULESET = 444
_LANDLOCK_RESTRICT_SELF = 446
_LANDLOCK_CREATE_RULESET_VERSION = 1
_LANDLOCK_SCOPE_SIGNAL = 2
_LANDLOCK_SCOPE_ABI = 6
"""The first Landlock ABI (Linux 6.12) that scopes signals."""


class _LandlockRulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


def hide() -> None:
    """Make this process's /proc entries that tell its secrets (``environ``, ``maps``,
    ``mem``, the ``fd`` list, ``cmdline`` stays readable) unreadable to other processes of the
    same user without ``CAP_SYS_PTRACE`` (Linux ``PR_SET_DUMPABLE`` 0; a no-op elsewhere).
    Called by the judge before it starts a player, and by a player before its code runs.

    The process then leaves no core dump and a debugger of the same user cannot attach
    to it; a program it starts (``execve``) is dumpable again."""
    if _PRCTL is not None:
        _PRCTL(_PR_SET_DUMPABLE, 0, 0, 0, 0)


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def drop_capabilities() -> None:
    """Give up every capability this process holds (root's): a player needs none, and
    without them (``CAP_SYS_PTRACE`` and the file-access ones) ``hide``'s processes are out
    of its reach even when both run as root. Nothing happens where none is held."""
    libc = _LIBC
    if libc is None:
        return
    header = _CapHeader(_CAPABILITY_VERSION_3, 0)
    data = (_CapData * 2)()
    if libc.capget(ctypes.byref(header), data) != 0 or not (data[0].permitted or data[1].permitted):
        return
    libc.capset(ctypes.byref(header), (_CapData * 2)())


PLAYER_ENVIRONMENT = ("PATH", "HOME", "LANG", "LANGUAGE", "TERM", "TZ", "TMPDIR", "USER", "LOGNAME", "VIRTUAL_ENV")
"""The judge's environment variables a player's process gets, with those starting with one of
``PLAYER_ENVIRONMENT_PREFIXES``: what Python, numpy, numba and torch read, and this project's
own ``REVERSI_*`` settings (a trained model's file, say), never a token."""
PLAYER_ENVIRONMENT_PREFIXES = (
    "LC_",
    "PYTHON",
    "NUMBA_",
    "OMP_",
    "MKL_",
    "OPENBLAS_",
    "CUDA_",
    "SYSTEMROOT",
    "REVERSI_",
)


def player_environment(environ: dict[str, str]) -> dict[str, str]:
    """The part of ``environ`` a player's process is given (``PLAYER_ENVIRONMENT``)."""
    return {
        name: value
        for name, value in environ.items()
        if name in PLAYER_ENVIRONMENT or name.startswith(PLAYER_ENVIRONMENT_PREFIXES)
    }


def confine() -> bool:
    """Fence this process and everything it starts off from every other
    process (Linux Landlock, ABI 6 or later): a signal (``kill``, ``killpg``,
    ``pidfd_send_signal``...) to a process outside the fence fails with
    EPERM, and so does ``ptrace`` and reading or writing another process's
    memory; this process, its threads and its children stay reachable. First,
    wherever Linux is, it hides its /proc entries from other processes (``hide``)
    and gives up its capabilities (``drop_capabilities``), so it cannot read
    the judge's or another player's either. Returns whether the fence is up (False, and nothing done, where the
    kernel lacks it or on an architecture not in ``_LANDLOCK_MACHINES``).
    It covers the calling thread and the threads and processes it starts
    later: called by a child that runs other people's code, before it runs
    any and before it starts a thread."""
    hide()
    drop_capabilities()
    libc = _LIBC
    if libc is None or _PRCTL is None or os.uname().machine not in _LANDLOCK_MACHINES:
        return False
    version = libc.syscall(
        ctypes.c_long(_LANDLOCK_CREATE_RULESET),
        None,
        ctypes.c_size_t(0),
        ctypes.c_uint32(_LANDLOCK_CREATE_RULESET_VERSION),
    )
    if version < _LANDLOCK_SCOPE_ABI:
        return False
    attr = _LandlockRulesetAttr(0, 0, _LANDLOCK_SCOPE_SIGNAL)
    ruleset = libc.syscall(
        ctypes.c_long(_LANDLOCK_CREATE_RULESET),
        ctypes.byref(attr),
        ctypes.c_size_t(ctypes.sizeof(attr)),
        ctypes.c_uint32(0),
    )
    if ruleset < 0:
        return False
    try:
        if _PRCTL(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            return False
        return bool(
            libc.syscall(ctypes.c_long(_LANDLOCK_RESTRICT_SELF), ctypes.c_int(ruleset), ctypes.c_uint32(0)) == 0
        )
    finally:
        os.close(ruleset)


def fence_note(error: BaseException, fenced: bool) -> str:
    """What to add to ``error``'s line when it may be the fence's doing
    (``confine``; ``fenced``: the fence is up): an "Operation not permitted"
    (EPERM), which ``os.kill`` of another process raises; else nothing."""
    if fenced and isinstance(error, PermissionError) and error.errno == errno.EPERM:
        return " (a player may not signal or trace other processes)"
    return ""


def memory_note() -> str:
    """A line saying this process ran out of memory, with its cap if it has one."""
    limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    cap = "" if limit == resource.RLIM_INFINITY else f" (its limit is {limit / (1 << 30):g} GiB)"
    return f"out of memory{cap}"


RESERVE = 8 << 20
"""Bytes of address space a process running other people's code keeps back
(mapped, never touched) and gives up when they have used all the rest, so our
own code can still say so; also the room a player must leave (``has_room``)."""


def has_room(size: int = RESERVE) -> bool:
    """Whether ``size`` more bytes of address space can be mapped here (under
    ``limit_memory``); the mapping is given back at once, untouched."""
    try:
        mmap.mmap(-1, size).close()
    except (OSError, MemoryError):
        return False
    return True


def keep_orphans() -> None:
    """Become the reaper of this process's orphaned descendants (Linux
    ``PR_SET_CHILD_SUBREAPER``; a no-op elsewhere): a grandchild whose parent
    exits, or that left our process group (``setsid``, a double fork), is then
    still ours, so ``kill_descendants`` finds it. Called by a child that runs
    other people's code, before it runs any."""
    if _PRCTL is not None:
        _PRCTL(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def _live_children() -> dict[int, list[int]]:
    """Parent pid -> pids of its children, from /proc (zombies left out: they
    are already dead); empty where there is no /proc."""
    children: dict[int, list[int]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return children
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except OSError:  # it ended while we looked
            continue
        if fields[0] not in (b"Z", b"X"):
            children.setdefault(int(fields[1]), []).append(int(entry))
    return children


def descendants(pid: int) -> list[int]:
    """The living descendants of ``pid`` (not ``pid`` itself), from /proc."""
    children = _live_children()
    found: list[int] = []
    todo = list(children.get(pid, []))
    while todo:
        child = todo.pop()
        found.append(child)
        todo.extend(children.get(child, []))
    return found


def kill_descendants(pid: int) -> None:
    """SIGKILL every living descendant of ``pid``, whatever its process group or
    session, until none is left (``SWEEPS`` rounds at most). With ``pid`` a
    reaper of its orphans (``keep_orphans``) and still alive, that is everything
    it ever started."""
    for _ in range(SWEEPS):
        found = descendants(pid)
        if not found:
            return
        for child in found:
            with contextlib.suppress(OSError):
                os.kill(child, signal.SIGKILL)


def how_it_ended(code: int | None) -> str:
    """A process's end in words, from its exit code (``Popen.returncode`` or
    ``multiprocessing.Process.exitcode``: negative for a signal, None if unknown)."""
    if code is None:
        return "it ended, its exit status unknown"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit status {code}"


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
    """End ``proc``, everything it started and its process group: SIGKILL to
    its descendants (``kill_descendants``), SIGTERM to the group, SIGKILL after
    ``grace`` seconds if anything is left, then reap it. Safe to call twice."""
    if proc is None:
        return
    if os.name != "posix":  # pragma: no cover - the project runs on POSIX
        with contextlib.suppress(OSError):
            proc.kill()
        with contextlib.suppress(Exception):
            proc.wait(timeout=5)
        return
    if proc.poll() is None:
        # First what it started outside its group (``setsid``, double forks): while
        # it lives they are in its tree; once it is gone they would belong to init.
        kill_descendants(proc.pid)
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
