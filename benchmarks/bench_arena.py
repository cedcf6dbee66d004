"""Arena throughput, side by side with its anchor, in one run.

The anchor is a plain loop of ``play_game`` over the same scheduled games in
this process: the games' own cost. Next to it, the arena with ``--jobs 1``
(what the results file, fsync and the ratings cost on top), the local process
pool with ``--jobs N``, and Ray tasks on a local instance (with the ``ray``
extra). Each line prints games per second and the ratio to the anchor.

    python benchmarks/bench_arena.py [--games 10] [--jobs 2] [--agents random alphabeta:3 alphabeta:4 mcts:sims=2000]

``--record`` writes the figures into docs/benchmarks.md (``record.py``).
Worker processes are spawned (a fresh interpreter each, importing numba: a few
seconds once per run), so very cheap games run faster with ``--jobs 1``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from record import Figure, add_record_options, check_record_file, record_if_asked
from tqdm import tqdm

from agents.arena.ratings import Ratings
from agents.arena.tournament import Opening, Tournament, build_agent, check_specs, run_tournament
from agents.play.match import play_game
from agents.ui.options import even_int, positive_int


def timed(label: str, games: int, fn: Callable[[tqdm], object]) -> float:
    """Wall-clock seconds of ``fn(bar)``, which plays ``games`` games and moves ``bar`` (on stderr) a game at a time."""
    with tqdm(total=games, desc=label, unit="game", leave=False, file=sys.stderr) as bar:
        t = time.perf_counter()
        fn(bar)
        return time.perf_counter() - t


def arena(t: Tournament, out: Path, jobs: int | None = None, backend: str = "local") -> Callable[[tqdm], object]:
    """``run_tournament`` of ``t`` into ``out`` as ``timed`` calls it, the bar following the games done."""

    def run(bar: tqdm) -> object:
        def progress(done: int, _total: int, _table: Ratings) -> None:
            bar.update(done - bar.n)

        return run_tournament(t, out, jobs=jobs, backend=backend, progress=progress)

    return run


def main() -> None:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=even_int(2), default=10, help="games per pairing, even (default 10)")
    parser.add_argument("--jobs", type=positive_int, default=2, help="worker processes of the pool and Ray (default 2)")
    parser.add_argument(
        "--agents",
        nargs="+",
        default=["random", "alphabeta:3", "alphabeta:4", "mcts:sims=2000"],
        metavar="SPEC",
        help="the players (default random alphabeta:3 alphabeta:4 mcts:sims=2000)",
    )
    parser.add_argument(
        "--no-ray", action="store_true", help="skip the Ray line (default: run it when ray is installed)"
    )
    add_record_options(parser)
    args = parser.parse_args()
    check_record_file(parser, args)
    try:
        t = Tournament.create(args.agents, games=args.games, seed=1)
        check_specs(args.agents)  # a spec that cannot be built fails before any game
    except ValueError as e:
        parser.error(f"--agents: {str(e).splitlines()[0]}")
    schedule = t.schedule()
    n = len(schedule)

    def anchor(bar: tqdm) -> None:
        for g in schedule:
            black, white = (
                build_agent(g.black, 0, g.agent_seed("black")),
                build_agent(g.white, 1, g.agent_seed("white")),
            )
            play_game(black, white, start=Opening.parse(g.opening).state())
            bar.update(1)

    # Warm the numba caches so no line pays for compilation.
    with tempfile.TemporaryDirectory() as tmp:
        run_tournament(Tournament.create(args.agents, games=2, seed=2), Path(tmp) / "warm.jsonl", jobs=1)
        label = "play_game loop (anchor)"
        rows = [("", label, timed(label, n, anchor))]
        label = "arena --jobs 1"
        rows.append(("arena.jobs-1", label, timed(label, n, arena(t, Path(tmp) / "j1.jsonl", jobs=1))))
        label = f"arena --jobs {args.jobs} (process pool)"
        rows.append(("arena.pool", label, timed(label, n, arena(t, Path(tmp) / "jn.jsonl", jobs=args.jobs))))
        if not args.no_ray:
            try:
                import ray
            except ImportError:
                pass  # no ray extra: no Ray line
            else:
                start = time.perf_counter()
                ray.init(num_cpus=args.jobs, include_dashboard=False, log_to_driver=False)
                startup = time.perf_counter() - start
                label = f"arena --backend ray, {args.jobs} CPUs"
                rows.append(("arena.ray", label, timed(label, n, arena(t, Path(tmp) / "ray.jsonl", backend="ray"))))
                ray.shutdown()
                print(f"(Ray local instance start-up: {startup:.1f} s, not counted)")
    base = rows[0][2]
    print(f"{n} games: {', '.join(args.agents)}; {args.games} per pairing")
    print(f"{'':40s} {'seconds':>8s} {'games/s':>8s} {'vs anchor':>10s}")
    for _, label, seconds in rows:
        print(f"{label:40s} {seconds:8.2f} {n / seconds:8.1f} {base / seconds:9.2f}x")
    anchor_text = f"a `play_game` loop: {n / base:.2f}"
    figures = [
        Figure(key, f"games/s, {label}", f"{n / seconds:.2f}", anchor_text, f"{base / seconds:.2f}x")
        for key, label, seconds in rows[1:]
    ]
    record_if_asked(args, figures)


if __name__ == "__main__":
    main()
