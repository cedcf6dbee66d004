"""The ``reversi gtp`` and ``reversi nboard`` subcommands: any player spec as
an engine on stdin/stdout, speaking GTP or the NBoard protocol.

    reversi gtp --player mcts:time=2
    reversi play --black gtp:"reversi gtp --player alphabeta:4" --white random
    reversi nboard --player mcts:time=2          (the engine command line to give NBoard)

Exit status: 0 after ``quit`` or the end of input, 2 for a bad spec, 130 after Ctrl-C.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from agents.play.gtp_server import GTPServer
from agents.play.nboard import NBoardServer
from agents.play.specs import SpecError
from agents.ui.options import add_think_time_option, player_spec, seed_int


def _serve(command: str, make: Callable[[], GTPServer | NBoardServer]) -> int:
    """Build a server (exit 2 for a bad spec) and serve stdin until quit, end of input or Ctrl-C."""
    try:
        server = make()
    except SpecError as e:
        print(f"reversi {command}: error: {e}", file=sys.stderr)
        return 2
    if server.spec.kind == "human":
        print(f"reversi {command}: error: an engine is a program: give a player spec other than human", file=sys.stderr)
        return 2
    try:
        server.serve(sys.stdin)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0  # the client went away
    except OSError as e:
        print(f"reversi {command}: error: cannot read standard input: {e}", file=sys.stderr)
        return 1
    return 0


def gtp_command(args: argparse.Namespace) -> int:
    """``reversi gtp``: serve GTP until quit, end of input or Ctrl-C."""
    return _serve("gtp", lambda: GTPServer(args.player, seed=args.seed, default_time=args.time))


def nboard_command(args: argparse.Namespace) -> int:
    """``reversi nboard``: serve the NBoard protocol until quit, end of input or Ctrl-C."""
    return _serve("nboard", lambda: NBoardServer(args.player, seed=args.seed, default_time=args.time))


def _engine_options(parser: argparse.ArgumentParser) -> None:
    """The options both engine front ends take."""
    parser.add_argument("--player", type=player_spec, default="mcts", metavar="SPEC", help="the player (default mcts)")
    add_think_time_option(parser)
    parser.add_argument("--seed", type=seed_int, default=None, help="seed for the players that take one")


def register(sub: Any) -> None:
    """Add the ``gtp`` and ``nboard`` subcommands to an argparse subparsers object."""
    gtp = sub.add_parser(
        "gtp",
        help="run a player as a GTP engine (for GTP GUIs and engine tools)",
        description="Speak the Go Text Protocol on stdin/stdout as an Othello engine playing SPEC. "
        "A timed SPEC (time=S or clock=S) plays on the controller's clock once it sends time_settings.",
    )
    _engine_options(gtp)
    gtp.set_defaults(func=gtp_command)
    nboard = sub.add_parser(
        "nboard",
        help="run a player as an NBoard engine (for the NBoard GUI: moves, hints with scores, analysis)",
        description="Speak the NBoard protocol on stdin/stdout as an Othello engine playing SPEC. "
        "Hints and analyses are exact with 14 empty squares or fewer, else MCTS estimates "
        "(the player's own search if it is an MCTS player, else MCTS for --time seconds).",
    )
    _engine_options(nboard)
    nboard.set_defaults(func=nboard_command)
