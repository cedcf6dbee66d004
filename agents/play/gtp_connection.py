"""One external GTP engine process and the conversation with it.

``GTPConnection`` starts the engine (a process group of its own that dies with
us, even after a SIGKILL: ``agents.play.processes``), sends it commands and
reads ``=``/``?`` replies (with or without ids), each within a deadline and at
most ``MAX_REPLY`` characters: a silent or flooding engine is stopped and
raises ``EngineError``. ``agents.play.gtp.GTPEngine`` plays games through it.
"""

from __future__ import annotations

import contextlib
import queue
import shlex
import subprocess
import threading
import time
from typing import Any

from agents.base import MoveTimeout
from agents.play import processes, waits

MAX_REPLY = 1 << 16
"""Characters of one reply read at most; a longer reply is the engine's error."""
QUIT_WAIT = 2.0
"""Seconds an engine gets to obey ``quit`` before it is stopped."""


class EngineError(RuntimeError):
    """The engine failed: no reply in time, a malformed or illegal reply, a
    refused command, or a crash it did not recover from. Raised from ``act``,
    it costs the engine the game."""


class EngineDiedError(EngineError):
    """The engine process ended or its pipe broke (it may be restarted)."""


class GTPConnection:
    """One running engine (``command``, a program and its arguments) and the
    GTP conversation with it. ``name`` names the engine in error messages.
    EngineError if the program cannot be started."""

    def __init__(self, command: list[str], name: str) -> None:
        self.name = name
        try:
            self._proc: subprocess.Popen[Any] = processes.popen(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                bufsize=1,
            )
        except OSError as e:
            raise EngineError(f"cannot start engine {shlex.join(command)!r}: {e}") from e
        self._stopped = False
        self._lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True, name=f"gtp-reader-{self._proc.pid}").start()

    def _pump(self) -> None:
        """Reader thread: the engine's output lines into the queue, None at EOF."""
        stdout = self._proc.stdout
        assert stdout is not None
        with contextlib.suppress(OSError, ValueError):
            while line := stdout.readline(MAX_REPLY):
                self._lines.put(line)
        self._lines.put(None)

    @property
    def pid(self) -> int:
        """The engine's process id (also its process group's)."""
        return self._proc.pid

    @property
    def alive(self) -> bool:
        """Whether the engine process is running."""
        return self._proc.poll() is None

    def _write(self, text: str) -> None:
        stdin = self._proc.stdin
        assert stdin is not None
        stdin.write(text + "\n")
        stdin.flush()

    def command(self, text: str, timeout: float, move_deadline: float | None = None) -> str:
        """Send one command and return the reply's text, within ``timeout``
        seconds (or by ``move_deadline``, a ``time.monotonic()`` instant, if
        sooner: then MoveTimeout). EngineError on a refusal, a malformed or
        oversized reply or a timeout (the engine is stopped for the last two),
        ``EngineDiedError`` if the engine is gone."""
        if not self.alive:
            raise EngineDiedError(f"engine {self.name!r} is not running")
        try:
            self._write(text)
        except (BrokenPipeError, OSError, ValueError) as e:
            raise EngineDiedError(f"engine {self.name!r} died (writing {text!r})") from e
        deadline = time.monotonic() + timeout
        move_bound = move_deadline is not None and move_deadline < deadline
        if move_deadline is not None and move_bound:
            deadline = move_deadline
        reply: list[str] = []
        size = 0
        while True:
            try:
                line = waits.get(self._lines, deadline - time.monotonic())
            except queue.Empty:
                self.stop()
                if move_bound:
                    raise MoveTimeout(f"engine {self.name!r} gave no reply to {text!r} in time") from None
                raise EngineError(f"engine {self.name!r} gave no reply to {text!r} within {timeout:g} s") from None
            if line is None:
                raise EngineDiedError(f"engine {self.name!r} died (waiting for the reply to {text!r})")
            size += len(line)
            if size > MAX_REPLY:
                self.stop()
                raise EngineError(f"engine {self.name!r} sent a reply to {text!r} over {MAX_REPLY} characters")
            line = line.strip()
            if not line:
                if reply:
                    break
                continue
            reply.append(line)
        return self._answer(text, reply)

    def _answer(self, text: str, reply: list[str]) -> str:
        """The text of a reply's lines: ``= text`` (an id may follow the sign);
        EngineError for ``? message`` or anything else."""
        head = reply[0]
        if head[:1] not in ("=", "?"):
            raise EngineError(f"engine {self.name!r} sent a malformed reply to {text!r}: {' / '.join(reply)!r}")
        body = "\n".join([head[1:].lstrip("0123456789").strip(), *reply[1:]]).strip()
        if head[0] == "?":
            raise EngineError(f"engine {self.name!r} refused {text!r}: {body!r}")
        return body

    def quit(self) -> None:
        """Ask the engine to quit, wait a little, then make sure it is gone."""
        if self.alive:
            with contextlib.suppress(Exception):
                self._write("quit")
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._proc.wait(timeout=QUIT_WAIT)
        self.stop()

    def stop(self) -> None:
        """End the engine and its process group now. Safe to call twice: its
        process id is not signalled again once reaped (it may be reused)."""
        if self._stopped:
            return
        self._stopped = True
        processes.stop(self._proc)
        # stdout belongs to the reader thread, which sees EOF once the process is gone.
        with contextlib.suppress(Exception):
            if self._proc.stdin is not None:
                self._proc.stdin.close()
