"""Our players as GTP engines: ``reversi gtp --player SPEC`` speaks the Go
Text Protocol on stdin/stdout as Othello engines do (gtp-rhino, for one), so
GRhino's or Quarry's GUI, engine-vs-engine tools and our own ``GTPEngine`` can
play against any player spec.

Commands: ``protocol_version``, ``name``, ``version``, ``known_command``,
``list_commands``, ``boardsize 8``, ``clear_board``, ``komi`` (ignored),
``play COLOUR VERTEX``, ``genmove COLOUR``, ``undo`` (the last ``play`` or
``genmove``, with the forced pass it took), ``final_score`` (once the game
is over the disc difference as it stands, ``B+12``, ``W+4`` or ``0``, as our
game records count it, where gtp-rhino gives the empty squares to the winner
too; before, the GTP failure ``cannot score``, as gtp-rhino answers), ``showboard``,
``time_settings`` / ``time_left`` and ``quit``. A timed player
(``alphabeta:time=1``, ``mcts:clock=60``, ...) plays on the controller's clock
once ``time_settings`` sets one (main time, then Canadian byo-yomi; GTP's
"no time limits" leaves the player its own budget), and ``time_left`` keeps
that clock right; a player by depth or simulations keeps its budget.
Vertices are this package's squares (``D3``, A1 the top-left corner) or
``pass``. A forced pass the client skips (as gtp-rhino does) is played for the
side that has to pass; once the game is over ``genmove`` answers ``pass``.

A misbehaving player cannot break the session. Black's player is built at
start-up, so a spec that cannot be built is one line before any command
(``prepare``). Under a time limit (``--time-limit``, default 60 s; ``off``
builds every player in this process, with no limit) a ``python:`` or
``classic:`` player runs in a process of its own (``agents.play.isolation``)
and a ``gtp:`` engine in its own program: ``genmove`` gives it what the
controller's clock has left (``time_settings`` / ``time_left``, main time and
the current byo-yomi period, plus ``CLOCK_GRACE``) or else the time limit, and
stops it after that. A late move, a crash, an exception or ``sys.exit()`` in
the player is a GTP failure, ``? player timeout: ...`` or ``? player error:
...``, as GTP answers any command it cannot carry out; the position is
unchanged, the player is rebuilt at its next move, and the session goes on, so
a controller (gogui-twogtp, Quarry) ends or scores that game as it does for any
engine failure and can start the next with ``clear_board``. What a player
prints goes to stderr, never into the answers (``engine_cli`` sends this
process's stdout there, the isolated player's too); our own players (``mcts``,
``alphabeta``...) keep their own budgets.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable, Iterable
from importlib.metadata import PackageNotFoundError, version
from typing import Any, TextIO

from agents.base import MoveTimeout, TimedAgent, close_agent
from agents.clocks import TimeControl
from agents.play.isolation import PlayerError, PlayerStartError, build_player, read_answer, safe_repr
from agents.play.specs import PlayerSpec, SpecError, parse_spec
from agents.search.timecontrol import GameClock
from reversi_env.errors import InvalidMoveError
from reversi_env.notation import PASS, action_name, parse_action
from reversi_env.observation import Observation, observe
from reversi_env.state import GameState, Player

COLOURS = {"b": 0, "black": 0, "w": 1, "white": 1}
CLOCK_GRACE = 0.5
"""Seconds past what the controller's clock has left before a player is stopped:
the controller judges a late move itself; this only ends one that never comes."""


def _version() -> str:
    """This package's version, as installed."""
    try:
        return version("reversi-env")
    except PackageNotFoundError:
        return "unknown"


class GTPError(Exception):
    """A command the server refuses: answered with ``? message``."""


def build_engine_player(
    spec: PlayerSpec, colour: Player, *, seed: int | None, default_time: float, time_limit: float | None
) -> Any:
    """``spec``'s player of ``colour`` for an engine session, ready to move: under
    ``time_limit`` a ``python:``/``classic:`` one in a process of its own that reads
    no stdin and prints to stderr (``build_player``). SpecError, one line naming
    the spec, if it cannot be built, whatever it raised (``sys.exit()`` too)."""
    try:
        player = build_player(spec, colour, seed=seed, default_time=default_time, time_limit=time_limit, protocol=True)
        wait_ready = getattr(player, "wait_ready", None)
        if callable(wait_ready):
            wait_ready()  # loading the player's code: its failure is the spec's
    except (Exception, SystemExit) as e:
        if isinstance(e, SpecError) and spec.text in str(e):
            raise
        raise SpecError(f"cannot build player {spec.text!r}: {_one_line(e)}") from e
    return player


def engine_move(player: Any, observation: Observation, limit: float | None) -> object:
    """The player's answer: a player in a process of its own (an isolated one, a
    GTP engine) is stopped after ``limit`` seconds (MoveTimeout); our own players
    keep their own budgets."""
    if not isinstance(player, TimedAgent):
        return player.act(observation)
    try:
        return player.act_timed(observation, limit)
    except MoveTimeout as e:
        if limit is None:  # an engine's own reply timeout: its text says it
            raise
        raise MoveTimeout(f"no move within {limit:g} s; the player was stopped") from e


NO_TIME = 1e-3
"""The seconds of a GTP clock of no time (``time_settings 0 0 0``, or one only ever reported by
``time_left``): a clock must have some, and a move on it is played at once."""


def gtp_control(main: float, period: float, moves: int) -> TimeControl | None:
    """The rule of GTP's ``time_settings MAIN PERIOD MOVES``: ``main`` seconds, then Canadian
    byo-yomi (``period`` seconds for every ``moves`` moves); None for GTP's "no time limits"
    (a byo-yomi time with no stones).

    Raises:
        ValueError: a time out of range, or moves without a period.
    """
    if period > 0 and moves == 0:
        return None
    if period == 0 and moves == 0:
        return TimeControl(clock=main or NO_TIME)
    return TimeControl(clock=main, overtime=period if period != 0 else None, overtime_moves=moves)


def _one_line(error: BaseException) -> str:
    """What ``error`` says, on one line: our own errors' text says what happened, others get their type."""
    ours = isinstance(error, (MoveTimeout, PlayerError, PlayerStartError, SpecError))
    return " ".join((str(error) if ours else f"{type(error).__name__}: {error}").split())[:300]


def player_failure(error: BaseException) -> str:
    """One line for what went wrong in a player: a late move, a crash, what it
    raised (``sys.exit()`` too)."""
    return f"{'player timeout' if isinstance(error, MoveTimeout) else 'player error'}: {_one_line(error)}"


class EngineSeats:
    """The two seats of a protocol session (GTP, NBoard): one player spec, and each colour's
    player built from it when first needed, ended when dropped or when the session closes."""

    def __init__(self, spec: str, *, seed: int | None, default_time: float, time_limit: float | None) -> None:
        """``spec`` is a player spec (``agents.play.specs``); ValueError if it is malformed.
        ``seed``, ``default_time`` and ``time_limit`` are what each player is built with
        (``build_engine_player``); ``time_limit`` is the seconds of a move too when the
        controller sets no clock (``time_control``)."""
        self.spec = parse_spec(spec)
        self.seed = seed
        self.default_time = default_time
        self.time_control = TimeControl.per_move(time_limit)
        """The rule of a move when the controller sets no clock: ``time_limit`` seconds (None: no limit)."""
        self.players: dict[Player, Any] = {}

    def prepare(self) -> None:
        """Build black's player now, so a spec that cannot be built is reported
        before any command (SpecError); white's is built when first needed."""
        self._player(0)

    def close(self) -> None:
        """End the players' processes (the session is over, or its players are to be built afresh)."""
        for colour in list(self.players):
            self.drop(colour)

    def drop(self, colour: Player) -> None:
        """Forget the player of ``colour`` and end its process, if it has one: it is built afresh when next needed."""
        close_agent(self.players.pop(colour, None))

    def _player(self, colour: Player) -> Any:
        """The player of ``colour``, built at its first use from ``_seat_spec(colour)``."""
        if colour not in self.players:
            player = build_engine_player(
                self._seat_spec(colour),
                colour,
                seed=self.seed,
                default_time=self.default_time,
                time_limit=self.time_control.move,
            )
            self._seated(colour, player)
            self.players[colour] = player
        return self.players[colour]

    def _seat_spec(self, colour: Player) -> PlayerSpec:
        """The spec the player of ``colour`` is built from: the session's (a server may adjust it)."""
        return self.spec

    def _seated(self, colour: Player, player: Any) -> None:
        """Called with each player built, before its first move (a server may set it up)."""


class GTPServer(EngineSeats):
    """The state of one GTP session: the position and the player of each colour
    (built from ``spec``, one per colour: black's at ``prepare``, else at its first move)."""

    def __init__(
        self, spec: str, *, seed: int | None = None, default_time: float = 1.0, time_limit: float | None = 60.0
    ) -> None:
        """``spec`` is a player spec (``agents.play.specs``); ValueError if it is
        malformed. ``time_limit``: seconds a move when the controller keeps no clock."""
        super().__init__(spec, seed=seed, default_time=default_time, time_limit=time_limit)
        self.state = GameState.initial()
        self.history: list[GameState] = []
        """The position before each ``play`` or ``genmove`` still on the board, for ``undo``."""
        self.over = False
        """True once ``quit`` is answered."""
        self.clocks: dict[Player, GameClock] = {}
        """Each colour's game clock, from ``time_settings`` / ``time_left`` (none: no limits)."""
        self.commands: dict[str, Callable[[list[str]], str]] = {
            "protocol_version": lambda a: "2",
            "name": lambda a: f"reversi-env {self.spec.text}",
            "version": lambda a: _version(),
            "known_command": lambda a: "true" if a and a[0] in self.commands else "false",
            "list_commands": lambda a: "\n".join(self.commands),
            "boardsize": self._boardsize,
            "clear_board": self._clear_board,
            "komi": lambda a: "",
            "play": self._play,
            "genmove": self._genmove,
            "undo": self._undo,
            "final_score": self._final_score,
            "showboard": lambda a: "\n" + str(self.state),
            "time_settings": self._time_settings,
            "time_left": self._time_left,
            "quit": self._quit,
        }

    def _colour(self, args: list[str]) -> Player:
        if not args or args[0].lower() not in COLOURS:
            raise GTPError("syntax error: expected a colour, black or white")
        return COLOURS[args[0].lower()]

    def _to(self, colour: Player) -> None:
        """Play the forced passes that put ``colour`` to move (clients skip them)."""
        if self.state.player != colour and self.state.legal_actions() == [PASS]:
            self.state = self.state.apply(PASS)

    def _boardsize(self, args: list[str]) -> str:
        if args != ["8"]:
            raise GTPError("unacceptable size: Othello is played on 8 x 8")
        return ""

    def _clear_board(self, args: list[str]) -> str:
        self.state = GameState.initial()
        self.history = []
        for clock in self.clocks.values():
            clock.reset()
        for colour, player in list(self.players.items()):
            reset = getattr(player, "reset", None)
            try:
                if callable(reset):
                    reset()
            except (Exception, SystemExit):
                self.drop(colour)  # built afresh at its next move
        return ""

    def _play(self, args: list[str]) -> str:
        colour = self._colour(args)
        if len(args) != 2:
            raise GTPError("syntax error: play COLOUR VERTEX")
        before = self.state
        self._to(colour)
        if self.state.is_terminal():
            raise GTPError("illegal move: the game is over")
        if self.state.player != colour:
            raise GTPError("illegal move: it is not that colour's turn")
        try:
            action = parse_action(args[1])
            self.state = self.state.apply(action)
        except ValueError as e:
            raise GTPError(f"illegal move: {str(e).splitlines()[0]}") from None
        self.history.append(before)
        return ""

    def _undo(self, args: list[str]) -> str:
        if not self.history:
            raise GTPError("cannot undo")
        self.state = self.history.pop()
        return ""

    def _quit(self, args: list[str]) -> str:
        self.over = True
        return ""

    def _time_settings(self, args: list[str]) -> str:
        try:
            main, period, moves = float(args[0]), float(args[1]), int(args[2])
            if len(args) != 3:
                raise ValueError
            control = gtp_control(main, period, moves)
        except (ValueError, IndexError):
            raise GTPError("syntax error: time_settings MAIN_SECONDS BYO_YOMI_SECONDS BYO_YOMI_MOVES") from None
        self.clocks = {} if control is None else {0: GameClock(control), 1: GameClock(control)}
        self._drop_timed((0, 1))
        return ""

    def _time_left(self, args: list[str]) -> str:
        colour = self._colour(args)
        try:
            seconds, moves = float(args[1]), int(args[2])
            if len(args) != 3 or not math.isfinite(seconds) or moves < 0:
                raise ValueError
        except (ValueError, IndexError):
            raise GTPError("syntax error: time_left COLOUR SECONDS MOVES") from None
        if colour not in self.clocks:
            # A clock only ever reported: the main time as it stands, or a period of this length.
            self.clocks[colour] = GameClock(
                TimeControl(clock=NO_TIME)
                if moves == 0
                else TimeControl(clock=0.0, overtime=NO_TIME, overtime_moves=moves)
            )
            self._drop_timed((colour,))
        self.clocks[colour].set_left(seconds, moves)
        return ""

    def _drop_timed(self, colours: Iterable[Player]) -> None:
        """Forget the timed players of ``colours``: rebuilt at their next move, on the new clocks."""
        for colour in colours:
            if getattr(self.players.get(colour), "timed", False):
                self.drop(colour)

    def _seated(self, colour: Player, player: Any) -> None:
        """A timed player plays on the controller's clock."""
        if colour in self.clocks and getattr(player, "timed", False):
            player.clock = self.clocks[colour]

    def _genmove(self, args: list[str]) -> str:
        colour = self._colour(args)
        if self.state.is_terminal():
            return "pass"  # neither side has a move: as gtp-rhino answers, and a Go-style controller expects
        before = self.state
        self._to(colour)
        if self.state.player != colour:
            raise GTPError("it is not that colour's turn")
        if self.state.legal_actions() == [PASS]:
            self.state = self.state.apply(PASS)
            self.history.append(before)
            return "pass"
        player = self._player(colour)
        clock = self.clocks.get(colour)
        started = time.perf_counter()
        try:
            answer = engine_move(player, observe(self.state, colour), self._move_limit(colour))
        except BaseException:
            self.drop(colour)
            raise
        if clock is not None and not getattr(player, "timed", False):  # a timed player keeps its clock itself
            clock.punch(time.perf_counter() - started)
        try:
            action = read_answer(answer)
            self.state = self.state.apply(action)
        except ValueError:
            raise GTPError(f"the player answered {safe_repr(answer)}, not a legal move") from None
        self.history.append(before)
        return action_name(action)

    def _move_limit(self, colour: Player) -> float | None:
        """Seconds a player in a process of its own gets for this move: what its
        clock has left, the current byo-yomi period included, plus ``CLOCK_GRACE``;
        with no clock, the move's limit of ``time_control``."""
        clock = self.clocks.get(colour)
        return self.time_control.move if clock is None else clock.seconds_to_flag() + CLOCK_GRACE

    def _final_score(self, args: list[str]) -> str:
        if not self.state.is_terminal():  # the discs mid-game are no score: gtp-rhino fails the same way
            raise GTPError("cannot score")
        black, white = self.state.score()
        if black == white:
            return "0"
        return f"B+{black - white}" if black > white else f"W+{white - black}"

    def handle(self, line: str) -> str:
        """The reply to one command line (with its ``=`` / ``?`` and the blank
        line), "" for an empty line; after ``quit`` (its reply keeps its id) ``over`` is True."""
        words = line.split("#", 1)[0].split()
        if not words:
            return ""
        ident = words.pop(0) if words[0].isdigit() else ""
        if not words:
            return f"?{ident} syntax error: no command\n\n"
        command, args = words[0].lower(), words[1:]
        handler = self.commands.get(command)
        try:
            if handler is None:
                raise GTPError("unknown command")
            body = handler(args)
        except (GTPError, InvalidMoveError) as e:
            return f"?{ident} {e}\n\n"
        except (Exception, SystemExit) as e:  # the player's own failure: an answer, not the session's end
            return f"?{ident} {player_failure(e)}\n\n"
        return f"={ident} {body}".rstrip() + "\n\n"

    def serve(self, lines: Iterable[str], out: TextIO = sys.stdout) -> None:
        """Answer ``lines`` until ``quit`` or their end."""
        for line in lines:
            reply = self.handle(line)
            if reply:
                out.write(reply)
                out.flush()
            if self.over:
                return
