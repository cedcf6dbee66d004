"""The ``reversi book`` subcommand: build or extend an opening book (``agents.search.book_build``).

    reversi book --out book.npz --depth 10 --positions 2000 --plies 20 --width 2 --seed 1
    reversi book --extend book.npz --out book.npz --positions 500
    reversi book --extend book.npz --out book.npz --deepen --depth 16 --probcut 1.5 --jobs 2

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
from agents.search.book_build import BuildSettings, build_book, deepen_book, shallow
from agents.search.patterns import CorruptWeightsError, pattern_evaluation
from agents.ui.options import unwritable_output


def book_command(args: argparse.Namespace) -> str:
    """The ``reversi book`` command line that asks for the build ``args`` describe (every option spelled out)."""
    words = ["reversi", "book", "--out", args.out]
    if args.extend:
        words += ["--extend", args.extend]
    if args.deepen:
        words += ["--deepen", "--depth", str(args.depth), "--probcut", f"{args.probcut:g}", "--jobs", str(args.jobs)]
    else:
        words += ["--depth", str(args.depth), "--positions", str(args.positions), "--plies", str(args.plies)]
        words += ["--width", f"{args.width:g}", "--probcut", f"{args.probcut:g}", "--seed", str(args.seed)]
    if args.weights:
        words += ["--weights", args.weights]
    return shlex.join(words)


def run_book(args: argparse.Namespace) -> int:
    """``reversi book``: read the book to extend, grow or deepen it, write it; 2 on a file that
    cannot be read or written, or ``--deepen`` without a book."""
    if args.deepen and not args.extend:
        print("reversi book: error: --deepen needs the book to deepen: --extend FILE", file=sys.stderr)
        return 2
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
    command = book_command(args)
    if args.deepen:
        with _bar(len(shallow(book, args.depth)), args.no_progress) as bar:
            deepened = deepen_book(book, args.depth, args.probcut, args.weights, jobs=args.jobs, progress=bar.update)
        seconds, interrupted = deepened.seconds, deepened.interrupted
        build = {"command": command, "added": 0, "deepened": deepened.deepened}
        done = f"{deepened.deepened:,} searched again {args.depth} plies deep in {seconds:,.1f} s"
    else:
        settings = BuildSettings(args.depth, args.positions, args.plies, args.width, args.seed, args.probcut)
        with _bar(args.positions, args.no_progress) as bar:
            report = build_book(book, settings, evaluation, bar.update)
        seconds, interrupted = report.seconds, report.interrupted
        build = {"command": command, "added": report.added, "walks": report.walks, "complete": report.complete}
        ended = " (complete: every line within the width is in)" if report.complete else ""
        done = f"{report.added:,} added in {seconds:,.1f} s{ended}"
    meta = book.metadata
    meta["commands"] = [*meta.get("commands", []), command]
    meta["seconds"] = round(float(meta.get("seconds", 0.0)) + seconds, 1)
    meta["weights"] = args.weights or "shipped"
    build |= {"seconds": round(seconds, 1), "interrupted": interrupted}
    meta["builds"] = [*meta.get("builds", []), build]
    try:
        book.save(args.out)
    except OSError as e:
        print(f"reversi book: error: --out {args.out!r}: {e.strerror or e}", file=sys.stderr)
        return 2
    print(f"{args.out}: {book_summary(book)}; {done}")
    if interrupted:
        print("reversi book: interrupted; the positions searched so far are saved", file=sys.stderr)
        return 130
    return 0


def _bar(total: int, hidden: bool) -> tqdm:
    """The command's progress bar over ``total`` positions, on stderr (none with ``--no-progress``)."""
    return tqdm(total=total, unit="position", disable=hidden, file=sys.stderr, dynamic_ncols=True)
