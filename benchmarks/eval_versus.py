"""Two pattern-weight files head to head inside the engine's timed search.

``alphabeta:time=S`` (iterative deepening, the exact endgame) on the weights
``NEW`` meets the same search on ``OLD``, from ``games / 2`` distinct random
openings, each played twice with the colours swapped; prints NEW's score (a
win 1, a draw 1/2) with its Wilson 95 % interval. It tells whether a better
1-ply evaluation (``eval_curve.py``, ``bench_eval.py``) also makes the engine
stronger. ``--depth D`` plays the fixed-depth search instead (``alphabeta:D``
on the pattern evaluation): the same search whatever the machine's load.

    python benchmarks/eval_versus.py NEW OLD [--games 40] [--time 0.3 | --depth D] [--opening-plies 4]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from bench_eval import check_openings, match_score, read_weights_arg
from tqdm import tqdm

from agents.arena.ratings import wilson_interval
from agents.base import Agent
from agents.search.ladder import AlphaBetaAgent
from agents.search.patterns import pattern_evaluation
from agents.ui.options import even_int, positive_float, seed_int


def search_agent(path: str, seconds: float, seed: int, depth: int | None = None) -> Agent:
    """``alphabeta:time=seconds`` on the pattern evaluation with the weights file ``path``
    (``pattern_evaluation``), or with ``depth`` the fixed-depth search (``alphabeta:depth``'s,
    endgame solver included)."""
    evaluation = pattern_evaluation(path)
    if depth is not None:
        return AlphaBetaAgent(depth, seed=seed, evaluation=evaluation)
    return AlphaBetaAgent(time_limit=seconds, seed=seed, evaluation=evaluation)


def head_to_head(
    new: str,
    old: str,
    games: int,
    seconds: float,
    seed: int,
    plies: int,
    depth: int | None = None,
    advance: Callable[[int], object] | None = None,
) -> float:
    """The score of the search on the weights file ``new`` against the same search on ``old`` in
    ``games`` (even) games."""
    return match_score(
        lambda s: search_agent(new, seconds, s, depth),
        lambda s: search_agent(old, seconds, s, depth),
        games,
        seed,
        plies,
        advance,
    )


def main() -> None:
    """Play the games and print the score."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("new", help="weights file (.npz) whose score is printed")
    parser.add_argument("old", help="weights file (.npz) it meets")
    parser.add_argument("--games", type=even_int(2), default=40, help="games, even (default 40)")
    parser.add_argument("--time", type=positive_float, default=0.3, help="seconds a move (default 0.3)")
    parser.add_argument("--depth", type=int, help="a fixed search depth instead of --time")
    parser.add_argument("--opening-plies", type=int, default=4, help="random opening plies (default 4)")
    parser.add_argument("--seed", type=seed_int, default=0, help="seed of the openings (default 0)")
    args = parser.parse_args()
    read_weights_arg(parser, "NEW", args.new)  # one usage line for a file that is not weights
    read_weights_arg(parser, "OLD", args.old)
    new, old = args.new, args.old
    if args.depth is not None and not 1 <= args.depth <= 20:
        parser.error(f"--depth must be 1 to 20, got {args.depth}")
    check_openings(parser, args.games, args.opening_plies, args.seed)
    search = f"alphabeta:time={args.time:g}" if args.depth is None else f"alphabeta:{args.depth}"
    with tqdm(total=args.games, desc=search, unit="game", leave=False, file=sys.stderr) as bar:
        s = head_to_head(new, old, args.games, args.time, args.seed, args.opening_plies, args.depth, bar.update)
    lo, hi = wilson_interval(s, args.games)
    print(
        f"{search}, {args.new} vs {args.old}: {s / args.games:.1%} [{lo:.1%}, {hi:.1%}] "
        f"({s:g}/{args.games}, {args.opening_plies}-ply openings, colours swapped)"
    )


if __name__ == "__main__":
    main()
