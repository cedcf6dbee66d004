"""What the course Board's ``_can_fliped`` costs: the facade against a direct walk.

The anchor is the plainest pure-Python answer to the same question: walk the
eight directions over the lists from the square (what a student writes, and
less than the course's own code does). The facade reads the lists into
bitboards and asks the kernel, then orders the flips as the course does.

    python benchmarks/bench_course_board.py [--positions 200] [--rounds 5]

Times are microseconds per call on legal (position, square) pairs of random
games, best of the interleaved rounds.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

from agents.play.course.board import Board
from agents.ui.options import positive_int
from reversi_env.state import GameState

_DIRECTIONS = ((0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1))


def walk(cells: list[list[str]], row: int, col: int, color: str) -> list[tuple[int, int]]:
    """The anchor: the flips of ``color`` on (row, col) by walking the lists."""
    if cells[row][col] != ".":
        return []
    op = "O" if color == "X" else "X"
    flipped: list[tuple[int, int]] = []
    for dx, dy in _DIRECTIONS:
        x, y, line = row + dx, col + dy, []
        while 0 <= x <= 7 and 0 <= y <= 7 and cells[x][y] == op:
            line.append((x, y))
            x, y = x + dx, y + dy
        if line and 0 <= x <= 7 and 0 <= y <= 7 and cells[x][y] == color:
            flipped += reversed(line)
    return flipped


def cases(positions: int) -> list[tuple[Board, tuple[int, int]]]:
    """Legal (board, square) pairs for black from ``positions`` random positions."""
    rng = np.random.default_rng(0)
    state, out = GameState.initial(), []
    for _ in range(positions):
        if state.is_terminal():
            state = GameState.initial()
        board = Board.from_state(state)
        out += [(board, (r, c)) for r in range(8) for c in range(8) if walk(board._board, r, c, "X")]
        state = state.apply(int(rng.choice(state.legal_actions())))
    return out


def per_call(fns: list[Callable[[], object]], n: int, rounds: int) -> list[float]:
    """Microseconds per call of each of ``fns``, best of ``rounds`` interleaved rounds."""
    best = [float("inf")] * len(fns)
    for _ in range(rounds):
        for i, fn in enumerate(fns):
            t0 = time.perf_counter()
            fn()
            best[i] = min(best[i], time.perf_counter() - t0)
    return [b / n * 1e6 for b in best]


def main() -> None:
    """Print both times and the ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=positive_int, default=200, help="random positions (default 200)")
    parser.add_argument("--rounds", type=positive_int, default=5, help="timing rounds; the best is shown (default 5)")
    args = parser.parse_args()
    pairs = cases(args.positions)
    ours, anchor = per_call(
        [
            lambda: [b._can_fliped(rc, "X") for b, rc in pairs],
            lambda: [walk(b._board, *rc, "X") for b, rc in pairs],
        ],
        len(pairs),
        args.rounds,
    )
    print(f"{len(pairs)} legal (position, square) pairs")
    print(f"Board._can_fliped   {ours:6.2f} us/call")
    print(f"direct list walk    {anchor:6.2f} us/call (anchor)")
    print(f"ratio               {ours / anchor:6.2f} x the anchor's time")


if __name__ == "__main__":
    main()
