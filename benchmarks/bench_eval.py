"""The learned pattern evaluation alone against the hand-written ladder, and its speed.

The player is ``pattern`` (``PatternAgent``: one ply, greedy on the learned
evaluation, no search). It meets ``positional`` (the square-weight table) and
``alphabeta:2`` (two plies on the hand-written evaluation) from distinct random
openings, each played twice with the colours swapped: by default every 2-ply
opening (12 positions, 24 games); ``--opening-plies 4`` allows more games.
Scores (a win 1, a draw 1/2) carry Wilson 95 % intervals and sit next to the
targets of issue 14 (>= 90 % and >= 75 %). Then the evaluations a second of
the learned evaluation and of the hand-written ``ladder.evaluate``, both
called from a numba loop over the same positions.

    python benchmarks/bench_eval.py [--games 24] [--opening-plies 2] [--weights FILE]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit
from strength import wilson

from agents.arena.tournament import random_openings
from agents.base import Agent
from agents.play.match import play_game
from agents.search import patterns
from agents.search.ladder import AlphaBetaAgent, PositionalAgent
from agents.search.ladder import evaluate as handwritten_evaluate

TARGETS = {"positional": 0.90, "alphabeta:2": 0.75}
"""Issue 14's targets for the evaluation alone."""


def opponent(spec: str, seed: int) -> Agent:
    """A fresh ladder opponent."""
    return PositionalAgent(seed=seed) if spec == "positional" else AlphaBetaAgent(2, seed=seed)


def score_against(weights: np.ndarray, spec: str, games: int, seed: int = 0, plies: int = 2) -> float:
    """The pattern player's score (wins + draws / 2) in ``games`` (even) games
    against ``spec``: ``games / 2`` distinct ``plies``-ply openings, each twice with
    the colours swapped."""
    openings = random_openings(games // 2, plies, seed)
    total = 0.0
    for g in range(games):
        opening = openings[g // 2]
        me = patterns.PatternAgent(weights, seed=seed + g)
        other = opponent(spec, seed + g)
        mine_black = g % 2 == 0
        black, white = (me, other) if mine_black else (other, me)
        result = play_game(black, white, time_limit=None, start=opening.state())
        mine = "black" if mine_black else "white"
        total += 1.0 if result.winner == mine else 0.5 if result.winner == "draw" else 0.0
    return total


@njit(cache=True)
def _pattern_loop(ps: np.ndarray, os: np.ndarray, w: np.ndarray) -> float:
    s = 0.0
    for i in range(len(ps)):
        s += patterns.evaluate(ps[i], os[i], w)
    return s


@njit(cache=True)
def _handwritten_loop(ps: np.ndarray, os: np.ndarray) -> float:
    s = 0.0
    for i in range(len(ps)):
        s += handwritten_evaluate(ps[i], os[i])
    return s


def positions(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` positions from random games (mover's and opponent's boards)."""
    from reversi_env.state import GameState

    rng = np.random.default_rng(seed)
    ps, os = [], []
    while len(ps) < n:
        state = GameState.initial()
        while not state.is_terminal() and len(ps) < n:
            p, o = state.kernel_boards()
            ps.append(p)
            os.append(o)
            state = state.apply(int(rng.choice(state.legal_actions())))
    return np.array(ps, dtype=np.uint64), np.array(os, dtype=np.uint64)


def rate(fn: object, *args: object, repeat: int = 20) -> float:
    """Calls a second of a loop kernel over ``len(args[0])`` positions (best of ``repeat``)."""
    n = len(args[0])  # type: ignore[arg-type]
    fn(*args)  # type: ignore[operator]
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn(*args)  # type: ignore[operator]
        best = min(best, time.perf_counter() - t)
    return n / best


def main() -> None:
    """Play, time and print."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=24, help="games per opponent, even (default 24)")
    parser.add_argument("--opening-plies", type=int, default=2, help="random opening plies (default 2)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--weights", help="weights file (default: the shipped one)")
    args = parser.parse_args()
    weights = patterns.read_weights(args.weights).weights if args.weights else patterns.load_weights()
    print(
        f"pattern (1 ply on the learned evaluation), {args.games} games each, "
        f"{args.opening_plies}-ply openings, colours swapped"
    )
    print(f"{'opponent':<14}{'score':>8}{'95% interval':>18}{'target':>9}")
    for spec, target in TARGETS.items():
        s = score_against(weights, spec, args.games, args.seed, args.opening_plies)
        lo, hi = wilson(s, args.games)
        print(
            f"{spec:<14}{s / args.games:>8.1%}{f'[{lo:.1%}, {hi:.1%}]':>18}{f'>= {target:.0%}':>9}"
            f"   ({s:g}/{args.games})"
        )
    ps, os = positions(20000, args.seed)
    learned = rate(_pattern_loop, ps, os, weights)
    hand = rate(_handwritten_loop, ps, os)
    print(f"{'evaluation':<14}{'evals/s':>14}")
    print(f"{'learned':<14}{learned:>14,.0f}   {learned / hand:.2f}x the hand-written")
    print(f"{'hand-written':<14}{hand:>14,.0f}")


if __name__ == "__main__":
    main()
