"""One game between two players under the classic tournament rules.

The rules are the ``Referee``'s (``agents.play.referee``); this module seats the
players, calls them and pushes their answers to it.

``play_game(black, white)`` plays a full game and returns a ``GameResult``:

- each player receives its own fresh copy of the observation, so nothing a
  player does to it can change the real game;
- a forced pass is played for the player (it is not asked) and recorded;
- a turn that takes longer than ``time_limit`` seconds loses ("timeout"), and
  so does a side whose game clock runs out under ``time_control``
  (``agents.clocks.TimeControl``: a clock, an increment, moves to go). A
  timed player (``agents.base.TimedAgent``: isolated ``python:`` / ``classic:``
  players, GTP engines, the terminal human) is given its ``TimeLeft`` (the rule,
  the move's seconds, its clock), keeps the clock itself and is stopped when
  late: its process is killed. A search on a game clock (``ClockedAgent``: a
  ``clock=`` search, or one given no budget under a game clock) is told its
  ``TimeLeft`` before each move and shares its clock out by it; it runs, as any
  other player does, in a daemon worker thread, abandoned on a timeout (and its search stopped if it has a
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
import queue
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from agents.base import (
    Agent,
    MoveTimeout,
    QuitGame,
    RejectedAnswer,
    TamperedBoard,
    TimedAgent,
    stop_agent,
    tell_time,
)
from agents.clocks import Clock, TimeControl
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
from agents.play.referee import DEFAULT_CONTROL, Ply, Referee, Ruling, Verdict
from agents.play.result import LOSING_REASONS as LOSING_REASONS
from agents.play.result import REASONS as REASONS
from agents.play.result import TRANSCRIPT_PASS as TRANSCRIPT_PASS
from agents.play.result import GameResult as GameResult
from agents.play.result import MoveRecord as MoveRecord
from agents.play.result import Reason as Reason
from reversi_env.errors import IllegalMoveError, InvalidMoveError
from reversi_env.notation import action_name, to_action
from reversi_env.observation import observe
from reversi_env.state import PLAYER_NAMES, PLAYER_SYMBOLS, GameState, Player


class MatchInterrupted(KeyboardInterrupt):
    """Ctrl-C during ``play_game``: still a KeyboardInterrupt (so a loop of
    games stops), carrying the game so far as ``result`` (reason "interrupted")."""

    def __init__(self, result: GameResult) -> None:
        """Wrap the partial ``result``."""
        super().__init__(f"game interrupted after {len(result.moves)} moves")
        self.result = result


OnMove = Callable[[MoveRecord, GameState], None]
"""``on_move(record, state_after)``: called in the caller's thread after every ply."""

OnReject = Callable[[Player, str], None]
"""``on_reject(player, text)``: called when a try is rejected, with a line such as
"X tried 'Z9': not a square ..., 2 tries left"."""


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


IDLE_THREAD_EXIT = 5.0
"""Seconds the end of a game waits at most for an idle player thread to end."""

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
        self._abandoned = False
        self._thread = threading.Thread(target=self._serve, name="reversi-player-move", daemon=True)
        self._thread.start()

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
            self._abandoned = True
            return _Outcome("timeout", seconds=limit or 0.0)
        except BaseException:  # a Ctrl-C: the call may run on
            self._abandoned = True
            raise

    def close(self) -> None:
        """Let the thread end once its current call (if any) returns, and wait for an idle
        one to end: a thread left running at the interpreter's exit may abort the process
        (a library's C++ code, torch's say, cannot be unwound there)."""
        self._jobs.put(None)
        if not self._abandoned:
            self._thread.join(IDLE_THREAD_EXIT)


def _check_options(
    time_limit: float | None, time_control: TimeControl | None, on_move: OnMove | None, on_reject: OnReject | None
) -> TimeControl:
    """The game's TimeControl: ``time_control``, or ``time_limit`` seconds a move."""
    if time_control is not None:
        if not isinstance(time_control, TimeControl):
            raise TypeError(f"time_control must be a TimeControl or None, got {type(time_control).__name__}")
        if time_limit is not None and time_limit != DEFAULT_CONTROL.move:
            raise ValueError("give time_limit or time_control, not both")
    elif time_limit is not None and (
        isinstance(time_limit, bool) or not isinstance(time_limit, (int, float)) or not 0 < time_limit <= MAX_SECONDS
    ):
        raise ValueError(f"time_limit must be None or seconds > 0 and <= {MAX_SECONDS:g}, got {time_limit!r}")
    for name, hook in (("on_move", on_move), ("on_reject", on_reject)):
        if hook is not None and not callable(hook):
            raise TypeError(f"{name} must be callable or None, got {hook!r}")
    return TimeControl.per_move(time_limit) if time_control is None else time_control


def _as_agent(player: object, color: Player, control: TimeControl) -> Agent:
    """An Agent as is; a player spec string built by ``build_player`` (in a
    process of its own when it runs other people's code, with a time limit or
    without); anything else through ``adapt`` (a callable, a model, a classic
    player)."""
    if isinstance(player, Agent):
        return player
    if isinstance(player, str):
        agent: Agent = build_player(player, color, time_limit=control.load_limit(), isolate=True, time_control=control)
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
    time_control: TimeControl | None = None,
    clocks: tuple[Clock, Clock] | None = None,
) -> GameResult:
    """Play one game, ``black`` against ``white``, and return its record.

    Args:
        black: black's player: an Agent, a player spec string ("greedy",
            "mcts:time=1", see ``agents.play.specs``) or anything ``agents.adapt``
            accepts; players built here from specs are closed at the end.
        white: white's player, as ``black``.
        time_limit: seconds a turn may take (None: no limit), when no ``time_control`` is given.
        max_illegal: the illegal answers at one turn that lose.
        on_move: ``on_move(record, state)``, called after every ply.
        on_reject: ``on_reject(player, text)``, called after every rejected try.
        start: the position to start from (default: the standard start).
        time_control: the time rule (seconds a move, a game clock, an increment,
            moves to go); it replaces ``time_limit``.
        clocks: the sides' clocks as the game so far left them, kept up to date as the
            game goes (a game taken up again after an undo); default full clocks.

    Returns:
        The game's record.

    Raises:
        MatchInterrupted: Ctrl-C, carrying the game so far.
        ValueError, TypeError: a bad option.

    See the module docstring for the rules (``agents.play.referee`` holds them).
    """
    control = _check_options(time_limit, time_control, on_move, on_reject)
    referee = Referee(start, time_control=control, max_illegal=max_illegal, clocks=clocks)  # checks them
    built: list[Agent] = []
    try:
        for color, player in enumerate((black, white)):
            built.append(_as_agent(player, color, control))
        referee.names = (_player_name(built[0]), _player_name(built[1]))
        return _Match((built[0], built[1]), referee, on_move, on_reject).play()
    finally:
        for color, player in enumerate((black, white)):
            if isinstance(player, str) and color < len(built):
                close = getattr(built[color], "close", None)
                if callable(close):
                    with contextlib.suppress(Exception):
                        close()


class _Match:
    """The seats of one game: each player's calls (a timed player in this
    thread, any other in its own) and what came back, pushed to the referee."""

    def __init__(
        self, players: tuple[Agent, Agent], referee: Referee, on_move: OnMove | None, on_reject: OnReject | None
    ) -> None:
        self.players = players
        self.referee = referee
        self.on_move = on_move
        self.on_reject = on_reject
        self.timed = [isinstance(p, TimedAgent) for p in players]
        self.threads = [None if self.timed[c] else _PlayerThread() for c in (0, 1)]

    def call(self, color: Player, limit: float | None, fn: Callable[..., object], *args: object) -> _Outcome:
        """Run a player's method: a timed player here (it keeps the clock),
        any other in its thread within ``limit`` seconds."""
        thread = self.threads[color]
        if thread is None:
            out = _run(fn, args)
            return _Outcome("timeout", seconds=out.seconds) if isinstance(out.error, MoveTimeout) else out
        out = thread.call(fn, args, limit)
        if out.kind == "timeout":
            stop_agent(self.players[color])  # the late search ends rather than run on in the abandoned thread
        return out

    def play(self) -> GameResult:
        """The game to its end: ``referee.result``."""
        referee = self.referee
        try:
            self._reset()
            self._report(referee.begin())
            while not referee.over:
                self._turn()
            assert referee.result is not None
            return referee.result
        except KeyboardInterrupt as e:
            for color in (0, 1):
                if self.threads[color] is not None:
                    stop_agent(self.players[color])  # a search under way in its thread
            if isinstance(e, MatchInterrupted):
                raise
            raise MatchInterrupted(referee.interrupt()) from e
        finally:
            for thread in self.threads:
                if thread is not None:
                    thread.close()

    def _reset(self) -> None:
        """Each player's ``reset()``, within the time of a move: slower or raising loses."""
        for color, agent in enumerate(self.players):
            reset = getattr(agent, "reset", None)
            if callable(reset) and not self.referee.over:
                limit = self.referee.time_control.load_limit()
                out = self.call(color, limit, reset)
                who = PLAYER_NAMES[color]
                if out.kind == "timeout":
                    self.referee.lose(Reason.TIMEOUT, f"{who} took over {limit} s to start (reset())", color)
                elif out.kind == "raised":
                    self.referee.lose(Reason.ERROR, f"{who} raised in reset():\n{bounded(out.trace)}", color)

    def _report(self, plies: tuple[Ply, ...]) -> None:
        if self.on_move is not None:
            for record, state in plies:
                self.on_move(record, state)

    def _turn(self) -> None:
        """Ask the side to move until the referee plays its move or ends the game."""
        referee = self.referee
        mover = referee.to_move
        left = referee.time_left()
        if left is not None and left <= 0:
            referee.time_out()
            return
        agent, observation = self.players[mover], observe(referee.state, mover)
        if self.timed[mover]:
            out = self.call(mover, left, agent.act_timed, observation, referee.reading())  # type: ignore[attr-defined]
        else:
            tell_time(agent, referee.reading())
            out = self.call(mover, left, agent.act, observation)
        ruling = self._rule(mover, out)
        rejected = ruling.verdict is Verdict.REJECTED or ruling.reason is Reason.ILLEGAL
        if rejected and self.on_reject is not None:
            self.on_reject(mover, ruling.text)
        self._report(ruling.plies)

    def _rule(self, mover: Player, out: _Outcome) -> Ruling:
        """The referee's ruling on what the side to move's call produced."""
        referee, who, number = self.referee, PLAYER_NAMES[mover], len(self.referee.moves) + 1
        if out.kind == "timeout":
            return referee.time_out(out.seconds)
        if isinstance(out.error, QuitGame):
            return referee.quit(f"{who} quit" + (f": {_first_line(out.error)}" if str(out.error) else ""), out.seconds)
        if isinstance(out.error, TamperedBoard):
            return referee.lose(Reason.TAMPER, f"{who} changed the board at move {number}: {bounded(str(out.error))}")
        if out.kind == "raised" and not isinstance(out.error, InvalidMoveError):
            return referee.lose(Reason.ERROR, f"{who} raised at move {number}:\n{bounded(out.trace)}")
        try:
            if out.error is not None:
                raise out.error
            return referee.play(read_answer(out.value), out.seconds)
        except ValueError as e:
            return referee.reject(_tried(PLAYER_SYMBOLS[mover], out, e), out.seconds)
