"""The learned pattern evaluation alone against the hand-written ladder, and its speed.

The player is ``pattern`` (``PatternAgent``: one ply, greedy on the learned
evaluation, no search). It meets ``positional`` (the square-weight table),
``alphabeta:2`` (the ladder's level 2: two plies on the hand-written evaluation,
and the last 8 empties solved exactly) and ``alphabeta:2 no solver`` (the same
two plies without the solver) from distinct random openings, each played
twice with the colours swapped: by default every 2-ply opening (12 positions,
24 games); ``--opening-plies 4`` allows more games. Scores (a win 1, a draw
1/2) carry Wilson 95 % intervals and sit next to the evaluation's targets
(>= 90 % and >= 75 %, the latter for both readings of ``alphabeta:2``) and
the ratio score / target (1.00x or more: met); ``--games 0`` skips the games;
``--record`` writes the figures into docs/benchmarks.md (``record.py``).
Then the evaluations a second of the learned evaluation (``evaluate`` on the
trained weights, and ``evaluate_expanded`` on ``expand_weights``' copy, which
the searches call) and of the hand-written ``ladder.evaluate``, each called
from a numba loop over the same positions. With ``--search N`` it also runs the engine's midgame search with
the learned evaluation (``alphabeta:time=S``'s) on N positions 20 plies into
seeded random games (those of ``bench_solver.py --midgame``): the depth
reached in ``--seconds`` (1) and the nodes a second, then the nodes and time
to the fixed depth ``--depth`` (8), which compares move orderings. Speeds
are per second of this process's CPU time (``time.process_time``: the machine
is shared, and CPU time is what other jobs disturb least), printed with the
load average.

    python benchmarks/bench_eval.py [--games 24] [--opening-plies 2] [--weights FILE] [--search 10]
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from collections.abc import Callable

import numpy as np
from numba import njit
from record import Figure, add_record_options, check_record_file, record_if_asked
from tqdm import tqdm

from agents.arena.ratings import wilson_interval
from agents.arena.tournament import random_openings
from agents.base import Agent
from agents.play.match import play_game
from agents.search import patterns
from agents.search.alphabeta import iterative_deepening
from agents.search.alphabeta_agent import MAX_DEPTH, AlphaBetaAgent
from agents.search.ladder import PositionalAgent
from agents.search.ladder import evaluate as handwritten_evaluate
from agents.search.tt import new_table
from agents.ui.options import bounded_int, even_int, positive_float, seed_int
from reversi_env.state import GameState

NO_SOLVER = "alphabeta:2 no solver"
"""``AlphaBetaAgent(2, exact_empties=0)``: depth-2 alpha-beta on the hand-written
evaluation and nothing else, "depth-2 alpha-beta" read literally (the ladder's
``alphabeta:2`` also solves its last 8 empties exactly)."""

TARGETS = {"positional": 0.90, "alphabeta:2": 0.75, NO_SOLVER: 0.75}
"""The evaluation's targets when it plays alone: the 75 % one under both readings of ``alphabeta:2``."""


def opponent(spec: str, seed: int) -> Agent:
    """A fresh opponent of ``TARGETS``."""
    if spec == "positional":
        return PositionalAgent(seed=seed)
    return AlphaBetaAgent(2, seed=seed, exact_empties=0 if spec == NO_SOLVER else None)


def match_score(
    make_me: Callable[[int], Agent],
    make_other: Callable[[int], Agent],
    games: int,
    seed: int,
    plies: int,
    advance: Callable[[int], object] | None = None,
) -> float:
    """The score (wins + draws / 2) of ``make_me(seed + g)`` against ``make_other(seed + g)``
    in ``games`` (even) games ``g``: ``games / 2`` distinct ``plies``-ply openings, each
    twice with the colours swapped; ``advance(1)`` after each game (a progress bar's update)."""
    openings = random_openings(games // 2, plies, seed)
    total = 0.0
    for g in range(games):
        me, other = make_me(seed + g), make_other(seed + g)
        mine_black = g % 2 == 0
        black, white = (me, other) if mine_black else (other, me)
        result = play_game(black, white, time_limit=None, start=openings[g // 2].state())
        mine = "black" if mine_black else "white"
        total += 1.0 if result.winner == mine else 0.5 if result.winner == "draw" else 0.0
        if advance is not None:
            advance(1)
    return total


def score_against(
    weights: np.ndarray,
    spec: str,
    games: int,
    seed: int = 0,
    plies: int = 2,
    advance: Callable[[int], object] | None = None,
) -> float:
    """The pattern player's score in ``games`` (even) games against ``spec`` (``match_score``)."""
    return match_score(
        lambda s: patterns.PatternAgent(weights, seed=s), lambda s: opponent(spec, s), games, seed, plies, advance
    )


@njit(cache=True)
def _pattern_loop(ps: np.ndarray, os: np.ndarray, w: np.ndarray) -> float:
    s = 0.0
    for i in range(len(ps)):
        s += patterns.evaluate(ps[i], os[i], w)
    return s


@njit(cache=True)
def _expanded_loop(ps: np.ndarray, os: np.ndarray, x: np.ndarray) -> float:
    s = 0.0
    for i in range(len(ps)):
        s += patterns.evaluate_expanded(ps[i], os[i], x)
    return s


@njit(cache=True)
def _handwritten_loop(ps: np.ndarray, os: np.ndarray) -> float:
    s = 0.0
    for i in range(len(ps)):
        s += handwritten_evaluate(ps[i], os[i])
    return s


def positions(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` positions from random games (mover's and opponent's boards)."""
    rng = np.random.default_rng(seed)
    ps: list[np.uint64] = []
    os: list[np.uint64] = []
    while len(ps) < n:
        state = GameState.initial()
        while not state.is_terminal() and len(ps) < n:
            p, o = state.kernel_boards()
            ps.append(p)
            os.append(o)
            state = state.apply(int(rng.choice(state.legal_actions())))
    return np.array(ps, dtype=np.uint64), np.array(os, dtype=np.uint64)


def rate(fn: object, *args: object, repeat: int = 20) -> float:
    """Calls a CPU second of a loop kernel over ``len(args[0])`` positions (best of ``repeat``)."""
    n = len(args[0])  # type: ignore[arg-type]
    fn(*args)  # type: ignore[operator]
    best = float("inf")
    for _ in range(repeat):
        t = time.process_time()
        fn(*args)  # type: ignore[operator]
        best = min(best, time.process_time() - t)
    return n / best


def midgame_positions(count: int) -> list[GameState]:
    """Positions 20 plies into the random games of seeds 0 to ``count - 1`` (``bench_solver.py``'s)."""
    states = []
    for seed in range(count):
        rng = np.random.default_rng(seed)
        state = GameState.initial()
        for _ in range(20):
            state = state.apply(int(rng.choice(state.legal_actions())))
        states.append(state)
    return states


def search_speed(count: int, seconds: float, depth: int) -> Figure:
    """The timed and the fixed-depth midgame search with the learned evaluation, a fresh table each;
    the timed search's nodes a second and mean depth as a row of the benchmarks page."""
    evaluation = patterns.pattern_evaluation()
    states = midgame_positions(count)
    p, o = states[0].kernel_boards()
    iterative_deepening(p, o, states[0].legal_actions(), new_table(1 << 10), evaluation, max_depth=2)  # compile
    figure = Figure("", "", "")
    for label, limits in ((f"{seconds:g} s", {"time_limit": seconds}), (f"depth {depth}", {"max_depth": depth})):
        print(f"midgame search, learned evaluation, {label} a position:")
        total_nodes, total_seconds, depths = 0, 0.0, []
        for seed, state in enumerate(states):
            p, o = state.kernel_boards()
            start = time.process_time()
            root, nodes = iterative_deepening(p, o, state.legal_actions(), new_table(1 << 20), evaluation, **limits)
            elapsed = time.process_time() - start
            total_nodes += nodes
            total_seconds += elapsed
            rate_m = nodes / elapsed / 1e6
            depth_done = root.finished_depth
            depths.append(depth_done)
            print(f"  seed {seed}: depth {depth_done}, {nodes:,d} nodes, {elapsed:.2f} s of CPU, {rate_m:.2f} M/s")
        print(
            f"  all: mean depth {np.mean(depths):.1f}, {total_nodes:,d} nodes, {total_seconds:.2f} s, "
            f"{total_nodes / total_seconds / 1e6:.2f} M nodes/s of CPU time, "
            f"load average {os.getloadavg()[0]:.2f}"
        )
        if "time_limit" in limits:
            figure = Figure(
                "alphabeta.midgame",
                f"midgame search, {label} a position on {count} positions, learned evaluation, CPU time",
                f"{total_nodes / total_seconds / 1e6:.2f} M nodes/s, mean depth {np.mean(depths):.1f}",
            )
    return figure


def main() -> None:
    """Play, time and print."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=even_int(0), default=24, help="games per opponent, even (default 24)")
    parser.add_argument("--opening-plies", type=int, default=2, help="random opening plies (default 2)")
    parser.add_argument("--seed", type=seed_int, default=0, help="seed of the openings and players (default 0)")
    parser.add_argument("--weights", help="weights file (default: the shipped one)")
    parser.add_argument(
        "--search",
        type=bounded_int(0, 10**6),
        default=0,
        help="also time the midgame search on N positions (default 0: not)",
    )
    parser.add_argument("--seconds", type=positive_float, default=1.0, help="search: seconds a position (default 1)")
    parser.add_argument(
        "--depth",
        type=bounded_int(1, MAX_DEPTH),
        default=8,
        help=f"search: the fixed depth, 1 to {MAX_DEPTH} (default 8)",
    )
    add_record_options(parser)
    args = parser.parse_args()
    check_record_file(parser, args)
    weights = read_weights_arg(parser, "--weights", args.weights) if args.weights else patterns.load_weights()
    if args.games:
        check_openings(parser, args.games, args.opening_plies, args.seed)
        figures = play(weights, args.games, args.seed, args.opening_plies)
    else:
        figures = []
    ps, os = positions(20000, args.seed)
    learned = rate(_pattern_loop, ps, os, weights)
    expanded = rate(_expanded_loop, ps, os, patterns.expand_weights(weights))
    hand = rate(_handwritten_loop, ps, os)
    print(f"{'evaluation':<22}{'evals/s':>14}")
    print(f"{'learned':<22}{learned:>14,.0f}   {learned / hand:.2f}x the hand-written")
    print(f"{'learned, expanded':<22}{expanded:>14,.0f}   {expanded / hand:.2f}x the hand-written (the searches')")
    print(f"{'hand-written':<22}{hand:>14,.0f}")
    measure = "evaluations a second, the learned evaluation as the searches call it"
    ratio = f"{expanded / hand:.2f}x"
    figures.append(Figure("eval.speed", measure, f"{expanded:,.0f}", f"hand-written: {hand:,.0f}", ratio))
    if args.search:
        figures.append(search_speed(args.search, args.seconds, args.depth))
    record_if_asked(args, figures)


def read_weights_arg(parser: argparse.ArgumentParser, name: str, path: str) -> np.ndarray:
    """The weights of the file ``path`` given as ``name``; one usage line if it cannot be read."""
    return read_saved_arg(parser, name, path).weights


def read_saved_arg(parser: argparse.ArgumentParser, name: str, path: str) -> patterns.PatternWeights:
    """The weights file ``path`` given as ``name``, metadata included; one usage line if it cannot be read."""
    try:
        return patterns.read_weights(path)
    except (OSError, ValueError) as e:
        parser.error(f"{name} {path}: {(e.strerror or e) if isinstance(e, OSError) else str(e).splitlines()[0]}")


def check_openings(parser: argparse.ArgumentParser, games: int, plies: int, seed: int) -> None:
    """One usage line unless ``games / 2`` distinct ``plies``-ply openings exist (``match_score`` plays them)."""
    try:
        random_openings(games // 2, plies, seed)
    except ValueError as e:
        parser.error(f"--opening-plies {plies}: {e}")


def play(weights: np.ndarray, games: int, seed: int, plies: int) -> list[Figure]:
    """The pattern player against the targets' opponents; prints the scores, each
    beside its target and the ratio score / target (1.00x or more: met), and returns
    them as rows of the benchmarks page."""
    print(f"pattern (1 ply on the learned evaluation), {games} games each, {plies}-ply openings, colours swapped")
    print(f"{'opponent':<22}{'score':>8}{'95% interval':>18}{'target':>9}{'ratio':>8}")
    figures = []
    for spec, target in TARGETS.items():
        with tqdm(total=games, desc=f"vs {spec}", unit="game", leave=False, file=sys.stderr) as bar:
            s = score_against(weights, spec, games, seed, plies, bar.update)
        lo, hi = wilson_interval(s, games)
        print(
            f"{spec:<22}{s / games:>8.1%}{f'[{lo:.1%}, {hi:.1%}]':>18}{f'>= {target:.0%}':>9}"
            f"{s / games / target:>7.2f}x   ({s:g}/{games})"
        )
        figures.append(
            Figure(
                "eval.pattern-vs-" + re.sub(r"[^a-z0-9]+", "-", spec),
                f"score of the learned evaluation alone (1 ply) against `{spec}`, {games} games",
                f"{s / games:.1%} [{lo:.1%}, {hi:.1%}]",
                f"target: {target:.0%}",
                f"{s / games / target:.2f}x",
            )
        )
    return figures


if __name__ == "__main__":
    main()
