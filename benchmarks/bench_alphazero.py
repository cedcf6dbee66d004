"""The shipped AlphaZero network: search speed and strength, next to the targets.

Speed: network-guided PUCT simulations a second (single-threaded torch) from the
start and from a midgame position, one search alone and 8 searches side by side
(as a self-play worker runs them), and the share of the time the search itself
takes (everything but the evaluator's calls).
Strength: arena games with random 2-ply openings (``--opening-plies``), each played twice with the
colours swapped: the raw policy (``alphazero:sims=0``) against greedy and
``alphazero:sims=200`` against ``alphabeta:3``, scores with 95 % Wilson intervals.
Every figure sits beside its target and the ratio figure / target: 1 or more
meets a speed or score target, 1 or less the own-share one (at most 10 %).
``--record`` writes the figures into docs/benchmarks.md (``record.py``).

    python benchmarks/bench_alphazero.py [--net PATH] [--games 20] [--opening-plies 2]
        [--simulations 2000] [--batch 64]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch
from record import Figure, add_record_options, check_record_file, record_if_asked
from tqdm import tqdm

from agents.arena.tournament import Tournament, random_openings, run_tournament
from agents.learn.alphazero_agent import network_evaluator
from agents.learn.network import SHIPPED_NETWORK, NetworkEvaluator
from agents.search.puct import PUCTConfig, PUCTTree, run_searches
from agents.ui.options import even_int, positive_int, seed_int
from reversi_env import GameState

TARGET_SIMS = 5000.0
TARGET_OVERHEAD = 0.10
TARGETS = {"greedy": 0.90, "alphabeta:3": 0.75}


class TimedEvaluator:
    """Counts the seconds spent inside the network's evaluate calls."""

    def __init__(self, inner: NetworkEvaluator) -> None:
        self.inner = inner
        self.seconds = 0.0
        self.positions = 0

    def evaluate(self, mover: np.ndarray, opponent: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        start = time.perf_counter()
        out = self.inner.evaluate(mover, opponent)
        self.seconds += time.perf_counter() - start
        self.positions += len(mover)
        return out


def midgame(plies: int = 20, seed: int = 0) -> GameState:
    rng = np.random.default_rng(seed)
    state = GameState.initial()
    for _ in range(plies):
        state = state.apply(int(rng.choice(state.legal_actions())))
    return state


def speed(net: str, state: GameState, simulations: int, batch: int, trees: int) -> tuple[float, float]:
    """Best of three: (simulations a second, the search's own share of the time)."""
    best = (0.0, 1.0)
    for run in range(3):
        timed = TimedEvaluator(network_evaluator(net))
        config = PUCTConfig(simulations=simulations, batch_size=batch)
        searches = [PUCTTree(*state.kernel_boards(), config, np.random.default_rng(run + i)) for i in range(trees)]
        start = time.perf_counter()
        run_searches(searches, timed)
        seconds = time.perf_counter() - start
        rate = sum(t.simulations for t in searches) / seconds
        if rate > best[0]:
            best = (rate, 1.0 - timed.seconds / seconds)
    return best


def strength(me: str, opponent: str, games: int, plies: int, seed: int) -> tuple[float, float, float]:
    """``me``'s score against ``opponent`` in ``games`` arena games, with its 95 % interval; a bar on stderr."""
    tournament = Tournament.create([me, opponent], games=games, opening_plies=plies, seed=seed, time_limit=None)
    label = f"{me.split(',')[0]} vs {opponent}"
    with (
        tempfile.TemporaryDirectory() as tmp,
        tqdm(total=games, desc=label, unit="game", leave=False, file=sys.stderr) as bar,
    ):
        table = run_tournament(
            tournament,
            Path(tmp) / "games.jsonl",
            jobs=1,
            progress=lambda done, _total, _table: bar.update(done - bar.n),
        )
    stats = table.by_name(me)
    return stats.score, *stats.score_interval


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--net", default=str(SHIPPED_NETWORK), help="network file (default: the shipped one)")
    parser.add_argument("--games", type=even_int(2), default=20, help="games per match, even (default 20)")
    parser.add_argument(
        "--simulations", type=positive_int, default=2000, help="simulations a search in the speed test (default 2000)"
    )
    parser.add_argument(
        "--batch", type=positive_int, default=64, help="leaves a tree gathers per network call (default 64)"
    )
    parser.add_argument(
        "--opening-plies", type=int, default=2, help="random plies of an opening (default 2: 12 distinct)"
    )
    parser.add_argument(
        "--seed", type=seed_int, default=0, help="seed of the matches' openings and players (default 0)"
    )
    parser.add_argument("--skip-strength", action="store_true", help="measure the search speed only, no matches")
    add_record_options(parser)
    args = parser.parse_args()
    check_record_file(parser, args)
    if not args.skip_strength:
        try:
            random_openings(args.games // 2, args.opening_plies, args.seed)
        except ValueError as e:
            parser.error(f"--opening-plies {args.opening_plies}: {e}")
    torch.set_num_threads(1)
    try:
        evaluator = network_evaluator(args.net)
    except (OSError, ValueError) as e:
        parser.error(f"--net: {str(e).splitlines()[0]}")
    evaluator.evaluate(*(np.array([b]) for b in GameState.initial().kernel_boards()))  # warm up

    print(f"network {args.net}; torch threads 1; batch {args.batch} leaves a tree; {load()}")
    print(f"{'search':<28}{'sims/s':>10}{'target':>9}{'ratio':>7}{'own share':>11}{'target':>8}{'ratio':>7}")
    figures: list[Figure] = []
    for label, state in (("start", GameState.initial()), ("midgame (20 plies)", midgame())):
        for trees in (1, 8):
            rate, overhead = speed(args.net, state, args.simulations, args.batch, trees)
            name = f"{label}, {trees} tree{'s' if trees > 1 else ''}"
            print(
                f"{name:<28}{rate:>10,.0f}{TARGET_SIMS:>9,.0f}{rate / TARGET_SIMS:>7.2f}"
                f"{overhead:>10.1%}{TARGET_OVERHEAD:>8.0%}{overhead / TARGET_OVERHEAD:>7.2f}"
            )
            key = f"alphazero.sims-{label.split()[0]}-{trees}"
            measure = f"AlphaZero PUCT sims/s, {name} (search's own share {overhead:.1%})"
            target = f"target: {TARGET_SIMS:,.0f}"
            figures.append(Figure(key, measure, f"{rate:,.0f}", target, f"{rate / TARGET_SIMS:.2f}x"))
    if args.skip_strength:
        record_if_asked(args, figures)
        return
    games = f"{args.games} games, {args.opening_plies}-ply openings"
    print(f"\n{'match':<36}{'score':>7}{'95 % interval':>17}{'target':>8}{'ratio':>7}  ({games})")
    net = f"net={args.net}"
    for me, opponent in ((f"alphazero:sims=0,{net}", "greedy"), (f"alphazero:sims=200,{net}", "alphabeta:3")):
        line, figure = match(me, opponent, args.games, args.opening_plies, args.seed)
        print(line)
        figures.append(figure)
    print(load())
    record_if_asked(args, figures)


def match_row(me: str, opponent: str, games: int, plies: int, seed: int) -> str:
    """One row of the match table: ``me``'s score against ``opponent`` (``strength``), its
    interval, the target, the ratio score / target and the match's seconds."""
    return match(me, opponent, games, plies, seed)[0]


def match(me: str, opponent: str, games: int, plies: int, seed: int) -> tuple[str, Figure]:
    """``match_row``'s line and the same match as a row of the benchmarks page."""
    start = time.perf_counter()
    score, low, high = strength(me, opponent, games, plies, seed)
    label = f"{me.split(',')[0]} vs {opponent}"
    elapsed = time.perf_counter() - start
    target = TARGETS[opponent]
    line = f"{label:<36}{score:>7.2f}   [{low:.2f}, {high:.2f}]{target:>9.2f}{score / target:>7.2f}  ({elapsed:.0f} s)"
    key = f"alphazero.{me.split(',')[0].split(':')[1]}-vs-{opponent}".replace(":", "")
    figure = Figure(
        key,
        f"score of {label}, {games} games, {plies}-ply openings",
        f"{score:.2f} [{low:.2f}, {high:.2f}]",
        f"target: {target:.2f}",
        f"{score / target:.2f}x",
    )
    return line, figure


def load() -> str:
    """The machine's load averages (the cores are shared: figures depend on them)."""
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.1f} / {five:.1f} / {fifteen:.1f} on {os.cpu_count()} cores"


if __name__ == "__main__":
    main()
