"""Each benchmark's latest figures, written by the benchmark itself into docs/benchmarks.md.

A script run with ``--record`` hands what it printed to ``record``: one table row per
figure, found by its key (``core.playouts-c``); a key already in the table has its row
replaced, a new key adds a row at the end, and every other row stays as it is. Each
row carries the figure, the anchor measured in the same run, their ratio, the command
as it was run, the machine and the date, so no figure in the page is typed by hand.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import shlex
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

PAGE = Path(__file__).resolve().parent.parent / "docs" / "benchmarks.md"
"""The page whose table the rows go into (``--record-file`` names another)."""

BEGIN = "<!-- benchmarks:begin -->"
"""The line above the table: the recorder touches nothing outside the two markers."""

END = "<!-- benchmarks:end -->"
"""The line below the table."""

HEADER = (
    "| key | measurement | figure | anchor (same run) | ratio | command | machine | date |\n"
    "|---|---|---|---|---|---|---|---|"
)
"""The table's two heading lines, written when the table is empty."""


@dataclass(frozen=True)
class Figure:
    """One measured figure, as a row of the table shows it.

    Args:
        key: the row's name, unique in the table (``bench_core``'s rows start ``core.``).
        measurement: what is measured, in words.
        figure: ours, with its unit.
        anchor: the anchor's figure, measured in the same run ("" when there is none).
        ratio: ours against the anchor, with the sense said ("5.2x", "0.99x of C").
    """

    key: str
    measurement: str
    figure: str
    anchor: str = ""
    ratio: str = ""


def rate_figure(key: str, measurement: str, ours: float, anchor_name: str, anchor: float | None) -> Figure:
    """A rate's row (more is better): ours, the anchor's and ours / the anchor's (n/a without the anchor)."""
    if not anchor:
        return Figure(key, measurement, f"{ours:,.0f}", f"{anchor_name}: n/a")
    return Figure(key, measurement, f"{ours:,.0f}", f"{anchor_name}: {anchor:,.0f}", f"{ours / anchor:.2f}x")


def time_figure(key: str, measurement: str, ours_us: float, anchor_name: str, anchor_us: float | None) -> Figure:
    """A time's row in microseconds (less is better): ours, the anchor's, and how many times as fast ours is."""
    if not anchor_us:
        return Figure(key, measurement, f"{ours_us:.2f} us", f"{anchor_name}: n/a")
    return Figure(
        key,
        measurement,
        f"{ours_us:.2f} us",
        f"{anchor_name}: {anchor_us:.2f} us",
        f"{anchor_us / ours_us:.1f}x as fast",
    )


def add_record_options(parser: argparse.ArgumentParser) -> None:
    """``--record`` and ``--record-file`` on a benchmark's command line."""
    parser.add_argument(
        "--record",
        action="store_true",
        help="write this run's figures into the benchmarks page (its rows replaced by key)",
    )
    parser.add_argument(
        "--record-file",
        type=Path,
        default=PAGE,
        metavar="FILE",
        help="the page --record writes (default docs/benchmarks.md)",
    )


def check_record_file(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Refuse, in one usage line and before any work, a ``--record-file`` that is not a page
    with the table's two markers."""
    if not args.record:
        return
    try:
        _split(args.record_file.read_text())
    except OSError as e:
        parser.error(f"--record-file {args.record_file}: {e.strerror}")
    except ValueError as e:
        parser.error(f"--record-file {args.record_file}: {e}")


def command_line(argv: Sequence[str]) -> str:
    """The command that made the figures: ``argv`` as ``python benchmarks/NAME.py ...``,
    without the recording options (they say where a row goes, not how it was measured)."""
    kept: list[str] = []
    skip = False
    for word in argv[1:]:
        if skip:
            skip = False
        elif word == "--record":
            pass
        elif word == "--record-file":
            skip = True
        elif not word.startswith("--record-file="):
            kept.append(word)
    return shlex.join(["python", f"benchmarks/{Path(argv[0]).name}", *kept])


def machine() -> str:
    """This machine in a few words: cores, processor, the 1-minute load average at the end
    of the run (the cores may be shared, and every figure depends on it)."""
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            model = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), model)
    except OSError:
        pass
    return f"{os.cpu_count()} cores, {model}, load {os.getloadavg()[0]:.1f}"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ").strip()


def _key(line: str) -> str:
    return line.split("|")[1].strip() if line.startswith("|") else ""


def _split(text: str) -> tuple[list[str], list[str], list[str]]:
    """(lines up to the table, the table's rows without its heading, lines from its end)."""
    lines = text.splitlines()
    if BEGIN not in lines or END not in lines or lines.index(END) < lines.index(BEGIN):
        raise ValueError(f"no table between {BEGIN!r} and {END!r}")
    begin, end = lines.index(BEGIN), lines.index(END)
    rows = [line for line in lines[begin + 1 : end] if line.startswith("|")][2:]
    return lines[: begin + 1], rows, lines[end:]


def record(
    figures: Sequence[Figure],
    path: Path = PAGE,
    *,
    command: str,
    machine_text: str,
    date: str,
) -> None:
    """Write ``figures`` into the table of ``path``, each row replaced by its key or added at the end.

    Args:
        figures: the run's figures.
        path: the page (its table between ``BEGIN`` and ``END``).
        command: the command that made them (``command_line``).
        machine_text: the machine (``machine``).
        date: the day of the run, ``YYYY-MM-DD``.

    Raises:
        ValueError: the page has no table between the markers.
        OSError: the page cannot be read or written.
    """
    head, rows, tail = _split(path.read_text())
    for figure in figures:
        cells = (
            figure.key,
            figure.measurement,
            figure.figure,
            figure.anchor,
            figure.ratio,
            command,
            machine_text,
            date,
        )
        row = "| " + " | ".join(_cell(c) for c in cells) + " |"
        at = next((i for i, line in enumerate(rows) if _key(line) == figure.key), None)
        if at is None:
            rows.append(row)
        else:
            rows[at] = row
    text = "\n".join([*head, HEADER, *rows, *tail]) + "\n"
    partial = path.with_name(path.name + ".partial")
    partial.write_text(text)
    os.replace(partial, path)  # a reader sees the old page or the new one, never half of one


def record_if_asked(args: argparse.Namespace, figures: Sequence[Figure], argv: Sequence[str] | None = None) -> None:
    """With ``--record``: write ``figures`` into ``--record-file`` and say so on stderr.
    ``argv`` is the command line that was parsed, script name first (default ``sys.argv``)."""
    if not args.record:
        return
    today = datetime.datetime.now(datetime.timezone.utc).date().isoformat()
    command = command_line(sys.argv if argv is None else argv)
    record(figures, args.record_file, command=command, machine_text=machine(), date=today)
    print(f"recorded {len(figures)} row(s) in {args.record_file}", file=sys.stderr)
