"""The ``reversi dataset`` options (its command: ``dataset_cli``)."""

from __future__ import annotations

import argparse
from typing import Any

from agents.ui.options import bounded_int, deferred

DATASET_EPILOG = """\
Files: .wtb (WTHOR; its WTHOR.JOU and WTHOR.TRN beside it are read when present),
.ggf (GGF, any number of games), .json and .txt (one game record each). The
arrays: observation, action_mask, action, disc_difference and outcome (from the
mover's side), game and ply; one row a move played, forced passes left out.
"""


def register(subparsers: Any) -> None:
    """Add the ``dataset`` subcommand to an argparse subparsers object."""
    p = subparsers.add_parser(
        "dataset",
        help="turn game files (WTHOR, GGF, records) into training arrays (.npz)",
        description="Replay the games of WTHOR, GGF and record files and write one row a position: "
        "the mover's observation, its legal actions, the move played and how the game ended.",
        epilog=DATASET_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("files", nargs="+", metavar="FILE", help="game files: .wtb, .ggf, .json or .txt")
    p.add_argument("--out", required=True, help="the arrays file to write (.npz)")
    p.add_argument("--augment", action="store_true", help="add the 8 symmetric images of every position (default off)")
    p.add_argument(
        "--dtype", choices=("int8", "float32"), default="int8", help="the observation's dtype (default int8)"
    )
    p.add_argument(
        "--layout",
        choices=("HWC", "CHW"),
        default="HWC",
        help="(8, 8, C) channels last or (C, 8, 8) channels first (default HWC)",
    )
    p.add_argument("--legal-moves", action="store_true", help="add a plane of the legal moves (default off)")
    p.add_argument(
        "--side-to-move", action="store_true", help="add a plane that is 1 when black is to move (default off)"
    )
    p.add_argument(
        "--history", type=bounded_int(1, 64), default=1, help="positions shown, newest first, 1 to 64 (default 1)"
    )
    p.add_argument("--flat", action="store_true", help="flatten the planes (default off)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar (default: a bar on stderr)")
    p.set_defaults(func=deferred("agents.ui.dataset_cli", "run_dataset"))
