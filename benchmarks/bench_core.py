"""Speed of the rules core, side by side with its anchors, in one run.

Prints random playouts per second (one numba call doing many, and one Python
call per playout) next to a hand-written C bitboard (benchmarks/playout.c,
compiled here with gcc if present) and OpenSpiel's othello (with the `bench`
extra); GameState.apply and legal_actions in microseconds; perft(9); and the
cold and warm start of a fresh process (import + first playout).

    python benchmarks/bench_core.py [--games 200000] [--record]

``--record`` writes the figures into docs/benchmarks.md (``record.py``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from record import Figure, add_record_options, check_record_file, rate_figure, record_if_asked, time_figure

from agents.ui.options import bounded_int
from reversi_env import GameState, perft
from reversi_env import bitboard as bb

HERE = Path(__file__).resolve().parent
START_SCRIPT = "import reversi_env.bitboard as b; b.random_playout(b.INITIAL_BLACK, b.INITIAL_WHITE, b.make_rng(1))"


def per_call_us(fn: Callable[[], object], calls: int) -> float:
    """Mean microseconds of ``fn()`` over ``calls`` calls (best of three runs)."""
    best = float("inf")
    for _ in range(3):
        t = time.perf_counter()
        for _ in range(calls):
            fn()
        best = min(best, (time.perf_counter() - t) / calls)
    return best * 1e6


def numba_playouts(games: int) -> tuple[float, float]:
    """(games/s in one call, games/s with one Python call per playout)."""
    p, o = bb.INITIAL_BLACK, bb.INITIAL_WHITE
    rng = bb.make_rng(1)
    bb.random_playouts(p, o, 10, rng)
    t = time.perf_counter()
    bb.random_playouts(p, o, games, rng)
    one_call = games / (time.perf_counter() - t)
    n = games // 2
    t = time.perf_counter()
    for _ in range(n):
        bb.random_playout(p, o, rng)
    per_call = n / (time.perf_counter() - t)
    return one_call, per_call


def c_playouts(games: int) -> float | None:
    """games/s of the hand-written C anchor, or None without a C compiler."""
    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        exe = Path(tmp) / "playout"
        subprocess.run([cc, "-O2", "-march=native", "-o", str(exe), str(HERE / "playout.c")], check=True)
        out = subprocess.run([str(exe), str(games), "1"], check=True, capture_output=True, text=True).stdout.split()
    return int(out[0]) / float(out[1])


def openspiel_playouts(seconds: float = 3.0) -> float | None:
    """games/s of OpenSpiel's othello, random moves in a Python loop, or None."""
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("othello")
    rng = np.random.default_rng(1)
    games = 0
    t = time.perf_counter()
    while time.perf_counter() - t < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
        games += 1
    return games / (time.perf_counter() - t)


def openspiel_apply_us() -> tuple[float, float] | None:
    """(apply_action on a clone, legal_actions) microseconds in OpenSpiel, or None."""
    try:
        import pyspiel
    except ImportError:
        return None
    state = pyspiel.load_game("othello").new_initial_state()
    state.apply_action(state.legal_actions()[0])
    action = state.legal_actions()[0]
    clone_us = per_call_us(state.clone, 20000)
    apply_us = per_call_us(lambda: state.clone().apply_action(action), 20000) - clone_us
    return apply_us, per_call_us(state.legal_actions, 20000)


def start_seconds(cache_dir: str) -> float:
    """Wall seconds of a fresh interpreter importing the package and playing once."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", START_SCRIPT], check=True, env=env)
    return time.perf_counter() - t


def row(name: str, ours: float, unit: str, anchor_name: str = "", anchor: float | None = None) -> str:
    """One printed line: our figure, the anchor's, and how many times faster we are
    (a rate divided by the anchor's rate, or the anchor's time divided by ours)."""
    text = f"{name:<42} {ours:>12,.{3 if unit == 's' else 1}f} {unit:<8}"
    if anchor_name:
        speedup = (ours / anchor if unit.endswith("/s") else anchor / ours) if anchor else None
        text += f" | {anchor_name:<27} " + (f"{anchor:>12,.1f}  {speedup:6.2f}x as fast" if speedup else "n/a")
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--games",
        type=bounded_int(2, 10**9),
        default=200_000,
        help="random games per playout measurement, 2 or more (default 200000)",
    )
    add_record_options(parser)
    args = parser.parse_args()
    check_record_file(parser, args)

    with tempfile.TemporaryDirectory() as cache:
        cold = start_seconds(cache)
        warm = start_seconds(cache)
    one_call, per_call = numba_playouts(args.games)
    c_rate = c_playouts(args.games)
    spiel_rate = openspiel_playouts()

    s = GameState.initial().apply("D3")
    apply_us = per_call_us(lambda: s.apply(18), 100_000)
    legal_us = per_call_us(s.legal_actions, 100_000)
    spiel_us = openspiel_apply_us()

    perft(9)
    t = time.perf_counter()
    leaves = perft(9)
    perft_s = time.perf_counter() - t

    print(f"reversi-env core benchmark ({os.cpu_count()} cores, numba, Python {sys.version.split()[0]})")
    print(row("random games/s, one call (numba)", one_call, "games/s", "hand-written C (gcc -O2)", c_rate))
    print(row("random games/s, one call per playout", per_call, "games/s", "hand-written C (gcc -O2)", c_rate))
    print(row("random games/s, one call (numba)", one_call, "games/s", "OpenSpiel othello (Python)", spiel_rate))
    print(row("GameState.apply", apply_us, "us", "OpenSpiel apply_action", spiel_us[0] if spiel_us else None))
    print(row("GameState.legal_actions", legal_us, "us", "OpenSpiel legal_actions", spiel_us[1] if spiel_us else None))
    print(row(f"perft(9) = {leaves:,}", perft_s, "s"))
    print(row("cold start (import + first playout)", cold, "s"))
    print(row("warm start (import + first playout)", warm, "s"))
    record_if_asked(
        args,
        [
            rate_figure("core.playouts-c", "random games/s, one numba call", one_call, "hand-written C", c_rate),
            rate_figure(
                "core.playouts-per-call-c", "random games/s, a Python call a game", per_call, "hand-written C", c_rate
            ),
            rate_figure(
                "core.playouts-openspiel", "random games/s, one numba call", one_call, "OpenSpiel othello", spiel_rate
            ),
            time_figure(
                "core.apply-openspiel",
                "`GameState.apply`",
                apply_us,
                "OpenSpiel `apply_action`",
                spiel_us[0] if spiel_us else None,
            ),
            time_figure(
                "core.legal-openspiel",
                "`GameState.legal_actions`",
                legal_us,
                "OpenSpiel `legal_actions`",
                spiel_us[1] if spiel_us else None,
            ),
            Figure("core.perft9", f"`perft(9)` = {leaves:,}", f"{perft_s:.3f} s"),
            Figure("core.cold-start", "import + first playout, empty numba cache", f"{cold:.2f} s"),
            Figure("core.warm-start", "import + first playout, warm cache", f"{warm:.2f} s"),
        ],
    )


if __name__ == "__main__":
    main()
