"""The ``reversi book`` options (its command: ``book_cli``)."""

from __future__ import annotations

import argparse
from typing import Any

from agents.limits import MAX_BOOK_POSITIONS, MAX_OPENING_PLIES, MAX_SEARCH_DEPTH, MAX_WORKERS
from agents.ui.options import bounded_float, bounded_int, deferred, positive_int_at_most, seed_int

BOOK_EPILOG = """\
Each walk plays from the start through the book, picking among the moves within
--width discs of the best, until it plays into a position the book does not
hold; that position's moves are searched --depth plies deep (alpha-beta with
the learned pattern evaluation) and the values are backed up by negamax to the
start. --extend FILE goes on from a book (the package's own: --extend shipped);
the file written records every build's command and time. --deepen searches
every position of the --extend book again, --depth plies deep, adding none
(--jobs processes at once). The timed players (mcts, mcts:time=1,
alphabeta:time=1) play from the package's book unless their spec says book=0
(book=FILE: another).
"""


def register(subparsers: Any) -> None:
    """Add the ``book`` subcommand to an argparse subparsers object."""
    p = subparsers.add_parser(
        "book",
        help="build or extend an opening book by self-play and deep search (.npz)",
        description="Grow an opening book: walks from the start through the book, each new position's "
        "moves searched deep, values backed up by negamax.",
        epilog=BOOK_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--out", required=True, help="the book file to write (.npz)")
    p.add_argument("--extend", metavar="FILE", help="go on from this book ('shipped': the package's own)")
    p.add_argument(
        "--depth",
        type=bounded_int(1, MAX_SEARCH_DEPTH),
        default=10,
        help=f"plies each new position's moves are searched, 1 to {MAX_SEARCH_DEPTH} (default 10)",
    )
    p.add_argument(
        "--positions",
        type=bounded_int(1, MAX_BOOK_POSITIONS),
        default=1000,
        help=f"positions to add, at most {MAX_BOOK_POSITIONS:,} (default 1000)",
    )
    p.add_argument(
        "--plies",
        type=bounded_int(1, MAX_OPENING_PLIES),
        default=20,
        help=f"the deepest ply a book position may be at, 1 to {MAX_OPENING_PLIES} (default 20)",
    )
    p.add_argument(
        "--width",
        type=bounded_float(0, 64),
        default=2.0,
        help="discs below the best a walk's move may be, 0 to 64 (default 2)",
    )
    p.add_argument(
        "--probcut", type=bounded_float(0, 10), default=0.0, help="ProbCut's threshold, 0 to 10 (default 0: full width)"
    )
    p.add_argument(
        "--deepen",
        action="store_true",
        help="search the --extend book's positions again, --depth plies deep, instead of adding positions",
    )
    p.add_argument(
        "--jobs",
        type=positive_int_at_most(MAX_WORKERS),
        default=1,
        help="processes searching at once with --deepen (default 1)",
    )
    p.add_argument("--weights", metavar="FILE", help="the pattern weights to search with (default: the package's)")
    p.add_argument("--seed", type=seed_int, default=0, help="seed of the walks (default 0)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar (default: a bar on stderr)")
    p.set_defaults(func=deferred("agents.ui.book_cli", "run_book"))
