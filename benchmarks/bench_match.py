"""What the tournament rules cost: ``play_game`` against a bare game loop.

The anchor is the plainest loop that plays the same games (observe, act,
apply, no checks, no threads). ``play_game`` adds the legality check, the
record, forced passes and, with a time limit, a worker thread per player. Both
play random against random (the cheapest agents, so the overhead shows most).

    python benchmarks/bench_match.py [--games 200] [--rounds 3]

Rates are games per second of wall time, best of the interleaved rounds.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from agents.play.match import play_game
from agents.search.ladder import RandomAgent
from reversi_env.observation import observe
from reversi_env.state import GameState


def bare_game(black: RandomAgent, white: RandomAgent) -> int:
    """The anchor: one game with no rules machinery around the agents."""
    players = (black, white)
    state = GameState.initial()
    plies = 0
    while not state.is_terminal():
        state = state.apply(players[state.player].act(observe(state, state.player)))
        plies += 1
    return plies


def rate(play: Callable[[RandomAgent, RandomAgent], object], games: int) -> float:
    """Games per second over ``games`` seeded games."""
    t0 = time.perf_counter()
    for seed in range(games):
        play(RandomAgent(seed), RandomAgent(seed + 100_000))
    return games / (time.perf_counter() - t0)


def main() -> None:
    """Measure and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    cases: dict[str, Callable[[RandomAgent, RandomAgent], object]] = {
        "bare loop (anchor)": bare_game,
        "play_game, time_limit=None": lambda b, w: play_game(b, w, time_limit=None),
        "play_game, time_limit=60": lambda b, w: play_game(b, w, time_limit=60.0),
    }
    rate(bare_game, 5)  # warm the kernels up
    best = dict.fromkeys(cases, 0.0)
    for _ in range(args.rounds):
        for name, play in cases.items():
            best[name] = max(best[name], rate(play, args.games))
    anchor = best["bare loop (anchor)"]
    print(f"random vs random, {args.games} games x {args.rounds} rounds, best round, games/s of wall time")
    print(f"{'case':32s} {'games/s':>9s} {'ratio to anchor':>16s}")
    for name, value in best.items():
        print(f"{name:32s} {value:9.1f} {value / anchor:15.2f}x")


if __name__ == "__main__":
    main()
