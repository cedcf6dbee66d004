"""Fit the error model of the midgame search's ProbCut (``agents.search.alphabeta``).

ProbCut (Buro) predicts a deep search's value from a shallow one: at a node
``d`` plies deep the search first looks ``d' = 2 * (d // 4) + d % 2`` plies
deep and, if that value is far enough outside the window (``t`` standard
deviations of the shallow-to-deep error), returns the bound without the deep
search. This script measures that error: positions from games the shipped
pattern evaluation plays against itself one ply deep (random openings, 10 %
random moves), each searched to every depth up to ``--max-depth`` with the
shipped evaluation; it prints the mean and standard deviation of
``value(d) - value(d')`` by depth and game phase, and the least-squares fit
``sigma = c0 + c1 * empties + c2 * d' + c3 * d`` (discs) that
``alphabeta.MPC_SIGMA`` holds.

    python benchmarks/probcut_fit.py [--positions 400] [--max-depth 9] [--seed 0]
"""

from __future__ import annotations

import argparse
import subprocess

import numpy as np
from tqdm import tqdm

from agents.search.alphabeta import new_stats, probcut_depth, search_root
from agents.search.evaluation import DISC
from agents.search.patterns import evaluate, load_weights, pattern_evaluation
from agents.search.tt import clear_table, new_table
from agents.ui.options import seed_int
from reversi_env import PASS, GameState


def sample_positions(count: int, seed: int) -> list[GameState]:
    """``count`` positions with 14 to 54 empties, a few from each of many self-play games."""
    rng = np.random.default_rng(seed)
    weights = load_weights()
    out: list[GameState] = []
    while len(out) < count:
        state = GameState.initial()
        opening = int(rng.integers(2, 12))
        ply = 0
        while not state.is_terminal():
            actions = state.legal_actions()
            if ply < opening or rng.random() < 0.1 or actions == [PASS]:
                action = int(rng.choice(actions))
            else:
                values = [-evaluate(*state.apply(a).kernel_boards(), weights) for a in actions]
                action = actions[int(np.argmax(values))]
            state = state.apply(action)
            ply += 1
            if 14 <= state.num_empty() <= 54 and rng.random() < 0.08 and state.legal_actions() != [PASS]:
                out.append(state)
    return out[:count]


def depth_values(state: GameState, max_depth: int, table: np.ndarray) -> list[float]:
    """The search value (discs, for the mover) at depths 0 to ``max_depth``."""
    evaluation = pattern_evaluation()
    p, o = state.kernel_boards()
    clear_table(table)
    values = [float(evaluate(p, o, load_weights()))]
    for depth in range(1, max_depth + 1):
        root = search_root(p, o, depth, state.legal_actions(), table, new_stats(DISC), evaluation)
        values.append(max(root.scores.values()) / DISC)
    return values


def main() -> None:
    """Search the positions, print the error table and the fitted model."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--positions", type=int, default=400, help="positions to search (default 400)")
    parser.add_argument("--max-depth", type=int, default=9, help="deepest search (default 9)")
    parser.add_argument("--seed", type=seed_int, default=0, help="seed of the games (default 0)")
    args = parser.parse_args()
    if args.positions < 10 or not 3 <= args.max_depth <= 14:
        parser.error("--positions must be >= 10 and --max-depth from 3 to 14")
    positions = sample_positions(args.positions, args.seed)
    table = new_table(1 << 20)
    values = np.array([depth_values(s, args.max_depth, table) for s in tqdm(positions, desc="searching")])
    empties = np.array([s.num_empty() for s in positions], dtype=np.float64)
    rows, features, targets, counts = [], [], [], []
    print(f"{'d':>3} {'d_':>3} {'empties':>8} {'n':>4} {'mean':>6} {'sigma':>6}")
    for d in range(3, args.max_depth + 1):
        dp = probcut_depth(d)
        for low in range(14, 55, 10):
            mask = (empties >= low) & (empties < low + 10)
            if mask.sum() < 10:
                continue
            err = values[mask, d] - values[mask, dp]
            sigma = float(err.std())
            rows.append((d, dp, low, int(mask.sum()), float(err.mean()), sigma))
            features.append([1.0, float(empties[mask].mean()), float(dp), float(d)])
            targets.append(sigma)
            counts.append(float(mask.sum()))
            print(f"{d:>3} {dp:>3} {low:>4}-{low + 9:<3} {int(mask.sum()):>4} {err.mean():>6.2f} {sigma:>6.2f}")
    w = np.sqrt(np.array(counts))
    coef, *_ = np.linalg.lstsq(np.array(features) * w[:, None], np.array(targets) * w, rcond=None)
    print("sigma = {:.3f} + {:.4f} * empties + {:.4f} * d' + {:.4f} * d  (discs)".format(*coef))
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main()
