"""The ``reversi gtp`` subcommand: any player spec as a GTP engine on stdin/stdout.

    reversi gtp --player mcts:time=2
    reversi play --black gtp:"reversi gtp --player alphabeta:4" --white random

Exit status: 0 after ``quit`` or the end of input, 2 for a bad spec, 130 after Ctrl-C.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from agents.play.gtp_server import GTPServer
from agents.play.specs import SpecError
from agents.ui.options import player_spec, positive_float, seed_int


def gtp_command(args: argparse.Namespace) -> int:
    """``reversi gtp``: serve GTP until quit, end of input or Ctrl-C."""
    try:
        server = GTPServer(args.player, seed=args.seed, default_time=args.time)
    except SpecError as e:
        print(f"reversi gtp: error: {e}", file=sys.stderr)
        return 2
    if server.spec.kind == "human":
        print("reversi gtp: error: a GTP engine is a program: give a player spec other than human", file=sys.stderr)
        return 2
    try:
        server.serve(sys.stdin)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0  # the client went away
    except OSError as e:
        print(f"reversi gtp: error: cannot read standard input: {e}", file=sys.stderr)
        return 1
    return 0


def register(sub: Any) -> None:
    """Add the ``gtp`` subcommand to an argparse subparsers object."""
    gtp = sub.add_parser(
        "gtp",
        help="run a player as a GTP engine (for GTP GUIs and engine tools)",
        description="Speak the Go Text Protocol on stdin/stdout as an Othello engine playing SPEC.",
    )
    gtp.add_argument("--player", type=player_spec, default="mcts", metavar="SPEC", help="the player (default mcts)")
    gtp.add_argument(
        "--time",
        type=positive_float,
        default=2.0,
        metavar="SECONDS",
        help="MCTS thinking time per move when its spec sets neither time nor sims (default 2)",
    )
    gtp.add_argument("--seed", type=seed_int, default=None, help="seed for the players that take one")
    gtp.set_defaults(func=gtp_command)
