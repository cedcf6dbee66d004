"""The ``reversi`` command (also ``python -m agents``): one parser, one
subcommand module a family, its options apart in a light module (``play_args``
for ``play_cli``). ``reversi --version`` prints the installed distribution's version.

    reversi play --black human --white mcts --time 5     a game at the terminal (play_cli)
    reversi gui                                          the window (play_cli)
    reversi arena ... / reversi ratings ...              tournaments (arena_cli)
    reversi course FILE.py / reversi replay FILE         course files, saved games (course_cli)
    reversi solve POSITION / reversi analyze ...         the engine on one position (analysis_cli)
    reversi gtp --player SPEC / reversi nboard ...       our players as GTP / NBoard engines (engine_cli)
    reversi train-eval --games N --seed S --out FILE     train the pattern evaluation (learn_cli)
    reversi fit-eval DATA... --out FILE                  refit it on runs' saved positions (learn_cli)
    reversi train-az --out runs/az                       AlphaZero training (alphazero_cli)
    reversi dataset FILE... --out data.npz               game files into training arrays (dataset_cli)
    reversi book --out book.npz --depth 10               build or extend an opening book (book_cli)

Each options module's ``register(subparsers)`` adds its subcommands and sets
``func``, which takes the parsed arguments and returns the exit status. The
parser imports nothing that numba compiles: ``--help`` and a bad option answer
at once, even on a first run; the command's module is imported when it runs
(``options.deferred``), under the compile notice.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from agents.interrupts import ctrl_c
from agents.ui import (
    alphazero_args,
    analysis_args,
    arena_args,
    book_args,
    course_args,
    dataset_args,
    engine_args,
    learn_args,
    play_args,
)

DISTRIBUTION = "reversi-env"
"""The name the package is installed under (pyproject.toml's ``[project] name``)."""

COMMAND_MODULES = (
    play_args,
    course_args,
    analysis_args,
    arena_args,
    engine_args,
    learn_args,
    alphazero_args,
    dataset_args,
    book_args,
)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand."""
    parser = argparse.ArgumentParser(
        prog="reversi",
        description="Reversi (Othello): play at the terminal or in a window, run tournaments, rate agents.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {installed_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for module in COMMAND_MODULES:
        module.register(sub)
    return parser


def installed_version() -> str:
    """The version of the installed distribution (``importlib.metadata``), or "unknown" when the
    package runs from a source tree that was never installed: read, never computed, so it is instant."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:
        return "unknown (not installed)"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``reversi`` command; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "max_illegal", 1) < 1:
        parser.error("--max-illegal must be >= 1")
    try:
        with ctrl_c():  # one KeyboardInterrupt a press, raised in the program's code
            status: int = args.func(args)
    except KeyboardInterrupt:  # Ctrl-C in any subcommand: one line, the shell's status for it
        print(f"\nreversi {args.command}: interrupted", file=sys.stderr)
        return 130
    return status


if __name__ == "__main__":
    sys.exit(main())
