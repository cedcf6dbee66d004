"""MCTS simulations per second, ours next to OpenSpiel's C++ MCTSBot, in one run.

Both search single-threaded from the start position and from a midgame position
(20 plies of a seeded random game), with one uniformly random playout per
simulation (OpenSpiel: ``pyspiel.MCTSBot`` with ``RandomRolloutEvaluator(1)``,
the ``bench`` extra). For that comparison ours runs as textbook UCT
(``TEXTBOOK_UCT``), without the exact endgame and without tree reuse, so every
simulation is a tree descent plus a uniformly random playout. The last column
is the default agent (no playouts: the learned value searched one ply deep at
each leaf, docs/engine.md) for reference. Best of three runs each.

``--threads`` measures the search on two threads instead: the default agent's
simulations and nodes (tree nodes created) per second, from the start and 20
plies into a seeded random game (``--plies`` for other positions of that
game), with one thread and with
two in one shared tree (the default, ``parallel="tree"``), then with two
root-parallel trees (``parallel="root"``), side by side with the ratio (wall
clock), the CPU seconds the process got per wall second (how loaded the
machine was) and the simulations per CPU second (``--pairs N`` instead
alternates one thread and two N times a position and prints the median of the
rounds' ratios, their range and the median ratio of nodes a second, for a
machine whose speed drifts from one search to the next); ``--match-games N`` plays
``mcts:time=T,threads=2`` against ``mcts:time=T,threads=1`` at equal time from
the 2-ply openings, colours swapped (``--parallel root`` for root-parallel).
The load average is printed before and after.
``--record`` writes the single-thread table into docs/benchmarks.md (``record.py``).

    python benchmarks/bench_mcts.py [--simulations 200000] [--openspiel-simulations 3000]
    python benchmarks/bench_mcts.py --threads [--plies 0 10 20 30 40] [--pairs 6]
    python benchmarks/bench_mcts.py --threads --match-games 24 [--match-time 0.5 --parallel tree]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np
from record import Figure, add_record_options, check_record_file, rate_figure, record_if_asked

from agents.play.match import play_game
from agents.search.mcts import DEFAULT_MAX_NODES, PARALLEL, TEXTBOOK_UCT, MCTSAgent
from agents.ui.options import bounded_int, positive_float, positive_int
from reversi_env import GameState

MIDGAME_PLIES = 20
MAX_PLIES = 50
"""The deepest ``--plies`` position: the seeded game still has moves to search there."""


POOL_FULL = 0.99
"""A search whose tree holds this share of ``max_nodes`` has filled its pool (the
default of 200,000 simulations stays below it; 2,000,000 at the start do not)."""


def random_moves(plies: int = MIDGAME_PLIES, seed: int = 0) -> list[int]:
    """The moves of a seeded random game's first ``plies`` plies."""
    rng = np.random.default_rng(seed)
    state, moves = GameState.initial(), []
    for _ in range(plies):
        move = int(rng.choice(state.legal_actions()))
        moves.append(move)
        state = state.apply(move)
    return moves


def ours(moves: list[int], simulations: int, textbook: bool = True) -> float:
    """Our simulations per second from the position after ``moves``."""
    state = GameState.initial()
    for m in moves:
        state = state.apply(m)
    knobs = dict(TEXTBOOK_UCT) if textbook else {}
    best = 0.0
    for run in range(3):
        agent = MCTSAgent(simulations=simulations, seed=run, reuse_tree=False, endgame_exact=0, **knobs)  # type: ignore[arg-type]
        result = agent.search(state)
        best = max(best, result.simulations / result.seconds)
    return best


def threaded(
    moves: list[int],
    simulations: int,
    threads: int,
    parallel: str = "tree",
    runs: int = 3,
    seed: int = 0,
    max_nodes: int = DEFAULT_MAX_NODES,
) -> tuple[float, float, float]:
    """The default agent's simulations per second with ``threads`` threads (best
    of ``runs`` searches, seeded from ``seed`` on), the nodes it created per
    second and the CPU seconds the process got per wall second in that run."""
    state = GameState.initial()
    for m in moves:
        state = state.apply(m)
    best, nodes, share = 0.0, 0.0, 0.0
    for run in range(seed, seed + runs):
        agent = MCTSAgent(
            simulations=simulations,
            seed=run,
            reuse_tree=False,
            endgame_exact=0,
            threads=threads,
            parallel=parallel,
            max_nodes=max_nodes,
        )
        cpu = time.process_time()
        result = agent.search(state)
        if result.nodes >= POOL_FULL * agent.max_nodes:
            who = "one thread" if threads == 1 else f"{threads} threads"
            print(
                f"  warning: {who} filled the tree's {agent.max_nodes:,} nodes; the simulations after that grow"
                " nothing and run faster, so this ratio is not one of equal work: lower --simulations or raise"
                " --max-nodes",
                file=sys.stderr,
            )
        if result.simulations / result.seconds > best:
            best, nodes = result.simulations / result.seconds, result.nodes / result.seconds
            share = (time.process_time() - cpu) / result.seconds
    return best, nodes, share


def openings() -> list[list[int]]:
    """Every 2-ply opening from the start position."""
    start = GameState.initial()
    return [[a, b] for a in start.legal_actions() for b in start.apply(a).legal_actions()]


def equal_time_match(games: int, seconds: float, parallel: str) -> tuple[float, int, int, int]:
    """``threads=2`` (``parallel`` as given) against ``threads=1`` at ``seconds``
    a move: its score (wins + draws / 2, share of games), wins, draws, losses."""
    wins = draws = losses = 0
    lines = openings()
    for game in range(games):
        start = GameState.initial()
        for m in lines[(game // 2) % len(lines)]:
            start = start.apply(m)
        two = MCTSAgent(time_limit=seconds, seed=game, threads=2, parallel=parallel, name="threads=2")
        one = MCTSAgent(time_limit=seconds, seed=game, threads=1, name="threads=1")
        black, white = (two, one) if game % 2 == 0 else (one, two)
        result = play_game(black, white, time_limit=None, start=start)
        margin = result.disc_difference if game % 2 == 0 else -result.disc_difference
        wins, draws, losses = wins + (margin > 0), draws + (margin == 0), losses + (margin < 0)
        print(f"  game {game + 1}/{games}: threads=2 {'won' if margin > 0 else 'drew' if margin == 0 else 'lost'} "
              f"by {margin:+d}, load {os.getloadavg()[0]:.1f}", flush=True)  # fmt: skip
    return (wins + draws / 2) / games, wins, draws, losses


def position_name(plies: int) -> str:
    """A table row's position: the start, or after ``plies`` plies of the seeded random game."""
    return "start" if plies == 0 else f"{plies} plies"


def pairs_table(simulations: int, plies: list[int], rounds: int, max_nodes: int = DEFAULT_MAX_NODES) -> None:
    """One thread against two, alternated: each of ``rounds`` rounds searches
    once with one thread, once with two in one tree and once with two
    root-parallel trees, and divides. The median of a position's ratios and
    their range hold up where a shared host's speed drifts from one search to
    the next, which the ratio of two bests of three does not."""
    print(
        f"{'position, 2 threads':<28} {'1 thread sims/s':>16} {'2 threads sims/s':>17}"
        f" {'median ratio':>13} {'range of ' + str(rounds):>16} {'nodes/s ratio':>14}"
    )
    for n in plies:
        moves = random_moves(n)
        speeds: dict[str, list[tuple[float, float, float]]] = {"one": [], "tree": [], "root": []}
        for r in range(rounds):
            speeds["one"].append(threaded(moves, simulations, 1, runs=1, seed=r, max_nodes=max_nodes))
            for how in ("tree", "root"):
                speeds[how].append(threaded(moves, simulations, 2, how, runs=1, seed=r, max_nodes=max_nodes))
        for how in ("tree", "root"):
            pairs = list(zip(speeds["one"], speeds[how], strict=True))
            ratios = [two[0] / one[0] for one, two in pairs]
            node_ratios = [two[1] / one[1] for one, two in pairs]
            print(
                f"{position_name(n) + ', ' + how:<28} {statistics.median(s[0] for s in speeds['one']):>16,.0f}"
                f" {statistics.median(s[0] for s in speeds[how]):>17,.0f} {statistics.median(ratios):>12.2f}x"
                f" {min(ratios):>8.2f}x-{max(ratios):.2f}x {statistics.median(node_ratios):>13.2f}x"
            )


def best_table(simulations: int, plies: list[int], max_nodes: int = DEFAULT_MAX_NODES) -> None:
    """One thread against two from the positions ``plies`` into the seeded
    random game, the best of three searches each: simulations and nodes per
    second, the CPU the process got and the simulations a CPU second."""
    print(
        f"{'position, 2 threads':<28} {'1 thread sims/s':>16} {'2 threads sims/s':>17} {'ratio':>7}"
        f" {'nodes/s 1, 2':>22} {'ratio':>7} {'CPU/wall 1, 2':>14} {'sims/CPU-s 1, 2':>18}"
    )
    for n in plies:
        name, moves = position_name(n), random_moves(n)
        one, nodes_one, share_one = threaded(moves, simulations, 1, max_nodes=max_nodes)
        for how in ("tree", "root"):
            two, nodes_two, share_two = threaded(moves, simulations, 2, how, max_nodes=max_nodes)
            print(
                f"{name + ', ' + how:<28} {one:>16,.0f} {two:>17,.0f} {two / one:>6.2f}x"
                f" {nodes_one:>10,.0f}, {nodes_two:>10,.0f} {nodes_two / nodes_one:>6.2f}x"
                f" {share_one:>8.2f}, {share_two:.2f} {one / share_one:>10,.0f}, {two / share_two:,.0f}"
            )


def threads_table(
    simulations: int,
    plies: list[int],
    match_games: int,
    match_time: float,
    parallel: str,
    pairs: int = 0,
    max_nodes: int = DEFAULT_MAX_NODES,
) -> None:
    """One thread against two from the positions ``plies`` into the seeded
    random game (best of three, or ``pairs`` alternated rounds), then a match
    at equal time."""
    print(f"load average before: {os.getloadavg()}")
    if pairs:
        pairs_table(simulations, plies, pairs, max_nodes)
    else:
        best_table(simulations, plies, max_nodes)
    if match_games:
        print(
            f"equal time: mcts:time={match_time:g},threads=2 (parallel={parallel}) against threads=1,"
            f" {match_games} games"
        )
        score, wins, draws, losses = equal_time_match(match_games, match_time, parallel)
        print(f"threads=2 scored {score:.0%} (+{wins} ={draws} -{losses})")
    print(f"load average after: {os.getloadavg()}")


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
    parser.add_argument(
        "--simulations", type=positive_int, default=200_000, help="our simulations per search (default 200000)"
    )
    parser.add_argument(
        "--openspiel-simulations",
        type=positive_int,
        default=3000,
        help="OpenSpiel's simulations per search (default 3000)",
    )
    parser.add_argument("--threads", action="store_true", help="one thread against two instead of OpenSpiel")
    parser.add_argument(
        "--plies",
        type=int,
        nargs="+",
        default=[0, MIDGAME_PLIES],
        help="with --threads: the positions, plies into a seeded random game "
        f"(0: the start; default 0 {MIDGAME_PLIES})",
    )
    parser.add_argument(
        "--match-games",
        type=bounded_int(0, 10**6),
        default=0,
        help="with --threads: games at equal time (default 0: no match)",
    )
    parser.add_argument(
        "--match-time",
        type=positive_float,
        default=0.5,
        help="with --threads: seconds a move in the match (default 0.5)",
    )
    parser.add_argument(
        "--parallel",
        choices=PARALLEL,
        default="tree",
        help="with --threads: how the match's two threads search (default tree)",
    )
    parser.add_argument(
        "--pairs",
        type=int,
        default=0,
        metavar="N",
        help="with --threads: alternate one thread and two N times a position and print the median ratio "
        "and its range (for a noisy machine; default: the best of three searches each)",
    )
    parser.add_argument(
        "--max-nodes",
        type=int,
        default=DEFAULT_MAX_NODES,
        metavar="N",
        help=f"with --threads: the tree's pool (default {DEFAULT_MAX_NODES:,}, the agent's); a search that fills it "
        "is said on stderr",
    )
    add_record_options(parser)
    args = parser.parse_args()
    check_record_file(parser, args)
    if args.record and args.threads:
        parser.error("--record writes the single-thread table: leave out --threads")
    if args.max_nodes < 130:
        parser.error(f"--max-nodes {args.max_nodes}: give 130 or more (a root and its children for each thread)")
    if args.pairs < 0:
        parser.error(f"--pairs {args.pairs}: give a number of rounds, 1 or more (0: best of three)")
    if not all(0 <= n <= MAX_PLIES for n in args.plies):
        parser.error(f"--plies: each position is 0 to {MAX_PLIES} plies into the game")

    t = time.perf_counter()
    MCTSAgent(simulations=100, seed=0).search(GameState.initial())
    warmup = time.perf_counter() - t

    if args.threads:
        print(f"MCTS benchmark, one thread against two ({os.cpu_count()} cores, Python {sys.version.split()[0]})")
        threads_table(
            args.simulations, args.plies, args.match_games, args.match_time, args.parallel, args.pairs, args.max_nodes
        )
        return
    print(f"MCTS benchmark, single thread ({os.cpu_count()} cores, Python {sys.version.split()[0]})")
    print(f"numba warm-up (first search, compile or cache load): {warmup:.2f} s")
    print(f"{'position':<24} {'ours (UCT) sims/s':>18} {'OpenSpiel C++ sims/s':>22} {'ratio':>9} {'ours default':>14}")
    figures: list[Figure] = []
    for key, name, moves in (
        ("start", "start", []),
        ("midgame", f"midgame ({MIDGAME_PLIES} plies)", random_moves()),
    ):
        mine = ours(moves, args.simulations)
        theirs = openspiel(moves, args.openspiel_simulations)
        default = ours(moves, args.simulations, textbook=False)
        ratio = f"{mine / theirs:8.1f}x" if theirs else "      n/a"
        theirs_text = f"{theirs:>22,.0f}" if theirs else f"{'n/a (no pyspiel)':>22}"
        print(f"{name:<24} {mine:>18,.0f} {theirs_text} {ratio} {default:>14,.0f}")
        uct = rate_figure(f"mcts.uct-{key}", f"MCTS sims/s, textbook UCT, {name}", mine, "OpenSpiel MCTSBot", theirs)
        figures.append(uct)
        figures.append(Figure(f"mcts.default-{key}", f"MCTS sims/s, the default agent, {name}", f"{default:,.0f}"))
    record_if_asked(args, figures)


if __name__ == "__main__":
    main()
