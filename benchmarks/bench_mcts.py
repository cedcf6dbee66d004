"""MCTS simulations per second, ours next to OpenSpiel's C++ MCTSBot, in one run.

Both search single-threaded from the start position and from a midgame position
(20 plies of a seeded random game), with one uniformly random playout per
simulation (OpenSpiel: ``pyspiel.MCTSBot`` with ``RandomRolloutEvaluator(1)``,
the ``bench`` extra). For that comparison ours runs as textbook UCT
(``informed_playouts=False, bias=0, mix=0``), without the exact endgame and
without tree reuse, so every simulation is a tree descent plus a uniformly
random playout. The last column is the default agent (informed playouts,
progressive bias, mixed leaf values) for reference. Best of three runs each.

    python benchmarks/bench_mcts.py [--simulations 200000] [--openspiel-simulations 3000]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

from agents.search.mcts import MCTSAgent
from reversi_env import GameState

MIDGAME_PLIES = 20


def midgame_moves(seed: int = 0) -> list[int]:
    """The moves of a seeded random game's first MIDGAME_PLIES plies."""
    rng = np.random.default_rng(seed)
    state, moves = GameState.initial(), []
    for _ in range(MIDGAME_PLIES):
        move = int(rng.choice(state.legal_actions()))
        moves.append(move)
        state = state.apply(move)
    return moves


def ours(moves: list[int], simulations: int, textbook: bool = True) -> float:
    """Our simulations per second from the position after ``moves``."""
    state = GameState.initial()
    for m in moves:
        state = state.apply(m)
    knobs = {"informed_playouts": False, "bias": 0.0, "mix": 0.0} if textbook else {}
    best = 0.0
    for run in range(3):
        agent = MCTSAgent(simulations=simulations, seed=run, reuse_tree=False, endgame_exact=0, **knobs)  # type: ignore[arg-type]
        result = agent.search(state)
        best = max(best, result.simulations / result.seconds)
    return best


def openspiel(moves: list[int], simulations: int) -> float | None:
    """OpenSpiel C++ MCTSBot simulations per second, or None without pyspiel."""
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("othello")
    state = game.new_initial_state()
    for m in moves:
        state.apply_action(m)
    best = 0.0
    for run in range(3):
        evaluator = pyspiel.RandomRolloutEvaluator(1, run)
        bot = pyspiel.MCTSBot(game, evaluator, 2.0, simulations, 1000, False, run, False)
        t = time.perf_counter()
        bot.step(state)
        best = max(best, simulations / (time.perf_counter() - t))
    return best


def main() -> None:
    """Measure and print the table."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--simulations", type=int, default=200_000, help="our simulations per search")
    parser.add_argument("--openspiel-simulations", type=int, default=3000, help="OpenSpiel's simulations per search")
    args = parser.parse_args()

    t = time.perf_counter()
    MCTSAgent(simulations=100, seed=0).search(GameState.initial())
    warmup = time.perf_counter() - t

    print(f"MCTS benchmark, single thread ({os.cpu_count()} cores, Python {sys.version.split()[0]})")
    print(f"numba warm-up (first search, compile or cache load): {warmup:.2f} s")
    print(f"{'position':<24} {'ours (UCT) sims/s':>18} {'OpenSpiel C++ sims/s':>22} {'ratio':>9} {'ours default':>14}")
    for name, moves in (("start", []), (f"midgame ({MIDGAME_PLIES} plies)", midgame_moves())):
        mine = ours(moves, args.simulations)
        theirs = openspiel(moves, args.openspiel_simulations)
        default = ours(moves, args.simulations, textbook=False)
        ratio = f"{mine / theirs:8.1f}x" if theirs else "      n/a"
        theirs_text = f"{theirs:>22,.0f}" if theirs else f"{'n/a (no pyspiel)':>22}"
        print(f"{name:<24} {mine:>18,.0f} {theirs_text} {ratio} {default:>14,.0f}")


if __name__ == "__main__":
    main()
