"""A person at the terminal as an Agent.

Typed commands: a square ("D3" or "d3"), "pass" (the match runner plays
forced passes by itself, so this only explains), "hint" (an MCTS suggestion),
"help", "board" and "Q" to quit. Bad input gets a message and a new prompt.
"Q" and the end of input raise ``QuitGame``, so the game ends scored by discs;
Ctrl-C is left to propagate (``play_game`` turns it into ``MatchInterrupted``).

The human keeps its own clock (``act_timed``): the prompt shows the seconds
left, and a person who does not answer in time (a silent pipe, a walk away from
the keyboard) loses on time (``MoveTimeout``). Standard input is read straight
from its file descriptor with ``select`` and ``os.read``, in the calling thread:
no thread is ever left blocked in Python's buffered reader, which at exit would
abort the interpreter ("_enter_buffered_busy").
"""

from __future__ import annotations

import os
import select
import sys
import time
from collections.abc import Callable

from agents.base import MoveTimeout, QuitGame
from agents.clocks import TimeLeft
from reversi_env.errors import InvalidMoveError
from reversi_env.notation import PASS, action_name, parse_action
from reversi_env.observation import Observation, state_from_observation
from reversi_env.state import PLAYER_NAMES, PLAYER_SYMBOLS, parse_player

HELP = """Commands:
  D3, d3   play on that square (column letter A-H, row digit 1-8)
  hint     ask MCTS for a suggestion
  board    show the board again
  pass     only when you have no move (it is then played for you)
  help     this text
  Q        quit: the game ends and is scored by the discs on the board"""

ECHO_MAX = 20
"""A line that is not a move is quoted back up to this many characters."""

HINT_SIMULATIONS = 3000
"""Simulations behind a hint: a second or less, and reproducible."""


class LineReader:
    """Lines from a file descriptor, each read before a deadline."""

    def __init__(self, fd: int) -> None:
        """Read from ``fd`` (0 for standard input)."""
        self.fd = fd
        self._buffer = b""
        self._eof = False

    def readline(self, timeout: float | None) -> str:
        """The next line without its newline; EOFError at the end of input,
        TimeoutError if none is complete within ``timeout`` seconds."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while b"\n" not in self._buffer and not self._eof:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                raise TimeoutError("no line in time")
            ready, _, _ = select.select([self.fd], [], [], left)
            if ready:
                chunk = os.read(self.fd, 4096)
                self._buffer += chunk
                self._eof = not chunk
        if not self._buffer:
            raise EOFError("end of input")
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode(errors="replace")


_STDIN: list[LineReader] = []


def stdin_reader() -> LineReader:
    """The one reader of standard input (two people at one terminal share it)."""
    if not _STDIN:
        try:
            fd = sys.stdin.fileno()
        except (AttributeError, OSError, ValueError):  # no standard input at all (closed, None)
            raise EOFError("no standard input") from None
        _STDIN.append(LineReader(fd))
    return _STDIN[0]


def mcts_hint(observation: Observation) -> int:
    """The move MCTS suggests for the player to move (a fixed simulation count and seed)."""
    from agents.search.mcts import MCTSAgent

    return MCTSAgent(simulations=HINT_SIMULATIONS, seed=0).act(observation)


class HumanPlayer:
    """Asks a person for moves: reads lines with ``read(prompt)`` (default:
    standard input, before the deadline) and writes messages with ``write``
    (default ``print``)."""

    def __init__(
        self,
        color: object,
        *,
        read: Callable[[str], str] | None = None,
        write: Callable[[str], object] = print,
        hint: Callable[[Observation], int] = mcts_hint,
        name: str = "human",
        intercept: Callable[[str], None] | None = None,
        more_help: str = "",
    ) -> None:
        """``color`` is the colour this person plays; ``hint`` suggests moves;
        ``intercept`` sees every typed line first and may raise ``QuitGame`` to
        end the turn (the terminal's "undo" and "resign"); ``more_help``: lines
        that "help" shows after its own, for the words ``intercept`` takes."""
        self.color = parse_player(color)
        self.intercept = intercept
        self.more_help = more_help
        self.read = read
        self.write = write
        self.hint = hint
        self.name = name

    def act(self, observation: Observation) -> int:
        """Prompt until the person types a legal move, or raise ``QuitGame``."""
        return self.act_timed(observation, None)

    def _line(self, prompt: str, deadline: float | None) -> str:
        """One typed line; MoveTimeout past ``deadline``."""
        if self.read is not None:
            line = self.read(prompt)
        else:
            sys.stdout.write(prompt)
            sys.stdout.flush()
            try:
                line = stdin_reader().readline(None if deadline is None else deadline - time.monotonic())
            except TimeoutError:
                self.write("")
                raise MoveTimeout("no move typed in time") from None
            except OSError as e:  # standard input closed or unreadable: as good as its end
                raise EOFError(str(e)) from None
        if deadline is not None and time.monotonic() > deadline:
            raise MoveTimeout("the move was typed too late")
        return line

    def act_timed(self, observation: Observation, limit: TimeLeft | float | None) -> int:
        """Prompt until the person types a legal move within ``limit`` (its seconds:
        ``TimeLeft.of``; the prompt shows the time left); MoveTimeout after it, QuitGame
        for Q or the end of input."""
        timeout = TimeLeft.of(limit).seconds
        deadline = None if timeout is None else time.monotonic() + timeout
        state = state_from_observation(observation, self.color)
        legal = state.legal_actions()
        names = " ".join(action_name(a) for a in legal)
        me = f"{PLAYER_NAMES[self.color]} ({PLAYER_SYMBOLS[self.color]})"
        while True:
            clock = "" if deadline is None else f" [{max(0.0, deadline - time.monotonic()):.0f} s left]"
            try:
                line = self._line(f"{me}{clock} move [{names} | hint | help | Q]: ", deadline)
            except EOFError:
                self.write("")
                raise QuitGame("end of input") from None
            if self.intercept is not None:
                self.intercept(line)
            command = line.strip().lower()
            if not command:
                continue
            if command in ("q", "quit", "exit"):
                raise QuitGame("typed Q")
            if command in ("help", "h", "?"):
                self.write(HELP + (f"\n{self.more_help}" if self.more_help else ""))
                continue
            if command == "board":
                self.write(str(state))
                continue
            if command == "hint":
                try:
                    self.write(f"hint: {action_name(self.hint(observation))}")
                except Exception as e:  # a broken hint must not cost the person the game
                    self.write(f"no hint available: {type(e).__name__}: {e}")
                continue
            try:
                action = parse_action(command)
            except InvalidMoveError:
                typed = line.strip()
                shown = repr(typed if len(typed) <= ECHO_MAX else typed[:ECHO_MAX] + "...")
                self.write(f"{shown} is not a move. Type a square like D3, or 'help'.")
                continue
            if action in legal:
                return action
            if action == PASS:
                self.write(f"You cannot pass: you have legal moves ({names}).")
            else:
                self.write(f"{action_name(action)} is not legal here. Legal moves: {names}")
