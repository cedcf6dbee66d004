"""Held-out error of pattern-weight files, phase by phase.

Positions come from games the shipped weights play against themselves
(``agents.learn.pattern_selfplay``: 1 ply, ``--epsilon`` random moves, the exact
solver from 12 empties), a quarter of them kept, from a seed no training run
uses. Positions with ``--solve-empties`` (16) empties or fewer are labelled by
an exact solve; earlier ones by the result the game reached (TD(1): unbiased
but noisy, so only differences between files mean something there). Prints
each file's root mean squared error (discs) for every phase of 5 empties.

``--lean D`` also searches ``--lean-positions`` (400) of the positions with
more than 20 empties, spread over the games, 0 to D plies deep with each
file, and prints the mean value (discs, for the player to move) at each
depth by ten empties, and the swing: the mean of ``|v_d - (v_(d-1) +
v_(d+1)) / 2|`` over the inner depths. An evaluation that leans toward the
side to move (or away from it) makes even and odd depths disagree, the
odd-even effect: its swing is large, its values zigzag with the depth.

    python benchmarks/eval_errors.py FILE... [--games 2000] [--seed 99] [--lean 8]
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
from bench_eval import read_weights_arg
from tqdm import tqdm

from agents.learn.pattern_selfplay import SelfPlayConfig, generate
from agents.limits import MAX_SOLVED_EMPTIES
from agents.search.alphabeta import search_depth
from agents.search.evaluation import DISC
from agents.search.patterns import N_PHASES, PHASE_EMPTIES, evaluate, load_weights, pattern_evaluation, phase_of
from agents.search.tt import new_table
from agents.ui.options import bounded_int, positive_int, seed_int, unit_float
from reversi_env import BLACK, GameState


def _last_empties(phase: int) -> int:
    """The most empty squares of a position in ``phase`` (the last phase takes the start position's 60)."""
    return 60 if phase == N_PHASES - 1 else (phase + 1) * PHASE_EMPTIES - 1


def main() -> None:
    """Make the held-out positions once, then score every file on them."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="+", help="weights files (.npz)")
    parser.add_argument("--games", type=positive_int, default=2000, help="held-out games (default 2000)")
    parser.add_argument("--seed", type=seed_int, default=99, help="seed of the held-out games (default 99)")
    parser.add_argument(
        "--solve-empties",
        type=bounded_int(0, MAX_SOLVED_EMPTIES),
        default=16,
        help=f"exact labels from here, at most {MAX_SOLVED_EMPTIES} (default 16)",
    )
    parser.add_argument(
        "--epsilon", type=unit_float, default=0.1, help="share of random moves in the games (default 0.1)"
    )
    parser.add_argument(
        "--lean",
        type=bounded_int(0, 12),
        default=0,
        metavar="D",
        help="also the mean search value at depths 0 to D by ten empties, and its swing (default 0: not)",
    )
    parser.add_argument(
        "--lean-positions",
        type=positive_int,
        default=400,
        help="positions --lean searches (default 400)",
    )
    args = parser.parse_args()
    files = {path: read_weights_arg(parser, "FILE", path) for path in args.files}  # read before the games
    config = SelfPlayConfig(lam=1.0, record=0.25, solve_empties=args.solve_empties, epsilon=args.epsilon)
    # One compiled call plays every game, so this bar can only show the time it takes.
    with tqdm(total=args.games, desc="held-out games", unit="game", leave=False, file=sys.stderr) as bar:
        data = generate(args.games, load_weights(), args.seed, config)
        bar.update(args.games)
    empties = np.array([64 - (int(p) | int(o)).bit_count() for p, o in zip(data.p, data.o, strict=True)])
    phases = np.array([phase_of(np.int64(e)) for e in empties])
    counts = [int((phases == k).sum()) for k in range(N_PHASES)]
    print(f"{len(data)} held-out positions from {args.games} games; exact labels up to {args.solve_empties} empties")
    width = max(12, *(len(path) for path in files))  # each file by its whole name: two tails can be alike
    print(f"{'empties':<{width}}" + "".join(f"{f'{k * PHASE_EMPTIES}-{_last_empties(k)}':>8}" for k in range(N_PHASES)))
    print(f"{'positions':<{width}}" + "".join(f"{c:>8}" for c in counts))
    for path, weights in files.items():
        boards = tqdm(zip(data.p, data.o, strict=True), total=len(data), desc=path, leave=False, file=sys.stderr)
        predicted = np.array([evaluate(p, o, weights) for p, o in boards])
        squared = (predicted - data.label) ** 2
        rmse = [float(np.sqrt(squared[phases == k].mean())) if counts[k] else float("nan") for k in range(N_PHASES)]
        print(f"{path:<{width}}" + "".join(f"{r:>8.2f}" for r in rmse) + f"   all {np.sqrt(squared.mean()):.2f}")
    if args.lean:
        chosen = np.flatnonzero(empties > 20)
        chosen = chosen[np.linspace(0, len(chosen) - 1, min(args.lean_positions, len(chosen))).astype(int)]
        for path in files:
            print_lean(path, data.p[chosen], data.o[chosen], empties[chosen], args.lean)


def search_values(p: np.ndarray, o: np.ndarray, path: str, depth: int) -> np.ndarray:
    """Each position's value (discs, for the mover) under the weights file ``path``, searched 0 to
    ``depth`` plies deep (a row a position): the evaluation, then the best root score of a
    full-width search (the engine's ``pattern_evaluation``)."""
    weights, evaluation = load_weights(path), pattern_evaluation(path)
    values = np.zeros((len(p), depth + 1))
    for i in tqdm(range(len(p)), desc=f"{path} searched", leave=False, file=sys.stderr):
        values[i, 0] = evaluate(p[i], o[i], weights)
        moves = GameState.from_kernel(p[i], o[i], BLACK).legal_actions()
        table = new_table(1 << 16)
        for d in range(1, depth + 1):
            root, _ = search_depth(p[i], o[i], d, moves, table, evaluation)
            values[i, d] = max(root.scores.values()) / DISC
    return values


def print_lean(path: str, p: np.ndarray, o: np.ndarray, empties: np.ndarray, depth: int) -> None:
    """The mean search value of the positions at each depth by ten empties, and its swing."""
    values = search_values(p, o, path, depth)
    print(f"{path}: mean value (discs, for the mover) searched 0 to {depth} plies deep")
    for low in range(21, 61, 10):
        rows = values[(empties >= low) & (empties < low + 10)]
        if len(rows) == 0:
            continue
        mean = rows.mean(axis=0)
        swing = np.abs(mean[1:-1] - (mean[:-2] + mean[2:]) / 2).mean() if depth >= 2 else float("nan")
        shown = " ".join(f"{v:+6.2f}" for v in mean)
        print(f"  {low}-{low + 9} empties, {len(rows):>3} positions: {shown}   swing {swing:.2f}")


if __name__ == "__main__":
    main()
