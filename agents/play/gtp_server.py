"""Our players as GTP engines: ``reversi gtp --player SPEC`` speaks the Go
Text Protocol on stdin/stdout as Othello engines do (gtp-rhino, for one), so
GRhino's or Quarry's GUI, engine-vs-engine tools and our own ``GTPEngine`` can
play against any player spec.

Commands: ``protocol_version``, ``name``, ``version``, ``known_command``,
``list_commands``, ``boardsize 8``, ``clear_board``, ``komi`` (ignored),
``play COLOUR VERTEX``, ``genmove COLOUR``, ``final_score``, ``showboard``,
``time_settings`` / ``time_left`` and ``quit``. A timed player
(``alphabeta:time=1``, ``mcts:clock=60``, ...) plays on the controller's clock
once ``time_settings`` sets one (main time, then Canadian byo-yomi; GTP's
"no time limits" leaves the player its own budget), and ``time_left`` keeps
that clock right; a player by depth or simulations keeps its budget.
Vertices are this package's squares (``D3``, A1 the top-left corner) or
``pass``. A forced pass the client skips (as gtp-rhino does) is played for the
side that has to pass.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Iterable
from importlib.metadata import PackageNotFoundError, version
from typing import Any, TextIO

from agents.play.isolation import read_answer, safe_repr
from agents.play.specs import parse_spec
from agents.search.timecontrol import GameClock
from reversi_env.errors import InvalidMoveError
from reversi_env.notation import PASS, action_name, parse_action
from reversi_env.observation import observe
from reversi_env.state import GameState, Player

COLOURS = {"b": 0, "black": 0, "w": 1, "white": 1}


def _version() -> str:
    """This package's version, as installed."""
    try:
        return version("reversi-env")
    except PackageNotFoundError:
        return "unknown"


class GTPError(Exception):
    """A command the server refuses: answered with ``? message``."""


class GTPServer:
    """The state of one GTP session: the position and the player of each colour
    (built from ``spec`` when first asked to move, one per colour)."""

    def __init__(self, spec: str, *, seed: int | None = None, default_time: float = 1.0) -> None:
        """``spec`` is a player spec (``agents.play.specs``); ValueError if it is malformed."""
        self.spec = parse_spec(spec)
        self.seed = seed
        self.default_time = default_time
        self.state = GameState.initial()
        self.players: dict[Player, Any] = {}
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
            "final_score": self._final_score,
            "showboard": lambda a: "\n" + str(self.state),
            "time_settings": self._time_settings,
            "time_left": self._time_left,
            "quit": lambda a: "",
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
        for clock in self.clocks.values():
            clock.reset()
        for player in self.players.values():
            reset = getattr(player, "reset", None)
            if callable(reset):
                reset()
        return ""

    def _play(self, args: list[str]) -> str:
        colour = self._colour(args)
        if len(args) != 2:
            raise GTPError("syntax error: play COLOUR VERTEX")
        self._to(colour)
        if self.state.player != colour or self.state.is_terminal():
            raise GTPError("illegal move: it is not that colour's turn")
        try:
            action = parse_action(args[1])
            self.state = self.state.apply(action)
        except ValueError as e:
            raise GTPError(f"illegal move: {str(e).splitlines()[0]}") from None
        return ""

    def _time_settings(self, args: list[str]) -> str:
        try:
            main, period, moves = float(args[0]), float(args[1]), int(args[2])
            if len(args) != 3:
                raise ValueError
            # GTP: a byo-yomi time with no stones means no time limits.
            clock = None if period > 0 and moves == 0 else GameClock(main, period, moves)
        except (ValueError, IndexError):
            raise GTPError("syntax error: time_settings MAIN_SECONDS BYO_YOMI_SECONDS BYO_YOMI_MOVES") from None
        self.clocks = {} if clock is None else {0: clock, 1: GameClock(main, period, moves)}
        self.players.clear()  # rebuilt at their next move, on the new clocks
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
            self.clocks[colour] = GameClock(max(seconds, 0.0)) if moves == 0 else GameClock(0.0, 1.0, moves)
            self.players.pop(colour, None)
        self.clocks[colour].set_left(seconds, moves)
        return ""

    def _player(self, colour: Player) -> Any:
        """The player of ``colour``, built at its first move; a timed one plays on the controller's clock."""
        if colour not in self.players:
            player: Any = self.spec.build(colour, seed=self.seed, default_time=self.default_time)
            if colour in self.clocks and getattr(player, "timed", False):
                player.clock = self.clocks[colour]
            self.players[colour] = player
        return self.players[colour]

    def _genmove(self, args: list[str]) -> str:
        colour = self._colour(args)
        self._to(colour)
        if self.state.is_terminal() or self.state.player != colour:
            raise GTPError("it is not that colour's turn (or the game is over)")
        if self.state.legal_actions() == [PASS]:
            self.state = self.state.apply(PASS)
            return "pass"
        answer = self._player(colour).act(observe(self.state, colour))
        try:
            action = read_answer(answer)
            self.state = self.state.apply(action)
        except ValueError:
            raise GTPError(f"the player answered {safe_repr(answer)}, not a legal move") from None
        return action_name(action)

    def _final_score(self, args: list[str]) -> str:
        black, white = self.state.score()
        if black == white:
            return "0"
        return f"B+{black - white}" if black > white else f"W+{white - black}"

    def handle(self, line: str) -> str | None:
        """The reply to one command line (with its ``=`` / ``?`` and the blank
        line), "" for an empty line, None after ``quit``."""
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
        except Exception as e:  # the player's own failure: an answer, not a crash of the session
            return f"?{ident} player error: {type(e).__name__}: {str(e)[:200]}\n\n"
        reply = f"={ident} {body}".rstrip() + "\n\n"
        return None if command == "quit" else reply

    def serve(self, lines: Iterable[str], out: TextIO = sys.stdout) -> None:
        """Answer ``lines`` until ``quit`` or their end."""
        for line in lines:
            reply = self.handle(line)
            if reply is None:
                out.write("=\n\n")
                out.flush()
                return
            if reply:
                out.write(reply)
                out.flush()
