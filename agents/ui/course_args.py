"""The ``reversi course`` and ``reversi replay`` options (their commands: ``course_cli``)."""

from __future__ import annotations

import argparse
from typing import Any

from agents.ui.options import deferred


def register(sub: Any) -> None:
    """Add the ``course`` and ``replay`` subcommands to an argparse subparsers object."""
    run = sub.add_parser(
        "course",
        help="run a file written for the course framework (from board import Board, from game import Game)",
        description="Run a course file as a script, with the course framework importable as board and game.",
    )
    run.add_argument("file", metavar="FILE.py", help="the course file")
    run.add_argument("args", nargs=argparse.REMAINDER, help="arguments passed to the file")
    run.set_defaults(func=deferred("agents.ui.course_cli", "course_command"))

    show = sub.add_parser(
        "replay",
        help="step through a saved game (JSON, GGF or a transcript)",
        description="Show a saved game move by move: Enter the next move, b back, q quit.",
    )
    show.add_argument("file", metavar="FILE", help="a game record: .json (reversi play --save), .ggf, or a transcript")
    show.add_argument("--all", action="store_true", help="print every position at once (no keys)")
    show.set_defaults(func=deferred("agents.ui.course_cli", "replay_command"))
