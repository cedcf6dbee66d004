"""The ``reversi course`` (run a course file) and ``reversi replay`` (step through a
saved game) subcommands.

``reversi course FILE.py [ARGS...]`` runs a file written for the course framework
as ``python FILE.py`` would, with ``board`` and ``game`` importable (see
``agents.play.course``). Exit status: the file's own (0 when it ends), 1 if it
raised, 2 for a missing or non-Python file, 130 after Ctrl-C.

``reversi replay FILE`` shows a saved game (JSON, GGF or a transcript) one
move at a time with each move's thinking time: Enter the next move, b back,
q quit; ``--all`` prints every position at once. Exit status 0, or 2 for a
file that is not a game record.
"""

from __future__ import annotations

import argparse
import sys
import traceback
from collections.abc import Callable
from pathlib import Path

from agents.play import course, processes
from agents.play.course import takeover
from agents.play.match import GameResult
from agents.play.records import RecordError, load_record
from reversi_env.state import PLAYER_NAMES, PLAYER_SYMBOLS, GameState


def course_command(args: argparse.Namespace) -> int:
    """``reversi course``: run a course file."""
    path = Path(args.file)
    if not path.is_file() or path.suffix != ".py":
        print(f"reversi course: error: {args.file}: not a Python file", file=sys.stderr)
        return 2
    for copy in course.shadowed(path):
        print(
            f"reversi course: note: {copy.name} beside the file is not used; the platform's framework is",
            file=sys.stderr,
        )
    return takeover.supervise(lambda: _run(path, args))


def _run(path: Path, args: argparse.Namespace) -> int:
    """Run the course file at ``path`` under ``processes.MEMORY_LIMIT``,
    fenced off from other processes (``processes.confine``: it runs in the
    process ``takeover.supervise`` forked, whose only thread this is);
    ``course_command``'s exit status."""
    processes.limit_memory(processes.MEMORY_LIMIT)
    fenced = processes.confine()
    try:
        course.run_file(path, args.args)
    except SystemExit as e:
        if e.code is None or isinstance(e.code, int):
            return e.code or 0
        print(e.code, file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except Exception as e:
        why = processes.memory_note() if isinstance(e, MemoryError) else f"{e}{processes.fence_note(e, fenced)}"
        print(f"reversi course: {path.name} stopped: {type(e).__name__}: {why}", file=sys.stderr)
        folder = str(path.resolve().parent)
        for frame in traceback.extract_tb(e.__traceback__):
            if frame.filename.startswith(folder):
                print(f"  {frame.filename}, line {frame.lineno}, in {frame.name}: {frame.line}", file=sys.stderr)
        return 1
    return 0


def replay_frames(result: GameResult) -> list[str]:
    """The text of every position of the game, the start first: the board,
    the move that led there, its time and both sides' totals."""
    state = result.start_state()
    total = [0.0, 0.0]
    frames = [_frame(result, state, "start", total)]
    for ply, (move, seconds) in enumerate(zip(result.moves, result.times, strict=True)):
        mover = state.player
        state = state.apply(move)
        total[mover] += seconds
        who = f"{PLAYER_SYMBOLS[mover]} ({PLAYER_NAMES[mover]})"
        played = "passes" if move == "PASS" else f"plays {move}"
        frames.append(_frame(result, state, f"move {ply + 1}: {who} {played} in {seconds:.2f} s", total))
    return frames


def _frame(result: GameResult, state: GameState, headline: str, total: list[float]) -> str:
    b, w = state.score()
    lines = [headline, *str(state).splitlines()]
    lines.append(f"X black ({result.black_name}): {b} discs, {total[0]:.2f} s in all")
    lines.append(f"O white ({result.white_name}): {w} discs, {total[1]:.2f} s in all")
    return "\n".join(lines)


def replay(result: GameResult, read: Callable[[str], str] = input, write: Callable[[str], object] = print) -> None:
    """Step through ``result``: Enter next, b back, q quit (end of input quits)."""
    frames = replay_frames(result)
    i = 0
    write(frames[0])
    while True:
        at_end = i == len(frames) - 1
        if at_end:
            write(f"end of the record: {result.summary()}")
        try:
            key = read("[Enter] next, b back, q quit: ").strip().lower()
        except (EOFError, OSError):  # standard input ended, closed or unreadable: as good as q
            return
        if key in ("q", "quit"):
            return
        if key in ("b", "back"):
            i = max(0, i - 1)
        elif key == "":
            if at_end:
                return
            i += 1
        else:
            write("keys: Enter the next move, b back, q quit")
            continue
        write(frames[i])


def replay_command(args: argparse.Namespace) -> int:
    """``reversi replay``: show a saved game."""
    try:
        result = load_record(args.file)
    except RecordError as e:
        print(f"reversi replay: error: {e}", file=sys.stderr)
        return 2
    print(f"black (X): {result.black_name}    white (O): {result.white_name}")
    if args.all:
        print("\n\n".join(replay_frames(result)))
        print(f"\n{result.summary()}")
        return 0
    replay(result)
    return 0
