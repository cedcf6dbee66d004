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
from typing import TextIO

from agents.play.gtp_server import GTPServer
from agents.play.nboard import NBoardServer
from agents.play.specs import SpecError


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
