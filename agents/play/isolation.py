"""Players in a process of their own, so a move over the time limit is stopped.

A player we cannot trust (a ``python:`` or ``classic:`` spec: a student's
code, a regex that backtracks for hours, a C loop holding the GIL, an
``os._exit``, a patch of our modules) plays through ``IsolatedPlayer``, with a
time limit or without: a child interpreter builds it from its spec
and answers one request at a time over a pair of pipes. When a move is late the
child is stopped (SIGTERM, SIGKILL after ``processes.GRACE``) and the move loses
on time, so the limit holds within a fraction of a second whatever the player
does, and nothing of it survives into the next game (a stopped player is
started again, fresh, by ``reset``). Its memory is capped too
(``memory_limit``, 4 GiB of address space by default): past it the player's
allocation fails and it loses by an error saying "out of memory", also when
the player holds the memory and our own reply is the one that finds none left
(``processes.RESERVE``). And it is fenced off from every other process before its code
is loaded (``processes.confine``, Linux 6.12 or later): a signal or ``ptrace``
aimed at the judge or the opponent fails, and the player loses by that error.

The protocol is one JSON object a line each way, over pipes of their own (the
child's stdout and stderr stay the terminal's, so a course player may print;
its stdin is /dev/null, so it never reads a person's moves; under ``reversi
gtp``/``nboard``, whose stdout carries a protocol, and in the arena, whose stdout
carries the table and ``--json -``, ``protocol=True`` sends its stdout to stderr).
It sees nothing of the judge: not its environment (``processes.player_environment``
passes what Python and its libraries read, no tokens), nor its /proc entries
(``processes.hide``); docs/fence.md says what the fence covers and what not.
The protocol, one line each way:

- child -> parent, at start: ``{"boot": pid}`` once our code is imported, then
  ``{"ready": name}`` once the player is built, or ``{"fail": text}``;
- parent -> child: ``{"reset": 1}`` (a new game) or ``{"act": [planes, mask]}``
  (the observation as hex bytes: the player gets exactly what an in-process one
  would);
- child -> parent: ``{"ok": 1}``, ``{"move": answer}`` (the player's answer as
  it is when it is a number, a string or None, so the parent judges it exactly
  as an in-process answer; anything else converted to an action), or a verdict the parent
  raises again: ``{"invalid": text}`` (InvalidMoveError, a malformed move),
  ``{"rejected": [answer, why]}`` (RejectedAnswer, an answer the adapter refused),
  ``{"quit": text}`` (QuitGame), ``{"tamper": text}`` (TamperedBoard),
  ``{"error": "Type: message", "trace": traceback}`` (anything else the player
  raised; the parent raises PlayerError).

Starting the interpreter and importing numpy and numba is ours, not the
player's: it gets ``BOOT_TIMEOUT`` seconds; loading the player's own module and
building it counts against its time limit. Our own agents (MCTS, alpha-beta, the
baselines) stay in the calling process: see docs/matches.md.
"""

from __future__ import annotations

import json
import mmap
import os
import select
import signal
import subprocess
import sys
import time
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import MoveTimeout, QuitGame, RejectedAnswer, TamperedBoard
from agents.clocks import TimeControl, TimeLeft
from agents.play import processes, waits
from agents.play.result import DETAIL_LIMIT as DETAIL_LIMIT
from agents.play.result import bounded as bounded
from agents.play.specs import PlayerSpec, SpecError, parse_spec
from reversi_env.errors import InvalidMoveError
from reversi_env.notation import to_action
from reversi_env.observation import Observation

BOOT_TIMEOUT = 60.0
"""Seconds a child interpreter may take to import our code (a loaded machine
needs a few); the player's own loading counts against its time limit."""

MAX_MESSAGE = 1 << 20
"""Longest line either side accepts (bytes): a reply over it is the player's error."""

_ROOT = str(Path(__file__).resolve().parents[2])
"""The directory holding the ``agents`` package, put first on the child's path."""


_CHILD = (
    "import sys; here = sys.path.pop(0); import runpy; fenced = runpy.run_path(sys.argv[1])['confine'](); "
    "sys.path.insert(0, here); from agents.play.isolation import main; sys.exit(main(sys.argv[2:], fenced=fenced))"
)
"""The child's program (``-c``: running this module with ``-m`` would import it
twice): first ``processes.confine``, run from its file so that no thread (numpy's
included) is started before the fence is up, and with the current directory off
the path meanwhile, so that a ``runpy.py`` or ``ctypes.py`` there is not run
before it; then ``main``."""


class PlayerStartError(RuntimeError):
    """An isolated player could not be started or built (its message says why)."""


class PlayerError(RuntimeError):
    """What an isolated player raised, as one line ("RuntimeError: policy exploded");
    its traceback in the child is this exception's cause (``ChildTraceback``)."""


class ChildTraceback(Exception):  # noqa: N818 - it carries a traceback's text, it is not an error of ours
    """The traceback of an isolated player's exception, as the child printed it."""


def safe_repr(value: object, limit: int = 200) -> str:
    """``repr(value)``, bounded; a repr that raises is named instead of raising."""
    try:
        text = repr(value)
    except BaseException as e:  # a player's object may raise anything from __repr__
        text = f"<{type(value).__name__} whose repr raised {type(e).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def read_answer(value: object) -> int:
    """The action a player's answer names (``to_action``); InvalidMoveError for
    anything else, even an object whose repr, int() or comparisons raise."""
    try:
        return to_action(value)
    except InvalidMoveError:
        raise
    except Exception as e:  # the answer's own methods raised while being read
        raise InvalidMoveError(f"{safe_repr(value)} is not a move ({type(e).__name__} reading it)") from None


def build_player(
    spec: str | PlayerSpec,
    color: object,
    *,
    seed: int | None = None,
    default_time: float = 1.0,
    time_limit: float | None = None,
    protocol: bool = False,
    isolate: bool = False,
    time_control: TimeControl | None = None,
) -> Any:
    """The player ``spec`` (text or parsed) names, playing ``color``: under a
    time limit, or with ``isolate`` without one, a ``python:`` or ``classic:``
    player is an ``IsolatedPlayer`` (``protocol``: see there), so other
    people's code does not run in the process that keeps the score; under a
    time limit a ``gtp:`` engine waits for its engine at most ``time_limit``
    seconds to start; everything else is built here (``PlayerSpec.build``; under
    a ``time_control`` with a game clock, a search given no budget plays on it).
    SpecError if it cannot be. ``reversi play``, the arena and ``play_game``
    isolate always: without a time limit a player that calls ``os._exit`` or
    patches our modules would otherwise end the match or fake its moves."""
    parsed = spec if isinstance(spec, PlayerSpec) else parse_spec(spec)
    if parsed.record.isolated and (isolate or time_limit is not None):
        return IsolatedPlayer(
            parsed.text, color, seed=seed, default_time=default_time, timeout=time_limit, protocol=protocol
        )
    if time_limit is not None and parsed.kind == "gtp":
        from agents.play.gtp import EngineError, GTPEngine

        try:
            return GTPEngine(parsed.target, start_timeout=time_limit, timeout=max(time_limit, 60.0))
        except (EngineError, ValueError) as e:
            raise SpecError(f"cannot build player {parsed.text!r}: {e}") from e
    return parsed.build(color, seed=seed, default_time=default_time, time_control=time_control)


class IsolatedPlayer:
    """A player built from its spec in a child process (see the module docstring).

    ``timeout`` bounds the player's own start-up and each ``reset``; a move is
    bounded by what ``act_timed`` is given. After a timeout or a crash the child
    is gone; ``reset`` starts a fresh one. ``close()`` ends it.
    """

    def __init__(
        self,
        spec: str,
        color: object,
        *,
        seed: int | None = None,
        default_time: float = 1.0,
        timeout: float | None = 60.0,
        protocol: bool = False,
        memory_limit: int | None = processes.MEMORY_LIMIT,
    ) -> None:
        """Start the child at once (it boots while the caller does other
        things); the first ``reset`` or move waits for it. ``memory_limit``
        caps the child's address space (bytes, ``processes.limit_memory``):
        past it the player's allocation fails and it loses by an error."""
        parse_spec(spec)  # a malformed spec fails here, not in the child
        self.spec = spec
        self.name = spec
        self.timeout = timeout
        self.protocol = protocol
        self._config = {
            "spec": spec,
            "color": color,
            "seed": seed,
            "default_time": default_time,
            "memory": memory_limit,
        }
        self._proc: subprocess.Popen[bytes] | None = None
        self._send_fd = -1
        self._recv_fd = -1
        self._buffer = b""
        self._ready = False
        self._moving = False
        self._start()

    # -- the child process ---------------------------------------------------------

    def _start(self) -> None:
        to_child_r, to_child_w = os.pipe()
        from_child_r, from_child_w = os.pipe()
        config = {**self._config, "in": to_child_r, "out": from_child_w, "parent": os.getpid()}
        env = processes.player_environment(dict(os.environ))
        env["PYTHONPATH"] = os.pathsep.join([_ROOT, *filter(None, env.get("PYTHONPATH", "").split(os.pathsep))])
        processes.hide()  # the player cannot read our /proc entries: environment, memory map, files
        try:
            self._proc = processes.popen(
                [sys.executable, "-c", _CHILD, processes.__file__, json.dumps(config)],
                ours=True,
                pass_fds=(to_child_r, from_child_w),
                env=env,
                stdin=subprocess.DEVNULL,  # a person's moves are for the game, never for a player
                stdout=2 if self.protocol else None,  # file descriptor 2: our stderr
            )
        except OSError as e:
            raise PlayerStartError(f"cannot start a process for {self.spec!r}: {e}") from e
        finally:
            os.close(to_child_r)
            os.close(from_child_w)
        self._send_fd, self._recv_fd = to_child_w, from_child_r
        self._buffer = b""
        self._ready = False

    def _stop(self) -> None:
        processes.stop(self._proc)
        self._proc = None
        for fd in (self._send_fd, self._recv_fd):
            if fd >= 0:
                os.close(fd)
        self._send_fd = self._recv_fd = -1

    def close(self) -> None:
        """End the child process (safe to call twice)."""
        self._stop()

    def stop(self) -> None:
        """End the move under way (from another thread) as its timeout does: the
        child is stopped, ``act`` raises PlayerStartError and ``reset`` starts a
        fresh child. With no move under way, nothing."""
        if self._moving:
            processes.stop(self._proc)

    def __del__(self) -> None:
        if getattr(self, "_proc", None) is not None:
            self._stop()

    @property
    def pid(self) -> int | None:
        """The child's process id (None when it is stopped)."""
        return None if self._proc is None else self._proc.pid

    @property
    def alive(self) -> bool:
        """Whether the child process is running."""
        return self._proc is not None and self._proc.poll() is None

    def _receive(self, deadline: float | None, doing: str, asked: str) -> dict[str, Any]:
        """The child's next message; MoveTimeout (child stopped) past ``deadline`` ("took over the
        time limit ``doing``"), PlayerStartError if the child ends ("its process ended ``asked``")."""
        while b"\n" not in self._buffer:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                self._stop()
                raise MoveTimeout(f"{self.name} took over the time limit {doing}")
            # In slices, so the main thread sees a Ctrl-C given to another thread (``waits``).
            ready, _, _ = select.select([self._recv_fd], [], [], waits.WAKE if left is None else min(left, waits.WAKE))
            if not ready:
                continue
            chunk = os.read(self._recv_fd, 65536)
            if not chunk:
                code = self._proc.wait() if self._proc is not None else None
                self._stop()
                raise PlayerStartError(f"{self.name}'s process ended ({processes.how_it_ended(code)}) {asked}")
            self._buffer += chunk
            if len(self._buffer) > MAX_MESSAGE:
                self._stop()
                raise PlayerStartError(f"{self.name} sent a message over {MAX_MESSAGE} bytes {asked}")
        line, _, self._buffer = self._buffer.partition(b"\n")
        message: dict[str, Any] = json.loads(line)
        return message

    def _send(self, message: dict[str, Any]) -> None:
        data = (json.dumps(message) + "\n").encode()
        try:
            while data:
                data = data[os.write(self._send_fd, data) :]
        except OSError as e:
            self._stop()
            raise PlayerStartError(f"{self.name}'s process is gone ({e})") from e

    def _deadline(self, timeout: float | None) -> float | None:
        return None if timeout is None else time.monotonic() + timeout

    def _wait_ready(self, deadline: float | None) -> None:
        """Wait for the child to boot (``BOOT_TIMEOUT``) and build the player (until ``deadline``)."""
        if self._ready:
            return
        if self._proc is None:
            self._start()
        boot = self._receive(time.monotonic() + BOOT_TIMEOUT, "starting Python", "while Python started")
        if "boot" not in boot:
            raise PlayerStartError(f"{self.name}: unexpected start message {safe_repr(boot)}")
        # The player's own loading starts now: its budget too.
        deadline = None if self.timeout is None else max(deadline or 0.0, time.monotonic() + self.timeout)
        message = self._receive(deadline, "to load", "while it loaded")
        if "fail" in message:
            self._stop()
            raise PlayerStartError(str(message["fail"]))
        self.name = str(message.get("ready", self.name))
        self._ready = True

    def wait_ready(self) -> None:
        """Block until the player is built; PlayerStartError (or MoveTimeout)
        saying why it cannot be."""
        self._wait_ready(self._deadline(self.timeout))

    # -- the agent -------------------------------------------------------------------

    def reset(self) -> None:
        """A new game: a fresh child if the last one was stopped, and the player's ``reset``."""
        if not self.alive:
            self._stop()
            self._start()
        self._wait_ready(self._deadline(self.timeout))
        self._send({"reset": 1})
        self._verdict(self._receive(self._deadline(self.timeout), "in reset()", "in reset()"))

    def act(self, observation: Observation) -> int:
        """``act_timed`` with the player's own ``timeout``."""
        return self.act_timed(observation, self.timeout)

    def act_timed(self, observation: Observation, limit: TimeLeft | float | None) -> int:
        """The player's move within ``limit`` (its seconds: ``TimeLeft.of``), else MoveTimeout (the
        child is stopped). Its verdicts are raised again here: InvalidMoveError,
        RejectedAnswer, QuitGame, TamperedBoard, PlayerStartError (a crash), PlayerError (its error)."""
        deadline = self._deadline(TimeLeft.of(limit).seconds)
        self._wait_ready(deadline)
        planes = np.ascontiguousarray(observation["observation"], dtype=np.int8)
        mask = np.ascontiguousarray(observation["action_mask"], dtype=np.int8)
        self._send({"act": [planes.tobytes().hex(), mask.tobytes().hex()]})
        # The answer as the player gave it (an int, a name, None...): play_game checks it.
        self._moving = True
        try:
            answer: int = self._verdict(self._receive(deadline, "to move", "when asked for a move"))
        finally:
            self._moving = False
        return answer

    def _verdict(self, message: dict[str, Any]) -> Any:
        if "move" in message:
            return message["move"]
        if "ok" in message:
            return None
        if "rejected" in message:
            shown, why = message["rejected"]
            raise RejectedAnswer(str(shown), str(why))
        for key, signal_type in (("invalid", InvalidMoveError), ("quit", QuitGame), ("tamper", TamperedBoard)):
            if key in message:
                raise signal_type(str(message[key]))
        if "error" in message:
            raise PlayerError(bounded(str(message["error"]))) from ChildTraceback(
                bounded(str(message.get("trace", "")))
            )
        raise PlayerError(bounded(str(message)))


# -- the child's side ----------------------------------------------------------------


def _observation(planes: str, mask: str) -> Observation:
    return {
        "observation": np.frombuffer(bytes.fromhex(planes), dtype=np.int8).reshape(8, 8, 2).copy(),
        "action_mask": np.frombuffer(bytes.fromhex(mask), dtype=np.int8).copy(),
    }


def _answer(agent: Any, request: dict[str, Any], fenced: bool = False) -> dict[str, Any]:
    """Run one request on the player and turn what happened into a message
    (``fenced``: the child is ``processes.confine``-d)."""
    try:
        if "reset" in request:
            reset = getattr(agent, "reset", None)
            if callable(reset):
                reset()
            return {"ok": 1}
        value = agent.act(_observation(*request["act"]))
    except QuitGame as e:
        return {"quit": bounded(str(e))}
    except TamperedBoard as e:
        return {"tamper": bounded(str(e))}
    except RejectedAnswer as e:
        return {"rejected": [bounded(e.shown, 300), bounded(e.why, 300)]}
    except InvalidMoveError as e:
        return {"invalid": bounded(str(e))}
    except BaseException as e:  # a player's sys.exit() or anything else is its error
        error, trace = f"{type(e).__name__}: {e}", traceback.format_exc()
        if isinstance(e, MemoryError):  # past ``limit_memory``: say so, not a bare "MemoryError"
            error, trace = (
                f"{error.rstrip(': ')}: {processes.memory_note()}",
                f"{trace.rstrip()}: {processes.memory_note()}",
            )
        elif note := processes.fence_note(e, fenced):  # the judge's os.kill, say: tell why it failed
            error, trace = error + note, trace.rstrip() + note
        return {"error": bounded(error, 1000), "trace": bounded(trace)}
    if value is None or (type(value) in (int, float, bool, str) and len(str(value)) <= 100):
        return {"move": value}  # sent as it is: the parent reads it as it would an in-process answer
    try:
        return {"move": read_answer(value)}
    except InvalidMoveError as e:
        return {"invalid": bounded(str(e), 300)}


def serve(config: dict[str, Any], requests: Any, replies: Any) -> int:
    """The child: build the player from ``config`` and answer requests until
    the parent closes the pipe. Returns the exit status."""

    def send(message: dict[str, Any]) -> None:
        replies.write((json.dumps(message) + "\n").encode())
        replies.flush()

    reserve = mmap.mmap(-1, processes.RESERVE)
    send({"boot": os.getpid()})
    ready = False
    try:
        try:
            agent = parse_spec(config["spec"]).build(
                config["color"], seed=config["seed"], default_time=config["default_time"]
            )
        except BaseException as e:  # whatever loading the player's module did
            note = processes.fence_note(e, bool(config.get("fenced")))
            send({"fail": bounded(f"{type(e).__name__}: {e}{note}")})
            return 1
        send({"ready": str(getattr(agent, "name", config["spec"]))})
        ready = True
        for line in requests:
            if len(line) > MAX_MESSAGE:
                return 1
            send(_answer(agent, json.loads(line), bool(config.get("fenced"))))
    except MemoryError:  # in our own code (reading a request, writing a reply): the player holds the memory
        reserve.close()
        error = f"MemoryError: {processes.memory_note()}"
        send({"error": error, "trace": error} if ready else {"fail": error})
        return 1
    return 0


def main(argv: Sequence[str], *, fenced: bool = False) -> int:
    """The child's entry point, given the JSON config (started by ``IsolatedPlayer``);
    ``fenced``: ``processes.confine`` is in force."""
    config = {**json.loads(argv[0]), "fenced": fenced}
    processes.die_with_parent(int(config["parent"]))
    processes.keep_orphans()  # what the player starts and abandons stays ours to stop
    processes.limit_memory(config.get("memory"))
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    with os.fdopen(config["in"], "rb") as requests, os.fdopen(config["out"], "wb") as replies:
        try:
            return serve(config, requests, replies)
        except BrokenPipeError:
            return 1
