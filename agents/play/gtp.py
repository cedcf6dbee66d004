"""External Othello engines as agents, over the Go Text Protocol (GTP).

Othello engines that speak GTP (``gtp-rhino`` from Debian's ``grhino``, for
one) take ``boardsize 8``, ``clear_board``, ``play black D3``, ``genmove
white`` and ``pass``, with the same coordinates as this package: columns A-H,
rows 1-8, A1 the top-left corner, and D3 a legal first move for black.

Three jobs in three places: ``agents.play.gtp_connection.GTPConnection`` is
one engine process and the conversation with it (commands out, ``=``/``?``
replies in, each within a deadline and bounded by ``MAX_REPLY``: an engine that
floods its pipe loses by an error; the process runs in a process group of its
own and dies with the process that started it, even after a SIGKILL). The
functions here (``find_moves``, ``play_command``, ``parse_genmove``) translate
between positions and GTP moves, and ``GTPEngine`` is the Agent that plays
through a connection.

An agent sees only the position, not the moves that led to it, so
``MoveTracker`` works the moves out: from the position after its own last
move it finds the opponent's reply (and any forced passes) that gives the
position it is shown, and ``GTPEngine`` plays them into the engine. At the
start of a game, or from an opening position, it reconstructs a move sequence
from the initial position (fast for openings of a dozen plies or so), which
``GTPEngine`` replays after ``clear_board``.

Failures are the engine's: a malformed, illegal or late reply, or an engine
that keeps dying, raises ``EngineError`` from ``act``, which the match runner
records as a loss for the engine. A crashed engine is restarted and the game
replayed into it, up to ``max_restarts`` times per game. Under a time limit
``play_game`` calls ``act_timed``: a move over the limit stops the engine (its
whole process group) and raises ``MoveTimeout``; the next ``reset`` starts it
again. The game's clock goes to the engine as GTP says one: ``time_settings``
once a game (``gtp_time_settings``) and ``time_left`` before each ``genmove``
(``gtp_time_left``), to an engine whose ``known_command`` knows them; a refusal
of either costs nothing.
"""

from __future__ import annotations

import contextlib
import shlex
import threading
import time
from collections.abc import Sequence
from types import TracebackType

from agents.base import MoveTimeout
from agents.clocks import TimeControl, TimeLeft
from agents.play.gtp_connection import MAX_REPLY, EngineDiedError, EngineError, GTPConnection
from reversi_env.errors import InvalidMoveError, quoted
from reversi_env.notation import PASS, Action, action_name, parse_action
from reversi_env.observation import Observation, state_from_observation
from reversi_env.state import BLACK, WHITE, GameState, Player

__all__ = [
    "COLOUR_NAMES",
    "MAX_REPLY",
    "EngineError",
    "GTPConnection",
    "GTPEngine",
    "MoveTracker",
    "find_moves",
    "gtp_time_left",
    "gtp_time_settings",
    "parse_genmove",
    "play_command",
    "replay",
]

COLOUR_NAMES = ("black", "white")
_SEARCH_LIMIT = 200_000
"""Positions visited at most when reconstructing a game from its position."""


# -- the game: positions and moves in GTP words -------------------------------


def replay(moves: Sequence[Action], start: GameState | None = None) -> GameState:
    """The position after ``moves`` from ``start`` (the initial position by default)."""
    state = GameState.initial() if start is None else start
    for a in moves:
        state = state.apply(a)
    return state


def find_moves(start: GameState, me: Player, mine: int, theirs: int, limit: int = _SEARCH_LIMIT) -> list[Action] | None:
    """A move list that leads from ``start`` to the position with ``me`` to move
    and these discs (``mine``, ``theirs``), or None if there is none (or the
    search gives up after ``limit`` positions). Discs are never removed, so
    only squares occupied in the target are tried."""
    black, white = (mine, theirs) if me == BLACK else (theirs, mine)
    occupied = black | white
    target = GameState(black, white, me)
    visited = 0
    seen: set[GameState] = set()

    def dfs(state: GameState, moves: list[Action]) -> list[Action] | None:
        nonlocal visited
        visited += 1
        if visited > limit:
            return None
        if state == target:
            return moves
        if state.is_terminal() or state in seen:
            return None
        seen.add(state)
        for a in state.legal_actions():
            if a != PASS and not (occupied >> a) & 1:
                continue
            nxt = state.apply(a)
            if (nxt.black | nxt.white) & ~occupied:
                continue
            found = dfs(nxt, [*moves, a])
            if found is not None:
                return found
        return None

    if (start.black | start.white) & ~occupied:
        return None
    return dfs(start, [])


def play_command(colour: Player, action: Action) -> str:
    """The GTP command that plays ``action`` for ``colour``: ``play black d3``."""
    return f"play {COLOUR_NAMES[colour]} {action_name(action).lower()}"


def parse_genmove(reply: str, state: GameState, name: str) -> Action:
    """The move in a ``genmove`` reply, legal in ``state``; EngineError (naming
    the engine ``name``) for a malformed or illegal move or a resignation."""
    words = reply.split()
    if len(words) != 1:
        raise EngineError(f"engine {name!r} sent a malformed move: {quoted(reply)}")
    if words[0].lower() == "resign":
        raise EngineError(f"engine {name!r} resigned")
    try:
        action = parse_action(words[0])
    except InvalidMoveError as e:
        raise EngineError(f"engine {name!r} sent a malformed move: {quoted(reply)}") from e
    if not state.is_legal(action):
        raise EngineError(f"engine {name!r} played the illegal move {quoted(reply)} in\n{state}")
    return action


# -- the clock in GTP words ------------------------------------------------------


def _gtp_seconds(seconds: float) -> str:
    """Seconds as GTP writes them, whole (rounded down: an engine is never told of time
    it has not got), and only under a second as a fraction, where 0 would say none."""
    seconds = max(seconds, 0.0)
    return str(int(seconds)) if seconds >= 1 else f"{int(seconds * 1000) / 1000:g}"


def gtp_time_settings(control: TimeControl) -> str | None:
    """GTP's ``time_settings MAIN BYO_YOMI STONES`` for ``control``: the main time and
    Canadian byo-yomi, or a move limit alone as a byo-yomi of one stone (``0 60 1``).

    Returns:
        The command, or None for no limit and for what GTP cannot say: an increment,
        moves to go, a grace for the rest of the game, a move limit beside a clock.
    """
    if control.clock is None:
        return None if control.move is None else f"time_settings 0 {_gtp_seconds(control.move)} 1"
    if control.move is not None or control.increment or control.moves_to_go is not None:
        return None
    if control.overtime is None:
        return f"time_settings {_gtp_seconds(control.clock)} 0 0"
    if control.overtime_moves is None:
        return None
    return f"time_settings {_gtp_seconds(control.clock)} {_gtp_seconds(control.overtime)} {control.overtime_moves}"


def gtp_time_left(colour: Player, left: TimeLeft) -> str | None:
    """GTP's ``time_left COLOUR SECONDS STONES`` for the move ``left`` reads: the clock
    (of the main time, or of the period with its moves to play), or the move's own
    seconds for one stone without a clock; a move limit tighter than the clock wins.

    Returns:
        The command, or None when nothing limits the move's time.
    """
    if left.clock is not None:
        seconds = left.clock if left.seconds is None else min(left.clock, left.seconds)
        stones = left.moves_left or 0
    elif left.seconds is not None:
        seconds, stones = left.seconds, 1
    else:
        return None
    return f"time_left {COLOUR_NAMES[colour]} {_gtp_seconds(seconds)} {stones}"


# -- the agent -----------------------------------------------------------------


class MoveTracker:
    """The moves of the game an agent plays, worked out from the positions it is shown.

    An agent sees only the position; an engine that needs the game's moves (a
    GTP engine, a program that takes a move sequence) asks ``sync`` at each of
    its turns and reports its own move with ``play``. ``name`` is the agent's,
    for the error when no move sequence reaches the position shown.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self.colour: Player | None = None
        self.moves: list[Action] = []
        """The game's moves so far, passes included."""
        self.state: GameState | None = None

    def reset(self) -> None:
        """A new game."""
        self.colour, self.moves, self.state = None, [], None

    def lose_track(self) -> None:
        """Forget where the game is (after a failed move): the next ``sync`` rebuilds the moves."""
        self.state = None

    def play(self, state: GameState, action: Action) -> None:
        """Record the agent's own ``action`` in ``state`` (the position ``sync`` returned)."""
        self.moves.append(action)
        self.state = state.apply(action)

    def sync(self, observation: Observation) -> tuple[GameState, Player, bool]:
        """The position shown, the agent's colour, and whether the moves were
        rebuilt from the initial position (True) or only extended (False)."""
        shown = state_from_observation(observation)  # black to move: black holds the mover's discs
        mine, theirs = shown.black, shown.white
        if self.state is not None and self.colour is not None:
            more = find_moves(self.state, self.colour, mine, theirs)
            if more is not None:
                self.moves.extend(more)
                return replay(more, self.state), self.colour, False
        placed = bin(mine | theirs).count("1") - 4
        guesses = (BLACK, WHITE) if placed % 2 == 0 else (WHITE, BLACK)
        for colour in guesses:
            moves = find_moves(GameState.initial(), colour, mine, theirs)
            if moves is not None:
                self.colour, self.moves = colour, moves
                self.state = replay(moves)
                return self.state, colour, True
        raise EngineError(
            f"engine {self.name!r} cannot join the game: no move sequence from the initial position "
            "reaches the position shown (GTP engines need the game's moves)"
        )


class GTPEngine:
    """An external engine as an Agent: ``GTPEngine("/usr/games/gtp-rhino")``.

    ``command`` is a program and its arguments (a list, or a string split like
    a shell would). ``timeout`` bounds each reply in seconds, ``start_timeout``
    the first one (engines may load opening books); ``max_restarts``
    is how often a crashed engine is restarted within one game. Use it as a
    context manager, or call ``close()``, to end the process.
    """

    def __init__(
        self,
        command: str | Sequence[str],
        *,
        name: str | None = None,
        timeout: float = 60.0,
        start_timeout: float = 60.0,
        max_restarts: int = 1,
    ) -> None:
        args = shlex.split(command) if isinstance(command, str) else [str(c) for c in command]
        if not args:
            raise ValueError("GTPEngine needs a command, e.g. GTPEngine('/usr/games/gtp-rhino')")
        if not timeout > 0 or not start_timeout > 0:
            raise ValueError(f"timeouts must be positive, got {timeout!r} and {start_timeout!r}")
        if max_restarts < 0:
            raise ValueError(f"max_restarts must be >= 0, got {max_restarts!r}")
        self.command: list[str] = args
        self.name: str = name or "gtp:" + shlex.join(args)
        self.timeout = float(timeout)
        self.start_timeout = float(start_timeout)
        self.max_restarts = int(max_restarts)
        self.restarts = 0
        """Restarts after a crash so far (all games)."""
        self._connection: GTPConnection | None = None
        self._deadline: float | None = None
        self._tracker = MoveTracker(self.name)
        self._synced = 0
        self._game_restarts = 0
        self._closed = False
        self._moving = False
        self._stopped = False
        self._lock = threading.Lock()
        """Orders ``stop``/``close`` from another thread with an engine starting for a move."""
        self._left: TimeLeft | None = None
        """The time of the move under way, as ``act_timed`` received it (None: ``act``, untimed)."""
        self._told: TimeControl | None = None
        """The rule sent with ``time_settings`` to this engine process in this game."""
        self._known: dict[str, bool] = {}
        """The answers of this engine process to ``known_command``."""
        self._start()

    # -- the engine's life -----------------------------------------------------

    def _start(self) -> None:
        connection = GTPConnection(self.command, self.name)
        with self._lock:
            # A stop or close that came while the process started found no
            # connection to end: this one must not play on in its place.
            interrupted = self._closed or (self._moving and self._stopped)
            if not interrupted:
                self._connection = connection
        if interrupted:
            connection.stop()
            raise EngineDiedError(f"engine {self.name!r} was stopped or closed while it started")
        self._synced = 0
        self._told, self._known = None, {}
        self._command("boardsize 8", self.start_timeout)
        self._command("clear_board")

    def _kill(self) -> None:
        with self._lock:
            connection, self._connection = self._connection, None
        if connection is not None:
            connection.stop()

    def close(self) -> None:
        """Ask the engine to quit, then make sure the process is gone. A
        ``reset()`` (a new game) starts it again."""
        with self._lock:
            self._closed = True
            connection, self._connection = self._connection, None
        if connection is not None:
            connection.quit()

    def stop(self) -> None:
        """End the move under way (from another thread): the engine's process is
        stopped, as on a timeout, and ``act`` raises EngineError; the next move
        starts a fresh engine (not counted as a restart). With no move under way, nothing."""
        with self._lock:
            if not self._moving:
                return
            self._stopped = True
        self._kill()

    def __enter__(self) -> GTPEngine:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.close()

    @property
    def alive(self) -> bool:
        """Whether the engine process is running."""
        return self._connection is not None and self._connection.alive

    @property
    def pid(self) -> int | None:
        """The engine's process id, None when it is not started."""
        return None if self._connection is None else self._connection.pid

    def _command(self, text: str, timeout: float | None = None) -> str:
        """One command to the engine within ``timeout`` (``self.timeout`` by
        default) and the move's deadline; its reply's text."""
        connection = self._connection
        if connection is None:
            raise EngineDiedError(f"engine {self.name!r} is not running")
        return connection.command(text, self.timeout if timeout is None else timeout, self._deadline)

    def send(self, command: str) -> str:
        """Send a raw GTP command (e.g. ``"showboard"``) and return the reply text."""
        try:
            return self._command(command)
        except EngineDiedError as e:
            raise EngineError(str(e)) from e

    # -- the game --------------------------------------------------------------

    def reset(self) -> None:
        """A new game: forget the moves (the engine is cleared at its first
        move) and restart an engine that died or hung in the last game."""
        self._tracker.reset()
        self._game_restarts = 0
        self._synced = -1
        self._told = None
        if not self.alive:
            self._kill()
            if not self._closed:
                self.restarts += 1
            self._closed = False
            self._start()

    def _sync(self, observation: Observation) -> tuple[GameState, Player]:
        """Work out the game so far from the observation; return (state, colour)."""
        state, colour, rebuilt = self._tracker.sync(observation)
        if rebuilt:
            self._synced = -1
        return state, colour

    def _push(self) -> None:
        """Bring the engine's board up to the tracked moves."""
        if self._synced < 0:
            self._command("clear_board")
            self._synced = 0
        moves = self._tracker.moves
        state = replay(moves[: self._synced])
        for a in moves[self._synced :]:
            try:
                self._command(play_command(state.player, a))
            except EngineDiedError:
                raise
            except EngineError:
                # Some engines (gtp-rhino) skip a forced pass themselves and
                # refuse to be told about it; any other refusal is real.
                if a != PASS:
                    raise
            state = state.apply(a)
            self._synced += 1

    def _genmove(self, colour: Player) -> str:
        """Sync and ask for a move, restarting a crashed engine within the budget."""
        while True:
            try:
                if self._connection is None and not (self._closed or self._stopped):
                    self._start()  # stopped at the last move (``stop``)
                if not self.alive:
                    raise EngineDiedError(f"engine {self.name!r} is not running")
                self._push()
                self._tell_time(colour)
                return self._command(f"genmove {COLOUR_NAMES[colour]}")
            except EngineDiedError as e:
                self._kill()
                if self._closed:
                    # close() from another thread (a move that timed out in play_game).
                    raise EngineError(f"engine {self.name!r} was closed") from e
                if self._stopped:
                    self._stopped = False
                    raise EngineError(f"engine {self.name!r} was stopped") from e
                if self._game_restarts >= self.max_restarts:
                    raise EngineError(f"{e}; restarted {self._game_restarts} time(s) this game") from e
                self._game_restarts += 1
                self.restarts += 1
                try:
                    self._start()
                except EngineDiedError as e2:
                    if self._closed or self._stopped:
                        continue  # closed or stopped while it restarted: the next pass says which
                    raise EngineError(f"engine {self.name!r} died again on restart") from e2

    def _optional(self, command: str) -> str | None:
        """Send ``command``, which the engine may refuse: its reply, or None for a refusal
        (no failure of the engine's; an engine that died still is one)."""
        try:
            return self._command(command)
        except EngineDiedError:
            raise
        except EngineError:
            return None

    def _knows(self, command: str) -> bool:
        """Whether the engine says it knows ``command`` (``known_command``; an engine without it knows none)."""
        if command not in self._known:
            reply = self._optional(f"known_command {command}")
            self._known[command] = reply is not None and reply.lower() == "true"
        return self._known[command]

    def _tell_time(self, colour: Player) -> None:
        """The game's clock for the move under way, to an engine that knows GTP's time
        commands: ``time_settings`` once a game, ``time_left`` before each ``genmove``."""
        left = self._left
        if left is None or left.control.unlimited:
            return  # a bare deadline (a number of seconds) is no rule to tell
        settings = gtp_time_settings(left.control)
        if settings is not None and self._told != left.control and self._knows("time_settings"):
            self._optional(settings)
            self._told = left.control
        now = gtp_time_left(colour, left)
        if now is not None and self._knows("time_left"):
            self._optional(now)

    def act_timed(self, observation: Observation, limit: TimeLeft | float | None) -> int:
        """``act`` within ``limit`` (its seconds: ``TimeLeft.of``), else MoveTimeout (the engine is stopped);
        the rule and the clock ``limit`` reads go to the engine (``gtp_time_settings``, ``gtp_time_left``)."""
        self._left = TimeLeft.of(limit)
        timeout = self._left.seconds
        self._deadline = None if timeout is None else time.monotonic() + timeout
        try:
            return self.act(observation)
        except MoveTimeout:
            self._tracker.lose_track()
            self._synced = -1
            raise
        finally:
            self._deadline, self._left = None, None

    def act(self, observation: Observation) -> int:
        """The engine's move in the position shown; EngineError if it fails."""
        state, colour = self._sync(observation)
        if state.legal_actions() == [PASS]:
            # A forced pass needs no engine; it is told with the next moves.
            self._tracker.play(state, PASS)
            return PASS
        with self._lock:
            self._stopped, self._moving = False, True
        try:
            action = parse_genmove(self._genmove(colour), state, self.name)
        except EngineError:
            self._tracker.lose_track()
            self._synced = -1
            raise
        finally:
            self._moving = False
        self._tracker.play(state, action)
        self._synced += 1
        return action
