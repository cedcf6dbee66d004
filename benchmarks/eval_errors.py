"""Held-out error of pattern-weight files, phase by phase.

Positions come from games the shipped weights play against themselves
(``agents.learn.pattern_selfplay``: 1 ply, ``--epsilon`` random moves, the exact
solver from 12 empties), a quarter of them kept, from a seed no training run
uses. Positions with ``--solve-empties`` (16) empties or fewer are labelled by
an exact solve; earlier ones by the result the game reached (TD(1): unbiased
but noisy, so only differences between files mean something there). Prints
each file's root mean squared error (discs) for every phase of 5 empties.

    python benchmarks/eval_errors.py FILE... [--games 2000] [--seed 99]
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
from bench_eval import read_weights_arg
from tqdm import tqdm

from agents.learn.pattern_selfplay import SelfPlayConfig, generate
from agents.limits import MAX_SOLVED_EMPTIES
from agents.search.patterns import N_PHASES, PHASE_EMPTIES, evaluate, load_weights, phase_of
from agents.ui.options import bounded_int, positive_int, seed_int, unit_float


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


if __name__ == "__main__":
    main()
