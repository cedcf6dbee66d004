"""The ``reversi train-az`` options (its command: ``alphazero_cli``)."""

from __future__ import annotations

import argparse
from typing import Any

from agents.limits import (
    MAX_BLOCKS,
    MAX_BUFFER,
    MAX_CHANNELS,
    MAX_GAMES,
    MAX_PARALLEL_GAMES,
    MAX_SEARCH_DEPTH,
    MAX_SIMULATIONS,
    MAX_SOLVED_EMPTIES,
    MAX_STEPS,
    MAX_WORKERS,
)
from agents.ui.options import bounded_int, deferred, player_spec, positive_float, positive_int_at_most, seed_int

count = bounded_int(0, MAX_STEPS)
"""An argument type: a count that may be 0 (iterations, steps, positions, simulations)."""

TRAIN_EPILOG = """\
Run the same command again after a kill or Ctrl-C: it resumes from the last
checkpoint in --out (raise --iterations to train further). A resume takes the
run's saved settings for the options it leaves out; it may change
--iterations, --learning-rate, --workers, --parallel-games, --backend,
--address, --device and the --eval options, and is refused if it gives other
settings that differ from the run's. The shipped network and the command that
made it are described in docs/training.md.
"""


def register(sub: Any) -> None:
    """Add the ``train-az`` subcommand to an argparse subparsers object."""
    p = sub.add_parser(
        "train-az",
        help="train a policy-value network by AlphaZero self-play (PUCT search), locally or on Ray",
        description="AlphaZero: self-play with a network-guided search, training, a checkpoint every iteration.",
        epilog=TRAIN_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        argument_default=argparse.SUPPRESS,  # a run's settings left out: the saved run's, else AZConfig's
    )
    p.add_argument("--out", required=True, metavar="DIR", help="run directory (created, or resumed if it holds a run)")
    p.add_argument("--iterations", type=count, help="train up to this iteration (default 10)")
    p.add_argument("--games", type=positive_int_at_most(MAX_GAMES), help="self-play games an iteration (default 32)")
    p.add_argument(
        "--simulations", type=positive_int_at_most(MAX_SIMULATIONS), help="search simulations a move (default 64)"
    )
    p.add_argument(
        "--parallel-games",
        type=positive_int_at_most(MAX_PARALLEL_GAMES),
        help="games a worker plays side by side (default 16)",
    )
    p.add_argument("--gumbel", action="store_true", help="Gumbel root selection in self-play (small budgets)")
    p.add_argument("--workers", type=positive_int_at_most(MAX_WORKERS), help="self-play workers (default 1)")
    p.add_argument("--backend", choices=("local", "ray"), help="worker processes (default) or Ray tasks")
    p.add_argument("--address", help="Ray cluster address (default: start a local Ray)")
    p.add_argument("--train-steps", type=count, help="training steps an iteration (default 200)")
    p.add_argument("--learning-rate", type=positive_float, help="AdamW rate of every training step (default 1e-3)")
    p.add_argument(
        "--buffer", type=positive_int_at_most(MAX_BUFFER), help="replay buffer size in positions (default 100000)"
    )
    p.add_argument("--channels", type=positive_int_at_most(MAX_CHANNELS), help="residual tower width (default 32)")
    p.add_argument("--blocks", type=positive_int_at_most(MAX_BLOCKS), help="residual blocks (default 3)")
    p.add_argument(
        "--warm-start",
        type=count,
        metavar="N",
        help="first learn N alpha-beta-labelled positions (default 0: no warm start)",
    )
    p.add_argument(
        "--warm-depth", type=positive_int_at_most(MAX_SEARCH_DEPTH), help="alpha-beta depth of the labels (default 4)"
    )
    p.add_argument(
        "--warm-exact",
        type=bounded_int(0, MAX_SOLVED_EMPTIES),
        metavar="E",
        help=f"label exactly from E empty squares on, at most {MAX_SOLVED_EMPTIES} (default 14)",
    )
    p.add_argument(
        "--warm-value-mix",
        type=float,
        metavar="W",
        help="value target: W x final result + (1 - W) x the search's value (default 0)",
    )
    p.add_argument(
        "--no-warm-anneal",
        dest="warm_anneal",
        action="store_false",
        help="keep the learning rate constant in the warm start (default: cosine down to 0)",
    )
    p.add_argument("--warm-steps", type=count, help="training steps on the warm-start data (default 2000)")
    p.add_argument(
        "--eval-games",
        type=bounded_int(0, MAX_GAMES),
        help="games per evaluation match, even; 0 = no evaluation (default 20)",
    )
    p.add_argument(
        "--eval-sims",
        type=bounded_int(0, MAX_SIMULATIONS),
        help="simulations a move in evaluation (default 0: the raw policy)",
    )
    p.add_argument(
        "--eval-against", type=player_spec, nargs="*", metavar="SPEC", help="ladder opponents (default greedy)"
    )
    p.add_argument("--device", help="torch device for the network: cpu, cuda, cuda:1 (default cpu)")
    p.add_argument("--seed", type=seed_int, help="seed of the whole run (default 0)")
    p.add_argument("--no-progress", action="store_true", default=False, help="no progress bars (logs, CI)")
    p.set_defaults(func=deferred("agents.ui.alphazero_cli", "run_train_az"))
