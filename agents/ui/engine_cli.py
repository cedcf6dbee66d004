"""The ``reversi gtp`` and ``reversi nboard`` subcommands: any player spec as
an engine on stdin/stdout, speaking GTP or the NBoard protocol.

    reversi gtp --player mcts:time=2
    reversi play --black gtp:"reversi gtp --player alphabeta:4" --white random
    reversi nboard --player mcts:time=2          (the engine command line to give NBoard)

Exit status: 0 after ``quit`` or the end of input, 2 for a spec that cannot be
read or built (black's player is built at start-up: a ``python:`` file that does
not load, a ``gtp:`` program that does not start), 130 after Ctrl-C.

``--time-limit`` (default 60 s) bounds a move of a ``python:``/``classic:``
player (run in a process of its own) or a ``gtp:`` engine; under GTP the
controller's clock replaces it once it sends ``time_settings`` or
``time_left``. A move over it, a crash or ``sys.exit()`` is answered as a
failure (GTP ``? player ...``, NBoard a ``status player ...`` line) and the
session goes on; what the player prints goes to stderr, not into the answers.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable
from typing import Any, TextIO

from agents.play.gtp_server import GTPServer
from agents.play.nboard import NBoardServer
from agents.play.specs import SpecError
from agents.ui.options import add_think_time_option, player_spec, seed_int, time_limit


def _serve(command: str, make: Callable[[], GTPServer | NBoardServer]) -> int:
    """Build a server and black's player (exit 2 if it cannot be) and serve stdin
    until quit, end of input or Ctrl-C; anything printed meanwhile goes to stderr."""
    protocol = sys.stdout
    with contextlib.redirect_stdout(sys.stderr):  # only the server's answers go to stdout
        try:
            server = make()
        except SpecError as e:
            print(f"reversi {command}: error: {e}", file=sys.stderr)
            return 2
        if server.spec.kind == "human":
            print(
                f"reversi {command}: error: an engine is a program: give a player spec other than human",
                file=sys.stderr,
            )
            return 2
        try:
            server.prepare()
            if isinstance(server, GTPServer):
                server.serve(sys.stdin, protocol)
            else:
                server.serve(sys.stdin)  # it writes to the stdout it was given
        except SpecError as e:
            print(f"reversi {command}: error: {e}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            return 130
        except BrokenPipeError:
            return 0  # the client went away
        except OSError as e:
            print(f"reversi {command}: error: cannot read standard input: {e}", file=sys.stderr)
            return 1
        finally:
            server.close()
    return 0


def gtp_command(args: argparse.Namespace) -> int:
    """``reversi gtp``: serve GTP until quit, end of input or Ctrl-C."""
    return _serve(
        "gtp", lambda: GTPServer(args.player, seed=args.seed, default_time=args.time, time_limit=args.time_limit)
    )


def nboard_command(args: argparse.Namespace) -> int:
    """``reversi nboard``: serve the NBoard protocol until quit, end of input or Ctrl-C."""
    out: TextIO = sys.stdout
    return _serve(
        "nboard",
        lambda: NBoardServer(args.player, seed=args.seed, default_time=args.time, time_limit=args.time_limit, out=out),
    )


def _engine_options(parser: argparse.ArgumentParser) -> None:
    """The options both engine front ends take."""
    parser.add_argument("--player", type=player_spec, default="mcts", metavar="SPEC", help="the player (default mcts)")
    add_think_time_option(parser)
    parser.add_argument(
        "--time-limit",
        type=time_limit,
        default=60.0,
        metavar="SECONDS",
        help="a move of a python:, classic: or gtp: player slower than this is stopped and answered as a "
        "failure, and the session goes on (default 60; 'off' for none, every player then in this process)",
    )
    parser.add_argument("--seed", type=seed_int, default=None, help="seed for the players that take one")


GTP_EPILOG = """\
examples:
  reversi gtp --player mcts:time=2
  reversi gtp --player alphabeta:4 --seed 1
  reversi play --black "gtp:reversi gtp --player alphabeta:4" --white random
  printf 'boardsize 8\\nclear_board\\ngenmove black\\nquit\\n' | reversi gtp --player alphabeta:4

The commands, the clock and the failures: docs/engine_protocols.md, docs/matches.md."""

NBOARD_EPILOG = """\
examples:
  reversi nboard --player mcts:time=2          the engine command line to give NBoard
  reversi nboard --player alphabeta            NBoard's depth slider sets the depth
  printf 'nboard 2\\nhint 3\\nping 1\\n' | reversi nboard --player mcts:sims=2000,seed=1

Adding the engine to NBoard, what is spoken, scores and depths: docs/engine_protocols.md."""


class _WrappedDescription(argparse.RawDescriptionHelpFormatter):
    """The epilog as written (its example lines), the description wrapped as usual."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if text.startswith("examples:"):
            return super()._fill_text(text, width, indent)
        return argparse.HelpFormatter._fill_text(self, text, width, indent)


def register(sub: Any) -> None:
    """Add the ``gtp`` and ``nboard`` subcommands to an argparse subparsers object."""
    gtp = sub.add_parser(
        "gtp",
        help="run a player as a GTP engine (for GTP GUIs and engine tools)",
        description="Speak the Go Text Protocol on stdin/stdout as an Othello engine playing SPEC. "
        "A timed SPEC (time=S or clock=S) plays on the controller's clock once it sends time_settings. "
        "A spec that cannot be built is one line and exit status 2 at start-up. A python:, classic: or "
        "gtp: player that does not move within the controller's clock (or --time-limit without one), "
        "crashes or exits gets a GTP failure ('? player timeout: ...', '? player error: ...') and the "
        "session goes on; what a player prints goes to stderr.",
        epilog=GTP_EPILOG,
        formatter_class=_WrappedDescription,
    )
    _engine_options(gtp)
    gtp.set_defaults(func=gtp_command)
    nboard = sub.add_parser(
        "nboard",
        help="run a player as an NBoard engine (for the NBoard GUI: moves, hints with scores, analysis)",
        description="Speak the NBoard protocol on stdin/stdout as an Othello engine playing SPEC. "
        "Hints and analyses are exact with 14 empty squares or fewer, else MCTS estimates "
        "(the player's own search if it is an MCTS player, else MCTS for --time seconds). "
        "A spec that cannot be built is one line and exit status 2 at start-up. A python:, classic: or "
        "gtp: player that does not move within --time-limit, crashes or exits gets one 'status player ...' "
        "line instead of a move and the session goes on; what a player prints goes to stderr.",
        epilog=NBOARD_EPILOG,
        formatter_class=_WrappedDescription,
    )
    _engine_options(nboard)
    nboard.set_defaults(func=nboard_command)
