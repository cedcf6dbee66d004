"""The ``reversi book`` subcommand: build or extend an opening book (``agents.search.book_build``).

    reversi book --out book.npz --depth 10 --positions 2000 --plies 20 --width 2 --seed 1
    reversi book --extend book.npz --out book.npz --positions 500

The book file written records each build's command and time; a book to extend or a weights
file that cannot be read stops the command with one line, before anything is searched.
A Ctrl-C saves the positions searched so far (status 130).
"""

from __future__ import annotations

import argparse
import shlex
import sys

from tqdm import tqdm

from agents.search.book import Book, BookError, book_summary, read_book, shipped_book_path
from agents.search.book_build import BuildSettings, build_book
from agents.search.patterns import CorruptWeightsError, pattern_evaluation
from agents.ui.options import unwritable_output


def book_command(args: argparse.Namespace) -> str:
    """The ``reversi book`` command line that asks for the build ``args`` describe (every option spelled out)."""
    words = ["reversi", "book", "--out", args.out]
    if args.extend:
        words += ["--extend", args.extend]
    words += ["--depth", str(args.depth), "--positions", str(args.positions), "--plies", str(args.plies)]
    words += ["--width", f"{args.width:g}", "--probcut", f"{args.probcut:g}", "--seed", str(args.seed)]
    if args.weights:
        words += ["--weights", args.weights]
    return shlex.join(words)


def run_book(args: argparse.Namespace) -> int:
    """``reversi book``: read the book to extend, grow it, write it; 2 on a file that cannot be read or written."""
    if unwritable_output("book", "--out", args.out):
        return 2
    book = Book()
    try:
        if args.extend:
            book = read_book(shipped_book_path() if args.extend == "shipped" else args.extend)
        evaluation = pattern_evaluation(args.weights)
    except FileNotFoundError as e:
        print(f"reversi book: error: no such file: {e.filename!r}", file=sys.stderr)
        return 2
    except (BookError, CorruptWeightsError) as e:
        print(f"reversi book: error: {e}", file=sys.stderr)
        return 2
    settings = BuildSettings(args.depth, args.positions, args.plies, args.width, args.seed, args.probcut)
    with tqdm(
        total=args.positions, unit="position", disable=args.no_progress, file=sys.stderr, dynamic_ncols=True
    ) as bar:
        report = build_book(book, settings, evaluation, bar.update)
    command = book_command(args)
    meta = book.metadata
    meta["commands"] = [*meta.get("commands", []), command]
    meta["seconds"] = round(float(meta.get("seconds", 0.0)) + report.seconds, 1)
    meta["weights"] = args.weights or "shipped"
    build = {"command": command, "added": report.added, "walks": report.walks, "seconds": round(report.seconds, 1)}
    meta["builds"] = [*meta.get("builds", []), build | {"complete": report.complete, "interrupted": report.interrupted}]
    try:
        book.save(args.out)
    except OSError as e:
        print(f"reversi book: error: --out {args.out!r}: {e.strerror or e}", file=sys.stderr)
        return 2
    ended = " (complete: every line within the width is in)" if report.complete else ""
    print(f"{args.out}: {book_summary(book)}; {report.added:,} added in {report.seconds:,.1f} s{ended}")
    if report.interrupted:
        print("reversi book: interrupted; the positions searched so far are saved", file=sys.stderr)
        return 130
    return 0
