"""One game between two players under the classic tournament rules.

``play_game(black, white)`` plays a full game and returns a ``GameResult``:

- each player receives its own fresh copy of the observation, so nothing a
  player does to it can change the real game;
- a forced pass is played for the player (it is not asked) and recorded;
- a turn that takes longer than ``time_limit`` seconds loses ("timeout"). A
  timed player (``agents.base.TimedAgent``: isolated ``python:`` / ``classic:``
  players, GTP engines, the terminal human) keeps the clock itself and is
  stopped when late: its process is killed. Any other player runs in a daemon
  worker thread, abandoned on a timeout (and its search stopped if it has a
  ``stop()``, as our own agents do), so a player that hangs still loses and
  ``play_game`` returns within ``time_limit`` plus a moment (but an abandoned
  thread without a stop may keep a core busy: see docs/matches.md);
- ``max_illegal`` illegal or malformed moves at one turn lose ("illegal"); the
  player is asked again after each of the earlier ones, and each rejected try
  is reported to ``on_reject`` as it happens and kept in ``details``. An ``act``
  that raises ``InvalidMoveError`` (an adapter that could not read its player's
  answer) counts as a malformed move, and ``RejectedAnswer`` (an adapter that
  refused its player's answer: a course player's "d3") as an illegal one;
- an exception loses ("error"), its traceback (bounded) kept in ``details``;
- a player that raises ``TamperedBoard`` (a course player that changed the real
  board) loses ("tamper");
- a player that raises ``QuitGame`` (a human typing "Q", a classic player
  returning "Q", the end of input) ends the game at once, scored by the discs on
  the board ("quit").

An abandoned worker only holds its own observation copy and a result box that
nobody reads any more, so a late answer cannot touch the game. The agent object
itself may still be busy in that thread: do not reuse an agent that timed out.
Without a time limit, players that are not timed still run in a worker thread,
so Ctrl-C stops the game at once even while a long search runs, with a time
limit too, and whichever thread the kernel gave the signal (``waits``).
"""

from __future__ import annotations

import contextlib
import json
import queue
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from agents.base import Agent, MoveTimeout, QuitGame, RejectedAnswer, TamperedBoard, TimedAgent, stop_agent
from agents.datafiles import load_json
from agents.limits import MAX_SECONDS
from agents.play import waits
from agents.play.adapters import adapt
from agents.play.isolation import (
    ChildTraceback,
    PlayerError,
    PlayerStartError,
    bounded,
    build_player,
    read_answer,
    safe_repr,
)
from reversi_env.errors import IllegalMoveError, InvalidMoveError
from reversi_env.notation import PASS, action_name, to_action
from reversi_env.observation import observe
from reversi_env.state import BLACK, PLAYER_NAMES, PLAYER_SYMBOLS, GameState, Player

REASONS = ("end", "timeout", "illegal", "error", "tamper", "resign", "quit", "interrupted")
"""Why a game ended: played out, a player's timeout, illegal moves,
exception or change to the real board (``TamperedBoard``), a player who
resigned (a person at the terminal or in the window; a record read from GGF),
a player's quit, or Ctrl-C (``MatchInterrupted``)."""

LOSING_REASONS = ("timeout", "illegal", "error", "tamper", "resign")
"""The reasons that cost a player (``loser``) the game whatever the discs say."""

TRANSCRIPT_PASS = "--"
"""How a pass is written in a transcript (every move takes two characters)."""


class MatchInterrupted(KeyboardInterrupt):
    """Ctrl-C during ``play_game``: still a KeyboardInterrupt (so a loop of
    games stops), carrying the game so far as ``result`` (reason "interrupted")."""

    def __init__(self, result: GameResult) -> None:
        """Wrap the partial ``result``."""
        super().__init__(f"game interrupted after {len(result.moves)} moves")
        self.result = result


@dataclass(frozen=True)
class MoveRecord:
    """One ply as ``on_move`` sees it: who moved, what, and the thinking time."""

    ply: int
    player: Player
    action: int
    seconds: float
    forced: bool = False

    @property
    def name(self) -> str:
        """The move in notation: "D3" or "PASS"."""
        return action_name(self.action)


OnMove = Callable[[MoveRecord, GameState], None]
"""``on_move(record, state_after)``: called in the caller's thread after every ply."""

OnReject = Callable[[Player, str], None]
"""``on_reject(player, text)``: called when a try is rejected, with a line such as
"X tried 'Z9': not a square ..., 2 tries left"."""


@dataclass
class GameResult:
    """The record of one game, JSON round-trippable with ``to_json``/``from_json``.

    ``black`` / ``white`` are the disc counts on the board when the game
    stopped. ``winner`` is "black", "white" or "draw": by discs for "end",
    "quit" and "interrupted", the opponent of ``loser`` for a timeout, illegal
    moves or an error.
    ``moves`` holds every ply in notation ("D3", "PASS"), passes included, so the
    players alternate strictly from ``start`` (compact board text, None for the
    standard start). ``times`` holds each ply's thinking time in seconds (0 for
    a forced pass).
    """

    winner: str
    black: int
    white: int
    reason: str = "end"
    moves: list[str] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    loser: str | None = None
    details: str = ""
    black_name: str = "black"
    white_name: str = "white"
    start: str | None = None

    @property
    def disc_difference(self) -> int:
        """Black's discs minus white's."""
        return self.black - self.white

    @property
    def transcript(self) -> str:
        """The moves as one lowercase string, ``"f5d6c3..."``, a pass as ``"--"``."""
        return "".join(TRANSCRIPT_PASS if m == "PASS" else m.lower() for m in self.moves)

    def start_state(self) -> GameState:
        """The position the game started from."""
        return GameState.initial() if self.start is None else GameState.from_string(self.start)

    def mover(self, ply: int) -> Player:
        """Who played ply ``ply`` (0-based): players alternate, passes included."""
        return (self.start_state().player + ply) % 2

    @property
    def black_time(self) -> float:
        """Black's total thinking time in seconds."""
        return self._total(BLACK)

    @property
    def white_time(self) -> float:
        """White's total thinking time in seconds."""
        return self._total(1 - BLACK)

    def _total(self, player: Player) -> float:
        first = self.start_state().player
        return float(sum(t for i, t in enumerate(self.times) if (first + i) % 2 == player))

    def final_state(self) -> GameState:
        """The last position, replayed from ``start`` and ``moves`` (checked)."""
        state = self.start_state()
        for m in self.moves:
            state = state.apply(m)
        return state

    @property
    def ending(self) -> str:
        """How the game ended, in words ("black resigned", "white lost on time");
        "" for a game played out."""
        how = {
            "timeout": f"{self.loser} lost on time",
            "illegal": f"{self.loser} lost by illegal moves",
            "error": f"{self.loser} lost by an error",
            "tamper": f"{self.loser} lost by changing the board",
            "quit": (self.details.splitlines() or ["a player quit"])[-1],
            "interrupted": "interrupted",
            "resign": f"{self.loser} resigned",
        }
        return "" if self.reason == "end" else how[self.reason]

    def summary(self) -> str:
        """One line for people: the winner, the score and, unless the game was
        played out, how it ended (an unfinished game names no winner)."""
        who = "draw" if self.winner == "draw" else f"{self.winner} wins"
        if self.reason == "interrupted":
            who = "not finished"
        line = f"{who}, {self.black}-{self.white} (black {self.black_name}, white {self.white_name})"
        return f"{line}; {self.ending}" if self.ending else line

    def to_dict(self) -> dict[str, Any]:
        """A plain dict for JSON, with the derived figures included for readers."""
        return {
            "winner": self.winner,
            "black": self.black,
            "white": self.white,
            "disc_difference": self.disc_difference,
            "reason": self.reason,
            "loser": self.loser,
            "details": self.details,
            "black_name": self.black_name,
            "white_name": self.white_name,
            "start": self.start,
            "moves": list(self.moves),
            "transcript": self.transcript,
            "times": list(self.times),
            "black_time": self.black_time,
            "white_time": self.white_time,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameResult:
        """The inverse of ``to_dict`` (derived figures are recomputed); raises
        ValueError naming the field for a malformed record."""
        if not isinstance(data, dict):
            raise ValueError(f"a game result must be a dict, got {type(data).__name__}")
        try:
            result = cls(
                winner=str(data["winner"]),
                black=int(data["black"]),
                white=int(data["white"]),
                reason=str(data.get("reason", "end")),
                moves=[str(m) for m in data.get("moves", [])],
                times=[float(t) for t in data.get("times", [])],
                loser=None if data.get("loser") is None else str(data["loser"]),
                details=str(data.get("details", "")),
                black_name=str(data.get("black_name", "black")),
                white_name=str(data.get("white_name", "white")),
                start=None if data.get("start") is None else str(data["start"]),
            )
        except KeyError as e:
            raise ValueError(f"a game result needs the field {e.args[0]!r}") from e
        except (TypeError, ValueError) as e:
            raise ValueError(f"malformed game result: {e}") from e
        result._check()
        return result

    def _check(self) -> None:
        if self.winner not in ("black", "white", "draw"):
            raise ValueError(f"winner must be 'black', 'white' or 'draw', got {self.winner!r}")
        if self.reason not in REASONS:
            raise ValueError(f"reason must be one of {REASONS}, got {self.reason!r}")
        if self.loser not in (None, "black", "white"):
            raise ValueError(f"loser must be None, 'black' or 'white', got {self.loser!r}")
        if len(self.times) != len(self.moves):
            raise ValueError(f"{len(self.moves)} moves but {len(self.times)} times")
        if not all(0 <= t < float("inf") for t in self.times):
            raise ValueError("times must be finite and >= 0")
        final = self.final_state()  # the start must parse and the moves replay legally
        if final.score() != (self.black, self.white):
            raise ValueError(f"the moves end with {final.score()} discs, the record says {(self.black, self.white)}")
        if (self.reason in LOSING_REASONS) != (self.loser is not None):
            raise ValueError(f"reason {self.reason!r} and loser {self.loser!r} contradict each other")
        if self.loser is not None:
            expected = "white" if self.loser == "black" else "black"
        else:
            expected = "draw" if self.black == self.white else ("black" if self.black > self.white else "white")
        if self.winner != expected:
            raise ValueError(f"winner {self.winner!r} contradicts the record (expected {expected!r})")
        if self.reason == "end" and not final.is_terminal():
            raise ValueError("reason 'end' but the game is not over after the moves")

    def to_json(self, **kwargs: Any) -> str:
        """``json.dumps(self.to_dict(), **kwargs)``."""
        return json.dumps(self.to_dict(), **kwargs)

    @classmethod
    def from_json(cls, text: str) -> GameResult:
        """The inverse of ``to_json``."""
        try:
            data = load_json(text)
        except ValueError as e:
            raise ValueError(f"not a JSON game result: {e}") from e
        return cls.from_dict(data)


@dataclass
class _Outcome:
    """What one call into a player produced."""

    kind: str  # "ok", "raised" or "timeout"
    value: object = None
    error: BaseException | None = None
    trace: str = ""
    seconds: float = 0.0


def _run(fn: Callable[..., object], args: Sequence[object]) -> _Outcome:
    """Call ``fn(*args)`` and time it; an exception becomes a "raised" outcome."""
    t0 = time.perf_counter()
    try:
        value = fn(*args)
    except BaseException as e:
        # Ctrl-C (and any other signal turned into an exception) reaches only
        # the main thread, and there it stops the game; a player's own
        # sys.exit() is just its error.
        if not isinstance(e, (Exception, SystemExit)) and threading.current_thread() is threading.main_thread():
            raise
        return _Outcome("raised", error=e, trace=_trace(e), seconds=time.perf_counter() - t0)
    return _Outcome("ok", value=value, seconds=time.perf_counter() - t0)


def _trace(error: BaseException) -> str:
    """The traceback to keep for a player's exception. For an isolated player
    the frames in this process are the runner's own: keep the child's
    traceback (the player's code), or the one line saying how its process
    ended."""
    if isinstance(error, PlayerError) and isinstance(error.__cause__, ChildTraceback):
        return str(error.__cause__)
    if isinstance(error, (PlayerError, PlayerStartError)):
        return f"{type(error).__name__}: {error}"
    return traceback.format_exc()


_Job = tuple[Callable[..., object], Sequence[object], "queue.SimpleQueue[_Outcome]"]


class _PlayerThread:
    """A daemon thread that runs one player's calls, one at a time.

    Each call brings its own result box; after a timeout the thread is
    abandoned (the game is over for its player) and whatever it returns later
    lands in a box nobody reads. One thread per player and game saves starting
    a thread per move.
    """

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[
            tuple[Callable[..., object], Sequence[object], queue.SimpleQueue[_Outcome]] | None
        ]
        self._jobs = queue.SimpleQueue()
        threading.Thread(target=self._serve, name="reversi-player-move", daemon=True).start()

    def _serve(self) -> None:
        while (job := self._jobs.get()) is not None:
            fn, args, box = job
            box.put(_run(fn, args))

    def call(self, fn: Callable[..., object], args: Sequence[object], limit: float | None) -> _Outcome:
        """``fn(*args)`` in the thread, or a "timeout" outcome after ``limit``
        seconds (None: wait as long as it takes; Ctrl-C stops the wait either way, ``waits``)."""
        box: queue.SimpleQueue[_Outcome] = queue.SimpleQueue()
        self._jobs.put((fn, args, box))
        try:
            return waits.get(box, limit)
        except queue.Empty:
            return _Outcome("timeout", seconds=limit or 0.0)

    def close(self) -> None:
        """Let the thread end once its current call (if any) returns."""
        self._jobs.put(None)


def _check_options(time_limit: float | None, max_illegal: int, on_move: OnMove | None, start: object) -> None:
    if time_limit is not None and (
        isinstance(time_limit, bool) or not isinstance(time_limit, (int, float)) or not 0 < time_limit <= MAX_SECONDS
    ):
        raise ValueError(f"time_limit must be None or seconds > 0 and <= {MAX_SECONDS:g}, got {time_limit!r}")
    if isinstance(max_illegal, bool) or not isinstance(max_illegal, int) or max_illegal < 1:
        raise ValueError(f"max_illegal must be an int >= 1, got {max_illegal!r}")
    if on_move is not None and not callable(on_move):
        raise TypeError(f"on_move must be callable or None, got {on_move!r}")
    if start is not None and not isinstance(start, GameState):
        raise TypeError(f"start must be a GameState or None, got {type(start).__name__}")


def _as_agent(player: object, color: Player, time_limit: float | None) -> Agent:
    """An Agent as is; a player spec string built by ``build_player`` (in a
    process of its own when it runs other people's code, with a time limit or
    without); anything else through ``adapt`` (a callable, a model, a classic
    player)."""
    if isinstance(player, Agent):
        return player
    if isinstance(player, str):
        agent: Agent = build_player(player, color, time_limit=time_limit, isolate=True)
        return agent
    return adapt(player, color=color)


def _player_name(agent: object) -> str:
    """The player's ``name`` if it is a string (bounded), else a safe repr of it."""
    name = getattr(agent, "name", type(agent).__name__)
    return name[:200] if isinstance(name, str) else safe_repr(name)


def _first_line(error: BaseException) -> str:
    return bounded((str(error).splitlines() or [type(error).__name__])[0], 300)


def _tried(symbol: str, out: _Outcome, error: ValueError) -> str:
    """The text of a rejected try: what was sent and why it was refused."""
    if isinstance(error, RejectedAnswer):
        return f"{symbol} tried {_first_line(error)}"
    if out.error is not None:
        return f"{symbol} tried a malformed move: {_first_line(error)}"
    if isinstance(error, IllegalMoveError):
        name = "" if isinstance(out.value, str) else f" ({action_name(to_action(out.value))})"
        return f"{symbol} tried {safe_repr(out.value)}{name}: not legal here"
    return f"{symbol} tried {safe_repr(out.value)}: {_first_line(error)}"


def play_game(
    black: object,
    white: object,
    *,
    time_limit: float | None = 60.0,
    max_illegal: int = 3,
    on_move: OnMove | None = None,
    on_reject: OnReject | None = None,
    start: GameState | None = None,
) -> GameResult:
    """Play one game, ``black`` against ``white``, and return its record.

    Players are Agents, player spec strings ("greedy", "mcts:time=1", see
    ``agents.play.specs``) or anything ``agents.adapt`` accepts; players built
    here from specs are closed at the end. ``time_limit`` is per turn, in
    seconds (None: no limit). ``on_move(record, state)`` is called after every
    ply, ``on_reject(player, text)`` after every rejected try. ``start`` is the
    position to start from (default: the standard start). Ctrl-C raises
    ``MatchInterrupted`` carrying the game so far. See the module docstring for
    the rules.
    """
    _check_options(time_limit, max_illegal, on_move, start)
    if on_reject is not None and not callable(on_reject):
        raise TypeError(f"on_reject must be callable or None, got {on_reject!r}")
    built: list[Agent] = []
    try:
        for color, player in enumerate((black, white)):
            built.append(_as_agent(player, color, time_limit))
        players = (built[0], built[1])
        return _play(players, time_limit, max_illegal, on_move, on_reject, start)
    finally:
        for color, player in enumerate((black, white)):
            if isinstance(player, str) and color < len(built):
                close = getattr(built[color], "close", None)
                if callable(close):
                    with contextlib.suppress(Exception):
                        close()


def _play(
    players: tuple[Agent, Agent],
    time_limit: float | None,
    max_illegal: int,
    on_move: OnMove | None,
    on_reject: OnReject | None,
    start: GameState | None,
) -> GameResult:
    """The game itself (``play_game`` builds and closes the players)."""
    names = (_player_name(players[0]), _player_name(players[1]))
    state = GameState.initial() if start is None else start
    moves: list[str] = []
    times: list[float] = []
    notes: list[str] = []  # illegal moves that did not lose, for the record

    def finish(reason: str, loser: Player | None = None, details: str = "") -> GameResult:
        b, w = state.score()
        by_discs = "draw" if b == w else ("black" if b > w else "white")
        winner = by_discs if loser is None else PLAYER_NAMES[1 - loser]
        return GameResult(
            winner=winner,
            black=b,
            white=w,
            reason=reason,
            moves=moves,
            times=times,
            loser=None if loser is None else PLAYER_NAMES[loser],
            details=bounded("\n".join([*notes, details] if details else notes), 4 * 4000),
            black_name=names[0],
            white_name=names[1],
            start=None if start is None else start.compact(),
        )

    timed = [isinstance(p, TimedAgent) for p in players]
    threads = [None if timed[c] else _PlayerThread() for c in (0, 1)]

    def call(color: Player, limit: float | None, fn: Callable[..., object], *args: object) -> _Outcome:
        """Run a player's method: a timed player here (it keeps the clock),
        any other in its thread within ``limit`` seconds."""
        thread = threads[color]
        if thread is None:
            out = _run(fn, args)
            return _Outcome("timeout", seconds=out.seconds) if isinstance(out.error, MoveTimeout) else out
        out = thread.call(fn, args, limit)
        if out.kind == "timeout":
            stop_agent(players[color])  # the late search ends rather than run on in the abandoned thread
        return out

    try:
        for color, agent in enumerate(players):
            reset = getattr(agent, "reset", None)
            if callable(reset):
                out = call(color, time_limit, reset)
                who = PLAYER_NAMES[color]
                if out.kind == "timeout":
                    return finish("timeout", color, f"{who} took over {time_limit} s to start (reset())")
                if out.kind == "raised":
                    return finish("error", color, f"{who} raised in reset():\n{bounded(out.trace)}")

        while not state.is_terminal():
            mover = state.player
            who = PLAYER_NAMES[mover]
            legal = state.legal_actions()
            if legal == [PASS]:
                action, seconds, forced = PASS, 0.0, True
            else:
                forced = False
                seconds = 0.0
                deadline = None if time_limit is None else time.monotonic() + time_limit
                attempts: list[str] = []
                while True:
                    remaining = None if deadline is None else deadline - time.monotonic()
                    if remaining is not None and remaining <= 0:
                        return finish("timeout", mover, f"{who} took over {time_limit} s for move {len(moves) + 1}")
                    agent = players[mover]
                    observation = observe(state, mover)
                    if timed[mover]:
                        out = call(mover, remaining, agent.act_timed, observation, remaining)  # type: ignore[attr-defined]
                    else:
                        out = call(mover, remaining, agent.act, observation)
                    seconds += out.seconds
                    if out.kind == "timeout":
                        return finish("timeout", mover, f"{who} took over {time_limit} s for move {len(moves) + 1}")
                    if out.kind == "raised" and isinstance(out.error, QuitGame):
                        return finish(
                            "quit", None, f"{who} quit" + (f": {_first_line(out.error)}" if str(out.error) else "")
                        )
                    if out.kind == "raised" and isinstance(out.error, TamperedBoard):
                        return finish(
                            "tamper",
                            mover,
                            f"{who} changed the board at move {len(moves) + 1}: {bounded(str(out.error))}",
                        )
                    if out.kind == "raised" and not isinstance(out.error, InvalidMoveError):
                        return finish("error", mover, f"{who} raised at move {len(moves) + 1}:\n{bounded(out.trace)}")
                    try:
                        if out.error is not None:
                            raise out.error
                        action = read_answer(out.value)
                        if not state.is_legal(action):
                            state.apply(action)  # raises IllegalMoveError with the board
                        break
                    except ValueError as e:
                        attempts.append(_tried(PLAYER_SYMBOLS[mover], out, e))
                        left = max_illegal - len(attempts)
                        if on_reject is not None:
                            tries = "no tries left" if left == 0 else f"{left} {'try' if left == 1 else 'tries'} left"
                            on_reject(mover, f"{attempts[-1]}, {tries}")
                        if left <= 0:
                            tried = "\n".join(attempts)
                            why = f"{who} sent {len(attempts)} illegal moves:\n{tried}\n{state}"
                            return finish("illegal", mover, why)
                if attempts:
                    notes.append(f"{who} move {len(moves) + 1}: rejected " + "; ".join(attempts))
            state = state.apply(action)
            moves.append(action_name(action))
            times.append(seconds)
            if on_move is not None:
                on_move(MoveRecord(len(moves) - 1, mover, action, seconds, forced), state)
        return finish("end")
    except KeyboardInterrupt as e:
        for color in (0, 1):
            if threads[color] is not None:
                stop_agent(players[color])  # a search under way in its thread
        if isinstance(e, MatchInterrupted):
            raise
        raise MatchInterrupted(finish("interrupted", None, "interrupted (Ctrl-C)")) from e
    finally:
        for thread in threads:
            if thread is not None:
                thread.close()
