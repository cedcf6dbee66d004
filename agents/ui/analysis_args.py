"""The ``reversi solve`` and ``reversi analyze`` options (their commands: ``analysis_cli``)."""

from __future__ import annotations

import argparse
from typing import Any

from agents.limits import SCORINGS
from agents.ui.options import deferred, positive_float

ANALYZE_EXACT_EMPTIES = 16
"""``reversi analyze`` solves every move exactly from this many empty squares down."""


def register(subparsers: Any) -> None:
    """Add the ``solve`` and ``analyze`` subcommands."""
    solve = subparsers.add_parser(
        "solve",
        usage="%(prog)s [-h] [--all] [--scoring {count,wof}] [--json] [--time-limit S] POSITION",
        help="solve an endgame exactly: the score and a best move (--all: every best move)",
        description="Solve a position exactly: the final disc difference for the side to move under perfect "
        "play and a move that reaches it (with --all, every move that reaches it).",
    )
    solve.add_argument(
        "position",
        nargs="+",
        metavar="POSITION",
        help='"64 cells A1..H8 (X, O, -) and the mover", one position (its words are joined; a line of an OBF '
        "file is read up to its first ';'); quote it, or write --, before a board that starts with -",
    )
    solve.add_argument(
        "--all",
        action="store_true",
        help="prove every best move, not one (each other move is searched once more: slower)",
    )
    _scoring_option(solve)
    solve.add_argument("--json", action="store_true", help='print {"score", "best", "nodes", "seconds"}')
    solve.add_argument(
        "--time-limit",
        type=positive_float,
        metavar="S",
        help="give up after S seconds (exit status 1); by default the solve runs until it is done or Ctrl-C",
    )
    solve.set_defaults(func=deferred("agents.ui.analysis_cli", "run_solve"))

    analyze = subparsers.add_parser(
        "analyze",
        help="score every legal move of a position (a hint with scores)",
        description="Score every legal move of a position or of the position after a transcript: exact disc "
        f"differences with {ANALYZE_EXACT_EMPTIES} empty squares or fewer, else the evaluation (in discs) "
        "at the depth iterative deepening reached in the time given.",
    )
    analyze.add_argument(
        "position",
        nargs="*",
        metavar="POSITION",
        help="64 cells A1..H8 (X, O, -) and the mover, as for solve (default: the start)",
    )
    analyze.add_argument(
        "--moves",
        metavar="TRANSCRIPT",
        help="a game from the start instead, e.g. f5d6c3d3 (a forced pass may be left out or written --)",
    )
    analyze.add_argument("--time", type=positive_float, default=2.0, help="seconds of search (default 2)")
    analyze.add_argument(
        "--weights",
        metavar="FILE",
        help="pattern weights to score the midgame with, as written by reversi train-eval --out "
        "(default: the shipped ones)",
    )
    _scoring_option(analyze)
    analyze.add_argument("--json", action="store_true", help="print the scores as JSON")
    analyze.add_argument(
        "--plot",
        metavar="FILE.png",
        help="with --moves: also draw the evaluation of every position of the game (black's side) in FILE.png "
        "(needs the plot extra: pip install 'reversi-env[plot]')",
    )
    analyze.set_defaults(func=deferred("agents.ui.analysis_cli", "run_analyze"))


def _scoring_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--scoring",
        choices=SCORINGS,
        default="count",
        help="count: the disc difference as it stands (default); wof: empty squares go to the winner",
    )
