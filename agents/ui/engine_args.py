"""The ``reversi gtp`` and ``reversi nboard`` options (their commands: ``engine_cli``)."""

from __future__ import annotations

import argparse
from typing import Any

from agents.ui.options import add_think_time_option, deferred, player_spec, seed_int, time_limit


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

The commands, the clock and the failures: docs/protocols.md, docs/matches.md."""

NBOARD_EPILOG = """\
examples:
  reversi nboard --player mcts:time=2          the engine command line to give NBoard
  reversi nboard --player alphabeta            NBoard's depth slider sets the depth
  printf 'nboard 2\\nhint 3\\nping 1\\n' | reversi nboard --player mcts:sims=2000,seed=1

Adding the engine to NBoard, what is spoken, scores and depths: docs/protocols.md."""


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
    gtp.set_defaults(func=deferred("agents.ui.engine_cli", "gtp_command"))
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
    nboard.set_defaults(func=deferred("agents.ui.engine_cli", "nboard_command"))
