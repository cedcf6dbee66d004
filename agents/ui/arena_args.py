"""The ``reversi arena`` and ``reversi ratings`` options (their commands: ``arena_cli``)."""

from __future__ import annotations

import argparse
from typing import Any

from agents.limits import MAX_GAMES, MAX_OPENING_PLIES, MAX_WORKERS
from agents.ui.options import (
    add_clock_option,
    add_rule_options,
    bounded_int,
    deferred,
    positive_int_at_most,
    seed_int,
)

ARENA_EPILOG = """\
Each pairing plays GAMES games: GAMES/2 distinct openings, each twice with the
colours swapped. Every finished game is appended to --out at once; after a
crash, kill or Ctrl-C, run the same command with --resume (or just
`reversi arena --resume --out FILE`) to play only the missing games.

examples:
  reversi arena mcts:time=0.2 alphabeta:3 greedy random --games 40 --jobs 2 --out results.jsonl
  reversi arena mcts:sims=2000 random greedy positional --gauntlet --games 100
  reversi arena alphabeta:4 gtp:/usr/games/gtp-rhino --backend ray --address auto
"""


def register(subparsers: Any) -> None:
    """Add the ``arena`` and ``ratings`` subcommands to an argparse subparsers object."""
    arena = subparsers.add_parser(
        "arena",
        help="rate agents in a tournament (round-robin or gauntlet), locally or on Ray",
        description="Play a tournament between player specs and rate them (Elo with 95 % intervals).",
        epilog=ARENA_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    arena.add_argument("agents", nargs="*", metavar="SPEC", help="player specs: random, greedy, alphabeta:3, ...")
    arena.add_argument("--gauntlet", action="store_true", help="the first agent plays each other one (no other pairs)")
    arena.add_argument(
        "--games", type=bounded_int(2, MAX_GAMES), default=20, help="games per pairing, even (default 20)"
    )
    arena.add_argument("--openings", metavar="FILE", help="opening transcripts, one per line (default: random ones)")
    arena.add_argument(
        "--opening-plies",
        type=bounded_int(0, MAX_OPENING_PLIES),
        default=4,
        help="plies of a random opening (default 4)",
    )
    arena.add_argument(
        "--seed", type=seed_int, default=0, help="tournament seed: openings and every agent's seed (default 0)"
    )
    add_rule_options(arena)
    add_clock_option(arena)
    arena.add_argument(
        "--jobs", type=positive_int_at_most(MAX_WORKERS), default=None, help="parallel games (default: number of cores)"
    )
    arena.add_argument(
        "--backend", choices=("local", "ray"), default="local", help="process pool (default) or Ray tasks"
    )
    arena.add_argument("--address", help="Ray cluster address (default: start a local instance)")
    arena.add_argument("--out", default="arena.jsonl", help="results file, JSON Lines (default arena.jsonl)")
    arena.add_argument("--resume", action="store_true", help="continue the tournament in --out")
    arena.add_argument("--anchor", help="agent rated 0 Elo (default: random if it plays, else the first)")
    arena.add_argument("--plot", metavar="PNG", help="save a ratings picture (needs the plot extra)")
    arena.add_argument("--json", metavar="FILE", help="save the summary as JSON ('-' for stdout)")
    arena.add_argument("--no-progress", action="store_true", help="no progress bar")
    arena.set_defaults(func=deferred("agents.ui.arena_cli", "run_arena"))

    ratings = subparsers.add_parser(
        "ratings",
        help="the ratings table of one or more arena results files",
        description="Recompute the ratings table from arena results files (JSON Lines).",
    )
    ratings.add_argument("files", nargs="+", metavar="RESULTS", help="results files written by `reversi arena`")
    ratings.add_argument("--anchor", help="agent rated 0 Elo (default: random if it played, else the first)")
    ratings.add_argument("--plot", metavar="PNG", help="save a ratings picture (needs the plot extra)")
    ratings.add_argument("--json", metavar="FILE", help="save the summary as JSON ('-' for stdout)")
    ratings.set_defaults(func=deferred("agents.ui.arena_cli", "run_ratings"))
