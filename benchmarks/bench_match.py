"""What the tournament rules cost: ``play_game`` against a bare game loop.

The anchor is the plainest loop that plays the same games (observe, act,
apply, no checks, no threads). ``play_game`` adds the legality check, the
record, forced passes and, with a time limit, a worker thread per player. Both
play random against random (the cheapest agents, so the overhead shows most).

The second table is the process boundary: the same random agent asked for a
move in this process (``act``) and in a child process (``IsolatedPlayer``, as
``python:`` and ``classic:`` players run under a time limit), and whole games
with both players isolated against the same games in process. The cost per move
is the difference per call (goal: <= 1 ms).

    python benchmarks/bench_match.py [--games 200] [--rounds 3] [--calls 2000]

Rates are games per second of wall time, best of the interleaved rounds.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from agents.play.isolation import IsolatedPlayer
from agents.play.match import play_game
from agents.search.ladder import RandomAgent
from agents.ui.options import positive_int
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
    parser.add_argument("--games", type=positive_int, default=200, help="random-vs-random games a round (default 200)")
    parser.add_argument("--rounds", type=positive_int, default=3, help="rounds; the best is shown (default 3)")
    parser.add_argument(
        "--calls", type=positive_int, default=2000, help="moves timed across the process boundary (default 2000)"
    )
    args = parser.parse_args()
    rules(args)
    boundary(args)


def rules(args: argparse.Namespace) -> None:
    """play_game against the bare loop."""

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


def per_call(act: Callable[[], object], calls: int) -> float:
    """Seconds per call of ``act``."""
    t0 = time.perf_counter()
    for _ in range(calls):
        act()
    return (time.perf_counter() - t0) / calls


def boundary(args: argparse.Namespace) -> None:
    """The process boundary: one move in process against one move in a child process."""
    spec = "python:agents.search.ladder:RandomAgent"
    observation = observe(GameState.initial(), 0)
    local = RandomAgent(seed=1)
    isolated = IsolatedPlayer(spec, 0, timeout=60.0)
    pair = (IsolatedPlayer(spec, 0, timeout=60.0), IsolatedPlayer(spec, 1, timeout=60.0))
    try:
        for player in (isolated, *pair):
            player.wait_ready()
        best_local = best_isolated = float("inf")
        best_games_local = best_games_isolated = float("inf")
        games = max(1, args.games // 10)
        for _ in range(args.rounds):
            best_local = min(best_local, per_call(lambda: local.act(observation), args.calls))
            best_isolated = min(best_isolated, per_call(lambda: isolated.act_timed(observation, 60.0), args.calls))
            best_games_local = min(best_games_local, per_move_in_games(RandomAgent(1), RandomAgent(2), games))
            best_games_isolated = min(best_games_isolated, per_move_in_games(*pair, games))
    finally:
        for player in (isolated, *pair):
            player.close()
    print()
    print(f"the process boundary: random agent, {args.calls} calls / {games} games x {args.rounds} rounds, best round")
    print(f"{'case':44s} {'in process':>11s} {'isolated':>11s} {'ratio':>7s} {'boundary':>9s}")
    for name, a, b in (
        ("one move (act / act_timed)", best_local, best_isolated),
        ("a move within play_game, time_limit=60", best_games_local, best_games_isolated),
    ):
        print(f"{name:44s} {a * 1e3:8.3f} ms {b * 1e3:8.3f} ms {b / a:6.1f}x {(b - a) * 1e3:6.3f} ms")


def per_move_in_games(black: object, white: object, games: int) -> float:
    """Seconds per ply over ``games`` games under a 60 s limit."""
    t0 = time.perf_counter()
    plies = sum(len(play_game(black, white, time_limit=60.0).moves) for _ in range(games))
    return (time.perf_counter() - t0) / plies


if __name__ == "__main__":
    main()
